#ifndef _TIME_H
#define _TIME_H
#include <stddef.h>
typedef long time_t;
typedef long clock_t;
#define CLOCKS_PER_SEC 1000000
struct timespec { time_t tv_sec; long tv_nsec; };
time_t time(time_t *t);
clock_t clock(void);
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
typedef int clockid_t;
int clock_gettime(clockid_t id, struct timespec *ts);
#endif
