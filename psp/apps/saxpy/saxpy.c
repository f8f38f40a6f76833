/* The scalar reference of saxpy.S, in C. */
#include "saxpy.h"

void saxpy_c(float a, const float *x, float *y, int n)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}
