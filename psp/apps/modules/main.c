/* The module manager as a program sees it: load greeter.prx, call its library before it
   starts (not linked yet), start it with an argument, call it, query it, stop it (once
   refused), unload it; modules that do not stay resident or fail to start; bad ids and a
   file that is not a module. Prints one line per step. */
#include <pspsdk.h>
#include <stdio.h>
#include <string.h>

int greeter_argument(char *out, int size);
int greeter_add(int a, int b);

typedef struct {
    SceSize size;
    unsigned char nsegment, reserved[3];
    int segmentaddr[4], segmentsize[4];
    unsigned int entry_addr, gp_value, text_addr, text_size, data_size, bss_size;
    unsigned short attribute;
    unsigned char version[2];
    char name[28];
} ModuleInfo;

static SceUID load(const char *name)
{
    return sceKernelLoadModule(name, 0, NULL);
}

int main(int argc, char *argv[])
{
    char text[64];
    int status = 0x55;

    SceUID uid = load("greeter.prx");
    printf("load: %s\n", uid > 0 ? "id" : "error");
    printf("call before start: %08x\n", greeter_add(1, 2));

    const char argument[] = "Resident, please";
    int result = sceKernelStartModule(uid, sizeof argument, (void *)argument, &status, NULL);
    printf("start: %s, status %d\n", result == uid ? "its id" : "other", status);
    memset(text, 0, sizeof text);
    int size = greeter_argument(text, sizeof text);
    printf("module_start saw %d bytes: %s\n", size, text);
    printf("greeter_add(2, 3) = %d\n", greeter_add(2, 3));
    printf("start again: %08x\n", sceKernelStartModule(uid, 0, NULL, NULL, NULL));

    ModuleInfo info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    printf("query: %08x name %s version %d.%d attribute %04x\n", sceKernelQueryModuleInfo(uid, &info),
           info.name, info.version[1], info.version[0], info.attribute);
    printf("id by address of greeter_add's code: %s\n",
           sceKernelGetModuleIdByAddress((void *)info.text_addr) == uid ? "its id" : "other");
    printf("unload while started: %08x\n", sceKernelUnloadModule(uid));

    result = sceKernelStopModule(uid, 2, "1", &status, NULL);
    printf("stop refused: %s, status %d\n", result == uid ? "its id" : "other", status);
    result = sceKernelStopModule(uid, 2, "0", &status, NULL);
    printf("stop: %08x, status %d\n", result, status);
    printf("stop again: %08x\n", sceKernelStopModule(uid, 0, NULL, NULL, NULL));
    printf("call after stop: %08x\n", greeter_add(1, 2));
    printf("unload: %s\n", sceKernelUnloadModule(uid) == uid ? "its id" : "error");
    printf("unload again: %08x\n", sceKernelUnloadModule(uid));

    uid = load("greeter.prx");
    result = sceKernelStartModule(uid, 2, "N", &status, NULL);
    printf("not resident: %08x, status %d, query %08x\n", result, status, sceKernelQueryModuleInfo(uid, &info));
    uid = load("greeter.prx");
    result = sceKernelStartModule(uid, 2, "F", &status, NULL);
    printf("failing start: %08x, status %d, unload %08x\n", result, status, sceKernelUnloadModule(uid));

    printf("bad ids: start %08x stop %08x query %08x\n", sceKernelStartModule(0x1234, 0, NULL, NULL, NULL),
           sceKernelStopModule(-1, 0, NULL, NULL, NULL), sceKernelQueryModuleInfo(0, &info));
    printf("not a module: %08x\n", load("main.c"));
    printf("no such file: %08x\n", load("missing.prx"));
    return 0;
}
