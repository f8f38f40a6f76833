/* GUM: matrix stacks for the GE's projection, view, model and texture matrices, with
   the matrix arithmetic done on the VFPU (psp/sdk/gu/gum*.{c,S}). Names and behaviour
   are the official SDK's (libpspgum_vfpu): sceGum* work on the current matrix of the
   mode sceGumMatrixMode chose and sceGumUpdateMatrix / sceGumDraw* upload the ones
   that changed; gum* work on a matrix you pass. A thread calling them needs the VFPU
   (PSP_THREAD_ATTR_VFPU), as with the official VFPU library. Matrices are column
   vectors x, y, z, w; each operation multiplies on the right (M = M * R). */
#ifndef PSPGUM_H
#define PSPGUM_H

#include "psptypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --- the matrix stacks (32 deep per mode) --- */
void sceGumMatrixMode(int mode);
void sceGumLoadIdentity(void);
void sceGumLoadMatrix(const ScePspFMatrix4 *m);
void sceGumStoreMatrix(ScePspFMatrix4 *m);
void sceGumMultMatrix(const ScePspFMatrix4 *m);
void sceGumPushMatrix(void);
void sceGumPopMatrix(void);
void sceGumTranslate(const ScePspFVector3 *v);
void sceGumScale(const ScePspFVector3 *v);
void sceGumRotateX(float angle);
void sceGumRotateY(float angle);
void sceGumRotateZ(float angle);
void sceGumRotateXYZ(const ScePspFVector3 *v);
void sceGumRotateZYX(const ScePspFVector3 *v);
void sceGumRotate(const ScePspFQuaternion *q);
void sceGumPerspective(float fovy, float aspect, float near, float far);
void sceGumOrtho(float left, float right, float bottom, float top, float near, float far);
void sceGumLookAt(ScePspFVector3 *eye, ScePspFVector3 *center, ScePspFVector3 *up);
void sceGumFastInverse(void);
void sceGumFullInverse(void);
void sceGumUpdateMatrix(void);

/* --- drawing after uploading the changed matrices --- */
void sceGumDrawArray(int prim, int vtype, int count, const void *indices, const void *vertices);
void sceGumDrawArrayN(int prim, int vtype, int count, int primcount, const void *indices, const void *vertices);
void sceGumDrawBezier(int vtype, int ucount, int vcount, const void *indices, const void *vertices);
void sceGumDrawSpline(int vtype, int ucount, int vcount, int uedge, int vedge, const void *indices,
                      const void *vertices);
void sceGumBeginObject(int vtype, int count, const void *indices, const void *vertices);
void sceGumEndObject(void);

/* --- matrices you pass --- */
void gumInit(void);
void gumLoadIdentity(ScePspFMatrix4 *m);
void gumLoadMatrix(ScePspFMatrix4 *r, const ScePspFMatrix4 *a);
void gumLoadQuaternion(ScePspFMatrix4 *r, const ScePspFQuaternion *q);
void gumMultMatrix(ScePspFMatrix4 *result, const ScePspFMatrix4 *a, const ScePspFMatrix4 *b);
void gumTranslate(ScePspFMatrix4 *m, const ScePspFVector3 *v);
void gumScale(ScePspFMatrix4 *m, const ScePspFVector3 *v);
void gumRotateX(ScePspFMatrix4 *m, float angle);
void gumRotateY(ScePspFMatrix4 *m, float angle);
void gumRotateZ(ScePspFMatrix4 *m, float angle);
void gumRotateXYZ(ScePspFMatrix4 *m, const ScePspFVector3 *v);
void gumRotateZYX(ScePspFMatrix4 *m, const ScePspFVector3 *v);
void gumRotateMatrix(ScePspFMatrix4 *m, const ScePspFQuaternion *q);
void gumPerspective(ScePspFMatrix4 *m, float fovy, float aspect, float near, float far);
void gumOrtho(ScePspFMatrix4 *m, float left, float right, float bottom, float top, float near, float far);
void gumLookAt(ScePspFMatrix4 *m, ScePspFVector3 *eye, ScePspFVector3 *center, ScePspFVector3 *up);
void gumFastInverse(ScePspFMatrix4 *r, const ScePspFMatrix4 *a);
void gumFullInverse(ScePspFMatrix4 *r, const ScePspFMatrix4 *a);

/* --- vectors and quaternions --- */
void gumCrossProduct(ScePspFVector3 *r, const ScePspFVector3 *a, const ScePspFVector3 *b);
float gumDotProduct(const ScePspFVector3 *a, const ScePspFVector3 *b);
void gumNormalize(ScePspFVector3 *v);
void gumRotateVector(ScePspFVector3 *r, const ScePspFQuaternion *q, const ScePspFVector3 *v);
void gumNormalizeQuaternion(ScePspFQuaternion *q);
void gumLoadAxisAngle(ScePspFQuaternion *r, ScePspFVector3 *axis, float t);
void gumMultQuaternion(ScePspFQuaternion *result, const ScePspFQuaternion *a, const ScePspFQuaternion *b);

#ifdef __cplusplus
}
#endif

#endif
