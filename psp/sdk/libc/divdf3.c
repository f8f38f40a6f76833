/* Double division for the soft-float PSP build, replacing compiler-rt's __divdf3
   (zig 0.15's flushes subnormal quotients to zero). Correctly rounded (to nearest,
   ties to even) for all inputs including subnormals, so PSP builds divide exactly like
   the host's FPU. Built only for the PSP: the host divides in hardware. */
#ifdef __PSP__
#include <stdint.h>
#include <string.h>

#define SIGN (1ull << 63)
#define FRAC ((1ull << 52) - 1)
#define IMPLICIT (1ull << 52)
#define QNAN 0x7ff8000000000000ull

static uint64_t bits_of(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
static double from_bits(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* Significand with the implicit bit, exponent adjusted for subnormals. */
static uint64_t unpack(uint64_t u, int *exp)
{
    uint64_t m = u & FRAC;
    *exp = (int)((u >> 52) & 0x7ff);
    if (*exp)
        return m | IMPLICIT;
    *exp = 1;
    while (!(m & IMPLICIT)) {
        m <<= 1;
        (*exp)--;
    }
    return m;
}

double __divdf3(double a, double b)
{
    uint64_t ua = bits_of(a), ub = bits_of(b), sign = (ua ^ ub) & SIGN;
    uint64_t aa = ua & ~SIGN, ab = ub & ~SIGN;
    const uint64_t inf = 0x7ffull << 52;
    if (aa > inf)
        return from_bits(ua | (1ull << 51));
    if (ab > inf)
        return from_bits(ub | (1ull << 51));
    if (aa == inf)
        return from_bits(ab == inf ? QNAN : sign | inf);
    if (ab == inf)
        return from_bits(sign);
    if (ab == 0)
        return from_bits(aa == 0 ? QNAN : sign | inf);
    if (aa == 0)
        return from_bits(sign);

    int ea, eb;
    uint64_t ma = unpack(aa, &ea), mb = unpack(ab, &eb);
    int exp = ea - eb + 1023;
    if (ma < mb) {
        ma <<= 1;
        exp--;
    }
    /* 55 quotient bits: 53 for the significand, a round bit, one more; the rest is sticky */
    uint64_t q = 0, r = ma;
    for (int i = 0; i < 55; i++) {
        q <<= 1;
        if (r >= mb) {
            r -= mb;
            q |= 1;
        }
        r <<= 1;
    }
    int sticky = r != 0;
    if (exp >= 0x7ff)
        return from_bits(sign | inf);
    if (exp <= 0) {                     /* subnormal: shift the extra bits into sticky */
        int shift = 1 - exp;
        if (shift > 56) {
            sticky |= q != 0;
            q = 0;
        } else {
            sticky |= (q & ((1ull << shift) - 1)) != 0;
            q >>= shift;
        }
        exp = 0;
    }
    uint64_t m = q >> 2;
    int round = (int)((q >> 1) & 1);
    sticky |= (int)(q & 1);
    if (round && (sticky || (m & 1)))
        m++;
    if (exp == 0)
        return from_bits(sign | m);     /* a carry into bit 52 makes it the smallest normal */
    if (m >> 53) {
        m >>= 1;
        if (++exp >= 0x7ff)
            return from_bits(sign | inf);
    }
    return from_bits(sign | ((uint64_t)exp << 52) | (m & FRAC));
}
#endif
