/* The PSP OS calls the SDK's libc makes, answered by Linux, for host reference builds
   (allegrex.sdk.build_host). Compiled against the host C library's headers, not the
   SDK's. "ms0:/" maps to $ALLEGREX_HOST_MS0 (default ./ms0), "host0:/" to ".".
   Functions the SDK's libc also defines (getenv, rename, time, clock...) would resolve
   to the SDK's versions, which call back here: this file uses system calls instead. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PSP_O_RDONLY 0x0001
#define PSP_O_WRONLY 0x0002
#define PSP_O_RDWR 0x0003
#define PSP_O_APPEND 0x0100
#define PSP_O_CREAT 0x0200
#define PSP_O_TRUNC 0x0400
#define PSP_O_EXCL 0x0800
#define PSP_ERROR_NOT_FOUND ((int)0x80010002)
#define HOST_MEMORY (24u << 20)

extern int __exit_status;

/* Linker-script symbols a PSP module info refers to; meaningless on the host. */
char _gp[4], __lib_ent_top[4], __lib_ent_bottom[4], __lib_stub_top[4], __lib_stub_bottom[4];

/* The display: the debug screen draws into host memory; nothing is shown. */
int sceDisplaySetMode(int mode, int width, int height) { (void)mode; (void)width; (void)height; return 0; }
int sceDisplaySetFrameBuf(void *top, int width, int format, int sync) { (void)top; (void)width; (void)format; (void)sync; return 0; }
int sceDisplayWaitVblankStart(void) { return 0; }

extern char **environ;

static const char *env(const char *name)
{
    size_t n = strlen(name);
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

static const char *host_path(const char *path, char *buf, size_t size)
{
    const char *root = NULL, *rest = path;
    if (strncmp(path, "ms0:", 4) == 0) {
        root = env("ALLEGREX_HOST_MS0");
        if (!root) root = "ms0";
        rest = path + 4;
    } else if (strncmp(path, "host0:", 6) == 0) {
        root = ".";
        rest = path + 6;
    }
    if (!root)
        return path;
    while (*rest == '/')
        rest++;
    size_t n = strlen(root);
    if (n + 1 + strlen(rest) + 1 > size)
        return path;
    memcpy(buf, root, n);
    buf[n] = '/';
    strcpy(buf + n + 1, rest);
    return buf;
}

int sceIoOpen(const char *file, int flags, int mode)
{
    char buf[1024];
    int f = (flags & 3) == PSP_O_RDWR ? O_RDWR : (flags & PSP_O_WRONLY) ? O_WRONLY : O_RDONLY;
    if (flags & PSP_O_APPEND) f |= O_APPEND;
    if (flags & PSP_O_CREAT) f |= O_CREAT;
    if (flags & PSP_O_TRUNC) f |= O_TRUNC;
    if (flags & PSP_O_EXCL) f |= O_EXCL;
    int fd = open(host_path(file, buf, sizeof buf), f, mode);
    return fd < 0 ? PSP_ERROR_NOT_FOUND : fd;
}

int sceIoClose(int fd) { return close(fd); }
int sceIoRead(int fd, void *data, unsigned size) { return (int)read(fd, data, size); }
int sceIoWrite(int fd, const void *data, unsigned size) { return (int)write(fd, data, size); }
long long sceIoLseek(int fd, long long offset, int whence) { return lseek(fd, offset, whence); }
int sceIoLseek32(int fd, int offset, int whence) { return (int)lseek(fd, offset, whence); }

int sceIoRemove(const char *file)
{
    char buf[1024];
    return unlink(host_path(file, buf, sizeof buf));
}

int sceIoRename(const char *from, const char *to)
{
    char a[1024], b[1024];
    return (int)syscall(SYS_rename, host_path(from, a, sizeof a), host_path(to, b, sizeof b));
}

int sceIoMkdir(const char *dir, int mode)
{
    char buf[1024];
    return mkdir(host_path(dir, buf, sizeof buf), mode);
}

int sceKernelStdin(void) { return 0; }
int sceKernelStdout(void) { return 1; }
int sceKernelStderr(void) { return 2; }

/* The raw system call: the host C library's _exit would call the SDK's _Exit again. */
void sceKernelExitGame(void) { syscall(SYS_exit_group, __exit_status); }

/* One block of "user memory" for the heap, from mmap (not malloc: the SDK's malloc
   is the program's malloc). */
static void *block;
static unsigned block_size;

unsigned sceKernelMaxFreeMemSize(void) { return block ? 0 : HOST_MEMORY; }

int sceKernelAllocPartitionMemory(int partition, const char *name, int type, unsigned size, void *addr)
{
    (void)partition; (void)name; (void)type; (void)addr;
    if (block)
        return -1;
    block = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) {
        block = NULL;
        return -1;
    }
    block_size = size;
    return 1;
}

void *sceKernelGetBlockHeadAddr(int id) { return id == 1 ? block : NULL; }

int sceKernelFreePartitionMemory(int id)
{
    if (id != 1 || !block)
        return -1;
    munmap(block, block_size);
    block = NULL;
    return 0;
}

static long long clock_us(int clock_id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, clock_id, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int sceKernelLibcTime(int *t)
{
    int now = (int)(clock_us(CLOCK_REALTIME) / 1000000);
    if (t) *t = now;
    return now;
}

unsigned sceKernelLibcClock(void) { return (unsigned)clock_us(CLOCK_PROCESS_CPUTIME_ID); }
int sceKernelLibcGettimeofday(void *tv, void *tz) { return (int)syscall(SYS_gettimeofday, tv, tz); }
long long sceKernelGetSystemTimeWide(void) { return clock_us(CLOCK_MONOTONIC); }
unsigned sceKernelGetSystemTimeLow(void) { return (unsigned)sceKernelGetSystemTimeWide(); }
