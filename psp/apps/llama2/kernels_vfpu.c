/* The VFPU kernels (matmul_vfpu.S) behind the same function pointers as the scalar ones.
 * Four output rows per step in assembly; the last d % 4 rows, and shapes the assembly does
 * not take (row length not a multiple of 4), go through the scalar kernels. */
#include "llama2.h"

typedef struct {
    const void *w;
    const float *ws, *x, *xs;
    float *out;
    int nbytes, rows, groups, steps, wsrow;
} VfpuArgs;

void vfpu_q80_rows32(const VfpuArgs *a);
void vfpu_q80_rows16(const VfpuArgs *a);
void vfpu_q80_rows4(const VfpuArgs *a);
void vfpu_fp32_rows4(const VfpuArgs *a);

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
    if (n % 4 || gs % 4 || ((uintptr_t)w->w & 3)) { kernels_scalar.q80(out, x, w, n, d); return; }
    /* 32 or 16 weights per row per step with quad loads when rows and groups allow, else word loads */
    int aligned = ((uintptr_t)w->w & 15) == 0 && n % 16 == 0;
    int step = aligned && gs % 32 == 0 ? 32 : aligned && gs % 16 == 0 ? 16 : 4;
    VfpuArgs a = {w->w, w->s, x->qf, x->s, out, n, rows, n / gs, gs / step, (n / gs) * 4};
    if (rows) (step == 32 ? vfpu_q80_rows32 : step == 16 ? vfpu_q80_rows16 : vfpu_q80_rows4)(&a);
    tail_rows(kernels_scalar.q80, out, x, w, n, d, rows);
}

static void matmul_fp32_vfpu(float *out, const Act *x, const Mat *w, int n, int d) {
    int rows = d & ~3;
    if (n % 4 || ((uintptr_t)w->w & 15) || ((uintptr_t)x->f & 15)) { kernels_scalar.fp32(out, x, w, n, d); return; }
    VfpuArgs a = {w->w, 0, x->f, 0, out, n * 4, rows, 1, n / 4, 0};
    if (rows) vfpu_fp32_rows4(&a);
    tail_rows(kernels_scalar.fp32, out, x, w, n, d, rows);
}

static const Kernels kernels_vfpu_table = {"vfpu", matmul_fp32_vfpu, matmul_q80_vfpu};

const Kernels *kernels_vfpu(void) { return &kernels_vfpu_table; }
