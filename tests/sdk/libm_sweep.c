/* Test helper, built as a host shared object with the SDK's libm (tests/sdk/test_libm.py):
   applies one libm function to arrays of inputs. */
#include <math.h>

enum { EXPF, LOGF, POWF, SQRTF, SINF, COSF, TANHF, FLOORF, CEILF, FABSF, ROUNDF, TANF, FMODF, TRUNCF };

void sweep(int fn, const float *x, const float *y, float *out, int n)
{
    for (int i = 0; i < n; i++) {
        float a = x[i], b = y[i];
        switch (fn) {
        case EXPF: out[i] = expf(a); break;
        case LOGF: out[i] = logf(a); break;
        case POWF: out[i] = powf(a, b); break;
        case SQRTF: out[i] = sqrtf(a); break;
        case SINF: out[i] = sinf(a); break;
        case COSF: out[i] = cosf(a); break;
        case TANHF: out[i] = tanhf(a); break;
        case FLOORF: out[i] = floorf(a); break;
        case CEILF: out[i] = ceilf(a); break;
        case FABSF: out[i] = fabsf(a); break;
        case ROUNDF: out[i] = roundf(a); break;
        case TANF: out[i] = tanf(a); break;
        case FMODF: out[i] = fmodf(a, b); break;
        case TRUNCF: out[i] = truncf(a); break;
        }
    }
}

void sweep_double(int fn, const double *x, double *out, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = fn == 0 ? sqrt(x[i]) : fn == 1 ? floor(x[i]) : fn == 2 ? ceil(x[i]) : round(x[i]);
}
