/* The debug-screen console (see include/screen.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "pspsdk.h"
#include "screen.h"
#include "font8x8.h"

#ifdef ALLEGREX_HOST
static uint32_t host_vram[SCREEN_STRIDE * SCREEN_HEIGHT];   /* host builds draw here */
static uint32_t *const framebuffer = host_vram;
#else
static uint32_t *const framebuffer = (uint32_t *)(SCREEN_VRAM | 0x40000000u);  /* uncached */
#endif
static uint32_t fg = 0xFFFFFFFFu, bg = 0xFF000000u;
static int column, row;

void screen_set_colors(unsigned int foreground, unsigned int background)
{
    fg = foreground;
    bg = background;
}

void screen_clear(void)
{
    for (int y = 0; y < SCREEN_HEIGHT; y++) {
        uint32_t *line = framebuffer + y * SCREEN_STRIDE;
        for (int x = 0; x < SCREEN_WIDTH; x++)
            line[x] = bg;
    }
    column = row = 0;
}

/* Shown at once (not at the next vblank), so a short program's output is on screen. */
void screen_init(void)
{
    sceDisplaySetMode(0, SCREEN_WIDTH, SCREEN_HEIGHT);
    sceDisplaySetFrameBuf((void *)SCREEN_VRAM, SCREEN_STRIDE, PSP_DISPLAY_PIXEL_FORMAT_8888, PSP_DISPLAY_SETBUF_IMMEDIATE);
    screen_clear();
}

void screen_set_xy(int x, int y)
{
    column = x < 0 ? 0 : x >= SCREEN_COLUMNS ? SCREEN_COLUMNS - 1 : x;
    row = y < 0 ? 0 : y >= SCREEN_ROWS ? SCREEN_ROWS - 1 : y;
}

int screen_get_x(void) { return column; }
int screen_get_y(void) { return row; }

/* Move every text row up by one and clear the last. */
static void scroll(void)
{
    for (int y = 0; y < (SCREEN_ROWS - 1) * 8; y++)
        memcpy(framebuffer + y * SCREEN_STRIDE, framebuffer + (y + 8) * SCREEN_STRIDE, SCREEN_WIDTH * 4);
    for (int y = (SCREEN_ROWS - 1) * 8; y < SCREEN_ROWS * 8; y++)
        for (int x = 0; x < SCREEN_WIDTH; x++)
            framebuffer[y * SCREEN_STRIDE + x] = bg;
}

static void draw_glyph(int c)
{
    const unsigned char *glyph = font8x8[(c >= FONT_FIRST && c < FONT_FIRST + FONT_GLYPHS ? c : '?') - FONT_FIRST];
    uint32_t *cell = framebuffer + row * 8 * SCREEN_STRIDE + column * 8;
    for (int y = 0; y < 8; y++, cell += SCREEN_STRIDE)
        for (int x = 0; x < 8; x++)
            cell[x] = (glyph[y] & (0x80 >> x)) ? fg : bg;
}

static void new_line(void)
{
    column = 0;
    if (++row == SCREEN_ROWS) {
        scroll();
        row = SCREEN_ROWS - 1;
    }
}

void screen_putc(int c)
{
    if (c == '\n') {
        new_line();
    } else if (c == '\r') {
        column = 0;
    } else if (c == '\t') {
        do screen_putc(' '); while (column % 8);
    } else {
        if (column == SCREEN_COLUMNS)
            new_line();
        draw_glyph(c);
        column++;
    }
}

void screen_puts(const char *s)
{
    while (*s)
        screen_putc((unsigned char)*s++);
}

int screen_printf(const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    screen_puts(text);
    return n;
}
