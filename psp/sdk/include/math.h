/* libm of the allegrex SDK: single-precision functions in portable C with documented
   error bounds (psp/sdk/libm/README.md); the same code is built for the host so a host
   build computes bit-identical results. Double versions are thin wrappers. */
#ifndef _MATH_H
#define _MATH_H
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define M_LN2 0.69314718055994530942
#define M_SQRT2 1.41421356237309504880
#define HUGE_VALF (__builtin_huge_valf())
#define HUGE_VAL (__builtin_huge_val())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define isnan(x) __builtin_isnan(x)
#define isinf(x) __builtin_isinf(x)
#define isfinite(x) __builtin_isfinite(x)
#define signbit(x) __builtin_signbit(x)
float expf(float x);
float logf(float x);
float log2f(float x);
float log10f(float x);
float powf(float x, float y);
float sqrtf(float x);
float sinf(float x);
float cosf(float x);
float tanf(float x);
float tanhf(float x);
float floorf(float x);
float ceilf(float x);
float truncf(float x);
float roundf(float x);
float fabsf(float x);
float fmaxf(float a, float b);
float fminf(float a, float b);
float fmodf(float x, float y);
float copysignf(float x, float y);
float ldexpf(float x, int e);
float frexpf(float x, int *e);
double sqrt(double x);
double fabs(double x);
double floor(double x);
double ceil(double x);
double exp(double x);
double log(double x);
double pow(double x, double y);
double sin(double x);
double cos(double x);
double tanh(double x);
double round(double x);
double fmod(double x, double y);
#endif
