/* Hello world: prints to stdout and to the debug screen, and writes a file to ms0:/. */
#include <stdio.h>
#include <pspsdk.h>
#include <screen.h>

PSP_MODULE_INFO("hello", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);
PSP_HEAP_SIZE_KB(1024);

int main(void)
{
    printf("Hello, world!\n");

    screen_init();
    screen_printf("Hello from the allegrex SDK!\n");
    screen_set_colors(0xFF00FF00, 0xFF000000);
    screen_printf("%d x %d characters of 8x8 pixels\n", SCREEN_COLUMNS, SCREEN_ROWS);

    FILE *f = fopen("ms0:/hello.txt", "w");
    if (!f) {
        printf("cannot open ms0:/hello.txt\n");
        return 1;
    }
    fprintf(f, "Hello, file! %d %.3f\n", 42, 3.14159);
    fclose(f);
    printf("wrote ms0:/hello.txt\n");
    return 0;
}
