/* Dot product of two float vectors with the VFPU kernel in dot.S; prints the result
   and its bits so a test can compare with numpy. */
#include <stdio.h>
#include <string.h>
#include <pspsdk.h>

PSP_MODULE_INFO("vfpu_dot", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

#define N 256

float vfpu_dot(const float *x, const float *y, int n);

static float x[N] __attribute__((aligned(16)));
static float y[N] __attribute__((aligned(16)));

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = (float)((i * 37) % 101 - 50) / 16.0f;
        y[i] = (float)((i * 53) % 89 - 44) / 32.0f;
    }
    float d = vfpu_dot(x, y, N);
    unsigned bits;
    memcpy(&bits, &d, sizeof bits);
    printf("dot=%.6f bits=%08x\n", d, bits);
    return 0;
}
