/* GU buffers and screen: draw/display/depth buffers, buffer swaps, VRAM allocation,
   offset, viewport, scissor, depth range and clearing. */
#include "gu_internal.h"

#define SETBUF_NEXT_VSYNC 1   /* sceDisplaySetFrameBuf: show from the next vblank */
#define DISPLAY_MODE_LCD 0

void sceGuDrawBuffer(int psm, void *fbp, int fbw)
{
    gu.psm = psm;
    gu.frame_width = fbw;
    gu.frame_buffer = fbp;
    if (!gu.depth_buffer && gu.height)   /* default: right after a 32-bit frame buffer */
        gu.depth_buffer = (void *)((u32)fbp + (u32)((gu.height * fbw) << 2));
    if (!gu.depth_width)
        gu.depth_width = fbw;
    gu_cmd(GE_FRAMEBUFPIXFORMAT, psm);
    gu_cmd(GE_FRAMEBUFPTR, (u32)fbp);
    gu_cmd(GE_FRAMEBUFWIDTH, gu_high_bits(fbp) | fbw);
    gu_cmd(GE_ZBUFPTR, (u32)gu.depth_buffer);
    gu_cmd(GE_ZBUFWIDTH, gu_high_bits(gu.depth_buffer) | gu.depth_width);
}

/* Draw into another buffer without changing what sceGuSwapBuffers swaps. */
void sceGuDrawBufferList(int psm, void *fbp, int fbw)
{
    gu_cmd(GE_FRAMEBUFPIXFORMAT, psm);
    gu_cmd(GE_FRAMEBUFPTR, (u32)fbp);
    gu_cmd(GE_FRAMEBUFWIDTH, gu_high_bits(fbp) | fbw);
}

void sceGuDepthBuffer(void *zbp, int zbw)
{
    gu_cmd(GE_ZBUFPTR, (u32)zbp);
    gu_cmd(GE_ZBUFWIDTH, gu_high_bits(zbp) | zbw);
    gu.depth_buffer = zbp;
    gu.depth_width = zbw;
}

static void show(void *buffer, int behaviour)
{
    sceDisplaySetFrameBuf((void *)((u32)gu.edram + (u32)buffer), gu.frame_width, gu.psm, behaviour);
}

void sceGuDispBuffer(int width, int height, void *dispbp, int dispbw)
{
    gu.width = width;
    gu.height = height;
    gu.disp_buffer = dispbp;
    gu.frame_width = dispbw;
    sceDisplaySetMode(DISPLAY_MODE_LCD, width, height);
    if (gu.display_on)
        show(dispbp, SETBUF_NEXT_VSYNC);
}

int sceGuDisplay(int state)
{
    if (state)
        show(gu.disp_buffer, SETBUF_NEXT_VSYNC);
    else
        sceDisplaySetFrameBuf(NULL, 0, 0, SETBUF_NEXT_VSYNC);
    gu.display_on = state;
    return state;
}

int guGetDisplayState(void)
{
    return gu.display_on;
}

/* The buffer just drawn is shown and the shown one becomes the draw buffer (or what
   guSwapBuffersCallback decides); returns the new draw buffer. The next sceGuStart
   points the GE at it. */
void *sceGuSwapBuffers(void)
{
    if (gu.swap_callback) {
        gu.swap_callback(&gu.disp_buffer, &gu.frame_buffer);
    } else {
        void *shown = gu.disp_buffer;
        gu.disp_buffer = gu.frame_buffer;
        gu.frame_buffer = shown;
    }
    if (gu.display_on)
        show(gu.disp_buffer, gu.swap_behaviour);
    return gu.frame_buffer;
}

void guSwapBuffersBehaviour(int behaviour)
{
    gu.swap_behaviour = behaviour;
}

void guSwapBuffersCallback(GuSwapBuffersCallback callback)
{
    gu.swap_callback = callback;
}

/* --- VRAM, handed out from its start, 16-byte aligned, never freed --- */
static u32 vram_used;

static u32 image_bytes(unsigned int width, unsigned int height, unsigned int psm)
{
    switch (psm) {
    case GU_PSM_T4: return (width * height) >> 1;
    case GU_PSM_T8: return width * height;
    case GU_PSM_5650: case GU_PSM_5551: case GU_PSM_4444: case GU_PSM_T16: return 2 * width * height;
    case GU_PSM_8888: case GU_PSM_T32: return 4 * width * height;
    default: return 0;
    }
}

/* A buffer's offset in VRAM (what sceGuDrawBuffer and friends take). */
void *guGetStaticVramBuffer(unsigned int width, unsigned int height, unsigned int psm)
{
    vram_used = (vram_used + 15) & ~15u;
    void *offset = (void *)vram_used;
    vram_used += image_bytes(width, height, psm);
    return offset;
}

/* A texture's address (VRAM start + offset). */
void *guGetStaticVramTexture(unsigned int width, unsigned int height, unsigned int psm)
{
    return (void *)((u32)guGetStaticVramBuffer(width, height, psm) + (u32)sceGeEdramGetAddr());
}

/* --- where drawing lands --- */
void sceGuOffset(unsigned int x, unsigned int y)
{
    gu_cmd(GE_OFFSETX, x << 4);   /* 1/16 pixel units */
    gu_cmd(GE_OFFSETY, y << 4);
}

void sceGuViewport(int cx, int cy, int width, int height)
{
    gu_cmdf(GE_VIEWPORTXSCALE, (float)width * 0.5f);
    gu_cmdf(GE_VIEWPORTYSCALE, (float)height * -0.5f);
    gu_cmdf(GE_VIEWPORTXCENTER, (float)cx);
    gu_cmdf(GE_VIEWPORTYCENTER, (float)cy);
}

/* The scissor rectangle and drawing region, from inclusive corners. */
void gu_send_scissor(int x0, int y0, int x1, int y1)
{
    u32 end = ((u32)y1 << 10) | (u32)x1;
    gu_cmd(GE_SCISSOR1, ((u32)y0 << 10) | (u32)x0);
    gu_cmd(GE_SCISSOR2, end);
    gu_cmd(GE_REGION1, 0);
    gu_cmd(GE_REGION2, end);
}

void sceGuScissor(int x, int y, int w, int h)
{
    GuContext *c = &gu.contexts[gu.context];
    c->scissor_x0 = x;
    c->scissor_y0 = y;
    c->scissor_x1 = x + w - 1;
    c->scissor_y1 = y + h - 1;
    if (c->scissor_on)
        gu_send_scissor(c->scissor_x0, c->scissor_y0, c->scissor_x1, c->scissor_y1);
}

/* Depth from the viewport: near and far map to the given 16-bit depths (65535, 0 is
   the usual: the depth buffer holds larger values nearer). */
void sceGuDepthRange(int near, int far)
{
    GuContext *c = &gu.contexts[gu.context];
    u32 sum = (u32)near + (u32)far;
    int middle = (int)((sum >> 31) + sum) >> 1;   /* halved, rounding towards zero */
    c->near_plane = near;
    c->far_plane = far;
    gu_cmdf(GE_VIEWPORTZSCALE, (float)middle - (float)near);
    gu_cmdf(GE_VIEWPORTZCENTER, (float)middle + (float)c->depth_offset);
    gu_cmd(GE_MINZ, near < far ? near : far);
    gu_cmd(GE_MAXZ, near < far ? far : near);
}

void sceGuDepthOffset(unsigned int offset)
{
    GuContext *c = &gu.contexts[gu.context];
    c->depth_offset = (int)offset;
    sceGuDepthRange(c->near_plane, c->far_plane);
}

/* --- clearing --- */
void sceGuClearColor(unsigned int color)
{
    gu.contexts[gu.context].clear_color = color;
}

void sceGuClearDepth(unsigned int depth)
{
    gu.contexts[gu.context].clear_depth = depth;
}

void sceGuClearStencil(unsigned int stencil)
{
    gu.contexts[gu.context].clear_stencil = stencil;
}

struct ClearVertex {
    u32 color;
    u16 x, y, z, pad;
};

/* The clear colour with the stencil value where the draw buffer keeps stencil (its
   alpha bits). */
static u32 clear_pixel(const GuContext *c)
{
    u32 rgb = c->clear_color & 0xFFFFFF;
    switch (gu.psm) {
    case GU_PSM_5650: return rgb;
    case GU_PSM_5551: return rgb | (c->clear_stencil << 31);
    case GU_PSM_4444: return rgb | (c->clear_stencil << 28);
    case GU_PSM_8888: return rgb | (c->clear_stencil << 24);
    default: return 0;
    }
}

/* Clears the buffers named by flags with sprites in the GE's clear mode: one covering
   the screen, or with GU_FAST_CLEAR_BIT strips 32 (8888) or 64 pixels wide. */
void sceGuClear(int flags)
{
    const GuContext *c = &gu.contexts[gu.context];
    u32 pixel = clear_pixel(c);
    int strip = gu.psm == GU_PSM_8888 ? 32 : 64;
    int count = (flags & GU_FAST_CLEAR_BIT) ? ((gu.width + strip - 1) / strip) * 2 : 2;
    struct ClearVertex *v = sceGuGetMemory(count * (int)sizeof(struct ClearVertex));
    for (int i = 0; i < count; i++) {
        int corner = i & 1;   /* sprites are corner pairs: top-left, bottom-right */
        v[i].color = pixel;
        v[i].x = (flags & GU_FAST_CLEAR_BIT) ? ((i >> 1) + corner) * strip : corner * gu.width;
        v[i].y = corner * gu.height;
        v[i].z = c->clear_depth;
        v[i].pad = 0;
    }
    gu_cmd(GE_CLEARMODE, ((flags & (GU_COLOR_BUFFER_BIT | GU_STENCIL_BUFFER_BIT | GU_DEPTH_BUFFER_BIT)) << 8) | 1);
    sceGuDrawArray(GU_SPRITES, GU_COLOR_8888 | GU_VERTEX_16BIT | GU_TRANSFORM_2D, count, NULL, v);
    gu_cmd(GE_CLEARMODE, 0);
}
