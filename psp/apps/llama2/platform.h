/* The few things the engine needs from the machine it runs on. One implementation
 * for the PSP (plat_psp.c, over the project's SDK) and one for the host (plat_host.c). */
#ifndef LLAMA2_PLATFORM_H
#define LLAMA2_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* Text colours: the prompt and the generation are told apart on the debug screen. */
enum { COLOR_INFO = 0, COLOR_PROMPT = 1, COLOR_GEN = 2, COLOR_ERROR = 3 };

/* Files: a handle >= 0, or < 0 on error. Reads are done in chunks by the caller. */
int plat_open(const char *path);
int plat_read(int fd, void *buf, int bytes);          /* bytes read, < 0 on error */
int plat_seek(int fd, int64_t offset);                  /* 0 on success */
int64_t plat_size(int fd);
void plat_close(int fd);
/* Write (append != 0: add to) a whole file; 0 on success. */
int plat_write_file(const char *path, const char *data, int len, int append);

uint64_t plat_ticks_us(void);                           /* monotonic microseconds */
void plat_text(const char *s, int color);               /* stdout + screen */
/* Ask the user for a line of text (the on-screen keyboard on a PSP): 1 if one was
 * entered into buf (UTF-8, NUL-terminated), 0 if none is available or it was cancelled. */
int plat_prompt(const char *title, char *buf, int size);
/* The heap block the engine allocates from: `want` bytes, or (want 0) as many as the
 * machine can give; *got tells how many (on failure: the most there are). */
void *plat_heap(size_t want, size_t *got);
/* The volatile partition (the PSP's 4 MB a program may lock), or NULL; *got its size. */
void *plat_volatile(size_t *got);
/* Set the CPU clock in MHz (333, 222...); the host ignores it. */
void plat_set_clock(int mhz);
/* Name of the machine for the budget report ("host", "psp"). */
const char *plat_name(void);

#endif
