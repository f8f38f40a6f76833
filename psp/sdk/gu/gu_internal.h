/* What the GU library's files share: the GE command numbers, the library's state and
   the two ways of appending a command word to the current display list. */
#ifndef GU_INTERNAL_H
#define GU_INTERNAL_H

#include "pspgu.h"

/* GE opcodes, named as allegrex/ge/regs.py names them (tests/sdk/test_gu.py checks
   that every number here is the one there). A command word is op << 24 | argument. */
enum GeOpcode {
    GE_NOP = 0x00, GE_VADDR = 0x01, GE_IADDR = 0x02, GE_PRIM = 0x04, GE_BEZIER = 0x05, GE_SPLINE = 0x06,
    GE_BOUNDINGBOX = 0x07, GE_JUMP = 0x08, GE_BJUMP = 0x09, GE_CALL = 0x0A, GE_RET = 0x0B, GE_END = 0x0C,
    GE_SIGNAL = 0x0E, GE_FINISH = 0x0F, GE_BASE = 0x10, GE_VERTEXTYPE = 0x12, GE_OFFSETADDR = 0x13,
    GE_REGION1 = 0x15, GE_REGION2 = 0x16,
    GE_LIGHTINGENABLE = 0x17, GE_LIGHTENABLE0 = 0x18, GE_DEPTHCLIPENABLE = 0x1C, GE_CULLFACEENABLE = 0x1D,
    GE_TEXTUREMAPENABLE = 0x1E, GE_FOGENABLE = 0x1F, GE_DITHERENABLE = 0x20, GE_ALPHABLENDENABLE = 0x21,
    GE_ALPHATESTENABLE = 0x22, GE_ZTESTENABLE = 0x23, GE_STENCILTESTENABLE = 0x24, GE_ANTIALIASENABLE = 0x25,
    GE_PATCHCULLENABLE = 0x26, GE_COLORTESTENABLE = 0x27, GE_LOGICOPENABLE = 0x28,
    GE_BONEMATRIXNUMBER = 0x2A, GE_BONEMATRIXDATA = 0x2B, GE_MORPHWEIGHT0 = 0x2C,
    GE_PATCHDIVISION = 0x36, GE_PATCHPRIMITIVE = 0x37, GE_PATCHFACING = 0x38,
    GE_WORLDMATRIXNUMBER = 0x3A, GE_WORLDMATRIXDATA = 0x3B, GE_VIEWMATRIXNUMBER = 0x3C,
    GE_VIEWMATRIXDATA = 0x3D, GE_PROJMATRIXNUMBER = 0x3E, GE_PROJMATRIXDATA = 0x3F,
    GE_TGENMATRIXNUMBER = 0x40, GE_TGENMATRIXDATA = 0x41,
    GE_VIEWPORTXSCALE = 0x42, GE_VIEWPORTYSCALE = 0x43, GE_VIEWPORTZSCALE = 0x44,
    GE_VIEWPORTXCENTER = 0x45, GE_VIEWPORTYCENTER = 0x46, GE_VIEWPORTZCENTER = 0x47,
    GE_TEXSCALEU = 0x48, GE_TEXSCALEV = 0x49, GE_TEXOFFSETU = 0x4A, GE_TEXOFFSETV = 0x4B,
    GE_OFFSETX = 0x4C, GE_OFFSETY = 0x4D,
    GE_SHADEMODE = 0x50, GE_REVERSENORMAL = 0x51, GE_MATERIALUPDATE = 0x53, GE_MATERIALEMISSIVE = 0x54,
    GE_MATERIALAMBIENT = 0x55, GE_MATERIALDIFFUSE = 0x56, GE_MATERIALSPECULAR = 0x57, GE_MATERIALALPHA = 0x58,
    GE_MATERIALSPECULARCOEF = 0x5B, GE_AMBIENTCOLOR = 0x5C, GE_AMBIENTALPHA = 0x5D, GE_LIGHTMODE = 0x5E,
    GE_LIGHTTYPE0 = 0x5F, GE_LX0 = 0x63, GE_LDX0 = 0x6F, GE_LKA0 = 0x7B, GE_LKS0 = 0x87, GE_LKO0 = 0x8B,
    GE_LAC0 = 0x8F, GE_CULL = 0x9B,
    GE_FRAMEBUFPTR = 0x9C, GE_FRAMEBUFWIDTH = 0x9D, GE_ZBUFPTR = 0x9E, GE_ZBUFWIDTH = 0x9F,
    GE_TEXADDR0 = 0xA0, GE_TEXBUFWIDTH0 = 0xA8, GE_CLUTADDR = 0xB0, GE_CLUTADDRUPPER = 0xB1,
    GE_TRANSFERSRC = 0xB2, GE_TRANSFERSRCW = 0xB3, GE_TRANSFERDST = 0xB4, GE_TRANSFERDSTW = 0xB5,
    GE_TEXSIZE0 = 0xB8, GE_TEXMAPMODE = 0xC0, GE_TEXSHADELS = 0xC1, GE_TEXMODE = 0xC2, GE_TEXFORMAT = 0xC3,
    GE_LOADCLUT = 0xC4, GE_CLUTFORMAT = 0xC5, GE_TEXFILTER = 0xC6, GE_TEXWRAP = 0xC7, GE_TEXLEVEL = 0xC8,
    GE_TEXFUNC = 0xC9, GE_TEXENVCOLOR = 0xCA, GE_TEXFLUSH = 0xCB, GE_TEXSYNC = 0xCC,
    GE_FOG1 = 0xCD, GE_FOG2 = 0xCE, GE_FOGCOLOR = 0xCF, GE_TEXLODSLOPE = 0xD0,
    GE_FRAMEBUFPIXFORMAT = 0xD2, GE_CLEARMODE = 0xD3, GE_SCISSOR1 = 0xD4, GE_SCISSOR2 = 0xD5,
    GE_MINZ = 0xD6, GE_MAXZ = 0xD7, GE_COLORTEST = 0xD8, GE_COLORREF = 0xD9, GE_COLORTESTMASK = 0xDA,
    GE_ALPHATEST = 0xDB, GE_STENCILTEST = 0xDC, GE_STENCILOP = 0xDD, GE_ZTEST = 0xDE, GE_BLENDMODE = 0xDF,
    GE_BLENDFIXEDA = 0xE0, GE_BLENDFIXEDB = 0xE1, GE_DITH0 = 0xE2, GE_LOGICOP = 0xE6,
    GE_ZWRITEDISABLE = 0xE7, GE_MASKRGB = 0xE8, GE_MASKALPHA = 0xE9,
    GE_TRANSFERSTART = 0xEA, GE_TRANSFERSRCPOS = 0xEB, GE_TRANSFERDSTPOS = 0xEC, GE_TRANSFERSIZE = 0xEE,
};

#define GU_OBJECT_DEPTH 32   /* sceGuBeginObject nesting */

/* A display list being written: where it starts, where the next word goes, and the
   context to return to at sceGuFinish. */
typedef struct GuList {
    u32 *start;
    u32 *current;
    int parent;
} GuList;

/* Per context (GU_DIRECT, GU_CALL, GU_SEND): the list and the settings the library
   keeps because a later call combines them into one command. */
typedef struct GuContext {
    GuList list;
    int scissor_on;
    int scissor_x0, scissor_y0, scissor_x1, scissor_y1;   /* inclusive corners */
    int near_plane, far_plane, depth_offset;
    u32 tex_func;        /* TEXFUNC's function and alpha bits */
    u32 fragment_2x;     /* TEXFUNC bit 16 while GU_FRAGMENT_2X is on */
    u32 tex_map_mode;    /* TEXMAPMODE's low bits (sceGuTexMapMode) */
    u32 tex_proj_mode;   /* TEXMAPMODE's bits 8-9 (sceGuTexProjMapMode) */
    u32 clear_color, clear_stencil, clear_depth;
} GuContext;

typedef struct GuState {
    GuContext contexts[3];
    GuList *list;          /* the list commands go to */
    int context;           /* its context */
    int direct_list_id;    /* the GU_DIRECT list's queue id (stall updates, sceGuSync) */
    int send_list_id;      /* the last sceGuSendList's */
    int callback_id;       /* sceGeSetCallback's */
    int first_start;       /* the next sceGuStart sends the library's defaults */
    int display_on;
    int call_mode;
    u32 states;            /* one bit per GU_* state (sceGuGetStatus) */
    int psm, frame_width, width, height, depth_width;
    void *frame_buffer, *disp_buffer, *depth_buffer;   /* offsets into VRAM */
    void *edram;
    void (*on_signal)(int);
    void (*on_finish)(int);
    GuSwapBuffersCallback swap_callback;
    int swap_behaviour;
    u32 *objects[GU_OBJECT_DEPTH];   /* where each open sceGuBeginObject's jump goes */
    int object_depth;
} GuState;

extern GuState gu;

static inline void gu_cmd(int op, u32 argument)
{
    *gu.list->current++ = ((u32)op << 24) | (argument & 0xFFFFFF);
}

/* A float argument: the single's top 24 bits (the GE drops the low 8 mantissa bits). */
static inline void gu_cmdf(int op, float value)
{
    union { float f; u32 u; } bits = { value };
    gu_cmd(op, bits.u >> 8);
}

/* Lets the GE run up to the end of what the direct list holds so far. */
int gu_update_stall(void);

/* VRAM-relative buffer address -> the FRAMEBUFWIDTH/ZBUFWIDTH "high bits" field. */
static inline u32 gu_high_bits(const void *p)
{
    return ((u32)p & 0xFF000000u) >> 8;
}

/* BASE for an address: its bits 24-27 in argument bits 16-19. */
static inline u32 gu_base_of(const void *p)
{
    return ((u32)p >> 8) & 0xF0000;
}

/* VERTEXTYPE (unless vtype is 0), then IADDR and VADDR for the arrays given, each
   after the BASE holding its top bits. */
void gu_send_arrays(int vtype, const void *indices, const void *vertices);

/* SCISSOR1/2 and REGION1/2 for a rectangle with inclusive corners. */
void gu_send_scissor(int x0, int y0, int x1, int y1);

#endif
