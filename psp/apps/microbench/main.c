/* Microbenchmarks: every figure of the Allegrex timing reference, measured with the
 * reference's method (pspdev/vfpu-docs psp-tests/performance): a loop of 256 timed
 * instructions run ITERS times, timed with sceKernelGetSystemTimeWide() at 333/166 MHz,
 * cycles = microseconds x 333, printed as "<figure>: <cycles per instruction>".
 * The loops are generated into bench.S and figures.h by gen_bench.py (same code as the
 * simulator's fidelity harness). Build: gen_bench.py DIR; copy main.c into DIR;
 * allegrex cc -O2 DIR/main.c DIR/bench.S -o microbench.pbp [-DITER_DIV=8]
 * (benchmarks/timing_fidelity.py --eboot does all of this). */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <pspsdk.h>

PSP_MODULE_INFO("microbench", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER | PSP_THREAD_ATTR_VFPU);
PSP_HEAP_SIZE_KB(256);

#ifndef ITER_DIV
#define ITER_DIV 1 /* 8: 1/8 of the reference's iterations (figures settle long before) */
#endif
#define INST_ITERS (16384 / ITER_DIV)
#define MEM_ITERS (65536 / ITER_DIV)
#define MAX_PTRS (1024 * 1024)

struct figure {
    const char *name;
    void (*run)(unsigned iters, void **buf, void **end);
    int divisor;      /* timed instructions per iteration */
    float subtract;   /* cycles the reference subtracts (vcmp->bvt: 2, VFPU latency: 1) */
    int mem_kib;      /* buffer size for memory figures */
    int mem_mode;     /* 0 none, 1 sequential list, 2 random list */
};
#include "figures.h"

int scePowerSetClockFrequency(int pll, int cpu, int bus);
int64_t sceKernelGetSystemTimeWide(void);

/* 16-byte aligned like the reference's .bss array, not 64: see docs/timing.md */
static void *membuf_raw[MAX_PTRS + 1024 + 16] __attribute__((aligned(64)));
static void **membuf;

/* newlib's rand(): the reference's random lists come from this sequence (seed 1) */
static uint64_t rand_next = 1;
static unsigned rand31(void)
{
    rand_next = rand_next * 6364136223846793005ULL + 1;
    return (unsigned)(rand_next >> 32) & 0x7FFFFFFF;
}
static unsigned rand24(void)
{
    unsigned a = rand31();
    unsigned b = rand31();
    return a ^ (b << 8);
}

static void make_list(unsigned n, int random)
{
    for (unsigned i = 0; i < n - 1; i++)
        membuf[i] = &membuf[i + 1];
    membuf[n - 1] = &membuf[0];
    if (random) {
        for (unsigned i = 0; i < n * 3; i++) {
            unsigned p1 = rand24() & (n - 1);
            unsigned p2 = rand24() & (n - 1);
            void *t = membuf[p1];
            membuf[p1] = membuf[p2];
            membuf[p2] = t;
        }
    }
}

void vfpu_ones(void); /* bench.S: vmone.q M000..M700, CC = 0 */

int main(void)
{
    scePowerSetClockFrequency(333, 333, 166);
    membuf = (void **)((char *)membuf_raw + 16);
    printf(">>>>>>> allegrex microbench (iterations / %d) <<<<<<\n", ITER_DIV);
    for (unsigned k = 0; k < sizeof(FIGURES) / sizeof(FIGURES[0]); k++) {
        const struct figure *f = &FIGURES[k];
        unsigned iters = f->mem_kib ? MEM_ITERS : INST_ITERS;
        unsigned n = f->mem_kib * 256;
        if (f->mem_mode)
            make_list(n, f->mem_mode == 2);
        vfpu_ones();
        int64_t start = sceKernelGetSystemTimeWide();
        f->run(iters, membuf, f->mem_kib ? &membuf[n - 1] : membuf);
        int64_t end = sceKernelGetSystemTimeWide();
        unsigned cycles = (unsigned)(end - start) * 333;
        printf("%s: %f\n", f->name, cycles / (float)(f->divisor * iters) - f->subtract);
    }
    return 0;
}
