/* Matmul kernels behind one function pointer: W (d,n) @ x (n,) -> out (d,).
 * Scalar fp32 is run.c's loop; scalar q80 is runq.c's int8 x int8 group dot product. */
#include <math.h>

#include "llama2.h"

int g_group_size = 1;

/* Quantize x per group as runq.c does: scale = max|x| / 127, q = round(x / scale). */
__attribute__((noinline)) void quantize_act(Act *a, const float *x, int n, int want_floats) {
    int gs = g_group_size;
    for (int g = 0; g < n / gs; g++) {
        float wmax = 0.0f;
        for (int i = 0; i < gs; i++) {
            float val = fabsf(x[g * gs + i]);
            if (val > wmax) wmax = val;
        }
        float scale = wmax / 127.0f;
        a->s[g] = scale;
        for (int i = 0; i < gs; i++) {
            float quant = x[g * gs + i] / scale;
            /* an all-zero group: runq.c would divide by zero; zeros are the only sane answer */
            a->q[g * gs + i] = scale == 0.0f ? 0 : (int8_t)roundf(quant);
        }
    }
    if (want_floats)
        for (int i = 0; i < n; i++) a->qf[i] = (float)a->q[i];
}

static void matmul_fp32(float *out, const Act *x, const Mat *w, int n, int d) {
    const float *wf = w->w, *xf = x->f;
    for (int i = 0; i < d; i++) {
        float val = 0.0f;
        const float *row = wf + (size_t)i * n;
        for (int j = 0; j < n; j++) val += row[j] * xf[j];
        out[i] = val;
    }
}

static void matmul_q80(float *out, const Act *x, const Mat *w, int n, int d) {
    int gs = g_group_size;
    const int8_t *wq = w->w, *xq = x->q;
    for (int i = 0; i < d; i++) {
        float val = 0.0f;
        size_t in = (size_t)i * n;
        for (int j = 0; j <= n - gs; j += gs) {
            int32_t ival = 0;
            for (int k = 0; k < gs; k++) ival += (int32_t)xq[j + k] * (int32_t)wq[in + j + k];
            val += ((float)ival) * w->s[(in + j) / gs] * x->s[j / gs];
        }
        out[i] = val;
    }
}

static void quantize_scalar(Act *a, const float *x, int n) { quantize_act(a, x, n, 0); }

/* run.c's SwiGLU: hb = (hb * (1 / (1 + expf(-hb)))) * hb2 */
__attribute__((noinline)) void swiglu_scalar(float *hb, const float *hb2, int n) {
    for (int i = 0; i < n; i++) {
        float val = hb[i];
        val *= (1.0f / (1.0f + expf(-val)));  /* silu */
        val *= hb2[i];
        hb[i] = val;
    }
}

const Kernels kernels_scalar = {"scalar", matmul_fp32, matmul_q80, quantize_scalar, argmax_scalar, swiglu_scalar, 0};
