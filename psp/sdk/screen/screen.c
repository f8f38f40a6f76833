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
static unsigned char *framebuffer = (unsigned char *)host_vram;
#else
static unsigned char *framebuffer = (unsigned char *)(SCREEN_VRAM | 0x40000000u);  /* uncached */
#endif
static int pixel_format = PSP_DISPLAY_PIXEL_FORMAT_8888;
static uint32_t fg = 0xFFFFFFFFu, bg = 0xFF000000u;
static int column, row;

/* 0xAABBGGRR in the frame buffer's format (16-bit ones keep each channel's top bits). */
static uint32_t pixel(uint32_t color)
{
    uint32_t r = color & 0xFF, g = (color >> 8) & 0xFF, b = (color >> 16) & 0xFF, a = color >> 24;
    switch (pixel_format) {
    case 0: return (r >> 3) | (g >> 2) << 5 | (b >> 3) << 11;                 /* 565 */
    case 1: return (r >> 3) | (g >> 3) << 5 | (b >> 3) << 10 | (a >> 7) << 15;  /* 5551 */
    case 2: return (r >> 4) | (g >> 4) << 4 | (b >> 4) << 8 | (a >> 4) << 12;   /* 4444 */
    default: return color;
    }
}

static int pixel_bytes(void)
{
    return pixel_format == PSP_DISPLAY_PIXEL_FORMAT_8888 ? 4 : 2;
}

/* One pixel, already in the buffer's format. */
static inline void store(int x, int y, uint32_t value)
{
    if (pixel_format == PSP_DISPLAY_PIXEL_FORMAT_8888)
        ((uint32_t *)framebuffer)[y * SCREEN_STRIDE + x] = value;
    else
        ((uint16_t *)framebuffer)[y * SCREEN_STRIDE + x] = (uint16_t)value;
}

/* Pixels x0..x1-1 of line y set to one colour. */
static void fill(int y, int x0, int x1, uint32_t color)
{
    uint32_t value = pixel(color);
    for (int x = x0; x < x1; x++)
        store(x, y, value);
}

void screen_set_colors(unsigned int foreground, unsigned int background)
{
    fg = foreground;
    bg = background;
}

void screen_clear(void)
{
    for (int y = 0; y < SCREEN_HEIGHT; y++)
        fill(y, 0, SCREEN_WIDTH, bg);
    column = row = 0;
}

/* Shown at once (not at the next vblank), so a short program's output is on screen. */
void screen_init(void)
{
    screen_set_buffer((void *)SCREEN_VRAM, PSP_DISPLAY_PIXEL_FORMAT_8888);
    sceDisplaySetMode(0, SCREEN_WIDTH, SCREEN_HEIGHT);
    sceDisplaySetFrameBuf((void *)SCREEN_VRAM, SCREEN_STRIDE, PSP_DISPLAY_PIXEL_FORMAT_8888, PSP_DISPLAY_SETBUF_IMMEDIATE);
    screen_clear();
}

void screen_set_buffer(void *address, int format)
{
#ifndef ALLEGREX_HOST
    framebuffer = (unsigned char *)((unsigned)address | 0x40000000u);
#else
    (void)address;
#endif
    pixel_format = format;
}

void screen_set_offset(int offset)
{
    screen_set_buffer((void *)(SCREEN_VRAM + (unsigned)offset), pixel_format);
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
    int line_bytes = SCREEN_STRIDE * pixel_bytes();
    for (int y = 0; y < (SCREEN_ROWS - 1) * 8; y++)
        memcpy(framebuffer + y * line_bytes, framebuffer + (y + 8) * line_bytes, SCREEN_WIDTH * pixel_bytes());
    for (int y = (SCREEN_ROWS - 1) * 8; y < SCREEN_ROWS * 8; y++)
        fill(y, 0, SCREEN_WIDTH, bg);
}

static void draw_glyph(int c)
{
    const unsigned char *glyph = font8x8[(c >= FONT_FIRST && c < FONT_FIRST + FONT_GLYPHS ? c : '?') - FONT_FIRST];
    uint32_t on = pixel(fg), off = pixel(bg);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++)
            store(column * 8 + x, row * 8 + y, (glyph[y] & (0x80 >> x)) ? on : off);
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
