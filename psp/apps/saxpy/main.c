/* Runs the three saxpy kernels on the same data and checks that they agree bit for bit
   (docs/benchmarking.md). REPS: how many times in a row each kernel runs (default 10). */
#include <stdio.h>
#include <string.h>
#include <pspsdk.h>
#include "saxpy.h"

PSP_MODULE_INFO("saxpy", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

#ifndef REPS
#define REPS 10
#endif
#define N 1024

static float x[N] __attribute__((aligned(64)));
static float y_c[N] __attribute__((aligned(64)));
static float y_v1[N] __attribute__((aligned(64)));
static float y_v2[N] __attribute__((aligned(64)));

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 17 - 8) / 4.0f;
        y_c[i] = (float)(i % 11) * 0.5f;
    }
    memcpy(y_v1, y_c, sizeof y_c);
    memcpy(y_v2, y_c, sizeof y_c);
    for (int r = 0; r < REPS; r++)
        saxpy_c(2.5f, x, y_c, N);
    for (int r = 0; r < REPS; r++)
        saxpy_vfpu(2.5f, x, y_v1, N);
    for (int r = 0; r < REPS; r++)
        saxpy_vfpu2(2.5f, x, y_v2, N);
    int same1 = memcmp(y_c, y_v1, sizeof y_c) == 0, same2 = memcmp(y_c, y_v2, sizeof y_c) == 0;
    printf("saxpy of %d floats, %d time(s): y[5] = %g; vfpu %s, vfpu2 %s the C result\n", N, REPS, y_c[5],
           same1 ? "matches" : "DIFFERS FROM", same2 ? "matches" : "DIFFERS FROM");
    return !(same1 && same2);
}
