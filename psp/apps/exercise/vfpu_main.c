/* Calls the VFPU assembly in vfpu_dot.S (the .S path with VFPU instructions). */
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("vfpu_main", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER | PSP_THREAD_ATTR_VFPU);

void vfpu_dot4(const float *a, const float *b, float *out);

int main(void)
{
    static float a[4] __attribute__((aligned(16))) = {1.0f, 2.0f, 3.0f, 4.0f};
    static float b[4] __attribute__((aligned(16))) = {0.5f, -1.0f, 2.0f, 0.25f};
    float dot = 0;
    vfpu_dot4(a, b, &dot);
    printf("vfpu dot %.3f\n", dot);
    return 0;
}
