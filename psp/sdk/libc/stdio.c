/* Buffered FILE streams over the PSP's sceIo* calls. stdout is line buffered and
   stderr unbuffered, as in a hosted C library; other files use a 4 KB buffer. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include "pspsdk.h"
#include "stdio_impl.h"

static unsigned char buffers[FOPEN_MAX][FILE_BUFSIZE];   /* in .bss, not in the file */
static FILE files[FOPEN_MAX] = {
    {FD_UNSET, 0, FILE_READ | FILE_OPEN, 0, 0, 0, 0, -1},
    {FD_UNSET, 1, FILE_WRITE | FILE_OPEN | FILE_LINEBUF, 0, 0, 0, 0, -1},
    {FD_UNSET, 2, FILE_WRITE | FILE_OPEN | FILE_UNBUF, 0, 0, 0, 0, -1},
};
FILE *const stdin = &files[0];
FILE *const stdout = &files[1];
FILE *const stderr = &files[2];

int __file_fd(FILE *f)
{
    if (f->fd == FD_UNSET) {
        f->fd = f->which_std == 0 ? sceKernelStdin() : f->which_std == 1 ? sceKernelStdout() : sceKernelStderr();
        f->buf = buffers[f->which_std];
    }
    return f->fd;
}

static int write_all(FILE *f, const unsigned char *p, int n)
{
    int fd = __file_fd(f);
    while (n > 0) {
        int done = sceIoWrite(fd, p, n);
        if (done <= 0) {
            f->flags |= FILE_ERROR;
            errno = EIO;
            return -1;
        }
        p += done;
        n -= done;
    }
    return 0;
}

int __file_flush_write(FILE *f)
{
    int n = f->wlen;
    f->wlen = 0;
    return n ? write_all(f, f->buf, n) : 0;
}

/* Before writing after reading: move the OS position back over unread buffered bytes. */
static void drop_read_buffer(FILE *f)
{
    int unread = f->rlen - f->rpos + (f->unget >= 0);
    if (unread)
        sceIoLseek(__file_fd(f), -unread, PSP_SEEK_CUR);
    f->rpos = f->rlen = 0;
    f->unget = -1;
}

static int parse_mode(const char *mode, int *file_flags)
{
    int plus = strchr(mode, '+') != NULL;
    switch (mode[0]) {
    case 'r':
        *file_flags = FILE_READ | (plus ? FILE_WRITE : 0);
        return plus ? PSP_O_RDWR : PSP_O_RDONLY;
    case 'w':
        *file_flags = FILE_WRITE | (plus ? FILE_READ : 0);
        return (plus ? PSP_O_RDWR : PSP_O_WRONLY) | PSP_O_CREAT | PSP_O_TRUNC;
    case 'a':
        *file_flags = FILE_WRITE | FILE_APPEND | (plus ? FILE_READ : 0);
        return (plus ? PSP_O_RDWR : PSP_O_WRONLY) | PSP_O_CREAT | PSP_O_APPEND;
    default:
        return -1;
    }
}

FILE *fopen(const char *path, const char *mode)
{
    int file_flags, os_flags = parse_mode(mode, &file_flags);
    if (os_flags < 0) {
        errno = EINVAL;
        return NULL;
    }
    FILE *f = NULL;
    for (int i = 3; i < FOPEN_MAX && !f; i++)
        if (!(files[i].flags & FILE_OPEN))
            f = &files[i];
    if (!f) {
        errno = EMFILE;
        return NULL;
    }
    SceUID fd = sceIoOpen(path, os_flags, 0777);
    if (fd < 0) {
        errno = ENOENT;
        return NULL;
    }
    f->fd = fd;
    f->which_std = -1;
    f->flags = file_flags | FILE_OPEN;
    f->buf = buffers[f - files];
    f->wlen = f->rpos = f->rlen = 0;
    f->unget = -1;
    return f;
}

int fclose(FILE *f)
{
    if (!(f->flags & FILE_OPEN))
        return EOF;
    int result = __file_flush_write(f);
    if (f->which_std < 0 && sceIoClose(f->fd) < 0)
        result = EOF;
    f->flags = 0;
    return result ? EOF : 0;
}

int fflush(FILE *f)
{
    if (!f) {
        __stdio_flush_all();
        return 0;
    }
    return __file_flush_write(f) ? EOF : 0;
}

void __stdio_flush_all(void)
{
    for (int i = 0; i < FOPEN_MAX; i++)
        if ((files[i].flags & FILE_OPEN) && files[i].wlen)
            __file_flush_write(&files[i]);
}

size_t fwrite(const void *src, size_t size, size_t count, FILE *f)
{
    size_t total = size * count;
    const unsigned char *p = src;
    if (!total)
        return 0;
    __file_fd(f);
    if (f->rlen || f->unget >= 0)
        drop_read_buffer(f);
    if (f->flags & FILE_UNBUF)
        return write_all(f, p, (int)total) ? 0 : count;
    if (f->wlen + total > FILE_BUFSIZE) {
        if (__file_flush_write(f))
            return 0;
        if (total >= FILE_BUFSIZE)
            return write_all(f, p, (int)total) ? 0 : count;
    }
    memcpy(f->buf + f->wlen, p, total);
    f->wlen += (int)total;
    if ((f->flags & FILE_LINEBUF) && memchr(p, '\n', total) && __file_flush_write(f))
        return 0;
    return count;
}

size_t fread(void *dst, size_t size, size_t count, FILE *f)
{
    size_t want = size * count, got = 0;
    unsigned char *p = dst;
    int fd = __file_fd(f);
    if (!want)
        return 0;
    if (f->wlen && __file_flush_write(f))
        return 0;
    if (f == stdin)
        __file_flush_write(stdout);
    if (f->unget >= 0) {
        p[got++] = (unsigned char)f->unget;
        f->unget = -1;
    }
    while (got < want) {
        if (f->rpos < f->rlen) {
            size_t n = f->rlen - f->rpos;
            if (n > want - got)
                n = want - got;
            memcpy(p + got, f->buf + f->rpos, n);
            f->rpos += (int)n;
            got += n;
            continue;
        }
        if (want - got >= FILE_BUFSIZE) {  /* large reads go straight to the caller */
            int n = sceIoRead(fd, p + got, (SceSize)(want - got));
            if (n <= 0) {
                f->flags |= n < 0 ? FILE_ERROR : FILE_EOF;
                break;
            }
            got += n;
            continue;
        }
        int n = sceIoRead(fd, f->buf, FILE_BUFSIZE);
        if (n <= 0) {
            f->flags |= n < 0 ? FILE_ERROR : FILE_EOF;
            break;
        }
        f->rpos = 0;
        f->rlen = n;
    }
    return got / size;
}

int fseeko(FILE *f, long long offset, int whence)
{
    int fd = __file_fd(f);
    if (__file_flush_write(f))
        return -1;
    if (whence == SEEK_CUR)
        offset -= f->rlen - f->rpos + (f->unget >= 0);
    f->rpos = f->rlen = 0;
    f->unget = -1;
    if (sceIoLseek(fd, offset, whence) < 0) {
        errno = EINVAL;
        return -1;
    }
    f->flags &= ~FILE_EOF;
    return 0;
}

int fseek(FILE *f, long offset, int whence)
{
    return fseeko(f, offset, whence);
}

long long ftello(FILE *f)
{
    long long at = sceIoLseek(__file_fd(f), 0, PSP_SEEK_CUR);
    if (at < 0)
        return -1;
    return at + f->wlen - (f->rlen - f->rpos) - (f->unget >= 0);
}

long ftell(FILE *f)
{
    return (long)ftello(f);
}

void rewind(FILE *f)
{
    fseeko(f, 0, SEEK_SET);
    f->flags &= ~FILE_ERROR;
}

int feof(FILE *f) { return (f->flags & FILE_EOF) != 0; }
int ferror(FILE *f) { return (f->flags & FILE_ERROR) != 0; }
void clearerr(FILE *f) { f->flags &= ~(FILE_EOF | FILE_ERROR); }
int fileno(FILE *f) { return __file_fd(f); }

int setvbuf(FILE *f, char *buf, int mode, size_t size)
{
    (void)buf;
    (void)size;
    f->flags &= ~(FILE_LINEBUF | FILE_UNBUF);
    if (mode == _IOLBF) f->flags |= FILE_LINEBUF;
    if (mode == _IONBF) f->flags |= FILE_UNBUF;
    return 0;
}

int fgetc(FILE *f)
{
    unsigned char c;
    return fread(&c, 1, 1, f) == 1 ? c : EOF;
}

int getc(FILE *f) { return fgetc(f); }
int getchar(void) { return fgetc(stdin); }

int ungetc(int c, FILE *f)
{
    if (c == EOF || f->unget >= 0)
        return EOF;
    f->unget = (unsigned char)c;
    f->flags &= ~FILE_EOF;
    return c;
}

char *fgets(char *s, int n, FILE *f)
{
    int i = 0;
    while (i < n - 1) {
        int c = fgetc(f);
        if (c == EOF)
            break;
        s[i++] = (char)c;
        if (c == '\n')
            break;
    }
    if (i == 0)
        return NULL;
    s[i] = 0;
    return s;
}

int fputc(int c, FILE *f)
{
    unsigned char ch = (unsigned char)c;
    return fwrite(&ch, 1, 1, f) == 1 ? ch : EOF;
}

int putc(int c, FILE *f) { return fputc(c, f); }
int putchar(int c) { return fputc(c, stdout); }

int fputs(const char *s, FILE *f)
{
    size_t n = strlen(s);
    return fwrite(s, 1, n, f) == n ? 0 : EOF;
}

int puts(const char *s)
{
    return fputs(s, stdout) || fputc('\n', stdout) == EOF ? EOF : 0;
}

int remove(const char *path)
{
    return sceIoRemove(path) < 0 ? -1 : 0;
}

int rename(const char *from, const char *to)
{
    return sceIoRename(from, to) < 0 ? -1 : 0;
}

void perror(const char *s)
{
    if (s && *s)
        fprintf(stderr, "%s: %s\n", s, strerror(errno));
    else
        fprintf(stderr, "%s\n", strerror(errno));
}
