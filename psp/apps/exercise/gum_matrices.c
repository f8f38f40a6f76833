/* GUM's matrix arithmetic (VFPU) and matrix stacks: each step prints the matrix it
   leaves as 16 float bit patterns (column x first), for tests/sdk/test_gu.py to compare
   with numpy; then sceGumDrawArray uploads the changed matrices into a display list,
   printed as "list <address> <bytes>". */
#include <stdio.h>
#include <pspgu.h>
#include <pspgum.h>

PSP_MODULE_INFO("gum_matrices", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER | PSP_THREAD_ATTR_VFPU);
PSP_NO_CREATE_MAIN_THREAD();

static unsigned int __attribute__((aligned(16))) list[1024];

static void show(const char *name, const void *values, int count)
{
    const unsigned int *bits = values;
    printf("%s", name);
    for (int i = 0; i < count; i++)
        printf(" %08x", bits[i]);
    printf("\n");
}

static void show_top(const char *name)
{
    ScePspFMatrix4 m;
    sceGumStoreMatrix(&m);
    show(name, &m, 16);
}

/* Unaligned on purpose: gum* must accept 4-byte aligned matrices. */
static struct {
    float pad;
    float m[16];
} loose = {0, {0.5f, 1, 0, 0, -1, 0.5f, 0, 0, 0, 0, 2, 0, 3, -4, 5, 1}};

static void stacks(void)
{
    sceGumMatrixMode(GU_PROJECTION);
    sceGumLoadIdentity();
    sceGumPerspective(60.0f, 480.0f / 272.0f, 0.5f, 100.0f);
    show_top("perspective");
    sceGumMatrixMode(GU_VIEW);
    sceGumLoadIdentity();
    ScePspFVector3 eye = {1, 2, 5}, center = {0, 0.5f, 0}, up = {0, 1, 0};
    sceGumLookAt(&eye, &center, &up);
    show_top("lookat");
    sceGumMatrixMode(GU_MODEL);
    sceGumLoadIdentity();
    ScePspFVector3 move = {1, -2, 3}, turn = {0.3f, 0.5f, 0.7f}, size = {2, 0.5f, 1.5f};
    sceGumTranslate(&move);
    show_top("translate");
    sceGumRotateXYZ(&turn);
    show_top("rotatexyz");
    sceGumScale(&size);
    show_top("scale");
    sceGumPushMatrix();
    sceGumRotateZYX(&turn);
    show_top("rotatezyx");
    sceGumRotateX(-1.25f);
    sceGumRotateY(2.5f);
    sceGumRotateZ(4.0f);
    show_top("rotatexyz2");
    sceGumPopMatrix();
    show_top("popped");
    sceGumMultMatrix((const ScePspFMatrix4 *)loose.m);
    show_top("mult");
    sceGumFullInverse();
    show_top("fullinverse");
    sceGumMatrixMode(GU_TEXTURE);
    sceGumLoadIdentity();
    sceGumOrtho(-2, 6, -1, 3, -10, 20);
    show_top("ortho");
    sceGumLoadMatrix((const ScePspFMatrix4 *)loose.m);
    sceGumRotateY(0.75f);
    sceGumFastInverse();
    show_top("fastinverse");
    ScePspFQuaternion q = {0.1f, 0.2f, 0.3f, 0.9f};
    sceGumRotate(&q);
    show_top("quaternion");
}

static void vectors(void)
{
    ScePspFVector3 a = {1, 2, 3}, b = {-2, 0.5f, 4}, r;
    gumCrossProduct(&r, &a, &b);
    show("cross", &r, 3);
    float dot = gumDotProduct(&a, &b);
    show("dot", &dot, 1);
    gumNormalize(&b);
    show("normalize", &b, 3);
    ScePspFQuaternion p, q = {0.5f, -0.25f, 0.125f, 0.8f};
    ScePspFVector3 axis = {0, 3, 4};
    gumLoadAxisAngle(&p, &axis, 1.2f);
    show("axisangle", &p, 4);
    gumMultQuaternion(&p, &p, &q);
    show("multquaternion", &p, 4);
    gumRotateVector(&r, &q, &a);
    show("rotatevector", &r, 3);
    ScePspFMatrix4 m;
    gumLoadQuaternion(&m, &q);
    show("loadquaternion", &m, 16);
}

int main(void)
{
    stacks();
    vectors();
    sceGuStart(GU_CALL, list);
    sceGumDrawArray(GU_POINTS, GU_VERTEX_32BITF, 1, 0, (const void *)0x08900000);
    sceGumMatrixMode(GU_MODEL);
    sceGumPopMatrix();   /* at the bottom already: stays, and is uploaded again */
    sceGumDrawArray(GU_POINTS, 0, 1, 0, 0);
    printf("list 0x%08x %d\n", (unsigned)list, sceGuFinish());
    return 0;
}
