/* A PRX module for the module-manager tests: module_start keeps the argument block it is
   started with and answers as its first byte asks ('R' resident, 'N' not resident, 'F'
   fail with -7); the Greeter library lets the program read it back and add numbers;
   module_stop refuses ('1') or agrees ('0') as the stop argument asks. */
#include <pspsdk.h>
#include <string.h>

PSP_MODULE_INFO("Greeter", PSP_MODULE_USER, 1, 2);

static char start_argument[64];
static int start_size = -1;
static int stops;

int module_start(SceSize args, void *argp)
{
    start_size = (int)args;
    memset(start_argument, 0, sizeof start_argument);
    if (argp)
        memcpy(start_argument, argp, args < sizeof start_argument ? args : sizeof start_argument - 1);
    if (start_argument[0] == 'N')
        return 1;
    if (start_argument[0] == 'F')
        return -7;
    return 0;
}

int module_stop(SceSize args, void *argp)
{
    stops++;
    return (args && argp && ((char *)argp)[0] == '1') ? 1 : 0;
}

int greeter_argument(char *out, int size)
{
    strncpy(out, start_argument, size);
    return start_size;
}

int greeter_add(int a, int b)
{
    return a + b + stops * 1000;
}
