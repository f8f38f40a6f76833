/* Double division for the soft-float PSP build, replacing compiler-rt's __divdf3
   (zig 0.15's flushes subnormal quotients to zero). Correctly rounded (to nearest,
   ties to even) for all inputs including subnormals, so PSP builds divide exactly like
   the host's FPU (tests/sdk/test_run.py compares them on random operands). Built only
   for the PSP: the host divides in hardware. */
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

/* floor(a * 2^54 / b) for a in [b, 2b), b in [2^52, 2^53), by long division in base
   2^16 (Knuth's algorithm D): each quotient digit is estimated with one 32-bit hardware
   divide and corrected at most twice, so a division costs a few hundred instructions
   rather than one loop trip per bit. *sticky says whether the remainder is nonzero. */
static uint64_t divide_significands(uint64_t a, uint64_t b, int *sticky)
{
    uint32_t v[4], u[8];
    uint64_t bn = b << 11;                       /* top digit >= 2^15 */
    for (int i = 0; i < 4; i++)
        v[i] = (uint32_t)(bn >> (16 * i)) & 0xffff;
    /* dividend a * 2^54 * 2^11 = a << 65, as eight 16-bit digits */
    uint64_t hi = a << 1;                        /* bits 64..127 of a << 65 */
    for (int i = 0; i < 4; i++) {
        u[i] = 0;
        u[4 + i] = (uint32_t)(hi >> (16 * i)) & 0xffff;
    }
    uint64_t q = 0;
    for (int j = 3; j >= 0; j--) {               /* the quotient fits four digits */
        uint32_t top = (u[j + 4] << 16) | u[j + 3];
        uint32_t qhat = top / v[3], rhat = top % v[3];
        while (qhat > 0xffff || qhat * v[2] > ((rhat << 16) | u[j + 2])) {
            qhat--;
            rhat += v[3];
            if (rhat > 0xffff)
                break;
        }
        int32_t borrow = 0, t;
        for (int i = 0; i < 4; i++) {            /* u[j..j+4] -= qhat * v */
            uint32_t p = qhat * v[i];
            t = (int32_t)u[i + j] - borrow - (int32_t)(p & 0xffff);
            u[i + j] = (uint32_t)t & 0xffff;
            borrow = (int32_t)(p >> 16) - (t >> 16);
        }
        t = (int32_t)u[j + 4] - borrow;
        u[j + 4] = (uint32_t)t & 0xffff;
        if (t < 0) {                             /* qhat was one too large: add back */
            qhat--;
            uint32_t carry = 0;
            for (int i = 0; i < 4; i++) {
                uint32_t sum = u[i + j] + v[i] + carry;
                u[i + j] = sum & 0xffff;
                carry = sum >> 16;
            }
            u[j + 4] = (u[j + 4] + carry) & 0xffff;
        }
        q = (q << 16) | qhat;
    }
    *sticky = (u[0] | u[1] | u[2] | u[3]) != 0;
    return q;
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
    /* 55 quotient bits (53 for the significand, a round bit, one more) and a sticky
       bit for the remainder: q = floor(ma * 2^54 / mb), with ma / mb in [1, 2). */
    int sticky;
    uint64_t q = divide_significands(ma, mb, &sticky);
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
