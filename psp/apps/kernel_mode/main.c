/* A 1.50-era kernel-mode program: a kernel module (attribute 0x1000) whose code calls the
   kernel libraries and a custom firmware's helpers, and starts a user thread. The last
   call (sctrlHENGetVersion) has no user counterpart: the run stops there, naming it. */
#include <pspsdk.h>
#include <stdio.h>
#include <string.h>

PSP_MODULE_INFO("KernelHello", PSP_MODULE_KERNEL, 1, 0);

SceUID kernel_create_thread(const char *name, SceKernelThreadEntry entry, int priority, int stacksize, SceUInt attr,
                            void *option);
int kernel_start_thread(SceUID thid, SceSize arglen, void *argp);
int kernel_wait_thread_end(SceUID thid, SceUInt *timeout);
int driver_set_sampling_cycle(int cycle);
void sceKernelIcacheClearAll(void);
int kernel_strlen(const char *s);
void *kernel_memcpy(void *dst, const void *src, SceSize n);
int kuKernelGetModel(void);
int sctrlHENGetVersion(void);

static int user_thread(SceSize args, void *argp)
{
    printf("user thread: %s\n", (char *)argp);
    return 7;
}

int main(int argc, char *argv[])
{
    SceUID thid = kernel_create_thread("user", user_thread, 0x20, 0x4000, PSP_THREAD_ATTR_USER, NULL);
    printf("thread: %s\n", thid > 0 ? "created" : "error");
    printf("start: %d\n", kernel_start_thread(thid, 6, "hello"));
    printf("end: %d\n", kernel_wait_thread_end(thid, NULL));
    printf("sampling cycle: %d\n", driver_set_sampling_cycle(0));
    sceKernelIcacheClearAll();
    char copy[16] = {0};
    kernel_memcpy(copy, "kernel", 7);
    printf("sysclib: %d %s\n", kernel_strlen("allegrex"), copy);
    /* kernel code reaches RAM through kseg0 too (a user-mode program faults there) */
    static volatile unsigned int word;
    *(volatile unsigned int *)(0x80000000u | (unsigned int)&word) = 0x150;
    printf("kseg0: %x\n", word);
    printf("model: %d\n", kuKernelGetModel());
    printf("HEN version: %x\n", sctrlHENGetVersion());
    return 0;
}
