/* The official SDK's pspDebugScreen* names on the debug screen: text in a 16-bit (565)
   buffer at VRAM's start, then in a 32-bit one further on (pspDebugScreenSetOffset, as
   GU programs point it at their draw buffer). tests/sdk/test_run.py compares VRAM with
   the font. */
#include <pspdebug.h>
#include <pspdisplay.h>

PSP_MODULE_INFO("debug_screen", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

int main(void)
{
    pspDebugScreenInitEx(0, PSP_DISPLAY_PIXEL_FORMAT_565, 1);
    pspDebugScreenSetTextColor(0xFF40C0FF);
    pspDebugScreenSetBackColor(0xFF800000);
    pspDebugScreenPrintf("565: %d\n", 42);
    pspDebugScreenPuts("second line");
    pspDebugScreenInitEx((void *)0x04088000, PSP_DISPLAY_PIXEL_FORMAT_8888, 0);
    pspDebugScreenSetOffset(0x88000);
    pspDebugScreenSetXY(3, 2);
    pspDebugScreenPrintf("at %d,%d", pspDebugScreenGetX(), pspDebugScreenGetY());
    return 0;
}
