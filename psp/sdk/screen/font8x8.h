/* The debug screen's font: printable ASCII in 8x8 cells (generated: tools/make_font.py). */
#ifndef FONT8X8_H
#define FONT8X8_H
#define FONT_FIRST 0x20
#define FONT_GLYPHS 95
extern const unsigned char font8x8[FONT_GLYPHS][8];
#endif
