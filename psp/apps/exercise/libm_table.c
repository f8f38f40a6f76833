/* libm accuracy table: every SDK libm function over a fixed sweep, printed as the bit
   patterns of the results. The PSP build (run in the simulator) and the host build
   must print identical text: tests/sdk compare them. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <pspsdk.h>

PSP_MODULE_INFO("libm_table", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(64);

#ifndef POINTS
#define POINTS 97
#endif

static unsigned int bits(float f)
{
    unsigned int u;
    memcpy(&u, &f, 4);
    return u;
}

static float at(float lo, float hi, int i)
{
    return lo + (hi - lo) * (float)i / (float)(POINTS - 1);
}

#define UNARY(fn, lo, hi)                                              \
    for (int i = 0; i < POINTS; i++) {                                 \
        float x = at(lo, hi, i);                                       \
        printf(#fn " %08x %08x\n", bits(x), bits(fn(x)));              \
    }

int main(void)
{
    UNARY(expf, -104.0f, 89.0f)
    UNARY(logf, 1e-6f, 1000.0f)
    UNARY(sqrtf, 0.0f, 1e6f)
    UNARY(sinf, -20000.0f, 20000.0f)
    UNARY(sinf, -4.0f, 4.0f)
    UNARY(cosf, -20000.0f, 20000.0f)
    UNARY(cosf, -4.0f, 4.0f)
    UNARY(tanf, -1.5f, 1.5f)
    UNARY(tanhf, -10.0f, 10.0f)
    UNARY(floorf, -100.0f, 100.0f)
    UNARY(ceilf, -100.0f, 100.0f)
    UNARY(roundf, -100.0f, 100.0f)
    UNARY(fabsf, -100.0f, 100.0f)
    for (int i = 0; i < POINTS; i++) {
        float x = at(0.01f, 50.0f, i), y = at(-6.0f, 6.0f, (i * 37) % POINTS);
        printf("powf %08x %08x %08x\n", bits(x), bits(y), bits(powf(x, y)));
    }
    for (int i = 0; i < POINTS; i++) {
        float x = at(-500.0f, 500.0f, i), y = at(0.5f, 30.0f, (i * 53) % POINTS);
        printf("fmodf %08x %08x %08x\n", bits(x), bits(y), bits(fmodf(x, y)));
    }
    for (int i = 0; i < POINTS; i++) {
        double x = (double)at(0.0f, 1e9f, i) * 1.000001;
        printf("sqrt %.17g %.17g\n", x, sqrt(x));
    }
    return 0;
}
