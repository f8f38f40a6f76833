/* The VFPU kernels (matmul_vfpu.S) behind the same function pointers as the scalar ones.
 * Four output rows per step in assembly; the last d % 4 rows, and shapes the assembly does
 * not take (row length not a multiple of 4), go through the scalar kernels. */
#include <float.h>

#include "llama2.h"

typedef struct {
    const void *w;
    const float *ws, *x, *xs;
    float *out;
    int nbytes, rows, groups, steps, wsrow;
    float scratch[8];   /* vfpu_q80_group32, _block32: where the first block's pipeline drains */
} VfpuArgs;

void vfpu_q80_group32(VfpuArgs *a);
void vfpu_q80_block32(VfpuArgs *a);
void vfpu_q40_block32(VfpuArgs *a);
void vfpu_q80_rows32(VfpuArgs *a);
void vfpu_q80_rows16(VfpuArgs *a);
void vfpu_q80_rows4(VfpuArgs *a);
void vfpu_fp32_rows4(VfpuArgs *a);

typedef struct {
    const float *x;
    int8_t *q;
    float *qf, *s;
    int groups, spans, pad[2];
    float consts[4];    /* 0.5, 127, FLT_MIN, 1 */
} __attribute__((aligned(16))) QuantArgs;

void vfpu_quantize(QuantArgs *a);

static void tail_rows(MatmulFn scalar, float *out, const Act *x, const Mat *w, int n, int d, int done) {
    if (done >= d) return;
    Mat rest = *w;
    int gs = g_group_size;
    if (w->s) {
        rest.w = (int8_t *)w->w + (size_t)done * n;
        rest.s = w->s + (size_t)done * (n / gs);
    } else {
        rest.w = (float *)w->w + (size_t)done * n;
    }
    scalar(out + done, x, &rest, n, d - done);
}

static void matmul_q80_vfpu(float *out, const Act *x, const Mat *w, int n, int d) {
    int gs = g_group_size, rows = d & ~3;
    if (w->blocked) {   /* model.c re-lays only group size 32, whole blocks of rows, 16-byte aligned */
        VfpuArgs a = {w->w, 0, x->qf, x->s, out, n, d, n / gs, 1, 0, {0}};
        vfpu_q80_block32(&a);
        return;
    }
    if (n % 4 || gs % 4 || ((uintptr_t)w->w & 3)) { kernels_scalar.q80(out, x, w, n, d); return; }
    /* 32 or 16 weights per row per step with quad loads when rows and groups allow, else word loads */
    int aligned = ((uintptr_t)w->w & 15) == 0 && n % 16 == 0;
    int step = aligned && gs % 32 == 0 ? 32 : aligned && gs % 16 == 0 ? 16 : 4;
    VfpuArgs a = {w->w, w->s, x->qf, x->s, out, n, rows, n / gs, gs / step, (n / gs) * 4, {0}};
    if (rows) (step == 32 ? (gs == 32 ? vfpu_q80_group32 : vfpu_q80_rows32) : step == 16 ? vfpu_q80_rows16
               : vfpu_q80_rows4)(&a);
    tail_rows(kernels_scalar.q80, out, x, w, n, d, rows);
}

static void matmul_fp32_vfpu(float *out, const Act *x, const Mat *w, int n, int d) {
    int rows = d & ~3;
    if (n % 4 || ((uintptr_t)w->w & 15) || ((uintptr_t)x->f & 15)) { kernels_scalar.fp32(out, x, w, n, d); return; }
    VfpuArgs a = {w->w, 0, x->f, 0, out, n * 4, rows, 1, n / 4, 0, {0}};
    if (rows) vfpu_fp32_rows4(&a);
    tail_rows(kernels_scalar.fp32, out, x, w, n, d, rows);
}

/* What vfpu_q40_block32 reads besides the scales (matmul_vfpu.S): per group of 32, from
 * the quantized values as floats, A[k] = x[k+16] - 16 x[k] and B[k] = 16 x[k] in the
 * order A0-7 B0-7 A8-15 B8-15, and C = 8 (x[0] + ... + x[15]) four times. */
static void q40_activations(Act *a, int n) {
    for (int g = 0; g < n / 32; g++) {
        const float *x = a->qf + 32 * g;
        float *o = a->q4 + 32 * g, sum = 0.0f;
        for (int k = 0; k < 8; k++) {
            o[k] = x[k + 16] - 16.0f * x[k];
            o[8 + k] = 16.0f * x[k];
            o[16 + k] = x[k + 24] - 16.0f * x[k + 8];
            o[24 + k] = 16.0f * x[k + 8];
        }
        for (int k = 0; k < 16; k++) sum += x[k];
        for (int i = 0; i < 4; i++) a->c4[4 * g + i] = 8.0f * sum;
    }
}

/* quantize_act's values (see vfpu_quantize); groups of 16k values, 16-byte aligned vectors */
static void quantize_vfpu(Act *a, const float *x, int n) {
    int gs = g_group_size;
    if (gs % 16 || n % gs || ((uintptr_t)x | (uintptr_t)a->q | (uintptr_t)a->qf) & 15) {
        quantize_act(a, x, n, 1);
    } else {
        QuantArgs q = {x, a->q, a->qf, a->s, n / gs, gs / 16, {0, 0}, {0.5f, 127.0f, FLT_MIN, 1.0f}};
        vfpu_quantize(&q);
    }
    if (a->q4 && gs == 32) q40_activations(a, n);
}

const float *vfpu_argmax_chunk(const float *p, int chunks);

/* argmax_scalar's index: the VFPU finds the 64-value chunk where the largest value first
 * appears; the C loop finds it in that chunk and checks the values after the last chunk. */
static int argmax_vfpu(const float *p, int n) {
    int chunks = n / 64;
    if (chunks == 0 || ((uintptr_t)p & 15)) return argmax_scalar(p, n);
    int best = (int)(vfpu_argmax_chunk(p, chunks) - p);
    best += argmax_scalar(p + best, 64);
    for (int i = chunks * 64; i < n; i++) if (p[i] > p[best]) best = i;
    return best;
}

typedef struct {
    float *hb;
    const float *hb2;
    int quads, pad;
    float consts[16];
} __attribute__((aligned(16))) SwigluArgs;

int vfpu_swiglu(SwigluArgs *a);

/* swiglu_scalar's values: the VFPU takes quads until one it cannot give exactly (a value
 * beyond +-80, a denormal, a non-finite result), the C takes that one, and so on. The
 * constants are the SDK libm's expf's (psp/sdk/libm/mathf.c; tests compare them). */
static void swiglu_vfpu(float *hb, const float *hb2, int n) {
    int done = 0;
    if (!(((uintptr_t)hb | (uintptr_t)hb2) & 15)) {
        SwigluArgs a = {0, 0, 0, 0, {1.44269504088896341f, 0.5f, 6.93145751953125e-01f, 1.428606765330187045e-06f,
                                     1.975042542e-04f, 1.393319690e-03f, 8.333520964e-03f, 4.166647047e-02f,
                                     1.666666567e-01f, 5.000000000e-01f, 1.0f, 127.0f,
                                     80.0f, FLT_MIN, FLT_MAX, 0.0f}};
        while (n - done >= 4) {
            a.hb = hb + done;
            a.hb2 = hb2 + done;
            a.quads = (n - done) / 4;
            done += 4 * vfpu_swiglu(&a);
            if (n - done < 4) break;
            swiglu_scalar(hb + done, hb2 + done, 4);
            done += 4;
        }
    }
    swiglu_scalar(hb + done, hb2 + done, n - done);
}

/* q40 at group size 32: the whole blocks of eight rows by vfpu_q40_block32, a last block
 * of fewer rows (and other group sizes) by the scalar kernel. */
static void matmul_q40_vfpu(float *out, const Act *x, const Mat *w, int n, int d) {
    int gs = g_group_size, rows = gs == 32 && x->q4 ? d - d % BLOCK_ROWS : 0;
    if (rows) {
        VfpuArgs a = {w->w, x->c4, x->q4, x->s, out, n, rows, n / gs, 1, 0, {0}};
        vfpu_q40_block32(&a);
    }
    if (rows < d) {
        Mat rest = {(uint8_t *)w->w + (size_t)rows * ((size_t)n / 2 + (size_t)n / gs * 2), NULL, 1};
        kernels_scalar.q40(out + rows, x, &rest, n, d - rows);
    }
}


static const Kernels kernels_vfpu_table = {"vfpu", matmul_fp32_vfpu, matmul_q80_vfpu, matmul_q40_vfpu, quantize_vfpu,
                                           argmax_vfpu, swiglu_vfpu, 32};

const Kernels *kernels_vfpu(void) { return &kernels_vfpu_table; }
