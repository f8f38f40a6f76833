/* Internal: the FILE structure shared by the stdio files. */
#ifndef STDIO_IMPL_H
#define STDIO_IMPL_H
#include <stdio.h>

#define FILE_BUFSIZE 4096
#define FD_UNSET (-1000)  /* stdin/out/err: fd fetched from the OS on first use */

enum { FILE_READ = 1, FILE_WRITE = 2, FILE_APPEND = 4, FILE_EOF = 8, FILE_ERROR = 16,
       FILE_LINEBUF = 32, FILE_UNBUF = 64, FILE_OPEN = 128 };

struct __file {
    int fd;
    int which_std;           /* 0, 1, 2 for the standard streams; -1 otherwise */
    int flags;
    unsigned char *buf;
    int wlen;                /* bytes waiting to be written */
    int rpos, rlen;          /* unread bytes are buf[rpos, rlen) */
    int unget;               /* pushed-back character or -1 */
};

int __file_fd(FILE *f);
int __file_flush_write(FILE *f);
void __stdio_flush_all(void);
#endif
