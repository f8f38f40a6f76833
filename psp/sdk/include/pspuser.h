/* The official SDK's user-mode OS header (pspuser.h, and pspkernel.h, pspthreadman.h...
   which include this one here): the functions come from imports.txt through pspsdk.h;
   this adds the names programs use for thread attributes and interrupts, and
   struct timeval (sys/time.h), which the official header brings in too. */
#ifndef PSPUSER_H
#define PSPUSER_H

#include <sys/time.h>
#include "pspsdk.h"

#define PSP_THREAD_ATTR_SCRATCH_SRAM 0x00008000
#define PSP_THREAD_ATTR_NO_FILLSTACK 0x00100000
#define PSP_THREAD_ATTR_CLEAR_STACK 0x00200000
#define THREAD_ATTR_VFPU PSP_THREAD_ATTR_VFPU
#define THREAD_ATTR_USER PSP_THREAD_ATTR_USER

/* Interrupt numbers for sceKernelRegisterSubIntrHandler (sub-interrupt 0 of the vblank
   interrupt runs once a frame). */
#define PSP_GE_INT 25
#define PSP_VBLANK_INT 30
#define PSP_DISPLAY_SUBINT PSP_VBLANK_INT

#endif
