/* Internal: the printf engine writes through a sink (a buffer or a FILE). */
#ifndef FORMAT_H
#define FORMAT_H
#include <stdarg.h>

typedef struct format_sink format_sink;
struct format_sink {
    void (*put)(format_sink *sink, const char *s, int n);
    int count;        /* characters produced so far */
    void *target;     /* FILE * or buffer */
    unsigned long room;
};

int format_to_sink(format_sink *sink, const char *fmt, va_list ap);
#endif
