/* The scalar kernels with the q80 matmul as psp-gcc compiles it for the Allegrex
 * (matmul_madd.S: madd accumulates in HI/LO); everything else is kernels_scalar's. */
#include "llama2.h"

typedef struct {
    const int8_t *w;
    const float *ws;
    const int8_t *x;
    const float *xs;
    float *out;
    int n, d, gs;
} MaddArgs;

void q80_madd(MaddArgs *a);

static void matmul_q80_madd(float *out, const Act *x, const Mat *w, int n, int d) {
    if (w->blocked) { kernels_scalar.q80(out, x, w, n, d); return; }  /* (the scalar set never re-lays) */
    MaddArgs a = {w->w, w->s, x->q, x->s, out, n, d, g_group_size};
    q80_madd(&a);
}

const Kernels *kernels_scalar_madd(void) {
    static Kernels k;
    if (!k.name) {
        k = kernels_scalar;
        k.name = "scalar-madd";
        k.q80 = matmul_q80_madd;
    }
    return &k;
}
