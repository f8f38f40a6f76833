/* GU drawing: primitives and patches from vertex (and index) arrays, the matrices the
   GE transforms them with, morph weights, and block transfers. */
#include "gu_internal.h"

void gu_send_arrays(int vtype, const void *indices, const void *vertices)
{
    if (vtype)
        gu_cmd(GE_VERTEXTYPE, vtype);
    if (indices) {
        gu_cmd(GE_BASE, gu_base_of(indices));
        gu_cmd(GE_IADDR, (u32)indices);
    }
    if (vertices) {
        gu_cmd(GE_BASE, gu_base_of(vertices));
        gu_cmd(GE_VADDR, (u32)vertices);
    }
}

/* count vertices (or indices) drawn as prim; NULL arrays continue where the last
   draw left off. */
void sceGuDrawArray(int prim, int vtype, int count, const void *indices, const void *vertices)
{
    gu_send_arrays(vtype, indices, vertices);
    gu_cmd(GE_PRIM, (prim << 16) | count);
    gu_update_stall();
}

/* primcount primitives of count vertices each, one after the other in the arrays. */
void sceGuDrawArrayN(int prim, int vtype, int count, int primcount, const void *indices, const void *vertices)
{
    gu_send_arrays(vtype, indices, vertices);
    for (int i = 0; i < primcount; i++)
        gu_cmd(GE_PRIM, (prim << 16) | count);
    gu_update_stall();
}

/* A Bezier surface of ucount x vcount control points (3n + 1 each way). */
void sceGuDrawBezier(int vtype, int ucount, int vcount, const void *indices, const void *vertices)
{
    gu_send_arrays(vtype, indices, vertices);
    gu_cmd(GE_BEZIER, (vcount << 8) | ucount);
    gu_update_stall();
}

/* A B-spline surface; uedge/vedge: GU_FILL_FILL... whether each end is open. */
void sceGuDrawSpline(int vtype, int ucount, int vcount, int uedge, int vedge, const void *indices,
                     const void *vertices)
{
    gu_send_arrays(vtype, indices, vertices);
    gu_cmd(GE_SPLINE, (vedge << 18) | (uedge << 16) | (vcount << 8) | ucount);
    gu_update_stall();
}

void sceGuPatchDivide(unsigned int ulevel, unsigned int vlevel)
{
    gu_cmd(GE_PATCHDIVISION, (vlevel << 8) | ulevel);
}

void sceGuPatchFrontFace(unsigned int mode)
{
    gu_cmd(GE_PATCHFACING, mode);
}

/* GU_TRIANGLE_STRIP, GU_LINE_STRIP or GU_POINTS (PATCHPRIMITIVE 0, 1, 2). */
void sceGuPatchPrim(int prim)
{
    if (prim == GU_TRIANGLE_STRIP)
        gu_cmd(GE_PATCHPRIMITIVE, 0);
    else if (prim == GU_LINE_STRIP)
        gu_cmd(GE_PATCHPRIMITIVE, 1);
    else if (prim == GU_POINTS)
        gu_cmd(GE_PATCHPRIMITIVE, 2);
}

/* A 4x3 matrix: the x, y, z of each of the four columns, after its start index. */
static void send_4x3(int number_op, u32 number, const ScePspFMatrix4 *m)
{
    const ScePspFVector4 *columns[4] = {&m->x, &m->y, &m->z, &m->w};
    gu_cmd(number_op, number);
    for (int i = 0; i < 4; i++) {
        gu_cmdf(number_op + 1, columns[i]->x);
        gu_cmdf(number_op + 1, columns[i]->y);
        gu_cmdf(number_op + 1, columns[i]->z);
    }
}

/* GU_PROJECTION is uploaded whole (16 values); the others as 4x3 (no last row). */
void sceGuSetMatrix(int type, const ScePspFMatrix4 *matrix)
{
    if (type == GU_PROJECTION) {
        const float *values = (const float *)matrix;
        gu_cmd(GE_PROJMATRIXNUMBER, 0);
        for (int i = 0; i < 16; i++)
            gu_cmdf(GE_PROJMATRIXDATA, values[i]);
    } else if (type == GU_VIEW) {
        send_4x3(GE_VIEWMATRIXNUMBER, 0, matrix);
    } else if (type == GU_MODEL) {
        send_4x3(GE_WORLDMATRIXNUMBER, 0, matrix);
    } else if (type == GU_TEXTURE) {
        send_4x3(GE_TGENMATRIXNUMBER, 0, matrix);
    }
}

/* Skinning matrix `index` (0-7): 12 values each, so it starts at 12 x index. */
void sceGuBoneMatrix(unsigned int index, const ScePspFMatrix4 *matrix)
{
    send_4x3(GE_BONEMATRIXNUMBER, index * 12, matrix);
}

void sceGuMorphWeight(int index, float weight)
{
    gu_cmdf(GE_MORPHWEIGHT0 + index, weight);
}

/* A width x height rectangle of psm pixels from (sx, sy) in src (row length srcw
   pixels) to (dx, dy) in dest; 32-bit pixels for GU_PSM_8888, else 16-bit. */
void sceGuCopyImage(int psm, int sx, int sy, int width, int height, int srcw, void *src, int dx, int dy,
                    int destw, void *dest)
{
    gu_cmd(GE_TRANSFERSRC, (u32)src);
    gu_cmd(GE_TRANSFERSRCW, gu_high_bits(src) | srcw);
    gu_cmd(GE_TRANSFERSRCPOS, (sy << 10) | sx);
    gu_cmd(GE_TRANSFERDST, (u32)dest);
    gu_cmd(GE_TRANSFERDSTW, gu_high_bits(dest) | destw);
    gu_cmd(GE_TRANSFERDSTPOS, (dy << 10) | dx);
    gu_cmd(GE_TRANSFERSIZE, ((height - 1) << 10) | (width - 1));
    gu_cmd(GE_TRANSFERSTART, psm == GU_PSM_8888 ? 1 : 0);
}
