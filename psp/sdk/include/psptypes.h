/* Types used by the PSP OS interfaces declared in imports.txt (sizes as on the PSP). */
#ifndef PSPTYPES_H
#define PSPTYPES_H

#include <stdint.h>
#include <stddef.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef int SceUID;
typedef unsigned int SceSize;
typedef int SceMode;
typedef long long SceOff;
typedef int SceInt32;
typedef unsigned int SceUInt;
typedef unsigned int SceUInt32;
typedef long long SceInt64;
typedef unsigned long long SceUInt64;

/* Vectors and matrices of the graphics libraries (pspgu.h, pspgum.h): matrices are four
   column vectors x, y, z, w; the 4-float types are 16-byte aligned for the VFPU. */
typedef struct ScePspFVector2 { float x, y; } ScePspFVector2;
typedef struct ScePspFVector3 { float x, y, z; } ScePspFVector3;
typedef struct ScePspIVector3 { int x, y, z; } ScePspIVector3;
typedef struct ScePspSVector3 { short x, y, z; } ScePspSVector3;
typedef struct ScePspFVector4 { float x, y, z, w; } __attribute__((aligned(16))) ScePspFVector4;
typedef struct ScePspIVector4 { int x, y, z, w; } ScePspIVector4;
typedef struct ScePspFMatrix4 { ScePspFVector4 x, y, z, w; } __attribute__((aligned(16))) ScePspFMatrix4;
typedef struct ScePspIMatrix4 { ScePspIVector4 x, y, z, w; } __attribute__((aligned(16))) ScePspIMatrix4;
typedef struct ScePspFQuaternion { float x, y, z, w; } __attribute__((aligned(16))) ScePspFQuaternion;
typedef struct ScePspFColor { float r, g, b, a; } __attribute__((aligned(16))) ScePspFColor;

/* Entry point of a thread: receives the argument block given to sceKernelStartThread. */
typedef int (*SceKernelThreadEntry)(SceSize args, void *argp);
/* A callback (sceKernelCreateCallback): runs when notified, in a thread that checks callbacks. */
typedef int (*SceKernelCallbackFunction)(int arg1, int arg2, void *arg);

typedef struct ScePspDateTime {
    unsigned short year, month, day, hour, minute, second;
    unsigned int microsecond;
} ScePspDateTime;

typedef struct SceIoStat {
    SceMode st_mode;
    unsigned int st_attr;
    SceOff st_size;
    ScePspDateTime st_ctime, st_atime, st_mtime;
    unsigned int st_private[6];
} SceIoStat;

typedef struct SceIoDirent {
    SceIoStat d_stat;
    char d_name[256];
    void *d_private;
    int dummy;
} SceIoDirent;

typedef struct SceCtrlData {
    unsigned int TimeStamp;
    unsigned int Buttons;
    unsigned char Lx, Ly;
    unsigned char Rsrv[6];
} SceCtrlData;

/* sceIoOpen flags and sceIoLseek origins. */
#define PSP_O_RDONLY 0x0001
#define PSP_O_WRONLY 0x0002
#define PSP_O_RDWR   0x0003
#define PSP_O_APPEND 0x0100
#define PSP_O_CREAT  0x0200
#define PSP_O_TRUNC  0x0400
#define PSP_O_EXCL   0x0800
#define PSP_SEEK_SET 0
#define PSP_SEEK_CUR 1
#define PSP_SEEK_END 2

/* Thread attributes (PSP_MAIN_THREAD_ATTR): a thread using the VFPU needs PSP_THREAD_ATTR_VFPU. */
#define PSP_THREAD_ATTR_VFPU 0x00004000
#define PSP_THREAD_ATTR_USER 0x80000000

/* sceKernelAllocPartitionMemory: partition 2 is user memory; types place the block. */
#define PSP_MEMORY_PARTITION_USER 2
#define PSP_SMEM_Low 0
#define PSP_SMEM_High 1

/* Display pixel formats (sceDisplaySetFrameBuf). */
#define PSP_DISPLAY_PIXEL_FORMAT_8888 3
#define PSP_DISPLAY_SETBUF_IMMEDIATE 0
#define PSP_DISPLAY_SETBUF_NEXTFRAME 1

/* Audio (sceAudio*): channels 0-7 hold 64..65472 samples (a multiple of 64); 0x8000 is unity volume. */
#define PSP_AUDIO_CHANNEL_MAX 8
#define PSP_AUDIO_NEXT_CHANNEL (-1)
#define PSP_AUDIO_SAMPLE_MIN 64
#define PSP_AUDIO_SAMPLE_MAX 65472
#define PSP_AUDIO_VOLUME_MAX 0x8000
#define PSP_AUDIO_FORMAT_STEREO 0
#define PSP_AUDIO_FORMAT_MONO 0x10

/* Headphone remote keys (sceHprmPeekCurrentKey). */
#define PSP_HPRM_PLAYPAUSE 0x1
#define PSP_HPRM_FORWARD 0x4
#define PSP_HPRM_BACK 0x8
#define PSP_HPRM_VOL_UP 0x10
#define PSP_HPRM_VOL_DOWN 0x20
#define PSP_HPRM_HOLD 0x80

#endif
