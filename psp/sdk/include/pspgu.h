/* GU: building GE display lists from C (psp/sdk/gu). The function names, arguments,
   constants and the command words each call appends are the official SDK's
   (libpspgu), so homebrew written for it builds and draws unchanged; the code is this
   project's own. See psp/sdk/README.md ("Graphics") for what differs. */
#ifndef PSPGU_H
#define PSPGU_H

#include "psptypes.h"
#include "pspge.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GU_PI (3.141593f)
#define GU_FALSE (0)
#define GU_TRUE (1)

/* Primitives (sceGuDrawArray) */
#define GU_POINTS (0)
#define GU_LINES (1)
#define GU_LINE_STRIP (2)
#define GU_TRIANGLES (3)
#define GU_TRIANGLE_STRIP (4)
#define GU_TRIANGLE_FAN (5)
#define GU_SPRITES (6)

/* States (sceGuEnable/sceGuDisable) */
#define GU_ALPHA_TEST (0)
#define GU_DEPTH_TEST (1)
#define GU_SCISSOR_TEST (2)
#define GU_STENCIL_TEST (3)
#define GU_BLEND (4)
#define GU_CULL_FACE (5)
#define GU_DITHER (6)
#define GU_FOG (7)
#define GU_CLIP_PLANES (8)
#define GU_TEXTURE_2D (9)
#define GU_LIGHTING (10)
#define GU_LIGHT0 (11)
#define GU_LIGHT1 (12)
#define GU_LIGHT2 (13)
#define GU_LIGHT3 (14)
#define GU_LINE_SMOOTH (15)
#define GU_PATCH_CULL_FACE (16)
#define GU_COLOR_TEST (17)
#define GU_COLOR_LOGIC_OP (18)
#define GU_FACE_NORMAL_REVERSE (19)
#define GU_PATCH_FACE (20)
#define GU_FRAGMENT_2X (21)
#define GU_MAX_STATUS (22)

/* Matrices (sceGuSetMatrix, sceGumMatrixMode) */
#define GU_PROJECTION (0)
#define GU_VIEW (1)
#define GU_MODEL (2)
#define GU_TEXTURE (3)

/* Vertex type: OR one choice per component present, in the order the vertex holds
   them: weights, texture coordinates, colour, normal, position. */
#define GU_TEXTURE_SHIFT(n) ((n) << 0)
#define GU_TEXTURE_8BIT GU_TEXTURE_SHIFT(1)
#define GU_TEXTURE_16BIT GU_TEXTURE_SHIFT(2)
#define GU_TEXTURE_32BITF GU_TEXTURE_SHIFT(3)
#define GU_TEXTURE_BITS GU_TEXTURE_SHIFT(3)
#define GU_COLOR_SHIFT(n) ((n) << 2)
#define GU_COLOR_5650 GU_COLOR_SHIFT(4)
#define GU_COLOR_5551 GU_COLOR_SHIFT(5)
#define GU_COLOR_4444 GU_COLOR_SHIFT(6)
#define GU_COLOR_8888 GU_COLOR_SHIFT(7)
#define GU_COLOR_BITS GU_COLOR_SHIFT(7)
#define GU_NORMAL_SHIFT(n) ((n) << 5)
#define GU_NORMAL_8BIT GU_NORMAL_SHIFT(1)
#define GU_NORMAL_16BIT GU_NORMAL_SHIFT(2)
#define GU_NORMAL_32BITF GU_NORMAL_SHIFT(3)
#define GU_NORMAL_BITS GU_NORMAL_SHIFT(3)
#define GU_VERTEX_SHIFT(n) ((n) << 7)
#define GU_VERTEX_8BIT GU_VERTEX_SHIFT(1)
#define GU_VERTEX_16BIT GU_VERTEX_SHIFT(2)
#define GU_VERTEX_32BITF GU_VERTEX_SHIFT(3)
#define GU_VERTEX_BITS GU_VERTEX_SHIFT(3)
#define GU_WEIGHT_SHIFT(n) ((n) << 9)
#define GU_WEIGHT_8BIT GU_WEIGHT_SHIFT(1)
#define GU_WEIGHT_16BIT GU_WEIGHT_SHIFT(2)
#define GU_WEIGHT_32BITF GU_WEIGHT_SHIFT(3)
#define GU_WEIGHT_BITS GU_WEIGHT_SHIFT(3)
#define GU_INDEX_SHIFT(n) ((n) << 11)
#define GU_INDEX_8BIT GU_INDEX_SHIFT(1)
#define GU_INDEX_16BIT GU_INDEX_SHIFT(2)
#define GU_INDEX_BITS GU_INDEX_SHIFT(3)
#define GU_WEIGHTS(n) ((((n) - 1) & 7) << 14)
#define GU_WEIGHTS_BITS GU_WEIGHTS(8)
#define GU_VERTICES(n) ((((n) - 1) & 7) << 18)
#define GU_VERTICES_BITS GU_VERTICES(8)
#define GU_TRANSFORM_SHIFT(n) ((n) << 23)
#define GU_TRANSFORM_3D GU_TRANSFORM_SHIFT(0)
#define GU_TRANSFORM_2D GU_TRANSFORM_SHIFT(1)   /* "through" mode: screen coordinates */
#define GU_TRANSFORM_BITS GU_TRANSFORM_SHIFT(1)

#define GU_DISPLAY_OFF 0
#define GU_DISPLAY_ON 1

/* Screen and frame buffers (offsets from the start of VRAM) */
#define GU_SCR_WIDTH 480
#define GU_SCR_HEIGHT 272
#define GU_SCR_ASPECT ((float)GU_SCR_WIDTH / (float)GU_SCR_HEIGHT)
#define GU_SCR_OFFSETX ((4096 - GU_SCR_WIDTH) / 2)
#define GU_SCR_OFFSETY ((4096 - GU_SCR_HEIGHT) / 2)
#define GU_VRAM_TOP 0x00000000
#define GU_VRAM_WIDTH 512
#define GU_VRAM_BUFSIZE (GU_VRAM_WIDTH * GU_SCR_HEIGHT * 2)
#define GU_VRAM_BP_0 (void *)(GU_VRAM_TOP)
#define GU_VRAM_BP_1 (void *)(GU_VRAM_TOP + GU_VRAM_BUFSIZE)
#define GU_VRAM_BP_2 (void *)(GU_VRAM_TOP + (GU_VRAM_BUFSIZE * 2))
#define GU_VRAM_BUFSIZE32 (GU_VRAM_WIDTH * GU_SCR_HEIGHT * 4)
#define GU_VRAM_BP32_0 (void *)(GU_VRAM_TOP)
#define GU_VRAM_BP32_1 (void *)(GU_VRAM_TOP + GU_VRAM_BUFSIZE32)
#define GU_VRAM_BP32_2 (void *)(GU_VRAM_TOP + (GU_VRAM_BUFSIZE32 * 2))

/* Pixel formats: 0-3 for frame buffers, textures and palettes, 4-10 textures only */
#define GU_PSM_5650 (0)
#define GU_PSM_5551 (1)
#define GU_PSM_4444 (2)
#define GU_PSM_8888 (3)
#define GU_PSM_T4 (4)
#define GU_PSM_T8 (5)
#define GU_PSM_T16 (6)
#define GU_PSM_T32 (7)
#define GU_PSM_DXT1 (8)
#define GU_PSM_DXT3 (9)
#define GU_PSM_DXT5 (10)

/* Spline edges (sceGuDrawSpline) */
#define GU_FILL_FILL (0)
#define GU_OPEN_FILL (1)
#define GU_FILL_OPEN (2)
#define GU_OPEN_OPEN (3)

#define GU_FLAT (0)
#define GU_SMOOTH (1)

/* Logic operations (sceGuLogicalOp) */
#define GU_CLEAR (0)
#define GU_AND (1)
#define GU_AND_REVERSE (2)
#define GU_COPY (3)
#define GU_AND_INVERTED (4)
#define GU_NOOP (5)
#define GU_XOR (6)
#define GU_OR (7)
#define GU_NOR (8)
#define GU_EQUIV (9)
#define GU_INVERTED (10)
#define GU_OR_REVERSE (11)
#define GU_COPY_INVERTED (12)
#define GU_OR_INVERTED (13)
#define GU_NAND (14)
#define GU_SET (15)

/* Texture filters, mapping, levels, projection sources, wrapping */
#define GU_NEAREST (0)
#define GU_LINEAR (1)
#define GU_NEAREST_MIPMAP_NEAREST (4)
#define GU_LINEAR_MIPMAP_NEAREST (5)
#define GU_NEAREST_MIPMAP_LINEAR (6)
#define GU_LINEAR_MIPMAP_LINEAR (7)
#define GU_TEXTURE_COORDS (0)
#define GU_TEXTURE_MATRIX (1)
#define GU_ENVIRONMENT_MAP (2)
#define GU_TEXTURE_AUTO (0)
#define GU_TEXTURE_CONST (1)
#define GU_TEXTURE_SLOPE (2)
#define GU_POSITION (0)
#define GU_UV (1)
#define GU_NORMALIZED_NORMAL (2)
#define GU_NORMAL (3)
#define GU_REPEAT (0)
#define GU_CLAMP (1)

#define GU_CW (0)
#define GU_CCW (1)

/* Test functions (depth, alpha, stencil; the colour test uses 0-3) */
#define GU_NEVER (0)
#define GU_ALWAYS (1)
#define GU_EQUAL (2)
#define GU_NOTEQUAL (3)
#define GU_LESS (4)
#define GU_LEQUAL (5)
#define GU_GREATER (6)
#define GU_GEQUAL (7)

/* sceGuClear */
#define GU_COLOR_BUFFER_BIT (1)
#define GU_STENCIL_BUFFER_BIT (2)
#define GU_DEPTH_BUFFER_BIT (4)
#define GU_FAST_CLEAR_BIT (16)   /* clear in 32/64-pixel wide strips */

/* Texture functions (sceGuTexFunc) */
#define GU_TFX_MODULATE (0)
#define GU_TFX_DECAL (1)
#define GU_TFX_BLEND (2)
#define GU_TFX_REPLACE (3)
#define GU_TFX_ADD (4)
#define GU_TCC_RGB (0)
#define GU_TCC_RGBA (1)

/* Blending (sceGuBlendFunc) */
#define GU_ADD (0)
#define GU_SUBTRACT (1)
#define GU_REVERSE_SUBTRACT (2)
#define GU_MIN (3)
#define GU_MAX (4)
#define GU_ABS (5)
#define GU_OTHER_COLOR (0)
#define GU_ONE_MINUS_OTHER_COLOR (1)
#define GU_SRC_ALPHA (2)
#define GU_ONE_MINUS_SRC_ALPHA (3)
#define GU_DST_ALPHA (4)
#define GU_ONE_MINUS_DST_ALPHA (5)
#define GU_DOUBLE_SRC_ALPHA (6)
#define GU_ONE_MINUS_DOUBLE_SRC_ALPHA (7)
#define GU_DOUBLE_DST_ALPHA (8)
#define GU_ONE_MINUS_DOUBLE_DST_ALPHA (9)
#define GU_FIX (10)
#define GU_SRC_COLOR (0)
#define GU_ONE_MINUS_SRC_COLOR (1)
#define GU_DST_COLOR (0)
#define GU_ONE_MINUS_DST_COLOR (1)

/* Stencil operations (sceGuStencilOp) */
#define GU_KEEP (0)
#define GU_ZERO (1)
#define GU_REPLACE (2)
#define GU_INVERT (3)
#define GU_INCR (4)
#define GU_DECR (5)

/* Light and material components, light modes and kinds */
#define GU_AMBIENT (1)
#define GU_DIFFUSE (2)
#define GU_SPECULAR (4)
#define GU_AMBIENT_AND_DIFFUSE (GU_AMBIENT | GU_DIFFUSE)
#define GU_DIFFUSE_AND_SPECULAR (GU_DIFFUSE | GU_SPECULAR)
#define GU_POWERED_DIFFUSE (8)
#define GU_SINGLE_COLOR (0)
#define GU_SEPARATE_SPECULAR_COLOR (1)
#define GU_DIRECTIONAL (0)
#define GU_POINTLIGHT (1)
#define GU_SPOTLIGHT (2)

/* List contexts (sceGuStart), queue ends (sceGuSendList) */
#define GU_DIRECT (0)
#define GU_CALL (1)
#define GU_SEND (2)
#define GU_TAIL (0)
#define GU_HEAD (1)

/* sceGuSync: mode, then what */
#define GU_SYNC_FINISH (0)
#define GU_SYNC_SIGNAL (1)
#define GU_SYNC_DONE (2)
#define GU_SYNC_LIST (3)
#define GU_SYNC_SEND (4)
#define GU_SYNC_WAIT (0)
#define GU_SYNC_NOWAIT (1)
#define GU_SYNC_WHAT_DONE (0)
#define GU_SYNC_WHAT_QUEUED (1)
#define GU_SYNC_WHAT_DRAW (2)
#define GU_SYNC_WHAT_STALL (3)
#define GU_SYNC_WHAT_CANCEL (4)

/* sceGuCallMode, sceGuSignal, sceGuSetCallback, sceGuBreak */
#define GU_CALL_NORMAL (0)
#define GU_CALL_SIGNAL (1)
#define GU_SIGNAL_WAIT (1)
#define GU_SIGNAL_NOWAIT (2)
#define GU_SIGNAL_PAUSE (3)
#define GU_CALLBACK_SIGNAL (1)
#define GU_CALLBACK_FINISH (4)
#define GU_BEHAVIOR_SUSPEND (1)
#define GU_BEHAVIOR_CONTINUE (2)
#define GU_BREAK_PAUSE (0)
#define GU_BREAK_CANCEL (1)

/* Colours as the GE stores them: red in the low byte */
#define GU_ABGR(a, b, g, r) (((a) << 24) | ((b) << 16) | ((g) << 8) | (r))
#define GU_ARGB(a, r, g, b) GU_ABGR((a), (b), (g), (r))
#define GU_RGBA(r, g, b, a) GU_ARGB((a), (r), (g), (b))
#define GU_COLOR(r, g, b, a) \
    GU_RGBA((u32)((r) * 255.0f), (u32)((g) * 255.0f), (u32)((b) * 255.0f), (u32)((a) * 255.0f))

typedef void (*GuSwapBuffersCallback)(void **display, void **render);

/* --- start, lists, synchronisation --- */
int sceGuInit(void);
void sceGuTerm(void);
int sceGuStart(int cid, void *list);
int sceGuFinish(void);
int sceGuFinishId(unsigned int id);
int sceGuSync(int mode, int what);
void *sceGuGetMemory(int size);
int sceGuCallList(const void *list);
void sceGuCallMode(int mode);
int sceGuCheckList(void);
int sceGuSendList(int mode, const void *list, PspGeContext *context);
int sceGuBreak(int mode);
int sceGuContinue(void);
void *sceGuSetCallback(int signal, void (*callback)(int));
void sceGuSignal(int signal, int argument);
void sceGuSendCommandf(int cmd, float argument);
void sceGuSendCommandi(int cmd, int argument);
void sceGuBeginObject(int vtype, int count, const void *indices, const void *vertices);
int sceGuEndObject(void);

/* --- buffers and display --- */
void sceGuDrawBuffer(int psm, void *fbp, int fbw);
void sceGuDrawBufferList(int psm, void *fbp, int fbw);
void sceGuDispBuffer(int width, int height, void *dispbp, int dispbw);
void sceGuDepthBuffer(void *zbp, int zbw);
int sceGuDisplay(int state);
void *sceGuSwapBuffers(void);
void guSwapBuffersBehaviour(int behaviour);
void guSwapBuffersCallback(GuSwapBuffersCallback callback);
void *guGetStaticVramBuffer(unsigned int width, unsigned int height, unsigned int psm);
void *guGetStaticVramTexture(unsigned int width, unsigned int height, unsigned int psm);
int guGetDisplayState(void);

/* --- viewport, clearing, states --- */
void sceGuOffset(unsigned int x, unsigned int y);
void sceGuViewport(int cx, int cy, int width, int height);
void sceGuScissor(int x, int y, int w, int h);
void sceGuDepthRange(int near, int far);
void sceGuDepthOffset(unsigned int offset);
void sceGuClearColor(unsigned int color);
void sceGuClearDepth(unsigned int depth);
void sceGuClearStencil(unsigned int stencil);
void sceGuClear(int flags);
void sceGuEnable(int state);
void sceGuDisable(int state);
void sceGuSetStatus(int state, int status);
int sceGuGetStatus(int state);
void sceGuSetAllStatus(int status);
int sceGuGetAllStatus(void);

/* --- fragment operations --- */
void sceGuDepthFunc(int function);
void sceGuDepthMask(int mask);
void sceGuAlphaFunc(int func, int value, int mask);
void sceGuColorFunc(int func, unsigned int color, unsigned int mask);
void sceGuStencilFunc(int func, int ref, int mask);
void sceGuStencilOp(int fail, int zfail, int zpass);
void sceGuBlendFunc(int op, int src, int dest, unsigned int srcfix, unsigned int destfix);
void sceGuLogicalOp(int op);
void sceGuPixelMask(unsigned int mask);
void sceGuSetDither(const ScePspIMatrix4 *matrix);
void sceGuFog(float near, float far, unsigned int color);

/* --- shading, lights, materials --- */
void sceGuShadeModel(int mode);
void sceGuFrontFace(int order);
void sceGuColor(unsigned int color);
void sceGuColorMaterial(int components);
void sceGuMaterial(int mode, int color);
void sceGuModelColor(unsigned int emissive, unsigned int ambient, unsigned int diffuse, unsigned int specular);
void sceGuAmbient(unsigned int color);
void sceGuAmbientColor(unsigned int color);
void sceGuSpecular(float power);
void sceGuLight(int light, int type, int components, const ScePspFVector3 *position);
void sceGuLightAtt(int light, float atten0, float atten1, float atten2);
void sceGuLightColor(int light, int component, unsigned int color);
void sceGuLightMode(int mode);
void sceGuLightSpot(int light, const ScePspFVector3 *direction, float exponent, float cutoff);

/* --- textures --- */
void sceGuTexMode(int tpsm, int maxmips, int mc, int swizzle);
void sceGuTexImage(int mipmap, int width, int height, int tbw, const void *tbp);
void sceGuTexFunc(int tfx, int tcc);
void sceGuTexEnvColor(unsigned int color);
void sceGuTexFilter(int min, int mag);
void sceGuTexWrap(int u, int v);
void sceGuTexScale(float u, float v);
void sceGuTexOffset(float u, float v);
void sceGuTexMapMode(int mode, unsigned int lu, unsigned int lv);
void sceGuTexProjMapMode(int mode);
void sceGuTexLevelMode(unsigned int mode, float bias);
void sceGuTexSlope(float slope);
void sceGuTexFlush(void);
void sceGuTexSync(void);
void sceGuClutMode(unsigned int cpsm, unsigned int shift, unsigned int mask, unsigned int csa);
void sceGuClutLoad(int num_blocks, const void *cbp);

/* --- drawing, matrices, transfers --- */
void sceGuDrawArray(int prim, int vtype, int count, const void *indices, const void *vertices);
void sceGuDrawArrayN(int prim, int vtype, int count, int primcount, const void *indices, const void *vertices);
void sceGuDrawBezier(int vtype, int ucount, int vcount, const void *indices, const void *vertices);
void sceGuDrawSpline(int vtype, int ucount, int vcount, int uedge, int vedge, const void *indices,
                     const void *vertices);
void sceGuPatchDivide(unsigned int ulevel, unsigned int vlevel);
void sceGuPatchFrontFace(unsigned int mode);
void sceGuPatchPrim(int prim);
void sceGuSetMatrix(int type, const ScePspFMatrix4 *matrix);
void sceGuBoneMatrix(unsigned int index, const ScePspFMatrix4 *matrix);
void sceGuMorphWeight(int index, float weight);
void sceGuCopyImage(int psm, int sx, int sy, int width, int height, int srcw, void *src, int dx, int dy,
                    int destw, void *dest);

#ifdef __cplusplus
}
#endif

#endif
