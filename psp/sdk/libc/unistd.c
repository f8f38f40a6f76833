/* usleep() and sleep(): the thread waits in sceKernelDelayThread (other threads run). */
#include <unistd.h>
#include "pspsdk.h"

int usleep(unsigned int microseconds)
{
    sceKernelDelayThread(microseconds);
    return 0;
}

unsigned int sleep(unsigned int seconds)
{
    sceKernelDelayThread(seconds * 1000000u);
    return 0;
}
