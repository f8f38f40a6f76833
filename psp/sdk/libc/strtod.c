/* strtod: decimal text to the nearest double (ties to even), for any number of digits
   and any exponent, subnormals included. Short inputs take the exact fast path (a
   significand below 2^53 times an exact power of ten, one rounding); the others are
   converted with big-integer arithmetic: the quotient or product is formed exactly to
   55 bits plus a sticky bit and rounded once. Also accepts inf, infinity and nan;
   hexadecimal floats are not parsed. tests/sdk/test_libc.py checks it against Python on
   random input, exact halfway cases included. */
#include <stdlib.h>
#include <stdint.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

#define MAX_DIGITS 780        /* more digits only matter as "something nonzero follows" */
#define LIMBS 128             /* 4096 bits: 10^1111 shifted by 55 fits */

static const double exact_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

typedef struct {
    uint32_t w[LIMBS];        /* little-endian limbs */
    int n;                    /* limbs in use */
} big;

static void big_set(big *b, uint32_t v)
{
    b->w[0] = v;
    b->n = v != 0;
}

static void big_mul_add(big *b, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;
    for (int i = 0; i < b->n; i++) {
        uint64_t cur = (uint64_t)b->w[i] * mul + carry;
        b->w[i] = (uint32_t)cur;
        carry = cur >> 32;
    }
    if (carry && b->n < LIMBS)
        b->w[b->n++] = (uint32_t)carry;
}

static void big_mul_pow10(big *b, int e)
{
    for (; e >= 9; e -= 9)
        big_mul_add(b, 1000000000u, 0);
    static const uint32_t small[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    big_mul_add(b, small[e], 0);
}

static int big_bits(const big *b)
{
    return b->n ? 32 * (b->n - 1) + (32 - __builtin_clz(b->w[b->n - 1])) : 0;
}

static void big_shl(big *b, int bits)
{
    int words = bits / 32, r = bits % 32;
    int n = b->n + words + 1;
    if (n > LIMBS)
        n = LIMBS;
    for (int i = n - 1; i >= 0; i--) {
        int src = i - words;
        uint32_t hi = src >= 0 && src < b->n ? b->w[src] : 0;
        uint32_t lo = src - 1 >= 0 && src - 1 < b->n ? b->w[src - 1] : 0;
        b->w[i] = r ? (hi << r) | (lo >> (32 - r)) : hi;
    }
    b->n = n;
    while (b->n && !b->w[b->n - 1])
        b->n--;
}

static void big_shr1(big *b)
{
    for (int i = 0; i < b->n; i++)
        b->w[i] = (b->w[i] >> 1) | (i + 1 < b->n ? b->w[i + 1] << 31 : 0);
    while (b->n && !b->w[b->n - 1])
        b->n--;
}

static int big_cmp(const big *a, const big *b)
{
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static void big_sub(big *a, const big *b)
{
    uint64_t borrow = 0;
    for (int i = 0; i < a->n; i++) {
        uint64_t sub = (uint64_t)(i < b->n ? b->w[i] : 0) + borrow;
        borrow = a->w[i] < sub;
        a->w[i] = (uint32_t)((uint64_t)a->w[i] - sub);
    }
    while (a->n && !a->w[a->n - 1])
        a->n--;
}

/* The top 55 bits of b (b nonzero) and whether anything below them is set. */
static uint64_t big_top55(const big *b, int *sticky)
{
    int bits = big_bits(b);
    uint64_t top = 0;
    *sticky = 0;
    for (int bit = bits - 1; bit >= 0; bit--) {
        int set = (b->w[bit / 32] >> (bit % 32)) & 1;
        if (bit >= bits - 55)
            top = (top << 1) | set;
        else if (set) {
            *sticky = 1;
            break;
        }
    }
    return bits < 55 ? top << (55 - bits) : top;
}

/* q in [2^54, 2^55): 1.f with 2 extra bits at biased exponent exp; round once. */
static double round_to_double(uint64_t q, int exp, int sticky)
{
    uint64_t bits;
    if (exp >= 0x7ff) {
        errno = ERANGE;
        return __builtin_inf();
    }
    if (exp <= 0) {
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
    if (exp == 0) {
        bits = m;                       /* subnormal; a carry into bit 52 makes it normal */
        if (!m)
            errno = ERANGE;
    } else {
        if (m >> 53) {
            m >>= 1;
            if (++exp >= 0x7ff) {
                errno = ERANGE;
                return __builtin_inf();
            }
        }
        bits = ((uint64_t)exp << 52) | (m & ((1ull << 52) - 1));
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* digits: significant digits without leading zeros; value = digits * 10^exp10 */
static double decimal_to_double(const char *digits, int count, int exp10)
{
    if (count + exp10 > 310) {
        errno = ERANGE;
        return __builtin_inf();
    }
    if (count + exp10 < -330) {
        errno = ERANGE;
        return 0.0;
    }
    if (count <= 15 && exp10 >= -22 && exp10 <= 22) {   /* exact factors, one rounding */
        double m = 0;
        for (int i = 0; i < count; i++)
            m = m * 10 + (digits[i] - '0');
        return exp10 >= 0 ? m * exact_pow10[exp10] : m / exact_pow10[-exp10];
    }
    big num, den;
    big_set(&num, 0);
    for (int i = 0; i < count; i++) {
        if (num.n == 0)
            big_set(&num, (uint32_t)(digits[i] - '0'));
        else
            big_mul_add(&num, 10, (uint32_t)(digits[i] - '0'));
    }
    int sticky;
    if (exp10 >= 0) {
        big_mul_pow10(&num, exp10);
        uint64_t q = big_top55(&num, &sticky);
        return round_to_double(q, big_bits(&num) - 1 + 1023, sticky);
    }
    big_set(&den, 1);
    big_mul_pow10(&den, -exp10);
    /* q = floor(num * 2^s / den) with 56 quotient bits, by shift-and-subtract */
    int s = big_bits(&den) - big_bits(&num) + 55;
    if (s >= 0)
        big_shl(&num, s);
    else
        big_shl(&den, -s);
    big_shl(&den, 55);
    uint64_t q = 0;
    for (int i = 0; i < 56; i++) {
        q <<= 1;
        if (big_cmp(&num, &den) >= 0) {
            big_sub(&num, &den);
            q |= 1;
        }
        big_shr1(&den);
    }
    sticky = num.n != 0;
    /* num * 2^s / den lies in [2^54, 2^56): value = q * 2^-s */
    if (q >> 55) {
        sticky |= (int)(q & 1);
        q >>= 1;
        s--;
    }
    return round_to_double(q, 54 - s + 1023, sticky);
}

static int match_word(const char *p, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)p[i]) != word[i])
            return 0;
    return 1;
}

double strtod(const char *s, char **end)
{
    const char *p = s;
    int neg = 0;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (match_word(p, "inf")) {
        p += match_word(p, "infinity") ? 8 : 3;
        if (end) *end = (char *)p;
        return neg ? -__builtin_inf() : __builtin_inf();
    }
    if (match_word(p, "nan")) {
        if (end) *end = (char *)(p + 3);
        return neg ? -__builtin_nan("") : __builtin_nan("");
    }
    char digits[MAX_DIGITS + 1];
    int count = 0, exp10 = 0, any = 0, dropped = 0, seen_point = 0;
    for (;; p++) {
        if (*p == '.' && !seen_point) {
            seen_point = 1;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            break;
        any = 1;
        if (count == 0 && *p == '0') {        /* leading zero */
            exp10 -= seen_point;
            continue;
        }
        if (count < MAX_DIGITS) {
            digits[count++] = *p;
            exp10 -= seen_point;
        } else {
            dropped |= *p != '0';
            exp10 += !seen_point;
        }
    }
    if (!any) {
        if (end) *end = (char *)s;
        return 0.0;
    }
    if ((*p | 32) == 'e') {
        const char *q = p + 1;
        int eneg = 0, e = 0, edigits = 0;
        if (*q == '+' || *q == '-')
            eneg = *q++ == '-';
        for (; isdigit((unsigned char)*q); q++, edigits++)
            if (e < 100000)
                e = e * 10 + (*q - '0');
        if (edigits) {
            exp10 += eneg ? -e : e;
            p = q;
        }
    }
    if (end)
        *end = (char *)p;
    if (dropped) {               /* a nonzero tail: one more digit decides ties correctly */
        digits[count++] = '1';
        exp10--;
    }
    double v = count ? decimal_to_double(digits, count, exp10) : 0.0;
    return neg ? -v : v;
}

float strtof(const char *s, char **end)
{
    return (float)strtod(s, end);
}
