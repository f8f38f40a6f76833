/* System call round trips for benchmarks/hle_speed.py: for each kind, a marker line
 * ("kind NAME N") and then N calls of that kind in a loop, so the host can time each
 * kind between two markers. "loop" calls an empty function of the program's own: the
 * guest-side cost of the loop, without a system call. Ends with "done". */
#include <stdio.h>
#include <string.h>
#include <pspsdk.h>
#include <pspge.h>

PSP_MODULE_INFO("hle_speed", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);
PSP_HEAP_SIZE_KB(256);

#ifndef CALLS
#define CALLS 4000 /* per kind; the vblank waits run CALLS / 8 (each waits a frame) */
#endif
#define READ_SIZE 16
#define FILE_SIZE 4096 /* io read: 16-byte reads through a 4 KiB file, back to its start at the end */

static volatile unsigned sink;

__attribute__((noinline)) static unsigned nothing(unsigned i) { return i; }

static void marker(const char *kind, int n)
{
    printf("kind %s %d\n", kind, n);
}

int main(void)
{
    SceCtrlData pad;
    static unsigned list[64] __attribute__((aligned(16)));
    char buf[READ_SIZE];
    int i;
    SceUID fd = sceIoOpen("data.bin", PSP_O_RDONLY, 0); /* before the first marker: timed with no kind */
    if (fd < 0) {
        printf("cannot open data.bin: %08x\n", fd);
        return 1;
    }

    marker("loop", CALLS);
    for (i = 0; i < CALLS; i++) sink += nothing(i);
    marker("noop", CALLS);
    for (i = 0; i < CALLS; i++) sink += (unsigned)sceGeEdramGetAddr();
    marker("time", CALLS);
    for (i = 0; i < CALLS; i++) sink += sceKernelGetSystemTimeLow();
    marker("ctrl-peek", CALLS);
    for (i = 0; i < CALLS; i++) sink += sceCtrlPeekBufferPositive(&pad, 1);
    marker("ctrl-read", CALLS / 8);
    for (i = 0; i < CALLS / 8; i++) sink += sceCtrlReadBufferPositive(&pad, 1);
    marker("vblank", CALLS / 8);
    for (i = 0; i < CALLS / 8; i++) sink += sceDisplayWaitVblankStart();
    marker("ge-enqueue", CALLS);
    for (i = 0; i < CALLS; i++) sink += sceGeListEnQueue(list, list, -1, 0);
    marker("ge-stall", CALLS);
    for (i = 0; i < CALLS; i++) sink += sceGeListUpdateStallAddr(1, list + (i & 63));
    marker("io-read", CALLS);
    for (i = 0; i < CALLS; i++) {
        if ((i & (FILE_SIZE / READ_SIZE - 1)) == 0) sceIoLseek32(fd, 0, PSP_SEEK_SET);
        sink += sceIoRead(fd, buf, READ_SIZE);
    }
    marker("done", 0);
    sceIoClose(fd);
    return 0;
}
