/* sceGum*: a stack of 32 matrices for each of GU_PROJECTION, GU_VIEW, GU_MODEL and
   GU_TEXTURE; the sceGum* operations change the top of the current mode's stack (with
   the gum* arithmetic, on the VFPU) and mark it changed; sceGumUpdateMatrix uploads
   the changed ones (sceGuSetMatrix), in mode order, before each sceGumDraw*. The
   matrices live in memory, not in VFPU registers, so the program's own VFPU code
   between calls cannot disturb them. */
#include <string.h>
#include "pspgu.h"
#include "pspgum.h"

#define MODES 4
#define STACK_DEPTH 32

static ScePspFMatrix4 stacks[MODES][STACK_DEPTH];
static int tops[MODES];       /* index of each mode's current matrix */
static int changed[MODES];    /* not uploaded since it last changed */
static int mode = GU_PROJECTION;

static ScePspFMatrix4 *current(void)
{
    return &stacks[mode][tops[mode]];
}

/* The current matrix after a change. */
static ScePspFMatrix4 *changing(void)
{
    changed[mode] = 1;
    return current();
}

void sceGumMatrixMode(int m)
{
    if (m >= 0 && m < MODES)
        mode = m;
}

void sceGumLoadIdentity(void)
{
    gumLoadIdentity(changing());
}

void sceGumLoadMatrix(const ScePspFMatrix4 *m)
{
    gumLoadMatrix(changing(), m);
}

void sceGumStoreMatrix(ScePspFMatrix4 *m)
{
    gumLoadMatrix(m, current());
}

void sceGumMultMatrix(const ScePspFMatrix4 *m)
{
    ScePspFMatrix4 *top = changing();
    gumMultMatrix(top, top, m);
}

/* A copy of the current matrix on top (a full stack keeps its top). */
void sceGumPushMatrix(void)
{
    if (tops[mode] + 1 < STACK_DEPTH) {
        memcpy(&stacks[mode][tops[mode] + 1], current(), sizeof(ScePspFMatrix4));
        tops[mode]++;
    }
}

void sceGumPopMatrix(void)
{
    if (tops[mode] > 0)
        tops[mode]--;
    changed[mode] = 1;
}

void sceGumTranslate(const ScePspFVector3 *v)
{
    gumTranslate(changing(), v);
}

void sceGumScale(const ScePspFVector3 *v)
{
    gumScale(changing(), v);
}

void sceGumRotateX(float angle)
{
    gumRotateX(changing(), angle);
}

void sceGumRotateY(float angle)
{
    gumRotateY(changing(), angle);
}

void sceGumRotateZ(float angle)
{
    gumRotateZ(changing(), angle);
}

void sceGumRotateXYZ(const ScePspFVector3 *v)
{
    gumRotateXYZ(changing(), v);
}

void sceGumRotateZYX(const ScePspFVector3 *v)
{
    gumRotateZYX(changing(), v);
}

void sceGumRotate(const ScePspFQuaternion *q)
{
    gumRotateMatrix(changing(), q);
}

void sceGumPerspective(float fovy, float aspect, float near, float far)
{
    gumPerspective(changing(), fovy, aspect, near, far);
}

void sceGumOrtho(float left, float right, float bottom, float top, float near, float far)
{
    gumOrtho(changing(), left, right, bottom, top, near, far);
}

void sceGumLookAt(ScePspFVector3 *eye, ScePspFVector3 *center, ScePspFVector3 *up)
{
    gumLookAt(changing(), eye, center, up);
}

void sceGumFastInverse(void)
{
    ScePspFMatrix4 *top = changing();
    gumFastInverse(top, top);
}

void sceGumFullInverse(void)
{
    ScePspFMatrix4 *top = changing();
    gumFullInverse(top, top);
}

void sceGumUpdateMatrix(void)
{
    for (int m = 0; m < MODES; m++) {
        if (changed[m]) {
            sceGuSetMatrix(m, &stacks[m][tops[m]]);
            changed[m] = 0;
        }
    }
}

void sceGumDrawArray(int prim, int vtype, int count, const void *indices, const void *vertices)
{
    sceGumUpdateMatrix();
    sceGuDrawArray(prim, vtype, count, indices, vertices);
}

void sceGumDrawArrayN(int prim, int vtype, int count, int primcount, const void *indices, const void *vertices)
{
    sceGumUpdateMatrix();
    sceGuDrawArrayN(prim, vtype, count, primcount, indices, vertices);
}

void sceGumDrawBezier(int vtype, int ucount, int vcount, const void *indices, const void *vertices)
{
    sceGumUpdateMatrix();
    sceGuDrawBezier(vtype, ucount, vcount, indices, vertices);
}

void sceGumDrawSpline(int vtype, int ucount, int vcount, int uedge, int vedge, const void *indices,
                      const void *vertices)
{
    sceGumUpdateMatrix();
    sceGuDrawSpline(vtype, ucount, vcount, uedge, vedge, indices, vertices);
}

void sceGumBeginObject(int vtype, int count, const void *indices, const void *vertices)
{
    sceGumUpdateMatrix();
    sceGuBeginObject(vtype, count, indices, vertices);
}

void sceGumEndObject(void)
{
    sceGuEndObject();
}
