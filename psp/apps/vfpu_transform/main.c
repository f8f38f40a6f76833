/* A VFPU transform loop, for benchmarks/realtime.py: every frame turns VERTICES points
   by a rotation made for that frame (sinf/cosf on the FPU) with vtfm4.q (transform.S),
   folds the results into a checksum and waits for vblank, as a game transforming its
   geometry on the CPU side would. Prints the checksum after FRAMES frames (-D FRAMES=n;
   default 300, five seconds). */
#include <math.h>
#include <stdio.h>
#include <pspsdk.h>
#include <pspdisplay.h>

PSP_MODULE_INFO("vfpu_transform", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER | PSP_THREAD_ATTR_VFPU);
PSP_HEAP_SIZE_KB(256);

#ifndef FRAMES
#define FRAMES 300
#endif
#define VERTICES 16384

void transform(const float *m, const float *in, float *out, int n);

static float __attribute__((aligned(16))) points[VERTICES][4];
static float __attribute__((aligned(16))) moved[VERTICES][4];
static float __attribute__((aligned(16))) matrix[16];

/* A turn by `a` radians about y and a translation, column-major. */
static void make_matrix(float a, float *m)
{
    float c = cosf(a), s = sinf(a);
    float cols[16] = {c, 0, -s, 0,  0, 1, 0, 0,  s, 0, c, 0,  0.5f, -0.25f, 2.0f, 1};
    for (int i = 0; i < 16; i++)
        m[i] = cols[i];
}

int main(void)
{
    for (int i = 0; i < VERTICES; i++) {
        points[i][0] = (float)(i % 128) / 64.0f - 1.0f;
        points[i][1] = (float)(i / 128) / 64.0f - 1.0f;
        points[i][2] = (float)((i * 7) % 13) / 13.0f;
        points[i][3] = 1.0f;
    }
    unsigned sum = 0;
    for (int frame = 0; frame < FRAMES; frame++) {
        make_matrix(frame * 0.01f, matrix);
        transform(matrix, &points[0][0], &moved[0][0], VERTICES);
        for (int i = 0; i < VERTICES; i += 64)
            sum = sum * 31 + (unsigned)(int)(moved[i][0] * 1024.0f) + (unsigned)(int)(moved[i][2] * 1024.0f);
        sceDisplayWaitVblankStart();
    }
    printf("done checksum %08x\n", sum);
    return 0;
}
