/* Calls imports with 5 and 6 arguments: the PSP passes arguments 5-8 in $t0-$t3, the
   compiler (o32) on the stack; tests/sdk check the registers the OS sees. */
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("eabi_args", PSP_MODULE_USER, 1, 0);
PSP_NO_CREATE_MAIN_THREAD();

static int entry(SceSize args, void *argp)
{
    (void)args;
    (void)argp;
    return 0;
}

int main(void)
{
    SceUID thid = sceKernelCreateThread("probe", entry, 0x11, 0x2000, 0x80004000u, (void *)0x12345678);
    SceUID sema = sceKernelCreateSema("sema", 0x55, 3, 7, (void *)0x0badf00d);
    SceOff at = sceIoLseek(9, 0x123456789LL, PSP_SEEK_END);
    printf("thread %d sema %d lseek %lld\n", thid, sema, at);
    return 0;
}
