/* Program exit: atexit handlers, destructors, stdio flush, then back to the OS. */
#include <stdlib.h>
#include <stdio.h>
#include "pspsdk.h"
#include "stdio_impl.h"

#define ATEXIT_MAX 32

typedef void (*exit_fn)(void);
extern exit_fn __fini_array_start[] __attribute__((weak));
extern exit_fn __fini_array_end[] __attribute__((weak));

static exit_fn handlers[ATEXIT_MAX];
static int handler_count;
int __exit_status;   /* read by the host build's OS layer; the PSP has no exit status */

int atexit(void (*fn)(void))
{
    if (handler_count == ATEXIT_MAX)
        return -1;
    handlers[handler_count++] = fn;
    return 0;
}

/* Called by crt0 before constructors. Everything else initialises lazily. */
void __libc_init(void)
{
}

void _Exit(int status)
{
    __exit_status = status;
    sceKernelExitGame();
    for (;;)
        ;
}

void exit(int status)
{
    while (handler_count > 0)
        handlers[--handler_count]();
    if (__fini_array_start)
        for (exit_fn *fn = __fini_array_end; fn > __fini_array_start;)
            (*--fn)();
    __stdio_flush_all();
    _Exit(status);
}

void abort(void)
{
    fputs("abort() called\n", stderr);
    __stdio_flush_all();
    _Exit(134);
}

void __assert_fail(const char *expr, const char *file, int line, const char *func)
{
    fprintf(stderr, "%s:%d: %s: assertion `%s' failed\n", file, line, func, expr);
    abort();
}
