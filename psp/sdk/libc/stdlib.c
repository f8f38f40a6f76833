/* Integer conversions, sorting and searching, pseudo-random numbers. */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>

int errno;

/* Parse an unsigned magnitude in `base` (0: prefix decides); sets *neg and *end. */
static unsigned long long parse_unsigned(const char *s, char **end, int base, int *neg, int *overflow)
{
    const char *p = s;
    unsigned long long v = 0;
    int any = 0;
    *neg = 0;
    *overflow = 0;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        *neg = *p++ == '-';
    if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 32) == 'x' && isxdigit((unsigned char)p[2])) {
        p += 2;
        base = 16;
    } else if (base == 0) {
        base = *p == '0' ? 8 : 10;
    }
    for (;; p++) {
        int c = (unsigned char)*p, d;
        if (isdigit(c)) d = c - '0';
        else if (isalpha(c)) d = (c | 32) - 'a' + 10;
        else break;
        if (d >= base)
            break;
        if (v > (~0ull - d) / base)
            *overflow = 1;
        v = v * base + d;
        any = 1;
    }
    if (end)
        *end = (char *)(any ? p : s);
    return v;
}

long long strtoll(const char *s, char **end, int base)
{
    int neg, overflow;
    unsigned long long v = parse_unsigned(s, end, base, &neg, &overflow);
    if (overflow || v > (neg ? 1ull + LLONG_MAX : (unsigned long long)LLONG_MAX)) {
        errno = ERANGE;
        return neg ? LLONG_MIN : LLONG_MAX;
    }
    return neg ? (long long)(0ull - v) : (long long)v;
}

unsigned long long strtoull(const char *s, char **end, int base)
{
    int neg, overflow;
    unsigned long long v = parse_unsigned(s, end, base, &neg, &overflow);
    if (overflow) {
        errno = ERANGE;
        return ~0ull;
    }
    return neg ? 0ull - v : v;
}

long strtol(const char *s, char **end, int base)
{
    long long v = strtoll(s, end, base);
    if (v > LONG_MAX || v < LONG_MIN) {
        errno = ERANGE;
        return v > 0 ? LONG_MAX : LONG_MIN;
    }
    return (long)v;
}

unsigned long strtoul(const char *s, char **end, int base)
{
    int neg, overflow;
    unsigned long long v = parse_unsigned(s, end, base, &neg, &overflow);
    if (overflow || v > ULONG_MAX) {
        errno = ERANGE;
        return ULONG_MAX;
    }
    return neg ? (unsigned long)(0ull - v) : (unsigned long)v;
}

int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
long atol(const char *s) { return strtol(s, NULL, 10); }
long long atoll(const char *s) { return strtoll(s, NULL, 10); }
double atof(const char *s) { return strtod(s, NULL); }
int abs(int x) { return x < 0 ? -x : x; }
long labs(long x) { return x < 0 ? -x : x; }
long long llabs(long long x) { return x < 0 ? -x : x; }
div_t div(int num, int den) { div_t r = {num / den, num % den}; return r; }
ldiv_t ldiv(long num, long den) { ldiv_t r = {num / den, num % den}; return r; }

static void swap_bytes(char *a, char *b, size_t size)
{
    while (size--) {
        char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

/* Sort with a heap sort: O(n log n) worst case, no recursion, no extra memory. */
static void sift_down(char *base, size_t root, size_t count, size_t size, int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= count)
            return;
        if (child + 1 < count && cmp(base + child * size, base + (child + 1) * size) < 0)
            child++;
        if (cmp(base + root * size, base + child * size) >= 0)
            return;
        swap_bytes(base + root * size, base + child * size, size);
        root = child;
    }
}

void qsort(void *base, size_t count, size_t size, int (*cmp)(const void *, const void *))
{
    char *b = base;
    if (count < 2)
        return;
    for (size_t i = count / 2; i-- > 0;)
        sift_down(b, i, count, size, cmp);
    for (size_t end = count - 1; end > 0; end--) {
        swap_bytes(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}

void *bsearch(const void *key, const void *base, size_t count, size_t size, int (*cmp)(const void *, const void *))
{
    const char *b = base;
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp(key, b + mid * size);
        if (c == 0)
            return (void *)(b + mid * size);
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The LCG of the C standard's example implementation, widened to 31 bits. */
static unsigned long long rand_state = 1;

int rand(void)
{
    rand_state = rand_state * 6364136223846793005ull + 1442695040888963407ull;
    return (int)(rand_state >> 33);
}

void srand(unsigned int seed) { rand_state = seed; }

char *getenv(const char *name)
{
    (void)name;
    return NULL;
}
