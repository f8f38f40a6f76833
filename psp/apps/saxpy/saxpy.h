/* y[i] += a * x[i], i < n: in C (saxpy.c) and with the VFPU (saxpy.S; n a multiple of 8,
   x and y 16-byte aligned). */
void saxpy_c(float a, const float *x, float *y, int n);
void saxpy_vfpu(float a, const float *x, float *y, int n);
void saxpy_vfpu2(float a, const float *x, float *y, int n);
