/* sceDisplay's values, named as in the official SDK (the functions: pspsdk.h). */
#ifndef PSPDISPLAY_H
#define PSPDISPLAY_H

#include "pspsdk.h"

#define PSP_DISPLAY_PIXEL_FORMAT_565 0
#define PSP_DISPLAY_PIXEL_FORMAT_5551 1
#define PSP_DISPLAY_PIXEL_FORMAT_4444 2
#define PSP_DISPLAY_SETBUF_NEXTHSYNC 0   /* = PSP_DISPLAY_SETBUF_IMMEDIATE */
#define PSP_DISPLAY_SETBUF_NEXTVSYNC 1   /* = PSP_DISPLAY_SETBUF_NEXTFRAME */
#define PSP_DISPLAY_MODE_LCD 0

#endif
