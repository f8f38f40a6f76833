/* Debug-screen text console: 480x272 pixels as 60x34 cells of 8x8 glyphs, drawn into
   a 32-bit framebuffer in VRAM (512-pixel stride) shown with sceDisplaySetFrameBuf.
   Text wraps at the right edge and scrolls up at the bottom. */
#ifndef SCREEN_H
#define SCREEN_H

#define SCREEN_WIDTH 480
#define SCREEN_HEIGHT 272
#define SCREEN_STRIDE 512
#define SCREEN_COLUMNS 60
#define SCREEN_ROWS 34
#define SCREEN_VRAM 0x04000000u   /* framebuffer address (uncached alias: | 0x40000000) */

/* Point the display at the framebuffer, clear it, cursor to the top left. */
void screen_init(void);
/* Colours are 0xAABBGGRR (the PSP's 8888 pixel format). */
void screen_set_colors(unsigned int foreground, unsigned int background);
void screen_clear(void);
/* Draw into the frame buffer at VRAM + offset bytes (default 0); the display is not changed. */
void screen_set_offset(int offset);
/* Draw into a frame buffer at an address, in a PSP_DISPLAY_PIXEL_FORMAT_* (default 8888). */
void screen_set_buffer(void *address, int format);
void screen_set_xy(int column, int row);
int screen_get_x(void);
int screen_get_y(void);
void screen_putc(int c);
void screen_puts(const char *s);
int screen_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
