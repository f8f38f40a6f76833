/* Matmul kernels behind one function pointer: W (d,n) @ x (n,) -> out (d,).
 * Scalar fp32 is run.c's loop; scalar q80 is runq.c's int8 x int8 group dot product;
 * scalar q40 the same with 4-bit weights and an fp16 scale per group. */
#include <math.h>
#include <string.h>

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

float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 31, mant = h & 1023, bits = sign;
    if (e == 31) bits |= 0xFFu << 23 | mant << 13;
    else if (e != 0) bits |= (e + 112) << 23 | mant << 13;   /* e == 0: zero, subnormals too */
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* runq.c's group sums with q40's weights: byte k of a row's group holds weight k (low
 * nibble, q + 8) and weight k + gs/2 (high nibble, signed); records of a block's rows. */
static void matmul_q40(float *out, const Act *x, const Mat *w, int n, int d) {
    int gs = g_group_size, half = gs / 2, groups = n / gs;
    const int8_t *xq = x->q;
    for (int b = 0; b < d; b += BLOCK_ROWS) {
        int rows = d - b < BLOCK_ROWS ? d - b : BLOCK_ROWS;
        size_t rec = Q40_RECORD_BYTES(rows, gs);
        const uint8_t *block = (const uint8_t *)w->w + (size_t)b * ((size_t)half + 2) * groups;
        for (int r = 0; r < rows; r++) {
            float val = 0.0f;
            for (int g = 0; g < groups; g++) {
                const uint8_t *q = block + g * rec + (size_t)r * half, *h = block + g * rec + (size_t)rows * half + 2 * r;
                const int8_t *xg = xq + g * gs;
                int32_t ival = 0;
                for (int k = 0; k < half; k++) ival += ((q[k] & 15) - 8) * xg[k] + ((int8_t)q[k] >> 4) * xg[k + half];
                val += ((float)ival * half_to_float((uint16_t)(h[0] | h[1] << 8))) * x->s[g];
            }
            out[b + r] = val;
        }
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

const Kernels kernels_scalar = {"scalar", matmul_fp32, matmul_q80, matmul_q40, quantize_scalar, argmax_scalar,
                                swiglu_scalar, 0};
