/* Calls one libm function CALLS times (FN and CALLS given with -D); the benchmark
   benchmarks/sdk_libm_cost.py runs it with two counts and divides the difference. */
#include <math.h>
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("libm_cost", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

#ifndef FN
#define FN expf
#endif
#ifndef CALLS
#define CALLS 100
#endif

int main(void)
{
    volatile float x = 0.37f, sink = 0;
    for (int i = 0; i < CALLS; i++)
        sink += FN(x + (float)i * 0.01f);
    printf("%d\n", (int)sink);
    return 0;
}
