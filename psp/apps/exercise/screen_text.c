/* Debug screen: colours, a line longer than the screen (wraps), then enough lines to
   scroll. tests/sdk render the expected screen from the font and compare VRAM. */
#include <pspsdk.h>
#include <screen.h>

PSP_MODULE_INFO("screen_text", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();
PSP_HEAP_SIZE_KB(64);

int main(void)
{
    screen_init();
    screen_set_colors(0xFF00FFFF, 0xFF400000);
    screen_clear();
    screen_printf("%s", "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()");
    screen_printf("\n");
    for (int i = 0; i < 36; i++)
        screen_printf("line %d: x=%d\n", i, i * i);
    screen_printf("end");
    return 0;
}
