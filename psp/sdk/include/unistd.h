/* The few POSIX calls PSP programs use from unistd.h: sleeping the calling thread. */
#ifndef _UNISTD_H
#define _UNISTD_H

int usleep(unsigned int microseconds);
unsigned int sleep(unsigned int seconds);

#endif
