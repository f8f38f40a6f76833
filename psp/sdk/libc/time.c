/* time(), clock() and gettimeofday() through the kernel's libc helpers. */
#include <time.h>
#include <sys/time.h>
#include "pspsdk.h"

time_t time(time_t *t)
{
    int now = 0;
    sceKernelLibcTime(&now);
    if (t)
        *t = now;
    return now;
}

clock_t clock(void)
{
    return (clock_t)sceKernelLibcClock();
}

int gettimeofday(struct timeval *tv, void *tz)
{
    return sceKernelLibcGettimeofday(tv, tz);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    if (id == CLOCK_MONOTONIC) {
        SceInt64 us = sceKernelGetSystemTimeWide();
        ts->tv_sec = (time_t)(us / 1000000);
        ts->tv_nsec = (long)(us % 1000000) * 1000;
        return 0;
    }
    struct timeval tv;
    gettimeofday(&tv, 0);
    ts->tv_sec = tv.tv_sec;
    ts->tv_nsec = tv.tv_usec * 1000;
    return 0;
}
