/* GU states (sceGuEnable...) and the per-pixel operations they switch: depth, alpha,
   colour and stencil tests, blending, logic ops, masks, dithering, fog, shading. */
#include "gu_internal.h"

/* The enable command of each GU_* state that has one (0: handled specially). */
static const unsigned char enable_command[GU_MAX_STATUS] = {
    [GU_ALPHA_TEST] = GE_ALPHATESTENABLE,
    [GU_DEPTH_TEST] = GE_ZTESTENABLE,
    [GU_STENCIL_TEST] = GE_STENCILTESTENABLE,
    [GU_BLEND] = GE_ALPHABLENDENABLE,
    [GU_CULL_FACE] = GE_CULLFACEENABLE,
    [GU_DITHER] = GE_DITHERENABLE,
    [GU_FOG] = GE_FOGENABLE,
    [GU_CLIP_PLANES] = GE_DEPTHCLIPENABLE,
    [GU_TEXTURE_2D] = GE_TEXTUREMAPENABLE,
    [GU_LIGHTING] = GE_LIGHTINGENABLE,
    [GU_LIGHT0] = GE_LIGHTENABLE0,
    [GU_LIGHT1] = GE_LIGHTENABLE0 + 1,
    [GU_LIGHT2] = GE_LIGHTENABLE0 + 2,
    [GU_LIGHT3] = GE_LIGHTENABLE0 + 3,
    [GU_LINE_SMOOTH] = GE_ANTIALIASENABLE,
    [GU_PATCH_CULL_FACE] = GE_PATCHCULLENABLE,
    [GU_COLOR_TEST] = GE_COLORTESTENABLE,
    [GU_COLOR_LOGIC_OP] = GE_LOGICOPENABLE,
    [GU_FACE_NORMAL_REVERSE] = GE_REVERSENORMAL,
    [GU_PATCH_FACE] = GE_PATCHFACING,
};

static void set_state(int state, int on)
{
    GuContext *c = &gu.contexts[gu.context];
    if (state == GU_SCISSOR_TEST) {
        c->scissor_on = on;
        if (on)
            gu_send_scissor(c->scissor_x0, c->scissor_y0, c->scissor_x1, c->scissor_y1);
        else   /* the whole draw buffer */
            gu_send_scissor(0, 0, gu.width - 1, gu.height - 1);
    } else if (state == GU_FRAGMENT_2X) {   /* colour doubling is a bit of TEXFUNC */
        c->fragment_2x = on ? 0x10000 : 0;
        gu_cmd(GE_TEXFUNC, c->fragment_2x | c->tex_func);
    } else if (state >= 0 && state < GU_MAX_STATUS) {
        gu_cmd(enable_command[state], on);
    }
    if (state >= 0 && state < GU_MAX_STATUS) {
        if (on)
            gu.states |= 1u << state;
        else
            gu.states &= ~(1u << state);
    }
}

void sceGuEnable(int state)
{
    set_state(state, 1);
}

void sceGuDisable(int state)
{
    set_state(state, 0);
}

void sceGuSetStatus(int state, int status)
{
    set_state(state, status != 0);
}

int sceGuGetStatus(int state)
{
    return state >= 0 && state < GU_MAX_STATUS ? (int)((gu.states >> state) & 1) : 0;
}

void sceGuSetAllStatus(int status)
{
    for (int state = 0; state < GU_MAX_STATUS; state++)
        set_state(state, (status >> state) & 1);
}

int sceGuGetAllStatus(void)
{
    return (int)gu.states;
}

/* --- tests --- */
void sceGuDepthFunc(int function)
{
    gu_cmd(GE_ZTEST, function);
}

/* mask: GU_TRUE stops depth writes. */
void sceGuDepthMask(int mask)
{
    gu_cmd(GE_ZWRITEDISABLE, mask);
}

void sceGuAlphaFunc(int func, int value, int mask)
{
    gu_cmd(GE_ALPHATEST, func | ((value & 0xFF) << 8) | ((mask & 0xFF) << 16));
}

void sceGuColorFunc(int func, unsigned int color, unsigned int mask)
{
    gu_cmd(GE_COLORTEST, func & 3);
    gu_cmd(GE_COLORREF, color);
    gu_cmd(GE_COLORTESTMASK, mask);
}

void sceGuStencilFunc(int func, int ref, int mask)
{
    gu_cmd(GE_STENCILTEST, func | ((ref & 0xFF) << 8) | ((mask & 0xFF) << 16));
}

void sceGuStencilOp(int fail, int zfail, int zpass)
{
    gu_cmd(GE_STENCILOP, fail | (zfail << 8) | (zpass << 16));
}

/* --- writing pixels --- */
void sceGuBlendFunc(int op, int src, int dest, unsigned int srcfix, unsigned int destfix)
{
    gu_cmd(GE_BLENDMODE, src | (dest << 4) | (op << 8));
    gu_cmd(GE_BLENDFIXEDA, srcfix);
    gu_cmd(GE_BLENDFIXEDB, destfix);
}

void sceGuLogicalOp(int op)
{
    gu_cmd(GE_LOGICOP, op & 0xF);
}

/* Bits set in mask (0xAABBGGRR) are left unchanged by drawing. */
void sceGuPixelMask(unsigned int mask)
{
    gu_cmd(GE_MASKRGB, mask);
    gu_cmd(GE_MASKALPHA, mask >> 24);
}

/* Four rows of four signed 4-bit values added before colours are cut to 16 bits. */
void sceGuSetDither(const ScePspIMatrix4 *matrix)
{
    const ScePspIVector4 *rows[4] = {&matrix->x, &matrix->y, &matrix->z, &matrix->w};
    for (int y = 0; y < 4; y++) {
        const ScePspIVector4 *r = rows[y];
        gu_cmd(GE_DITH0 + y, (r->x & 0xF) | ((r->y & 0xF) << 4) | ((r->z & 0xF) << 8) | ((r->w & 0xF) << 12));
    }
}

/* Fog from 0 at `near` to full at `far` (view-space distances). */
void sceGuFog(float near, float far, unsigned int color)
{
    float distance = far - near;
    gu_cmd(GE_FOGCOLOR, color);
    gu_cmdf(GE_FOG1, far);
    gu_cmdf(GE_FOG2, distance != 0.0f ? 1.0f / distance : 0.0f);
}

/* --- shading and culling --- */
void sceGuShadeModel(int mode)
{
    gu_cmd(GE_SHADEMODE, mode);
}

/* CULL's argument is the opposite of GU's order value (GU_CW 0 -> 1). */
void sceGuFrontFace(int order)
{
    gu_cmd(GE_CULL, order ? 0 : 1);
}
