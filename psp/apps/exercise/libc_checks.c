/* libc conversions and algorithms, printed for comparison with Python by tests/sdk:
   strtod/strtoll on the strings of libc_numbers.h (and libc_numbers_extra.h), qsort and bsearch on a fixed array,
   string functions on fixed inputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <pspsdk.h>

PSP_MODULE_INFO("libc_checks", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(256);

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static const char *numbers[] = {
#include "libc_numbers.h"
#ifdef EXTRA_NUMBERS
#include "libc_numbers_extra.h"
#endif
};

int main(void)
{
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        char *end;
        double d = strtod(numbers[i], &end);
        errno = 0;
        long long l = strtoll(numbers[i], NULL, 0);
        unsigned long long bits;
        memcpy(&bits, &d, 8);
        printf("strtod %016llx %d strtoll %lld %d\n", bits, (int)(end - numbers[i]), l, errno == ERANGE);
    }
    int values[500];
    unsigned state = 99;
    for (int i = 0; i < 500; i++) {
        state = state * 1103515245u + 12345u;
        values[i] = (int)(state >> 16) % 1000 - 500;
    }
    qsort(values, 500, sizeof values[0], compare_ints);
    printf("qsort");
    for (int i = 0; i < 500; i++)
        printf(" %d", values[i]);
    printf("\n");
    int found = 0, missing = 0;
    for (int key = -520; key <= 520; key++) {
        int *hit = bsearch(&key, values, 500, sizeof values[0], compare_ints);
        if (hit) found += *hit == key; else missing++;
    }
    printf("bsearch %d %d\n", found, missing);
    char text[64] = "Hello, PSP world";
    char copy[64];
    strcpy(copy, text);
    strcat(copy, "!");
    printf("strings %zu %d %d %s %s %s %d\n", strlen(copy), strcmp(text, copy) < 0, strncmp(text, copy, 5),
           strchr(copy, 'P'), strrchr(copy, 'o'), strstr(copy, "world"), strcasecmp("ABC", "abc"));
    char tokens[] = "a,b;;c";
    char *save, *tok = strtok_r(tokens, ",;", &save);
    printf("tokens");
    for (; tok; tok = strtok_r(NULL, ",;", &save))
        printf(" %s", tok);
    printf("\natoi %d %d %d\n", atoi("  -123xyz"), atoi("0x10"), (int)strtol("0x10", NULL, 16));
    return 0;
}
