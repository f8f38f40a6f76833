/* gum*: matrix, vector and quaternion arithmetic on matrices the caller passes. The
   matrix products, rotations, translations, scalings, projections and the fast inverse
   run on the VFPU (gum_vfpu.S) on 16-byte aligned copies; the rest is plain float C. */
#include <math.h>
#include <string.h>
#include "pspgu.h"
#include "pspgum.h"

/* gum_vfpu.S. The steps that change m in place take their argument as a pointer:
   an angle (float), a vector or projection parameters (ScePspFVector4). */
void gum_vfpu_identity(ScePspFMatrix4 *m);
void gum_vfpu_multiply(ScePspFMatrix4 *r, const ScePspFMatrix4 *a, const ScePspFMatrix4 *b);
void gum_vfpu_fast_inverse(ScePspFMatrix4 *r, const ScePspFMatrix4 *a);
typedef void MatrixStep(ScePspFMatrix4 *m, const void *arg);
MatrixStep gum_vfpu_rotate_x, gum_vfpu_rotate_y, gum_vfpu_rotate_z, gum_vfpu_scale, gum_vfpu_translate,
    gum_vfpu_perspective, gum_vfpu_ortho;

#define EPSILON 0.00001f   /* lengths and determinants below this are treated as zero */

void gumInit(void)
{
}

void gumLoadIdentity(ScePspFMatrix4 *m)
{
    ScePspFMatrix4 t;
    gum_vfpu_identity(&t);
    memcpy(m, &t, sizeof t);
}

void gumLoadMatrix(ScePspFMatrix4 *r, const ScePspFMatrix4 *a)
{
    memcpy(r, a, sizeof *r);
}

void gumMultMatrix(ScePspFMatrix4 *result, const ScePspFMatrix4 *a, const ScePspFMatrix4 *b)
{
    ScePspFMatrix4 ta, tb, tr;
    memcpy(&ta, a, sizeof ta);
    memcpy(&tb, b, sizeof tb);
    gum_vfpu_multiply(&tr, &ta, &tb);
    memcpy(result, &tr, sizeof tr);
}

/* A step applied to an aligned copy of m, stored back. */
static void in_place(ScePspFMatrix4 *m, MatrixStep *step, const void *arg)
{
    ScePspFMatrix4 t;
    memcpy(&t, m, sizeof t);
    step(&t, arg);
    memcpy(m, &t, sizeof t);
}

void gumTranslate(ScePspFMatrix4 *m, const ScePspFVector3 *v)
{
    ScePspFVector4 t = {v->x, v->y, v->z, 0.0f};
    in_place(m, gum_vfpu_translate, &t);
}

void gumScale(ScePspFMatrix4 *m, const ScePspFVector3 *v)
{
    ScePspFVector4 s = {v->x, v->y, v->z, 0.0f};
    in_place(m, gum_vfpu_scale, &s);
}

void gumRotateX(ScePspFMatrix4 *m, float angle)
{
    in_place(m, gum_vfpu_rotate_x, &angle);
}

void gumRotateY(ScePspFMatrix4 *m, float angle)
{
    in_place(m, gum_vfpu_rotate_y, &angle);
}

void gumRotateZ(ScePspFMatrix4 *m, float angle)
{
    in_place(m, gum_vfpu_rotate_z, &angle);
}

void gumRotateXYZ(ScePspFMatrix4 *m, const ScePspFVector3 *v)
{
    gumRotateX(m, v->x);
    gumRotateY(m, v->y);
    gumRotateZ(m, v->z);
}

void gumRotateZYX(ScePspFMatrix4 *m, const ScePspFVector3 *v)
{
    gumRotateZ(m, v->z);
    gumRotateY(m, v->y);
    gumRotateX(m, v->x);
}

/* fovy in degrees; looks down -z, depth -1 at near and +1 at far after the divide. */
void gumPerspective(ScePspFMatrix4 *m, float fovy, float aspect, float near, float far)
{
    ScePspFVector4 p = {fovy, aspect, near, far};
    in_place(m, gum_vfpu_perspective, &p);
}

void gumOrtho(ScePspFMatrix4 *m, float left, float right, float bottom, float top, float near, float far)
{
    ScePspFVector4 p[2] = {{right, top, far, 0.0f}, {left, bottom, near, 0.0f}};
    in_place(m, gum_vfpu_ortho, p);
}

void gumFastInverse(ScePspFMatrix4 *r, const ScePspFMatrix4 *a)
{
    ScePspFMatrix4 ta, tr;
    memcpy(&ta, a, sizeof ta);
    gum_vfpu_fast_inverse(&tr, &ta);
    memcpy(r, &tr, sizeof tr);
}

/* --- vectors --- */
void gumCrossProduct(ScePspFVector3 *r, const ScePspFVector3 *a, const ScePspFVector3 *b)
{
    ScePspFVector3 c = {a->y * b->z - a->z * b->y, a->z * b->x - a->x * b->z, a->x * b->y - a->y * b->x};
    *r = c;
}

float gumDotProduct(const ScePspFVector3 *a, const ScePspFVector3 *b)
{
    return a->x * b->x + a->y * b->y + a->z * b->z;
}

void gumNormalize(ScePspFVector3 *v)
{
    float length = sqrtf(gumDotProduct(v, v));
    if (length > EPSILON) {
        float inverse = 1.0f / length;
        v->x *= inverse;
        v->y *= inverse;
        v->z *= inverse;
    }
}

/* m = m * V, V the view from eye towards center with up roughly up: the camera's side,
   up and backward axes as rows, then -eye. */
void gumLookAt(ScePspFMatrix4 *m, ScePspFVector3 *eye, ScePspFVector3 *center, ScePspFVector3 *up)
{
    ScePspFVector3 forward = {center->x - eye->x, center->y - eye->y, center->z - eye->z};
    ScePspFVector3 side, above;
    gumNormalize(&forward);
    gumCrossProduct(&side, &forward, up);
    gumNormalize(&side);
    gumCrossProduct(&above, &side, &forward);
    ScePspFMatrix4 view;
    gumLoadIdentity(&view);
    view.x.x = side.x;   view.y.x = side.y;   view.z.x = side.z;
    view.x.y = above.x;  view.y.y = above.y;  view.z.y = above.z;
    view.x.z = -forward.x; view.y.z = -forward.y; view.z.z = -forward.z;
    gumMultMatrix(m, m, &view);
    ScePspFVector3 back = {-eye->x, -eye->y, -eye->z};
    gumTranslate(m, &back);
}

/* --- the general inverse, by cofactors --- */
void gumFullInverse(ScePspFMatrix4 *r, const ScePspFMatrix4 *a)
{
    float m[16], inv[16];
    memcpy(m, a, sizeof m);
    /* 2x2 determinants of rows 0-1 (s) and rows 2-3 (c) over column pairs */
    float s0 = m[0] * m[5] - m[4] * m[1], s1 = m[0] * m[6] - m[4] * m[2], s2 = m[0] * m[7] - m[4] * m[3];
    float s3 = m[1] * m[6] - m[5] * m[2], s4 = m[1] * m[7] - m[5] * m[3], s5 = m[2] * m[7] - m[6] * m[3];
    float c5 = m[10] * m[15] - m[14] * m[11], c4 = m[9] * m[15] - m[13] * m[11], c3 = m[9] * m[14] - m[13] * m[10];
    float c2 = m[8] * m[15] - m[12] * m[11], c1 = m[8] * m[14] - m[12] * m[10], c0 = m[8] * m[13] - m[12] * m[9];
    float det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    if (fabsf(det) < EPSILON) {
        gumLoadIdentity(r);
        return;
    }
    float d = 1.0f / det;
    inv[0] = (m[5] * c5 - m[6] * c4 + m[7] * c3) * d;
    inv[1] = (-m[1] * c5 + m[2] * c4 - m[3] * c3) * d;
    inv[2] = (m[13] * s5 - m[14] * s4 + m[15] * s3) * d;
    inv[3] = (-m[9] * s5 + m[10] * s4 - m[11] * s3) * d;
    inv[4] = (-m[4] * c5 + m[6] * c2 - m[7] * c1) * d;
    inv[5] = (m[0] * c5 - m[2] * c2 + m[3] * c1) * d;
    inv[6] = (-m[12] * s5 + m[14] * s2 - m[15] * s1) * d;
    inv[7] = (m[8] * s5 - m[10] * s2 + m[11] * s1) * d;
    inv[8] = (m[4] * c4 - m[5] * c2 + m[7] * c0) * d;
    inv[9] = (-m[0] * c4 + m[1] * c2 - m[3] * c0) * d;
    inv[10] = (m[12] * s4 - m[13] * s2 + m[15] * s0) * d;
    inv[11] = (-m[8] * s4 + m[9] * s2 - m[11] * s0) * d;
    inv[12] = (-m[4] * c3 + m[5] * c1 - m[6] * c0) * d;
    inv[13] = (m[0] * c3 - m[1] * c1 + m[2] * c0) * d;
    inv[14] = (-m[12] * s3 + m[13] * s1 - m[14] * s0) * d;
    inv[15] = (m[8] * s3 - m[9] * s1 + m[10] * s0) * d;
    memcpy(r, inv, sizeof inv);
}

/* --- quaternions (x, y, z, w with w the real part) --- */
void gumLoadQuaternion(ScePspFMatrix4 *r, const ScePspFQuaternion *q)
{
    float x = q->x, y = q->y, z = q->z, w = q->w;
    ScePspFMatrix4 t = {
        {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0},
        {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0},
        {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0},
        {0, 0, 0, 1},
    };
    memcpy(r, &t, sizeof t);
}

void gumRotateMatrix(ScePspFMatrix4 *m, const ScePspFQuaternion *q)
{
    ScePspFMatrix4 rotation;
    gumLoadQuaternion(&rotation, q);
    gumMultMatrix(m, m, &rotation);
}

void gumNormalizeQuaternion(ScePspFQuaternion *q)
{
    float length = sqrtf(q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w);
    if (length > EPSILON) {
        float inverse = 1.0f / length;
        q->x *= inverse;
        q->y *= inverse;
        q->z *= inverse;
        q->w *= inverse;
    }
}

void gumLoadAxisAngle(ScePspFQuaternion *r, ScePspFVector3 *axis, float t)
{
    gumNormalize(axis);
    float s = sinf(t * 0.5f);
    r->x = axis->x * s;
    r->y = axis->y * s;
    r->z = axis->z * s;
    r->w = cosf(t * 0.5f);
}

/* a * b, normalized (as the official library returns it). */
void gumMultQuaternion(ScePspFQuaternion *result, const ScePspFQuaternion *a, const ScePspFQuaternion *b)
{
    ScePspFQuaternion p;
    p.x = a->w * b->x + b->w * a->x + (a->y * b->z - a->z * b->y);
    p.y = a->w * b->y + b->w * a->y + (a->z * b->x - a->x * b->z);
    p.z = a->w * b->z + b->w * a->z + (a->x * b->y - a->y * b->x);
    p.w = a->w * b->w - (a->x * b->x + a->y * b->y + a->z * b->z);
    gumNormalizeQuaternion(&p);
    *result = p;
}

/* q v q*: built from gumMultQuaternion, whose normalizing makes the result a unit
   vector, as the official library's is. */
void gumRotateVector(ScePspFVector3 *r, const ScePspFQuaternion *q, const ScePspFVector3 *v)
{
    ScePspFQuaternion conjugate = {-q->x, -q->y, -q->z, q->w};
    ScePspFQuaternion p = {v->x, v->y, v->z, 0.0f};
    gumMultQuaternion(&p, &p, &conjugate);
    gumMultQuaternion(&p, q, &p);
    r->x = p.x;
    r->y = p.y;
    r->z = p.z;
}
