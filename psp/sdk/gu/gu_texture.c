/* GU textures: format and levels, how texels combine with the fragment, filtering,
   wrapping, coordinate generation, palettes. */
#include "gu_internal.h"

void sceGuTexFlush(void)
{
    gu_cmd(GE_TEXFLUSH, 0);
}

void sceGuTexSync(void)
{
    gu_cmd(GE_TEXSYNC, 0);
}

/* tpsm: GU_PSM_*; maxmips: the highest level used (0-7); mc: a palette per level. */
void sceGuTexMode(int tpsm, int maxmips, int mc, int swizzle)
{
    gu_cmd(GE_TEXMODE, (maxmips << 16) | (mc << 8) | swizzle);
    gu_cmd(GE_TEXFORMAT, tpsm);
    sceGuTexFlush();
}

/* log2 of a power-of-two size, from the bits the GE's size field can hold. */
static u32 size_log2(int size)
{
    u32 bits = (u32)size & 0x3FF;
    return bits ? 31 - (u32)__builtin_clz(bits) : 0;
}

/* Level `mipmap` of the texture: width and height (powers of two), the row length in
   texels (tbw) and the address (16-byte aligned). */
void sceGuTexImage(int mipmap, int width, int height, int tbw, const void *tbp)
{
    gu_cmd(GE_TEXADDR0 + mipmap, (u32)tbp);
    gu_cmd(GE_TEXBUFWIDTH0 + mipmap, gu_base_of(tbp) | tbw);
    gu_cmd(GE_TEXSIZE0 + mipmap, (size_log2(height) << 8) | size_log2(width));
    sceGuTexFlush();
}

void sceGuTexFunc(int tfx, int tcc)
{
    GuContext *c = &gu.contexts[gu.context];
    c->tex_func = tfx | (tcc << 8);
    gu_cmd(GE_TEXFUNC, c->tex_func | c->fragment_2x);
}

void sceGuTexEnvColor(unsigned int color)
{
    gu_cmd(GE_TEXENVCOLOR, color);
}

void sceGuTexFilter(int min, int mag)
{
    gu_cmd(GE_TEXFILTER, min | (mag << 8));
}

void sceGuTexWrap(int u, int v)
{
    gu_cmd(GE_TEXWRAP, u | (v << 8));
}

void sceGuTexScale(float u, float v)
{
    gu_cmdf(GE_TEXSCALEU, u);
    gu_cmdf(GE_TEXSCALEV, v);
}

void sceGuTexOffset(float u, float v)
{
    gu_cmdf(GE_TEXOFFSETU, u);
    gu_cmdf(GE_TEXOFFSETV, v);
}

/* Where texture coordinates come from (the vertex, the texture matrix or an
   environment map lit by lights lu and lv). */
void sceGuTexMapMode(int mode, unsigned int lu, unsigned int lv)
{
    GuContext *c = &gu.contexts[gu.context];
    c->tex_map_mode = mode & 3;
    gu_cmd(GE_TEXMAPMODE, c->tex_proj_mode | c->tex_map_mode);
    gu_cmd(GE_TEXSHADELS, (lu << 8) | (lv & 3));
}

/* What the texture matrix transforms (GU_POSITION, GU_UV, GU_NORMALIZED_NORMAL, GU_NORMAL). */
void sceGuTexProjMapMode(int mode)
{
    GuContext *c = &gu.contexts[gu.context];
    c->tex_proj_mode = (mode & 3) << 8;
    gu_cmd(GE_TEXMAPMODE, c->tex_proj_mode | c->tex_map_mode);
}

/* Mip level choice (GU_TEXTURE_AUTO/CONST/SLOPE) and a bias in levels, sent in 1/16
   steps; like the official library it lets +8.0 through as 128, which the GE's signed
   8-bit field reads as -8. */
void sceGuTexLevelMode(unsigned int mode, float bias)
{
    int sixteenths = (int)(bias * 16.0f);
    if (sixteenths >= 128)
        sixteenths = 128;
    else if (sixteenths < -128)
        sixteenths = -128;
    gu_cmd(GE_TEXLEVEL, ((u32)sixteenths << 16) | mode);
}

void sceGuTexSlope(float slope)
{
    gu_cmdf(GE_TEXLODSLOPE, slope);
}

/* index = ((texel >> shift) & mask) | (csa << 4), looked up in a cpsm palette. */
void sceGuClutMode(unsigned int cpsm, unsigned int shift, unsigned int mask, unsigned int csa)
{
    gu_cmd(GE_CLUTFORMAT, cpsm | (shift << 2) | (mask << 8) | (csa << 16));
}

/* Loads num_blocks x 32 bytes of palette from cbp (16-byte aligned). */
void sceGuClutLoad(int num_blocks, const void *cbp)
{
    gu_cmd(GE_CLUTADDR, (u32)cbp);
    gu_cmd(GE_CLUTADDRUPPER, gu_base_of(cbp));
    gu_cmd(GE_LOADCLUT, num_blocks);
}
