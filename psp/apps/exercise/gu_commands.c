/* The GU library's command words: each section below writes one display list with a
   family of sceGu* calls and prints "list <name> <address> <bytes>"; tests/sdk/test_gu.py
   reads the lists from memory and compares every word with the official SDK's
   encoding. Vertex, texture and transfer addresses are made-up numbers: the library
   only encodes them. */
#include <stdio.h>
#include <pspgu.h>

PSP_MODULE_INFO("gu_commands", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

static unsigned int __attribute__((aligned(16))) lists[5][512];
static unsigned int __attribute__((aligned(16))) called[4];

#define VERTICES ((const void *)0x09123450)
#define INDICES ((const void *)0x08abcde0)

static void report(const char *name, int list)
{
    printf("list %s 0x%08x %d\n", name, (unsigned)(lists[list]), sceGuFinish());
}

/* sceGuStart's first-time defaults and frame buffer, the buffers and the viewport. */
static void setup(void)
{
    sceGuStart(GU_DIRECT, lists[0]);
    sceGuDrawBuffer(GU_PSM_8888, (void *)0, 512);
    sceGuDispBuffer(480, 272, (void *)0x88000, 512);
    sceGuDepthBuffer((void *)0x110000, 512);
    sceGuOffset(2048 - 240, 2048 - 136);
    sceGuViewport(2048, 2048, 480, 272);
    sceGuDepthRange(65535, 0);
    sceGuScissor(0, 0, 480, 272);
    sceGuEnable(GU_SCISSOR_TEST);
    sceGuDepthOffset(100);
    sceGuDepthRange(1000, 50001);
    report("setup", 0);
}

static void states(void)
{
    sceGuStart(GU_CALL, lists[1]);
    for (int state = 0; state < GU_MAX_STATUS; state++)
        sceGuEnable(state);
    printf("status all 0x%06x one %d\n", sceGuGetAllStatus(), sceGuGetStatus(GU_FOG));
    for (int state = 0; state < GU_MAX_STATUS; state++)
        sceGuDisable(state);
    printf("status all 0x%06x one %d\n", sceGuGetAllStatus(), sceGuGetStatus(GU_FOG));
    sceGuDepthFunc(GU_GEQUAL);
    sceGuDepthMask(GU_TRUE);
    sceGuAlphaFunc(GU_GREATER, 0x180, 0xff);
    sceGuColorFunc(GU_NOTEQUAL, 0x123456, 0xfffefd);
    sceGuStencilFunc(GU_EQUAL, 3, 0x10f);
    sceGuStencilOp(GU_KEEP, GU_INCR, GU_REPLACE);
    sceGuBlendFunc(GU_REVERSE_SUBTRACT, GU_SRC_ALPHA, GU_ONE_MINUS_SRC_ALPHA, 0x102030, 0xa0b0c0);
    sceGuLogicalOp(GU_XOR);
    sceGuPixelMask(0xff00ff00);
    sceGuFog(10.0f, 50.0f, 0x808080);
    sceGuFog(5.0f, 5.0f, 0x1);
    sceGuShadeModel(GU_SMOOTH);
    sceGuFrontFace(GU_CW);
    sceGuFrontFace(GU_CCW);
    static const ScePspIMatrix4 dither = {{1, 2, 3, 4}, {-1, -2, -3, -4}, {7, -8, 0, 15}, {0, 0, 0, 0}};
    sceGuSetDither(&dither);
    report("states", 1);
}

static void lights(void)
{
    sceGuStart(GU_CALL, lists[2]);
    sceGuColor(0xff7f1020);
    sceGuColorMaterial(GU_AMBIENT | GU_DIFFUSE);
    sceGuMaterial(GU_SPECULAR, 0x11223344);
    sceGuModelColor(0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10);
    sceGuAmbient(0x80402010);
    sceGuAmbientColor(0xc0c0c0c0);
    sceGuSpecular(12.5f);
    ScePspFVector3 position = {1.5f, -2.0f, 0.25f};
    sceGuLight(0, GU_DIRECTIONAL, GU_DIFFUSE, &position);
    sceGuLight(1, GU_POINTLIGHT, GU_DIFFUSE_AND_SPECULAR, &position);
    sceGuLight(3, GU_SPOTLIGHT, GU_POWERED_DIFFUSE, &position);
    sceGuLightAtt(2, 1.0f, 0.5f, 0.125f);
    sceGuLightColor(0, GU_AMBIENT, 0x111111);
    sceGuLightColor(1, GU_DIFFUSE, 0x222222);
    sceGuLightColor(2, GU_SPECULAR, 0x333333);
    sceGuLightColor(3, GU_AMBIENT_AND_DIFFUSE, 0x444444);
    sceGuLightColor(3, GU_DIFFUSE_AND_SPECULAR, 0x555555);
    sceGuLightMode(GU_SEPARATE_SPECULAR_COLOR);
    ScePspFVector3 direction = {0.0f, -1.0f, 0.5f};
    sceGuLightSpot(2, &direction, 4.0f, 0.75f);
    report("lights", 2);
}

static void textures(void)
{
    sceGuStart(GU_CALL, lists[3]);
    sceGuTexMode(GU_PSM_T8, 2, 1, 1);
    sceGuTexImage(0, 256, 64, 256, (const void *)0x04154320);
    sceGuTexImage(1, 128, 32, 128, (const void *)0x09876540);
    sceGuTexFunc(GU_TFX_BLEND, GU_TCC_RGBA);
    sceGuEnable(GU_FRAGMENT_2X);
    sceGuTexFunc(GU_TFX_ADD, GU_TCC_RGB);
    sceGuDisable(GU_FRAGMENT_2X);
    sceGuTexEnvColor(0x00ff8040);
    sceGuTexFilter(GU_LINEAR_MIPMAP_NEAREST, GU_LINEAR);
    sceGuTexWrap(GU_CLAMP, GU_REPEAT);
    sceGuTexScale(0.5f, 2.0f);
    sceGuTexOffset(-0.25f, 0.125f);
    sceGuTexProjMapMode(GU_NORMALIZED_NORMAL);
    sceGuTexMapMode(GU_ENVIRONMENT_MAP, 2, 3);
    sceGuTexLevelMode(GU_TEXTURE_SLOPE, -1.5f);
    sceGuTexLevelMode(GU_TEXTURE_CONST, 8.0f);
    sceGuTexLevelMode(GU_TEXTURE_AUTO, -20.0f);
    sceGuTexSlope(0.75f);
    sceGuTexFlush();
    sceGuTexSync();
    sceGuClutMode(GU_PSM_5551, 4, 0x3f, 7);
    sceGuClutLoad(32, (const void *)0x08a00040);
    report("textures", 3);
}

static void signal_handler(int id)
{
    (void)id;
}

static void drawing(void)
{
    sceGuStart(GU_CALL, lists[4]);
    sceGuDrawArray(GU_TRIANGLES, GU_TEXTURE_32BITF | GU_COLOR_8888 | GU_VERTEX_32BITF | GU_TRANSFORM_3D, 36, 0,
                   VERTICES);
    sceGuDrawArray(GU_TRIANGLE_STRIP, GU_INDEX_16BIT | GU_VERTEX_16BIT, 4, INDICES, VERTICES);
    sceGuDrawArray(GU_LINES, 0, 2, 0, 0);
    sceGuDrawArrayN(GU_SPRITES, GU_VERTEX_16BIT | GU_TRANSFORM_2D, 2, 3, 0, VERTICES);
    sceGuPatchDivide(8, 4);
    sceGuPatchFrontFace(GU_CCW);
    sceGuPatchPrim(GU_LINE_STRIP);
    sceGuPatchPrim(GU_POINTS);
    sceGuPatchPrim(GU_TRIANGLE_STRIP);
    sceGuDrawBezier(GU_VERTEX_32BITF, 4, 7, 0, VERTICES);
    sceGuDrawSpline(GU_VERTEX_32BITF, 5, 6, GU_OPEN_FILL, GU_FILL_OPEN, INDICES, VERTICES);
    static const ScePspFMatrix4 m = {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16.5f}};
    sceGuSetMatrix(GU_PROJECTION, &m);
    sceGuSetMatrix(GU_VIEW, &m);
    sceGuSetMatrix(GU_MODEL, &m);
    sceGuSetMatrix(GU_TEXTURE, &m);
    sceGuBoneMatrix(5, &m);
    sceGuMorphWeight(3, -0.5f);
    sceGuCopyImage(GU_PSM_8888, 3, 4, 100, 50, 512, (void *)0x09100000, 7, 8, 512, (void *)0x04000000);
    sceGuCopyImage(GU_PSM_5650, 0, 0, 480, 272, 480, (void *)0x04088000, 1, 2, 512, (void *)0x08900000);
    sceGuSendCommandi(0x12, 0x12345678);
    sceGuSendCommandf(0x44, -3.0f);
    sceGuClearColor(0x11223344);
    sceGuClearStencil(0x5a);
    sceGuClearDepth(0x1234);
    sceGuClear(GU_COLOR_BUFFER_BIT | GU_STENCIL_BUFFER_BIT);
    sceGuClear(GU_DEPTH_BUFFER_BIT | GU_FAST_CLEAR_BIT);
    void *memory = sceGuGetMemory(10);
    printf("memory 0x%08x\n", (unsigned)memory);
    printf("called 0x%08x\n", (unsigned)called);
    sceGuCallList(called);
    sceGuCallMode(GU_CALL_SIGNAL);
    sceGuCallList(called);
    sceGuCallMode(GU_CALL_NORMAL);
    sceGuSetCallback(GU_CALLBACK_SIGNAL, signal_handler);
    sceGuSignal(GU_SIGNAL_PAUSE, 0x1234);
    sceGuSignal(GU_SIGNAL_WAIT, 0x12345);
    sceGuBeginObject(GU_VERTEX_16BIT, 8, 0, VERTICES);
    sceGuDrawArray(GU_POINTS, 0, 1, 0, 0);
    printf("object %d\n", sceGuEndObject());
    printf("check %d\n", sceGuCheckList());
    report("drawing", 4);
}

int main(void)
{
    if (sceGuInit() < 0)
        return 1;
    setup();
    states();
    lights();
    textures();
    drawing();
    printf("sync %d\n", sceGuSync(GU_SYNC_FINISH, GU_SYNC_WAIT));
    printf("display %d\n", sceGuDisplay(GU_TRUE));
    printf("swap 0x%08x\n", (unsigned)sceGuSwapBuffers());
    printf("swap 0x%08x\n", (unsigned)sceGuSwapBuffers());
    sceGuTerm();
    return 0;
}
