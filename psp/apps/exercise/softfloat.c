/* Double arithmetic on random operands (normal, subnormal, huge, tiny, inf, nan): the
   PSP does it in software (compiler-rt, plus the SDK's own __divdf3), the host in
   hardware; tests/sdk require identical results (NaNs compared as NaN). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pspsdk.h>

PSP_MODULE_INFO("softfloat", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(64);

#define PAIRS 600

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* A random double biased towards the interesting exponents. */
static double random_double(void)
{
    uint64_t r = next(), exp;
    switch (r & 7) {
    case 0: exp = 0; break;                          /* zero or subnormal */
    case 1: exp = 1 + (r >> 8) % 60; break;          /* tiny */
    case 2: exp = 2046 - (r >> 8) % 60; break;       /* huge */
    case 3: exp = (r >> 8) % 8 ? 1023 : 2047; break; /* around 1, or inf/nan */
    default: exp = (r >> 8) % 2047; break;
    }
    uint64_t bits = (next() & ((1ull << 52) - 1)) | (exp << 52) | (r & (1ull << 63));
    if ((r & 0xf0) == 0)
        bits &= ~((1ull << 40) - 1);                 /* short significands: exact cases */
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

static void show(const char *op, double a, double b, double r)
{
    uint64_t ua, ub, ur;
    memcpy(&ua, &a, 8);
    memcpy(&ub, &b, 8);
    memcpy(&ur, &r, 8);
    if (r != r)
        printf("%s %016llx %016llx nan\n", op, (unsigned long long)ua, (unsigned long long)ub);
    else
        printf("%s %016llx %016llx %016llx\n", op, (unsigned long long)ua, (unsigned long long)ub, (unsigned long long)ur);
}

int main(void)
{
    for (int i = 0; i < PAIRS; i++) {
        volatile double a = random_double(), b = random_double();
        show("div", a, b, a / b);
        show("mul", a, b, a * b);
        show("add", a, b, a + b);
        show("sub", a, b, a - b);
        volatile float f = (float)a;
        show("f2d", a, 0, (double)f);
        show("d2i", a, 0, (double)(int)(a > 2e9 || a < -2e9 || a != a ? 0 : a));
    }
    /* many more divisions, folded into one hash (NaNs folded as one value) */
    uint64_t hash = 0;
    for (int i = 0; i < 10000; i++) {
        volatile double a = random_double(), b = random_double();
        double q = a / b;
        uint64_t bits;
        memcpy(&bits, &q, 8);
        hash = (hash * 0x100000001b3ull) ^ (q != q ? 1 : bits);
    }
    printf("divhash %016llx\n", (unsigned long long)hash);
    return 0;
}
