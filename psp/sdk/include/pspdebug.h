/* The official SDK's debug-screen text functions (pspDebugScreen*), on this SDK's
   debug screen (screen.h): 8x8 glyphs in a 32-bit frame buffer, stride 512. */
#ifndef PSPDEBUG_H
#define PSPDEBUG_H

#include "pspsdk.h"

void pspDebugScreenInit(void);
void pspDebugScreenInitEx(void *vram_base, int mode, int setup);
void pspDebugScreenPrintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int pspDebugScreenPuts(const char *text);
void pspDebugScreenSetXY(int x, int y);
int pspDebugScreenGetX(void);
int pspDebugScreenGetY(void);
void pspDebugScreenSetTextColor(u32 color);
void pspDebugScreenSetBackColor(u32 color);
void pspDebugScreenClear(void);
/* Draw into VRAM + offset bytes from now on (a GU draw buffer, say). */
void pspDebugScreenSetOffset(int offset);

#endif
