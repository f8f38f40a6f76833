/* A lit, textured cube turning over a gradient, drawn by the GE from display lists
   built with the SDK's GU library, its matrices made on the VFPU by GUM; double
   buffered; a line of debug-screen text on each frame; exits after FRAMES frames (-D
   FRAMES=n; default 120). tests/sdk/test_gu_cube.py draws the same scene with numpy. */
#include <pspuser.h>
#include <pspdisplay.h>
#include <pspdebug.h>
#include <pspgu.h>
#include <pspgum.h>

PSP_MODULE_INFO("gu_cube", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER | PSP_THREAD_ATTR_VFPU);

#ifndef FRAMES
#define FRAMES 120
#endif

#define BUFFER_WIDTH 512
#define SCREEN_W 480
#define SCREEN_H 272
#define TEXTURE_SIZE 64
#define CHECKER 8   /* texels per checkerboard square */

/* The scene (the test's numpy model uses the same numbers). */
#define TOP_COLOR 0xff402010u      /* gradient, 0xAABBGGRR */
#define BOTTOM_COLOR 0xff3080c0u
#define CHECKER_LIGHT 0xffffffffu
#define CHECKER_DARK 0xff4080c0u
#define SCENE_AMBIENT 0xff383838u
#define LIGHT_COLOR 0xffd0d0d0u
#define TILT_X 0.45f               /* radians: the cube leans towards the camera */
#define START_Y 0.7f               /* then turns about its own y axis */
#define SPIN_Y 0.04f               /* radians per frame */
#define CAMERA_DISTANCE 5.0f

struct BackgroundVertex {
    u32 color;
    s16 x, y, z, pad;
};

struct CubeVertex {
    float u, v;
    float nx, ny, nz;
    float x, y, z;
};

#define CUBE_VTYPE (GU_TEXTURE_32BITF | GU_NORMAL_32BITF | GU_VERTEX_32BITF | GU_TRANSFORM_3D)
#define BACKGROUND_VTYPE (GU_COLOR_8888 | GU_VERTEX_16BIT | GU_TRANSFORM_2D)

static unsigned int __attribute__((aligned(16))) list[16384];
static u32 __attribute__((aligned(16))) texture[TEXTURE_SIZE * TEXTURE_SIZE];
static struct CubeVertex __attribute__((aligned(16))) cube[36];
static const struct BackgroundVertex __attribute__((aligned(16))) background[4] = {
    {TOP_COLOR, 0, 0, 0, 0},
    {TOP_COLOR, SCREEN_W, 0, 0, 0},
    {BOTTOM_COLOR, 0, SCREEN_H, 0, 0},
    {BOTTOM_COLOR, SCREEN_W, SCREEN_H, 0, 0},
};

static void make_texture(void)
{
    for (int y = 0; y < TEXTURE_SIZE; y++)
        for (int x = 0; x < TEXTURE_SIZE; x++)
            texture[y * TEXTURE_SIZE + x] = ((x / CHECKER + y / CHECKER) & 1) ? CHECKER_DARK : CHECKER_LIGHT;
}

/* Six faces of the cube from -1 to 1, each two triangles with the face's outward normal
   and the whole texture across it. */
static void make_cube(void)
{
    static const float faces[6][3][3] = {   /* normal, then the face's u and v directions */
        {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
        {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}}, {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
        {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
    };
    static const float corners[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
    struct CubeVertex *v = cube;
    for (int f = 0; f < 6; f++) {
        const float *n = faces[f][0], *s = faces[f][1], *t = faces[f][2];
        for (int c = 0; c < 6; c++, v++) {
            float a = corners[c][0], b = corners[c][1];
            v->u = (a + 1) * 0.5f;
            v->v = (b + 1) * 0.5f;
            v->nx = n[0];
            v->ny = n[1];
            v->nz = n[2];
            v->x = n[0] + a * s[0] + b * t[0];
            v->y = n[1] + a * s[1] + b * t[1];
            v->z = n[2] + a * s[2] + b * t[2];
        }
    }
}

/* The state every frame shares, set once: buffers, viewport, depth, texture, light, and
   the projection and view matrices (uploaded by the first sceGumDrawArray). */
static void setup(void *draw, void *shown, void *depth)
{
    sceGuStart(GU_DIRECT, list);
    sceGuDrawBuffer(GU_PSM_8888, draw, BUFFER_WIDTH);
    sceGuDispBuffer(SCREEN_W, SCREEN_H, shown, BUFFER_WIDTH);
    sceGuDepthBuffer(depth, BUFFER_WIDTH);
    sceGuOffset(2048 - SCREEN_W / 2, 2048 - SCREEN_H / 2);
    sceGuViewport(2048, 2048, SCREEN_W, SCREEN_H);
    sceGuDepthRange(65535, 0);
    sceGuScissor(0, 0, SCREEN_W, SCREEN_H);
    sceGuEnable(GU_SCISSOR_TEST);
    sceGuDepthFunc(GU_GEQUAL);
    sceGuEnable(GU_CLIP_PLANES);
    sceGuShadeModel(GU_SMOOTH);

    sceGuTexMode(GU_PSM_8888, 0, 0, 0);
    sceGuTexImage(0, TEXTURE_SIZE, TEXTURE_SIZE, TEXTURE_SIZE, texture);
    sceGuTexFunc(GU_TFX_MODULATE, GU_TCC_RGB);
    sceGuTexFilter(GU_NEAREST, GU_NEAREST);
    sceGuTexWrap(GU_REPEAT, GU_REPEAT);

    ScePspFVector3 toward_light = {0.5f, 0.8f, 1.0f};
    sceGuLight(0, GU_DIRECTIONAL, GU_DIFFUSE, &toward_light);
    sceGuLightColor(0, GU_DIFFUSE, LIGHT_COLOR);
    sceGuAmbient(SCENE_AMBIENT);
    sceGuColor(0xffffffff);   /* material: white */

    sceGumMatrixMode(GU_PROJECTION);
    sceGumLoadIdentity();
    sceGumPerspective(60.0f, (float)SCREEN_W / SCREEN_H, 0.5f, 100.0f);
    sceGumMatrixMode(GU_VIEW);
    sceGumLoadIdentity();
    ScePspFVector3 back = {0, 0, -CAMERA_DISTANCE};
    sceGumTranslate(&back);
    sceGuFinish();
    sceGuSync(GU_SYNC_FINISH, GU_SYNC_WHAT_DONE);
}

static void draw_frame(int frame)
{
    sceGuStart(GU_DIRECT, list);
    sceGuClearColor(0);
    sceGuClearDepth(0);
    sceGuClear(GU_COLOR_BUFFER_BIT | GU_DEPTH_BUFFER_BIT);

    sceGuDisable(GU_DEPTH_TEST);
    sceGuDisable(GU_TEXTURE_2D);
    sceGuDisable(GU_LIGHTING);
    sceGuDrawArray(GU_TRIANGLE_STRIP, BACKGROUND_VTYPE, 4, 0, background);

    sceGuEnable(GU_DEPTH_TEST);   /* no culling: the depth test hides the far faces */
    sceGuEnable(GU_TEXTURE_2D);
    sceGuEnable(GU_LIGHTING);
    sceGuEnable(GU_LIGHT0);
    sceGumMatrixMode(GU_MODEL);
    sceGumLoadIdentity();
    sceGumRotateX(TILT_X);
    sceGumRotateY(START_Y + frame * SPIN_Y);
    sceGumDrawArray(GU_TRIANGLES, CUBE_VTYPE, 36, 0, cube);

    sceGuFinish();
    sceGuSync(GU_SYNC_FINISH, GU_SYNC_WHAT_DONE);
}

int main(void)
{
    void *draw = guGetStaticVramBuffer(BUFFER_WIDTH, SCREEN_H, GU_PSM_8888);
    void *shown = guGetStaticVramBuffer(BUFFER_WIDTH, SCREEN_H, GU_PSM_8888);
    void *depth = guGetStaticVramBuffer(BUFFER_WIDTH, SCREEN_H, GU_PSM_4444);
    make_texture();
    make_cube();
    sceKernelDcacheWritebackAll();   /* the GE reads memory, not the CPU's cache */

    sceGuInit();
    setup(draw, shown, depth);
    sceDisplayWaitVblankStart();
    sceGuDisplay(GU_TRUE);

    for (int frame = 0; frame < FRAMES; frame++) {
        draw_frame(frame);
        pspDebugScreenSetOffset((int)draw);   /* text over the finished frame */
        pspDebugScreenSetXY(0, 0);
        pspDebugScreenPrintf("allegrex GU/GUM demo  frame %d", frame);
        sceDisplayWaitVblankStart();
        draw = sceGuSwapBuffers();
    }
    sceGuTerm();
    return 0;
}
