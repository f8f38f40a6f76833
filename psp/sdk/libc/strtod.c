/* strtod: decimal text to double. Correctly rounded when the significand has at most
   15 digits and the decimal exponent is within +-22 (both factors are then exact
   doubles and one multiply or divide rounds once); otherwise within a few ulps
   (measured in tests/sdk/test_libc.py). Also accepts inf, infinity and nan. */
#include <stdlib.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

static const double exact_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static double scale10(double x, int e)
{
    /* 10^e in as few multiplications as the exponent allows, to limit rounding steps */
    while (e > 22) {
        x *= 1e22;
        e -= 22;
        if (x > 1.8e308)
            return x;
    }
    while (e < -22) {
        x /= 1e22;
        e += 22;
        if (x == 0)
            return x;
    }
    return e >= 0 ? x * exact_pow10[e] : x / exact_pow10[-e];
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
    unsigned long long mant = 0;
    int digits = 0, exp10 = 0, any = 0;
    for (; isdigit((unsigned char)*p); p++, any = 1) {
        if (digits < 19) {
            mant = mant * 10 + (*p - '0');
            if (mant) digits++;
        } else {
            exp10++;
        }
    }
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++, any = 1) {
            if (digits < 19) {
                mant = mant * 10 + (*p - '0');
                if (mant) digits++;
                exp10--;
            }
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
    double v = mant == 0 ? 0.0 : scale10((double)mant, exp10);
    if (v > 1.7976931348623157e308 || (mant && v == 0.0))
        errno = ERANGE;
    return neg ? -v : v;
}

float strtof(const char *s, char **end)
{
    return (float)strtod(s, end);
}
