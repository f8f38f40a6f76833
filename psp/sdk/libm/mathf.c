/* Single-precision math in portable C (float arithmetic, no FMA, no lookup tables), so
   the PSP build and a host build compute bit-identical results. Error bounds, measured
   against double precision over dense sweeps by tests/sdk/test_libm.py, are listed in
   psp/sdk/libm/README.md. Polynomial coefficients come from psp/sdk/tools/fit_libm.py. */
#include <math.h>
#include <stdint.h>

static const float EXP_Q[] = {5.000000000e-01f, 1.666666567e-01f, 4.166647047e-02f, 8.333520964e-03f, 1.393319690e-03f, 1.975042542e-04f};
static const float LOG_P[] = {6.666666269e-01f, 4.000034034e-01f, 2.853710949e-01f, 2.358540446e-01f};
static const float SIN_S[] = {-1.666666716e-01f, 8.333329111e-03f, -1.983935363e-04f, 2.718453970e-06f};
static const float COS_C[] = {4.166666791e-02f, -1.388888340e-03f, 2.479946306e-05f, -2.720597365e-07f};
static const float TANH_T[] = {-3.333333135e-01f, 1.333329529e-01f, -5.395995826e-02f, 2.178473584e-02f, -8.419418707e-03f, 2.401696518e-03f};

/* ln 2 split so that k * LN2_HI is exact for |k| < 2^8 */
#define LN2_HI 6.93145751953125e-01f
#define LN2_LO 1.428606765330187045e-06f
#define LOG2E 1.44269504088896341f

static uint32_t bits_of(float x)
{
    union { float f; uint32_t u; } v = {x};
    return v.u;
}

static float from_bits(uint32_t u)
{
    union { uint32_t u; float f; } v = {u};
    return v.f;
}

/* x * 2^k for k in [-252, 254], exact unless the result is subnormal */
static float scale2(float x, int k)
{
    if (k > 127) {
        x *= 0x1p127f;
        k -= 127;
    }
    if (k < -126) {
        x *= 0x1p-126f;
        k += 126;
        if (k < -126) {
            x *= 0x1p-126f;
            k += 126;
        }
    }
    return x * from_bits((uint32_t)(k + 127) << 23);
}

float fabsf(float x) { return from_bits(bits_of(x) & 0x7fffffffu); }
float copysignf(float x, float y) { return from_bits((bits_of(x) & 0x7fffffffu) | (bits_of(y) & 0x80000000u)); }

/* IEEE square root, correctly rounded: the FPU instruction on both the PSP (sqrt.s)
   and x86 (sqrtss), which round identically. */
float sqrtf(float x) { return __builtin_sqrtf(x); }

float truncf(float x)
{
    uint32_t u = bits_of(x);
    int e = (int)((u >> 23) & 0xff) - 127;
    if (e >= 23)
        return x;                       /* integral, inf or nan */
    if (e < 0)
        return from_bits(u & 0x80000000u);
    return from_bits(u & ~(0x007fffffu >> e));
}

float floorf(float x)
{
    float t = truncf(x);
    return (t != x && x < 0) ? t - 1.0f : t;
}

float ceilf(float x)
{
    float t = truncf(x);
    return (t != x && x > 0) ? t + 1.0f : t;
}

/* Half away from zero; the subtraction is exact, so no double rounding. */
float roundf(float x)
{
    float t = truncf(x);
    float a = fabsf(x - t);
    if (a >= 0.5f)
        t += x > 0 ? 1.0f : -1.0f;
    return t;
}

float fmaxf(float a, float b) { return (a != a) ? b : (b != b) ? a : (a > b ? a : b); }
float fminf(float a, float b) { return (a != a) ? b : (b != b) ? a : (a < b ? a : b); }

float ldexpf(float x, int e)
{
    if (x == 0 || x != x || fabsf(x) == INFINITY)
        return x;
    if (e > 300) e = 300;
    if (e < -300) e = -300;
    while (e > 200) { x = scale2(x, 200); e -= 200; }
    while (e < -200) { x = scale2(x, -200); e += 200; }
    return scale2(x, e);
}

float frexpf(float x, int *e)
{
    uint32_t u = bits_of(x);
    int ex = (int)((u >> 23) & 0xff);
    *e = 0;
    if (x == 0 || ex == 0xff)
        return x;
    if (ex == 0) {                      /* subnormal: normalise first */
        x *= 0x1p25f;
        u = bits_of(x);
        ex = (int)((u >> 23) & 0xff);
        *e = -25;
    }
    *e += ex - 126;
    return from_bits((u & 0x807fffffu) | (126u << 23));
}

/* Exact remainder by shift-and-subtract on the integer significands. */
float fmodf(float x, float y)
{
    uint32_t ux = bits_of(x), uy = bits_of(y);
    uint32_t sign = ux & 0x80000000u;
    ux &= 0x7fffffffu;
    uy &= 0x7fffffffu;
    if (uy == 0 || ux >= 0x7f800000u || uy > 0x7f800000u)
        return (x * y) / (x * y);       /* nan */
    if (ux < uy)
        return x;
    int ex = (int)(ux >> 23), ey = (int)(uy >> 23);
    uint32_t mx, my;
    if (ex) mx = (ux & 0x7fffffu) | 0x800000u;
    else { mx = ux; ex = 1; while (!(mx & 0x800000u)) { mx <<= 1; ex--; } }
    if (ey) my = (uy & 0x7fffffu) | 0x800000u;
    else { my = uy; ey = 1; while (!(my & 0x800000u)) { my <<= 1; ey--; } }
    for (; ex > ey; ex--) {
        if (mx >= my)
            mx -= my;
        mx <<= 1;
    }
    if (mx >= my)
        mx -= my;
    if (mx == 0)
        return from_bits(sign);
    while (!(mx & 0x800000u)) {
        mx <<= 1;
        ey--;
    }
    if (ey > 0)
        return from_bits(sign | ((uint32_t)ey << 23) | (mx & 0x7fffffu));
    return from_bits(sign | (mx >> (1 - ey)));   /* subnormal result, exact */
}

float expf(float x)
{
    if (x != x)
        return x;
    if (x > 88.7228393f)
        return INFINITY;
    if (x < -103.972084f)
        return 0.0f;
    float kf = x * LOG2E;
    kf = kf < 0 ? kf - 0.5f : kf + 0.5f;
    int k = (int)kf;
    float r = (x - (float)k * LN2_HI) - (float)k * LN2_LO;
    const float *q = EXP_Q;
    float p = q[0] + r * (q[1] + r * (q[2] + r * (q[3] + r * (q[4] + r * q[5]))));
    float e = 1.0f + (r + r * r * p);
    return scale2(e, k);
}

float logf(float x)
{
    uint32_t u = bits_of(x);
    if (x != x || u == 0x7f800000u)
        return x;                       /* nan, +inf */
    if ((u & 0x7fffffffu) == 0)
        return -INFINITY;
    if (u >> 31)
        return NAN;
    int k = 0;
    if (u < 0x00800000u) {              /* subnormal */
        x *= 0x1p25f;
        u = bits_of(x);
        k = -25;
    }
    /* x = 2^k * m with m in [sqrt(1/2), sqrt(2)) */
    u += 0x3f800000u - 0x3f3504f3u;
    k += (int)(u >> 23) - 127;
    u = (u & 0x007fffffu) + 0x3f3504f3u;
    float f = from_bits(u) - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    const float *c = LOG_P;
    float r = z * (c[0] + z * (c[1] + z * (c[2] + z * c[3])));
    float half_sq = 0.5f * f * f;
    float kf = (float)k;
    return kf * LN2_HI - ((half_sq - (s * (half_sq + r) + kf * LN2_LO)) - f);
}

float log2f(float x) { return logf(x) * 1.44269504088896341f; }
float log10f(float x) { return logf(x) * 0.434294481903251828f; }

/* Reduce x to r in [-pi/4, pi/4] with x = r + q*pi/2; returns q mod 4. Float
   Cody-Waite with a three-part pi/2 up to |x| < 8192, double precision above. */
static int reduce_pio2(float x, float *r)
{
    if (fabsf(x) < 8192.0f) {
        float kf = x * 0.636619772f;
        kf = kf < 0 ? kf - 0.5f : kf + 0.5f;
        int k = (int)kf;
        float fk = (float)k;
        /* 1.5703125 (8 bits) and the next 11 bits: k times either is exact for k < 2^13 */
        *r = ((x - fk * 1.5703125f) - fk * 4.837512969970703125e-04f) - fk * 7.549789954891882e-08f;
        return k & 3;
    }
    double xd = x;
    double kd = __builtin_floor(xd * 0.63661977236758134 + 0.5);
    *r = (float)((xd - kd * 1.5707963267341256) - kd * 6.077100506506192e-11);
    long long k = (long long)kd;
    return (int)(k & 3);
}

static float sin_kernel(float r)
{
    float z = r * r;
    const float *s = SIN_S;
    return r + r * z * (s[0] + z * (s[1] + z * (s[2] + z * s[3])));
}

static float cos_kernel(float r)
{
    float z = r * r;
    const float *c = COS_C;
    return 1.0f - (0.5f * z - z * z * (c[0] + z * (c[1] + z * (c[2] + z * c[3]))));
}

float sinf(float x)
{
    if (x != x || fabsf(x) == INFINITY)
        return x - x;
    if (fabsf(x) < 0x1p-12f)
        return x;
    float r;
    switch (reduce_pio2(x, &r)) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
    }
}

float cosf(float x)
{
    if (x != x || fabsf(x) == INFINITY)
        return x - x;
    float r;
    switch (reduce_pio2(x, &r)) {
    case 0: return cos_kernel(r);
    case 1: return -sin_kernel(r);
    case 2: return -cos_kernel(r);
    default: return sin_kernel(r);
    }
}

float tanf(float x)
{
    if (x != x || fabsf(x) == INFINITY)
        return x - x;
    float r;
    int q = reduce_pio2(x, &r);
    float s = sin_kernel(r), c = cos_kernel(r);
    return (q & 1) ? -c / s : s / c;
}

float tanhf(float x)
{
    float a = fabsf(x);
    if (x != x)
        return x;
    if (a < 0x1p-12f)
        return x;
    if (a > 9.1f)
        return copysignf(1.0f, x);
    if (a < 0.55f) {
        float z = x * x;
        const float *t = TANH_T;
        return x + x * z * (t[0] + z * (t[1] + z * (t[2] + z * (t[3] + z * (t[4] + z * t[5])))));
    }
    float t = 1.0f - 2.0f / (expf(2.0f * a) + 1.0f);
    return copysignf(t, x);
}

/* powf works in double precision internally (soft-float on the PSP: slower, but the
   result is the float nearest to x^y in all but rare halfway cases). */
static double log_d(double x, int *ok)
{
    union { double d; uint64_t u; } v = {x};
    int k = (int)((v.u >> 52) & 0x7ff) - 1023;
    if (k == -1023) {                   /* subnormal */
        v.d = x * 0x1p54;
        k = (int)((v.u >> 52) & 0x7ff) - 1023 - 54;
    }
    v.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    if (v.d > 1.4142135623730951) {
        v.d *= 0.5;
        k++;
    }
    double s = (v.d - 1.0) / (v.d + 1.0), z = s * s;
    /* 2 atanh(s) = 2s (1 + z/3 + z^2/5 + ...): constants, so no further divisions */
    double series = 1.0 / 15;
    series = 1.0 / 13 + z * series;
    series = 1.0 / 11 + z * series;
    series = 1.0 / 9 + z * series;
    series = 1.0 / 7 + z * series;
    series = 1.0 / 5 + z * series;
    series = 1.0 / 3 + z * series;
    series = 1.0 + z * series;
    *ok = 1;
    return k * 0.69314718055994530942 + 2.0 * s * series;
}

static double exp_d(double t)
{
    double kd = __builtin_floor(t * 1.4426950408889634 + 0.5);
    double r = (t - kd * 0.6931471803691238) - kd * 1.9082149292705877e-10;
    /* Taylor series to r^13 / 13! in Horner form with constant coefficients */
    static const double inv_fact[] = {1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                                      1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800,
                                      1.0 / 479001600, 1.0 / 6227020800.0};
    double sum = inv_fact[13];
    for (int n = 12; n >= 0; n--)
        sum = inv_fact[n] + r * sum;
    int k = (int)kd;
    union { double d; uint64_t u; } scale;
    if (k < -1000) {                    /* result underflows float anyway */
        sum *= 0x1p-200;
        k += 200;
    }
    scale.u = (uint64_t)(k + 1023) << 52;
    return sum * scale.d;
}

static int is_integer(float y) { return truncf(y) == y; }
static int is_odd_integer(float y) { return is_integer(y) && fabsf(y) < 0x1p24f && ((int32_t)y & 1); }

float powf(float x, float y)
{
    if (y == 0 || x == 1.0f)
        return 1.0f;
    if (x != x || y != y)
        return x + y;
    float ax = fabsf(x);
    if (fabsf(y) == INFINITY) {
        if (ax == 1.0f) return 1.0f;
        return (ax > 1.0f) == (y > 0) ? INFINITY : 0.0f;
    }
    int negate = 0;
    if (bits_of(x) >> 31) {
        if (!is_integer(y))
            return NAN;
        negate = is_odd_integer(y);
    }
    if (ax == 0 || ax == INFINITY) {
        float m = ((ax == 0) == (y < 0)) ? INFINITY : 0.0f;
        return negate ? -m : m;
    }
    int ok;
    double t = (double)y * log_d((double)ax, &ok);
    float m;
    if (t > 88.8)
        m = INFINITY;
    else if (t < -104.0)
        m = 0.0f;
    else
        m = (float)exp_d(t);
    return negate ? -m : m;
}

/* Double-precision names. sqrt, fabs, floor, ceil, trunc, round and fmod are exact;
   the transcendental ones evaluate in single precision (their float error bound). */
double fabs(double x)
{
    union { double d; uint64_t u; } v = {x};
    v.u &= ~(1ull << 63);
    return v.d;
}

double trunc(double x)
{
    union { double d; uint64_t u; } v = {x};
    int e = (int)((v.u >> 52) & 0x7ff) - 1023;
    if (e >= 52)
        return x;
    if (e < 0)
        v.u &= 1ull << 63;
    else
        v.u &= ~(0x000fffffffffffffull >> e);
    return v.d;
}

double floor(double x) { double t = trunc(x); return (t != x && x < 0) ? t - 1.0 : t; }
double ceil(double x) { double t = trunc(x); return (t != x && x > 0) ? t + 1.0 : t; }

double round(double x)
{
    double t = trunc(x);
    if (fabs(x - t) >= 0.5)
        t += x > 0 ? 1.0 : -1.0;
    return t;
}

/* Correctly rounded: integer square root of the significand, one bit at a time. */
double sqrt(double x)
{
    union { double d; uint64_t u; } v = {x};
    if (x != x || x == 0 || v.u == 0x7ff0000000000000ull)
        return x;
    if (v.u >> 63)
        return NAN;
    int e = (int)((v.u >> 52) & 0x7ff);
    uint64_t m = v.u & 0x000fffffffffffffull;
    if (e == 0) {                       /* subnormal: normalise */
        e = 1;
        while (!(m & (1ull << 52))) { m <<= 1; e--; }
    } else {
        m |= 1ull << 52;
    }
    e -= 1023;
    if (e & 1) { m <<= 1; e--; }        /* even exponent: sqrt halves it exactly */
    /* m in [2^52, 2^54): root of m * 2^52 has 53 bits plus a rounding bit */
    uint64_t rem_hi = 0, rem_lo = 0, root = 0;
    uint64_t hi = m << 10, lo = 0;   /* m << 54, top-aligned in 128 bits */
    for (int i = 0; i < 54; i++) {
        rem_hi = (rem_hi << 2) | (rem_lo >> 62);
        rem_lo = (rem_lo << 2) | (hi >> 62);
        hi = (hi << 2) | (lo >> 62);
        lo <<= 2;
        uint64_t trial_lo = (root << 2) | 1, trial_hi = root >> 62;
        if (rem_hi > trial_hi || (rem_hi == trial_hi && rem_lo >= trial_lo)) {
            uint64_t borrow = rem_lo < trial_lo;
            rem_lo -= trial_lo;
            rem_hi -= trial_hi + borrow;
            root = (root << 1) | 1;
        } else {
            root <<= 1;
        }
    }
    /* root has 54 bits: 53 significant and one rounding bit; the remainder is sticky */
    int round_bit = (int)(root & 1), sticky = (rem_hi | rem_lo) != 0;
    root >>= 1;
    if (round_bit && (sticky || (root & 1)))
        root++;
    if (root >> 53) { root >>= 1; e += 2; }
    v.u = ((uint64_t)(e / 2 + 1023) << 52) | (root & 0x000fffffffffffffull);
    return v.d;
}

double fmod(double x, double y)
{
    if (y == 0 || x != x || y != y || fabs(x) == HUGE_VAL)
        return NAN;
    if (fabs(x) < fabs(y))
        return x;
    double ay = fabs(y), r = fabs(x);
    /* subtract ay scaled by the largest power of two that fits: every step is exact */
    while (r >= ay) {
        double d = ay;
        while (d * 2 <= r)
            d *= 2;
        r -= d;
    }
    return x < 0 ? -r : r;
}

double exp(double x) { return expf((float)x); }
double log(double x) { return logf((float)x); }
double pow(double x, double y) { return powf((float)x, (float)y); }
double sin(double x) { return sinf((float)x); }
double cos(double x) { return cosf((float)x); }
double tanh(double x) { return tanhf((float)x); }
