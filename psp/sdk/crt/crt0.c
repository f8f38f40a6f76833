/* Program start: the PSP calls _start(args, argp) in a kernel-made thread. Like the
   official runtime, _start creates the main thread with the program's attributes
   (PSP_MAIN_THREAD_* macros) and returns; that thread runs constructors and main(). */
#include <string.h>
#include <stdlib.h>
#include "pspsdk.h"

#define ARG_MAX 19
#define DEFAULT_PRIORITY 32
#define DEFAULT_STACK_KB 256

/* Defined by the program through the macros in pspmoduleinfo.h, or absent. */
extern int sce_newlib_nocreate_thread_in_start __attribute__((weak));
extern unsigned int sce_newlib_priority __attribute__((weak));
extern unsigned int sce_newlib_attribute __attribute__((weak));
extern unsigned int sce_newlib_stack_kb_size __attribute__((weak));
extern const char *sce_newlib_main_thread_name __attribute__((weak));

typedef void (*init_fn)(void);
extern init_fn __init_array_start[], __init_array_end[];

extern int main(int argc, char *argv[]);
void __libc_init(void);

/* argp holds NUL-terminated strings back to back (the program path first). */
static int split_args(SceSize args, char *argp, char **argv)
{
    int argc = 0;
    SceSize at = 0;
    while (argp && at < args && argc < ARG_MAX) {
        argv[argc++] = argp + at;
        at += strlen(argp + at) + 1;
    }
    argv[argc] = NULL;
    return argc;
}

static int main_thread(SceSize args, void *argp)
{
    char *argv[ARG_MAX + 1];
    int argc = split_args(args, argp, argv);
    __libc_init();
    for (init_fn *fn = __init_array_start; fn < __init_array_end; fn++)
        (*fn)();
    exit(main(argc, argv));
    return 0;
}

int _start(SceSize args, void *argp) __attribute__((section(".text.start")));

int _start(SceSize args, void *argp)
{
    /* The loader sets gp from the module info; set it anyway so a bare ELF works. */
    __asm__ volatile(".set push\n.set noreorder\nlui $gp, %hi(_gp)\naddiu $gp, $gp, %lo(_gp)\n.set pop");
    if (&sce_newlib_nocreate_thread_in_start) {
        main_thread(args, argp);
        return 1;
    }
    SceUID thid = sceKernelCreateThread(
        &sce_newlib_main_thread_name ? sce_newlib_main_thread_name : "user_main",
        main_thread,
        &sce_newlib_priority ? (int)sce_newlib_priority : DEFAULT_PRIORITY,
        (&sce_newlib_stack_kb_size ? (int)sce_newlib_stack_kb_size : DEFAULT_STACK_KB) * 1024,
        &sce_newlib_attribute ? sce_newlib_attribute : PSP_THREAD_ATTR_USER,
        NULL);
    if (thid < 0)
        return thid;
    sceKernelStartThread(thid, args, argp);
    return 0;
}
