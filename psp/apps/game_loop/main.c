/* A game's main loop, for benchmarks/realtime.py: every frame reads the pad
   (sceCtrlReadBufferPositive: it waits for the frame's sample), moves a player the pad
   steers and SPRITES bouncing sprites that bump into it and into each other (every pair
   tested each frame: the game's CPU work), draws them all as GU sprites
   over a cleared screen, waits for vblank and swaps buffers; an audio thread keeps a
   channel fed with a square wave (sceAudioOutputBlocking: it waits while the previous
   block plays). Prints the score every second and a checksum at the end, after FRAMES
   frames (-D FRAMES=n; default 300, five seconds). */
#include <stdio.h>
#include <pspsdk.h>
#include <pspctrl.h>
#include <pspdisplay.h>
#include <pspgu.h>

PSP_MODULE_INFO("game_loop", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);
PSP_HEAP_SIZE_KB(256);

#ifndef FRAMES
#define FRAMES 300
#endif
#define SPRITES 256
#define SIZE 8            /* sprite side in pixels */
#define SCREEN_W 480
#define SCREEN_H 272
#define BUFFER_WIDTH 512
#define SAMPLES 1024      /* per audio block: 23 ms at 44.1 kHz */
#define FP 8              /* positions in 1/256 pixel */

struct Sprite { int x, y, dx, dy; u32 color; };
struct Vertex { u32 color; s16 x, y, z, pad; };

static struct Sprite sprites[SPRITES];
static struct Sprite player;
static unsigned int __attribute__((aligned(16))) list[65536];
static s16 __attribute__((aligned(64))) wave[2][SAMPLES * 2];
static volatile int playing = 1;
static int score;

static unsigned next_random(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

static int audio_thread(SceSize args, void *argp)
{
    int channel = sceAudioChReserve(PSP_AUDIO_NEXT_CHANNEL, SAMPLES, PSP_AUDIO_FORMAT_STEREO);
    for (int i = 0; i < SAMPLES * 2; i++)
        wave[0][i] = wave[1][i] = ((i / 2) / 50) & 1 ? 3000 : -3000;
    for (int block = 0; playing; block++)
        sceAudioOutputBlocking(channel, PSP_AUDIO_VOLUME_MAX, wave[block & 1]);
    sceAudioChRelease(channel);
    return 0;
}

static void bounce(struct Sprite *s)
{
    s->x += s->dx;
    s->y += s->dy;
    if (s->x < 0 || s->x > (SCREEN_W - SIZE) << FP) { s->dx = -s->dx; s->x += 2 * s->dx; }
    if (s->y < 0 || s->y > (SCREEN_H - SIZE) << FP) { s->dy = -s->dy; s->y += 2 * s->dy; }
}

static void update(const SceCtrlData *pad)
{
    player.dx = (pad->Buttons & PSP_CTRL_RIGHT ? 3 : 0) - (pad->Buttons & PSP_CTRL_LEFT ? 3 : 0);
    player.dy = (pad->Buttons & PSP_CTRL_DOWN ? 3 : 0) - (pad->Buttons & PSP_CTRL_UP ? 3 : 0);
    player.dx = (player.dx << FP) + ((pad->Lx - 128) << (FP - 5));
    player.dy = (player.dy << FP) + ((pad->Ly - 128) << (FP - 5));
    bounce(&player);
    for (int i = 0; i < SPRITES; i++) {
        struct Sprite *s = &sprites[i];
        bounce(s);
        int ox = (s->x - player.x) >> FP, oy = (s->y - player.y) >> FP;
        if (ox > -SIZE && ox < SIZE && oy > -SIZE && oy < SIZE) {   /* a hit: it flies off */
            s->dx = -s->dx;
            s->dy = -s->dy;
            score++;
        }
    }
}

/* Sprites that overlap swap velocities (an elastic bump between equal masses). */
static void collide(void)
{
    for (int i = 0; i < SPRITES; i++)
        for (int j = i + 1; j < SPRITES; j++) {
            struct Sprite *a = &sprites[i], *b = &sprites[j];
            int ox = (a->x - b->x) >> FP, oy = (a->y - b->y) >> FP;
            if (ox > -SIZE && ox < SIZE && oy > -SIZE && oy < SIZE) {
                int dx = a->dx, dy = a->dy;
                a->dx = b->dx; a->dy = b->dy;
                b->dx = dx; b->dy = dy;
            }
        }
}

static void put(struct Vertex *v, const struct Sprite *s)
{
    v[0].color = v[1].color = s->color;
    v[0].x = s->x >> FP;
    v[0].y = s->y >> FP;
    v[1].x = v[0].x + SIZE;
    v[1].y = v[0].y + SIZE;
    v[0].z = v[1].z = 0;
}

static void draw(void)
{
    sceGuStart(GU_DIRECT, list);
    sceGuClearColor(0xff302010);
    sceGuClear(GU_COLOR_BUFFER_BIT);
    struct Vertex *v = sceGuGetMemory((SPRITES + 1) * 2 * sizeof(struct Vertex));
    for (int i = 0; i < SPRITES; i++)
        put(&v[2 * i], &sprites[i]);
    put(&v[2 * SPRITES], &player);
    sceGuDrawArray(GU_SPRITES, GU_COLOR_8888 | GU_VERTEX_16BIT | GU_TRANSFORM_2D, (SPRITES + 1) * 2, 0, v);
    sceGuFinish();
    sceGuSync(GU_SYNC_FINISH, GU_SYNC_WHAT_DONE);
}

int main(void)
{
    unsigned seed = 1;
    for (int i = 0; i < SPRITES; i++) {
        struct Sprite *s = &sprites[i];
        s->x = (next_random(&seed) % (SCREEN_W - SIZE)) << FP;
        s->y = (next_random(&seed) % (SCREEN_H - SIZE)) << FP;
        s->dx = (int)(next_random(&seed) % 512) - 256;
        s->dy = (int)(next_random(&seed) % 512) - 256;
        s->color = 0xff000000u | next_random(&seed) | (next_random(&seed) << 16);
    }
    player.x = (SCREEN_W / 2) << FP;
    player.y = (SCREEN_H / 2) << FP;
    player.color = 0xffffffffu;

    SceUID audio = sceKernelCreateThread("audio", audio_thread, 0x12, 0x4000, PSP_THREAD_ATTR_USER, NULL);
    sceKernelStartThread(audio, 0, NULL);
    sceCtrlSetSamplingCycle(0);
    sceCtrlSetSamplingMode(PSP_CTRL_MODE_ANALOG);

    void *draw_buffer = guGetStaticVramBuffer(BUFFER_WIDTH, SCREEN_H, GU_PSM_8888);
    void *shown = guGetStaticVramBuffer(BUFFER_WIDTH, SCREEN_H, GU_PSM_8888);
    sceGuInit();
    sceGuStart(GU_DIRECT, list);
    sceGuDrawBuffer(GU_PSM_8888, draw_buffer, BUFFER_WIDTH);
    sceGuDispBuffer(SCREEN_W, SCREEN_H, shown, BUFFER_WIDTH);
    sceGuScissor(0, 0, SCREEN_W, SCREEN_H);
    sceGuEnable(GU_SCISSOR_TEST);
    sceGuFinish();
    sceGuSync(GU_SYNC_FINISH, GU_SYNC_WHAT_DONE);
    sceGuDisplay(GU_TRUE);

    SceCtrlData pad;
    for (int frame = 1; frame <= FRAMES; frame++) {
        sceCtrlReadBufferPositive(&pad, 1);
        update(&pad);
        collide();
        draw();
        sceDisplayWaitVblankStart();
        sceGuSwapBuffers();
        if (frame % 60 == 0)
            printf("frame %d score %d\n", frame, score);
    }
    playing = 0;
    sceKernelWaitThreadEnd(audio, NULL);
    unsigned sum = player.x ^ player.y;
    for (int i = 0; i < SPRITES; i++)
        sum = sum * 31 + sprites[i].x + sprites[i].y * 7;
    printf("done score %d checksum %08x\n", score, sum);
    sceGuTerm();
    return 0;
}
