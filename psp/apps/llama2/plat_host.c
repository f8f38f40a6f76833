/* The host platform: stdio files, a monotonic clock, stdout; `llama2 CONFIG [key=value...]`. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llama2.h"
#include "platform.h"

#define MAX_FILES 8
static FILE *files[MAX_FILES];

int plat_open(const char *path) {
    for (int i = 0; i < MAX_FILES; i++)
        if (!files[i]) { files[i] = fopen(path, "rb"); return files[i] ? i : -1; }
    return -1;
}
int plat_read(int fd, void *buf, int bytes) { return (int)fread(buf, 1, (size_t)bytes, files[fd]); }
int plat_seek(int fd, int64_t offset) { return fseeko(files[fd], (off_t)offset, SEEK_SET); }
int64_t plat_size(int fd) {
    long long here = ftello(files[fd]);
    fseeko(files[fd], 0, SEEK_END);
    long long size = ftello(files[fd]);
    fseeko(files[fd], here, SEEK_SET);
    return size;
}
void plat_close(int fd) { fclose(files[fd]); files[fd] = NULL; }

int plat_write_file(const char *path, const char *data, int len, int append) {
    FILE *f = fopen(path, append ? "ab" : "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, (size_t)len, f) == (size_t)len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

uint64_t plat_ticks_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void plat_text(const char *s, int color) {
    fputs(s, color == COLOR_ERROR ? stdout : stdout);
    fflush(stdout);
}

int plat_prompt(const char *title, char *buf, int size) {
    (void)title; (void)buf; (void)size;
    return 0;  /* the host build takes its prompts from the config */
}

#define HOST_HEAP (52u << 20)      /* want 0: about what a PSP-2000 gives (user partition less the program) */
#define HOST_VOLATILE (4u << 20)   /* the PSP's volatile partition */

static void *aligned_block(size_t want, size_t *got) {
    void *p = malloc(want + 16);
    *got = p ? want : 0;
    return p ? (void *)(((uintptr_t)p + 15) & ~(uintptr_t)15) : NULL;
}

void *plat_heap(size_t want, size_t *got) { return aligned_block(want ? want : HOST_HEAP, got); }

void *plat_volatile(size_t *got) { return aligned_block(HOST_VOLATILE, got); }

const char *plat_name(void) { return "host"; }

void plat_set_clock(int mhz) { (void)mhz; }

const Kernels *kernels_vfpu(void) { return NULL; }
const Kernels *kernels_scalar_madd(void) { return NULL; }

int llama2_main(const char *config_path, int argc, char **argv);

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: llama2 CONFIG [key=value ...]\n");
        return 2;
    }
    return llama2_main(argv[1], argc - 2, argv + 2);
}
