/* The PSP platform: sceIo files, sceRtc ticks, stdout plus the debug screen, the
 * on-screen keyboard (sceUtilityOsk), and the arena as one user-partition block. */
#include <pspsdk.h>
#include <screen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama2.h"
#include "platform.h"

PSP_MODULE_INFO("llama2", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER | PSP_THREAD_ATTR_VFPU);
PSP_MAIN_THREAD_STACK_SIZE_KB(256);
/* libc's own heap stays small: the model arena is a separate block sized by heap_kb. */
PSP_HEAP_SIZE_KB(512);

/* ---- on-screen keyboard (psputility_osk layout) ---- */
typedef struct {
    unsigned int size;
    int language, button_swap, graphics_thread, access_thread, font_thread, sound_thread, result;
    int reserved[4];
} UtilityDialogCommon;

typedef struct {
    int unk_00, unk_04, language, unk_12, input_type, lines, unk_24;
    unsigned short *desc, *intext;
    int outtext_length;
    unsigned short *outtext;
    int result, outtext_limit;
} OskData;

typedef struct {
    UtilityDialogCommon base;
    int data_count;
    OskData *data;
    int state, unk_60;
} OskParams;

/* sceUtilityOsk{InitStart,GetStatus,Update,ShutdownStart} come from the SDK's import list. */
enum { OSK_NONE = 0, OSK_INIT = 1, OSK_VISIBLE = 2, OSK_QUIT = 3, OSK_FINISHED = 4 };
enum { OSK_CANCELLED = 1 };

/* ---- files ---- */
int plat_open(const char *path) { return sceIoOpen(path, PSP_O_RDONLY, 0); }
int plat_read(int fd, void *buf, int bytes) { return sceIoRead(fd, buf, (SceSize)bytes); }
int plat_seek(int fd, int64_t offset) { return sceIoLseek(fd, offset, PSP_SEEK_SET) == offset ? 0 : -1; }
int64_t plat_size(int fd) {
    SceOff here = sceIoLseek(fd, 0, PSP_SEEK_CUR);
    SceOff size = sceIoLseek(fd, 0, PSP_SEEK_END);
    sceIoLseek(fd, here, PSP_SEEK_SET);
    return size;
}
void plat_close(int fd) { sceIoClose(fd); }

int plat_write_file(const char *path, const char *data, int len, int append) {
    int fd = sceIoOpen(path, PSP_O_WRONLY | PSP_O_CREAT | (append ? PSP_O_APPEND : PSP_O_TRUNC), 0777);
    if (fd < 0) return -1;
    int n = sceIoWrite(fd, data, (SceSize)len);
    sceIoClose(fd);
    return n == len ? 0 : -1;
}

/* ---- time ---- */
uint64_t plat_ticks_us(void) {
    SceUInt64 tick = 0;
    sceRtcGetCurrentTick(&tick);
    SceUInt32 res = sceRtcGetTickResolution();
    return res == 1000000u || res == 0 ? tick : tick * 1000000u / res;
}

/* ---- text: stdout and the debug screen (prompt and generation in their own colours) ---- */
static int screen_ready;

void plat_text(const char *s, int color) {
    static const unsigned int colors[4] = {0xFFAAAAAAu, 0xFF40FFFFu, 0xFFFFFFFFu, 0xFF4040FFu};
    if (!screen_ready) { screen_init(); screen_ready = 1; }
    screen_set_colors(colors[color & 3], 0xFF000000u);
    screen_puts(s);
    fputs(s, stdout);
    fflush(stdout);
}

/* UTF-16 (the OSK's text) to UTF-8. */
static void utf16_to_utf8(const unsigned short *in, char *out, int size) {
    int n = 0;
    for (; *in; in++) {
        unsigned int c = *in;
        if (c >= 0xD800 && c < 0xDC00 && in[1] >= 0xDC00 && in[1] < 0xE000) { c = 0x10000 + ((c - 0xD800) << 10) + (in[1] - 0xDC00); in++; }
        int len = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (n + len >= size) break;
        if (len == 1) out[n++] = (char)c;
        else {
            static const unsigned char lead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
            for (int i = len - 1; i > 0; i--) { out[n + i] = (char)(0x80 | (c & 0x3F)); c >>= 6; }
            out[n] = (char)(lead[len] | c);
            n += len;
        }
    }
    out[n] = '\0';
}

int plat_prompt(const char *title, char *buf, int size) {
    static unsigned short desc[64], intext[1] = {0}, outtext[512];
    int i = 0;
    for (; title[i] && i < 63; i++) desc[i] = (unsigned char)title[i];
    desc[i] = 0;
    OskData data;
    memset(&data, 0, sizeof data);
    data.language = 2;  /* English */
    data.lines = 1;
    data.desc = desc;
    data.intext = intext;
    data.outtext = outtext;
    data.outtext_length = 512;
    data.outtext_limit = 500;
    OskParams params;
    memset(&params, 0, sizeof params);
    params.base.size = sizeof params;
    params.base.language = 1;
    params.base.graphics_thread = 17; params.base.access_thread = 19;
    params.base.font_thread = 18; params.base.sound_thread = 16;
    params.data_count = 1;
    params.data = &data;
    if (sceUtilityOskInitStart(&params) < 0) return 0;
    for (int frames = 0; frames < 60 * 600; frames++) {
        int status = sceUtilityOskGetStatus();
        if (status == OSK_VISIBLE) sceUtilityOskUpdate(1);
        else if (status == OSK_QUIT) sceUtilityOskShutdownStart();
        else if (status == OSK_FINISHED || status == OSK_NONE) break;
        sceDisplayWaitVblankStart();
    }
    if (params.base.result != 0 || data.result == OSK_CANCELLED) return 0;
    utf16_to_utf8(outtext, buf, size);
    return buf[0] != '\0';
}

/* ---- memory: the heap is one block of the user partition (all of it a large-memory
 * program on a PSP-2000/3000 gets: MEMSIZE=1 in its PARAM.SFO), and the volatile
 * partition when it can be locked ---- */
#define HEAP_RESERVE (64 * 1024)  /* left free for what the firmware allocates later (threads of dialogs) */

void *plat_heap(size_t want, size_t *got) {
    if (want == 0) {
        free(malloc(16));  /* libc's own heap takes its block first */
        SceSize most = sceKernelMaxFreeMemSize();
        want = most > HEAP_RESERVE + 16 ? most - HEAP_RESERVE - 16 : 0;
    }
    SceUID block = want ? sceKernelAllocPartitionMemory(2, "llama2 arena", PSP_SMEM_Low, (SceSize)(want + 16), NULL) : -1;
    if (block < 0) { *got = sceKernelMaxFreeMemSize(); return NULL; }
    uintptr_t base = (uintptr_t)sceKernelGetBlockHeadAddr(block);
    *got = want;
    return (void *)((base + 15) & ~(uintptr_t)15);
}

void *plat_volatile(size_t *got) {
    void *p = NULL;
    int size = 0;
    if (sceKernelVolatileMemTryLock(0, &p, &size) < 0) { *got = 0; return NULL; }
    *got = (size_t)size;
    return p;
}

const char *plat_name(void) { return "psp"; }

/* The PLL runs at the CPU clock, the bus at half of it (333/166 as games use). */
void plat_set_clock(int mhz) {
    if (mhz > 0) scePowerSetClockFrequency(mhz, mhz, mhz / 2);
}

int llama2_main(const char *config_path, int argc, char **argv);

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    /* the program's folder is the working directory: the config lies beside the EBOOT */
    int status = llama2_main("llama2.cfg", 0, NULL);
    sceKernelExitGame();
    return status;
}
