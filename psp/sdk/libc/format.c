/* The printf engine: one formatter writing through a sink, used by every printf
   variant. Floating-point conversions (%f %e %g) are exact: the double is expanded
   into its exact decimal digits with a small big-integer and rounded once, half to
   even, so output matches a correctly rounding C library digit for digit. */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "format.h"

#define LIMBS 38          /* 1216 bits: a double's integer part or fraction, times 10 */
#define MAX_DIGITS 800    /* digits kept per conversion: enough for any double at */
#define MAX_PRECISION 400 /* precision <= 400, which is the cap */

enum { F_MINUS = 1, F_PLUS = 2, F_SPACE = 4, F_HASH = 8, F_ZERO = 16, F_UPPER = 32 };

typedef struct {
    uint32_t limb[LIMBS];
    int bits;                 /* fraction scale: value = limb / 2^bits */
} bigfrac;

/* Exact decimal digits of a finite non-negative double, produced on demand. */
typedef struct {
    char d[MAX_DIGITS];
    int n;                    /* digits produced so far */
    int nint;                 /* how many of them are the integer part */
    bigfrac frac;             /* what remains of the fraction */
} digit_stream;

static void out_chars(format_sink *sink, const char *s, int n)
{
    if (n > 0) {
        sink->put(sink, s, n);
        sink->count += n;
    }
}

static void out_repeat(format_sink *sink, char c, int n)
{
    char block[16];
    memset(block, c, sizeof block);
    for (; n > 0; n -= 16)
        out_chars(sink, block, n < 16 ? n : 16);
}

/* Divide a little-endian big integer by 10^9 in place; returns the remainder. */
static uint32_t big_div_1e9(uint32_t *limb, int *used)
{
    uint64_t rem = 0;
    for (int i = *used - 1; i >= 0; i--) {
        uint64_t cur = (rem << 32) | limb[i];
        limb[i] = (uint32_t)(cur / 1000000000u);
        rem = cur % 1000000000u;
    }
    while (*used > 0 && limb[*used - 1] == 0)
        (*used)--;
    return (uint32_t)rem;
}

static int frac_is_zero(const bigfrac *f)
{
    for (int i = 0; i <= f->bits / 32 && i < LIMBS; i++)
        if (f->limb[i])
            return 0;
    return 1;
}

/* Multiply the fraction by ten and take the digit that crosses the binary point. */
static int frac_next_digit(bigfrac *f)
{
    uint64_t carry = 0;
    int top = f->bits / 32 + 1;
    for (int i = 0; i <= top && i < LIMBS; i++) {
        uint64_t cur = (uint64_t)f->limb[i] * 10 + carry;
        f->limb[i] = (uint32_t)cur;
        carry = cur >> 32;
    }
    int q = f->bits / 32, r = f->bits % 32;
    uint64_t window = f->limb[q] | ((uint64_t)f->limb[q + 1] << 32);
    int digit = (int)((window >> r) & 15);
    f->limb[q] &= r ? (1u << r) - 1 : 0;
    f->limb[q + 1] = 0;
    return digit;
}

static void stream_init(digit_stream *s, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    int biased = (int)((bits >> 52) & 0x7ff);
    uint64_t mant = bits & ((1ull << 52) - 1);
    int e = biased ? biased - 1075 : -1074;
    if (biased)
        mant |= 1ull << 52;

    uint32_t ipart[LIMBS] = {0};
    int used = 0;
    memset(&s->frac, 0, sizeof s->frac);
    if (e >= 0) {
        int w = e / 32, r = e % 32;
        ipart[w] = (uint32_t)(mant << r);
        ipart[w + 1] = r ? (uint32_t)(mant >> (32 - r)) : (uint32_t)(mant >> 32);
        ipart[w + 2] = r ? (uint32_t)(mant >> (64 - r)) : 0;
        used = w + 3;
    } else {
        int k = -e;
        uint64_t whole = k >= 64 ? 0 : mant >> k;
        uint64_t rest = k >= 64 ? mant : mant & ((1ull << k) - 1);
        ipart[0] = (uint32_t)whole;
        ipart[1] = (uint32_t)(whole >> 32);
        used = 2;
        s->frac.bits = k;
        s->frac.limb[0] = (uint32_t)rest;
        s->frac.limb[1] = (uint32_t)(rest >> 32);
    }
    while (used > 0 && ipart[used - 1] == 0)
        used--;

    /* Integer digits, least significant chunk first, then reversed into place. */
    char rev[MAX_DIGITS];
    int n = 0;
    while (used > 0) {
        uint32_t chunk = big_div_1e9(ipart, &used);
        for (int i = 0; i < 9 && (used > 0 || chunk); i++) {
            rev[n++] = (char)('0' + chunk % 10);
            chunk /= 10;
        }
    }
    for (int i = 0; i < n; i++)
        s->d[i] = rev[n - 1 - i];
    s->n = s->nint = n;
}

/* Make sure digits [0, count) exist (fraction digits are generated lazily). */
static void stream_fill(digit_stream *s, int count)
{
    if (count > MAX_DIGITS)
        count = MAX_DIGITS;
    while (s->n < count)
        s->d[s->n++] = (char)('0' + (s->frac.bits ? frac_next_digit(&s->frac) : 0));
}

/* Keep digits [0, keep) rounded half to even; returns 1 if rounding carried out of
   the first digit (the digits are then "1000...": one more leading digit). */
static int stream_round(digit_stream *s, int keep)
{
    stream_fill(s, keep + 1);
    int next = s->d[keep] - '0';
    int sticky = !frac_is_zero(&s->frac);
    for (int i = keep + 1; i < s->n && !sticky; i++)
        sticky = s->d[i] != '0';
    int last_odd = keep > 0 ? (s->d[keep - 1] - '0') & 1 : 0;
    int up = next > 5 || (next == 5 && (sticky || last_odd));
    s->n = keep;
    if (!up)
        return 0;
    for (int i = keep - 1; i >= 0; i--) {
        if (s->d[i] != '9') {
            s->d[i]++;
            return 0;
        }
        s->d[i] = '0';
    }
    /* All nines: becomes 1 followed by zeros. */
    memmove(s->d + 1, s->d, keep);
    s->d[0] = '1';
    s->n = keep + 1;
    return 1;
}

/* Index of the first nonzero digit (generating fraction digits as needed), and the
   decimal exponent of that digit; value must be nonzero. */
static int stream_first_significant(digit_stream *s, int *exp10)
{
    if (s->nint > 0) {
        *exp10 = s->nint - 1;
        return 0;
    }
    int i = 0;
    for (;; i++) {
        stream_fill(s, i + 1);
        if (s->d[i] != '0')
            break;
    }
    *exp10 = -(i + 1);
    return i;
}

/* Fixed notation into buf: digits with the point after the integer part. */
static int render_fixed(char *buf, digit_stream *s, int prec, int flags)
{
    int nint = s->nint;
    int carried = stream_round(s, nint + prec);
    nint += carried;
    int len = 0;
    if (nint == 0)
        buf[len++] = '0';
    for (int i = 0; i < nint; i++)
        buf[len++] = s->d[i];
    if (prec > 0 || (flags & F_HASH))
        buf[len++] = '.';
    for (int i = 0; i < prec; i++)
        buf[len++] = s->d[nint + i];
    return len;
}

static int render_exponent(char *buf, int exp10, int flags)
{
    int len = 0;
    buf[len++] = (flags & F_UPPER) ? 'E' : 'e';
    buf[len++] = exp10 < 0 ? '-' : '+';
    if (exp10 < 0)
        exp10 = -exp10;
    char tmp[4];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + exp10 % 10);
        exp10 /= 10;
    } while (exp10);
    if (n < 2)
        tmp[n++] = '0';
    while (n)
        buf[len++] = tmp[--n];
    return len;
}

/* Scientific digits: rounds to prec+1 significant digits; returns the exponent. */
static int round_scientific(digit_stream *s, int prec, int *first)
{
    int exp10;
    int start = stream_first_significant(s, &exp10);
    if (stream_round(s, start + prec + 1)) {
        exp10++;              /* all nines became 1000...: start was 0 */
    } else if (start > 0 && s->d[start - 1] != '0') {
        start--;              /* the carry reached the zero before the first digit */
        exp10++;
    }
    *first = start;
    return exp10;
}

static int render_scientific(char *buf, digit_stream *s, int prec, int flags)
{
    int first, len = 0;
    int exp10 = round_scientific(s, prec, &first);
    buf[len++] = s->d[first];
    if (prec > 0 || (flags & F_HASH))
        buf[len++] = '.';
    for (int i = 0; i < prec; i++)
        buf[len++] = s->d[first + 1 + i];
    return len + render_exponent(buf + len, exp10, flags);
}

static int strip_zeros(char *buf, int len)
{
    if (!memchr(buf, '.', len))
        return len;
    while (buf[len - 1] == '0')
        len--;
    if (buf[len - 1] == '.')
        len--;
    return len;
}

/* Formats |v| (finite) per conversion into buf; returns the length. */
static int format_magnitude(char *buf, double v, char conv, int prec, int flags)
{
    digit_stream s;
    int zero = v == 0.0;
    if (prec > MAX_PRECISION)
        prec = MAX_PRECISION;
    stream_init(&s, v);
    if (conv == 'f')
        return render_fixed(buf, &s, prec, flags);
    if (conv == 'e') {
        if (zero) {
            int len = render_fixed(buf, &s, prec, flags);
            return len + render_exponent(buf + len, 0, flags);
        }
        return render_scientific(buf, &s, prec, flags);
    }
    /* %g: precision P significant digits; fixed if -4 <= X < P, trailing zeros dropped. */
    int p = prec == 0 ? 1 : prec, exp10 = 0, len;
    if (!zero) {
        digit_stream probe;
        int first;
        stream_init(&probe, v);
        exp10 = round_scientific(&probe, p - 1, &first);
    }
    if (exp10 >= -4 && exp10 < p)
        len = render_fixed(buf, &s, p - 1 - exp10, flags);
    else
        len = render_scientific(buf, &s, p - 1, flags);
    if (flags & F_HASH)
        return len;
    char *e = memchr(buf, (flags & F_UPPER) ? 'E' : 'e', len);
    if (!e)
        return strip_zeros(buf, len);
    int mant = strip_zeros(buf, (int)(e - buf));
    int elen = len - (int)(e - buf);
    memmove(buf + mant, e, elen);
    return mant + elen;
}

static void emit_padded(format_sink *sink, const char *prefix, int plen, const char *body, int blen,
                        int width, int flags, int zero_ok)
{
    int pad = width - plen - blen;
    if (pad > 0 && !(flags & F_MINUS) && !((flags & F_ZERO) && zero_ok))
        out_repeat(sink, ' ', pad);
    out_chars(sink, prefix, plen);
    if (pad > 0 && !(flags & F_MINUS) && (flags & F_ZERO) && zero_ok)
        out_repeat(sink, '0', pad);
    out_chars(sink, body, blen);
    if (pad > 0 && (flags & F_MINUS))
        out_repeat(sink, ' ', pad);
}

static void format_double(format_sink *sink, double v, char conv, int prec, int width, int flags)
{
    char body[MAX_DIGITS + 16];
    char prefix[2];
    int plen = 0, blen;
    uint64_t bits;
    memcpy(&bits, &v, 8);
    if (bits >> 63)
        prefix[plen++] = '-';
    else if (flags & F_PLUS)
        prefix[plen++] = '+';
    else if (flags & F_SPACE)
        prefix[plen++] = ' ';
    bits &= ~(1ull << 63);
    memcpy(&v, &bits, 8);
    if (bits >= 0x7ff0000000000000ull) {
        const char *word = bits == 0x7ff0000000000000ull ? "inf" : "nan";
        for (blen = 0; blen < 3; blen++)
            body[blen] = (flags & F_UPPER) ? word[blen] - 32 : word[blen];
        emit_padded(sink, prefix, plen, body, blen, width, flags, 0);
        return;
    }
    blen = format_magnitude(body, v, conv, prec < 0 ? 6 : prec, flags);
    emit_padded(sink, prefix, plen, body, blen, width, flags, 1);
}

static void format_integer(format_sink *sink, unsigned long long u, int negative, int base, int prec,
                           int width, int flags, const char *alt_prefix)
{
    char digits[24], body[MAX_PRECISION + 24], prefix[4];
    const char *set = (flags & F_UPPER) ? "0123456789ABCDEF" : "0123456789abcdef";
    int n = 0, plen = 0, blen = 0;
    if (u >> 32) {
        while (u) {
            digits[n++] = set[u % base];
            u /= base;
        }
    } else {
        for (uint32_t w = (uint32_t)u; w; w /= base)   /* 32-bit division is one instruction */
            digits[n++] = set[w % base];
    }
    if (prec > MAX_PRECISION)
        prec = MAX_PRECISION;
    if (negative)
        prefix[plen++] = '-';
    else if (flags & F_PLUS)
        prefix[plen++] = '+';
    else if (flags & F_SPACE)
        prefix[plen++] = ' ';
    if (alt_prefix && n > 0)
        while (*alt_prefix)
            prefix[plen++] = *alt_prefix++;
    int zeros = (prec < 0 ? 1 : prec) - n;
    if (base == 8 && (flags & F_HASH) && zeros <= 0 && (n == 0 || digits[n - 1] != '0'))
        zeros = 1;
    while (zeros-- > 0)
        body[blen++] = '0';
    while (n)
        body[blen++] = digits[--n];
    emit_padded(sink, prefix, plen, body, blen, width, flags, prec < 0);
}

static int read_number(const char **p)
{
    int n = 0;
    while (**p >= '0' && **p <= '9') {
        if (n < 100000000)
            n = n * 10 + (**p - '0');
        (*p)++;
    }
    return n;
}

int format_to_sink(format_sink *sink, const char *fmt, va_list ap)
{
    while (*fmt) {
        if (*fmt != '%') {
            const char *run = fmt;
            while (*fmt && *fmt != '%')
                fmt++;
            out_chars(sink, run, (int)(fmt - run));
            continue;
        }
        fmt++;
        int flags = 0, width = 0, prec = -1;
        for (;; fmt++) {
            if (*fmt == '-') flags |= F_MINUS;
            else if (*fmt == '+') flags |= F_PLUS;
            else if (*fmt == ' ') flags |= F_SPACE;
            else if (*fmt == '#') flags |= F_HASH;
            else if (*fmt == '0') flags |= F_ZERO;
            else break;
        }
        if (*fmt == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                flags |= F_MINUS;
                width = -width;
            }
            fmt++;
        } else {
            width = read_number(&fmt);
        }
        if (*fmt == '.') {
            fmt++;
            if (*fmt == '*') {
                prec = va_arg(ap, int);
                if (prec < 0)
                    prec = -1;
                fmt++;
            } else {
                prec = read_number(&fmt);
            }
        }
        int size = 0;  /* -2 hh, -1 h, 0 int, 1 long, 2 long long, 3 long double */
        for (;; fmt++) {
            if (*fmt == 'h') size = size == -1 ? -2 : -1;
            else if (*fmt == 'l') size = size == 1 ? 2 : 1;
            else if (*fmt == 'L') size = 3;
            else if (*fmt == 'z' || *fmt == 't') size = sizeof(size_t) == 8 ? 2 : 1;
            else if (*fmt == 'j' || *fmt == 'q') size = 2;
            else break;
        }
        char conv = *fmt;
        if (!conv)
            break;
        fmt++;
        switch (conv) {
        case 'd': case 'i': {
            long long v;
            if (size == 2) v = va_arg(ap, long long);
            else if (size == 1) v = va_arg(ap, long);
            else v = va_arg(ap, int);
            if (size == -1) v = (short)v;
            if (size == -2) v = (signed char)v;
            unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            format_integer(sink, u, v < 0, 10, prec, width, flags, NULL);
            break;
        }
        case 'u': case 'x': case 'X': case 'o': {
            unsigned long long u;
            if (size == 2) u = va_arg(ap, unsigned long long);
            else if (size == 1) u = va_arg(ap, unsigned long);
            else u = va_arg(ap, unsigned int);
            if (size == -1) u = (unsigned short)u;
            if (size == -2) u = (unsigned char)u;
            flags &= ~(F_PLUS | F_SPACE);
            if (conv == 'X') flags |= F_UPPER;
            int base = conv == 'o' ? 8 : conv == 'u' ? 10 : 16;
            const char *alt = (flags & F_HASH) && base == 16 ? (conv == 'X' ? "0X" : "0x") : NULL;
            format_integer(sink, u, 0, base, prec, width, flags, alt);
            break;
        }
        case 'p': {
            uintptr_t u = (uintptr_t)va_arg(ap, void *);
            format_integer(sink, u, 0, 16, prec, width, flags & ~(F_PLUS | F_SPACE), "0x");
            break;
        }
        case 'c': {
            char c = (char)va_arg(ap, int);
            emit_padded(sink, "", 0, &c, 1, width, flags & ~F_ZERO, 0);
            break;
        }
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s) s = "(null)";
            int len = prec >= 0 ? (int)strnlen(s, prec) : (int)strlen(s);
            emit_padded(sink, "", 0, s, len, width, flags & ~F_ZERO, 0);
            break;
        }
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': {
            double v;
#if __SIZEOF_LONG_DOUBLE__ > 8
            if (size == 3) v = (double)va_arg(ap, long double); else
#endif
            v = va_arg(ap, double);
            if (conv == 'F' || conv == 'E' || conv == 'G') flags |= F_UPPER;
            char lower = conv | 32;
            format_double(sink, v, lower, prec, width, flags);
            break;
        }
        case 'n': {
            int *where = va_arg(ap, int *);
            *where = sink->count;
            break;
        }
        case '%':
            out_chars(sink, "%", 1);
            break;
        default:  /* unknown conversion: print it as written */
            out_chars(sink, fmt - 2, 2);
            break;
        }
    }
    return sink->count;
}
