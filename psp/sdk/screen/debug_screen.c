/* The official SDK's pspDebugScreen* names (pspdebug.h) over the debug screen. Its
   colours start as that SDK's: white text on a transparent black background. */
#include <stdarg.h>
#include <stdio.h>
#include "pspdebug.h"
#include "screen.h"

static u32 text_color = 0xFFFFFFFFu, back_color = 0;

void pspDebugScreenInit(void)
{
    screen_set_colors(text_color, back_color);
    screen_init();
}

/* Text in a frame buffer at vram_base (NULL: VRAM's start) in a PSP_DISPLAY_PIXEL_FORMAT_*
   mode; setup: also show it and clear it. */
void pspDebugScreenInitEx(void *vram_base, int mode, int setup)
{
    screen_set_colors(text_color, back_color);
    screen_set_buffer(vram_base ? vram_base : (void *)SCREEN_VRAM, mode);
    if (setup) {
        sceDisplaySetMode(0, SCREEN_WIDTH, SCREEN_HEIGHT);
        sceDisplaySetFrameBuf(vram_base ? vram_base : (void *)SCREEN_VRAM, SCREEN_STRIDE, mode, PSP_DISPLAY_SETBUF_IMMEDIATE);
        screen_clear();
    }
}

void pspDebugScreenPrintf(const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    screen_puts(text);
}

int pspDebugScreenPuts(const char *text)
{
    int n = 0;
    while (text[n])
        screen_putc((unsigned char)text[n++]);
    return n;
}

void pspDebugScreenSetXY(int x, int y) { screen_set_xy(x, y); }
int pspDebugScreenGetX(void) { return screen_get_x(); }
int pspDebugScreenGetY(void) { return screen_get_y(); }
void pspDebugScreenClear(void) { screen_clear(); }
void pspDebugScreenSetOffset(int offset) { screen_set_offset(offset); }

void pspDebugScreenSetTextColor(u32 color)
{
    text_color = color;
    screen_set_colors(text_color, back_color);
}

void pspDebugScreenSetBackColor(u32 color)
{
    back_color = color;
    screen_set_colors(text_color, back_color);
}
