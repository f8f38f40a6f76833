/* Calls a function written in assembly (asm_sum.S): the .S path of the build. */
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("asm_main", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

int asm_sum_words(const int *p, int n);

int main(void)
{
    int values[100];
    for (int i = 0; i < 100; i++)
        values[i] = i * i - 50;
    printf("sum=%d empty=%d\n", asm_sum_words(values, 100), asm_sum_words(values, 0));
    return 0;
}
