/* The printf family: front ends of the formatter in format.c. */
#include <stdio.h>
#include <string.h>
#include "format.h"

static void put_file(format_sink *sink, const char *s, int n)
{
    fwrite(s, 1, n, (FILE *)sink->target);
}

static void put_buffer(format_sink *sink, const char *s, int n)
{
    if (sink->room <= 1)
        return;
    unsigned long take = (unsigned long)n < sink->room - 1 ? (unsigned long)n : sink->room - 1;
    memcpy(sink->target, s, take);
    sink->target = (char *)sink->target + take;
    sink->room -= take;
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    format_sink sink = {put_file, 0, f, 0};
    return format_to_sink(&sink, fmt, ap);
}

int vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
    format_sink sink = {put_buffer, 0, s, n};
    int count = format_to_sink(&sink, fmt, ap);
    if (n)
        *(char *)sink.target = 0;
    return count;
}

int vsprintf(char *s, const char *fmt, va_list ap) { return vsnprintf(s, (size_t)-1 >> 1, fmt, ap); }
int vprintf(const char *fmt, va_list ap) { return vfprintf(stdout, fmt, ap); }

int printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

int fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int sprintf(char *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsprintf(s, fmt, ap);
    va_end(ap);
    return n;
}

int snprintf(char *s, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s, size, fmt, ap);
    va_end(ap);
    return n;
}
