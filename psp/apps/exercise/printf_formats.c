/* printf conversions, one bracketed line per case from printf_cases.h (and from
   printf_cases_extra.h when PRINTF_EXTRA_CASES is defined). tests/sdk compare each line
   with Python's % formatting of the same case. */
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("printf_formats", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(64);

#define CASE_I(fmt, v) printf("[" fmt "]\n", (int)(v));
#define CASE_U(fmt, v) printf("[" fmt "]\n", (unsigned)(v));
#define CASE_LL(fmt, v) printf("[" fmt "]\n", (long long)(v));
#define CASE_ULL(fmt, v) printf("[" fmt "]\n", (unsigned long long)(v));
#define CASE_F(fmt, v) printf("[" fmt "]\n", (double)(v));
#define CASE_S(fmt, v) printf("[" fmt "]\n", v);
#define CASE_C(fmt, v) printf("[" fmt "]\n", (int)(v));
#define CASE_W(fmt, w, v) printf("[" fmt "]\n", (int)(w), v);

int main(void)
{
#include "printf_cases.h"
#ifdef PRINTF_EXTRA_CASES
#include "printf_cases_extra.h"
#endif
    char buf[8];
    int n = snprintf(buf, sizeof buf, "%s", "truncated text");
    printf("[snprintf %d %s]\n", n, buf);
    printf("[%p]\n", (void *)0x8804000);
    return 0;
}
