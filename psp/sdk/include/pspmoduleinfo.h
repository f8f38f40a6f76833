/* Module declaration and main-thread parameters, set from C with macros.
   The layout of SceModuleInfo and the symbol names read by the runtime
   (sce_newlib_*) are those the official PSP toolchain uses, so programs written
   for it build unchanged. */
#ifndef PSPMODULEINFO_H
#define PSPMODULEINFO_H

typedef struct SceModuleInfo {
    unsigned short modattribute;
    unsigned char modversion[2];    /* minor, major */
    char modname[27];
    char terminal;
    void *gp_value;
    void *ent_top, *ent_end;        /* export table bounds (.lib.ent) */
    void *stub_top, *stub_end;      /* import table bounds (.lib.stub) */
} SceModuleInfo;

extern char _gp[];

enum PspModuleInfoAttr {
    PSP_MODULE_USER = 0,
    PSP_MODULE_NO_STOP = 0x0001,
    PSP_MODULE_SINGLE_LOAD = 0x0002,
    PSP_MODULE_SINGLE_START = 0x0004,
    PSP_MODULE_KERNEL = 0x1000,
};

/* Declare the module: name (a string, at most 27 characters), attributes, version. */
#define PSP_MODULE_INFO(name, attributes, major_version, minor_version)              \
    extern char __lib_ent_top[], __lib_ent_bottom[];                                 \
    extern char __lib_stub_top[], __lib_stub_bottom[];                               \
    const SceModuleInfo module_info                                                  \
        __attribute__((section(".rodata.sceModuleInfo"), aligned(16), used)) = {     \
        (attributes), {(minor_version), (major_version)}, name, 0, _gp,             \
        __lib_ent_top, __lib_ent_bottom, __lib_stub_top, __lib_stub_bottom}

/* Main thread parameters, read by crt0 when it creates the thread that runs main(). */
#define PSP_MAIN_THREAD_PRIORITY(priority) unsigned int sce_newlib_priority = (priority)
#define PSP_MAIN_THREAD_STACK_SIZE_KB(size_kb) unsigned int sce_newlib_stack_kb_size = (size_kb)
#define PSP_MAIN_THREAD_ATTR(attr) unsigned int sce_newlib_attribute = (attr)
#define PSP_MAIN_THREAD_ATTRIBUTE PSP_MAIN_THREAD_ATTR
#define PSP_MAIN_THREAD_PARAMS(priority, size_kb, attribute) \
    PSP_MAIN_THREAD_PRIORITY(priority);                      \
    PSP_MAIN_THREAD_STACK_SIZE_KB(size_kb);                  \
    PSP_MAIN_THREAD_ATTR(attribute)
#define PSP_MAIN_THREAD_NAME(s) const char *sce_newlib_main_thread_name = (s)
/* Run main() in the start thread instead of creating a new one. */
#define PSP_NO_CREATE_MAIN_THREAD() int sce_newlib_nocreate_thread_in_start = 1

/* Heap for malloc, in KB; a negative size -N means "all free user memory but N KB".
   Without the macro the heap is all free user memory but 512 KB (left for thread stacks). */
#define PSP_HEAP_SIZE_KB(size_kb) int sce_newlib_heap_kb_size = (size_kb)
#define PSP_HEAP_SIZE_MAX() PSP_HEAP_SIZE_KB(-1)

#endif
