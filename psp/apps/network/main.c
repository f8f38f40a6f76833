/* What a network "hello world" does on a PSP whose WLAN switch is off: load the network
   modules, start the libraries, try to connect to an access point, look a name up, open a
   TCP connection and make an HTTP request. Prints each answer. */
#include <pspsdk.h>
#include <stdio.h>
#include <string.h>

#define NET_MODULE_COMMON 1
#define NET_MODULE_INET 3
#define AF_INET 2
#define SOCK_STREAM 1

struct sockaddr_in {
    unsigned char len, family;
    unsigned short port;
    unsigned int addr;
    char zero[8];
};

int main(int argc, char *argv[])
{
    printf("load common: %08x\n", sceUtilityLoadNetModule(NET_MODULE_COMMON));
    printf("load inet: %08x\n", sceUtilityLoadNetModule(NET_MODULE_INET));
    printf("load inet again: %08x\n", sceUtilityLoadNetModule(NET_MODULE_INET));
    printf("sceNetInit: %08x\n", sceNetInit(128 * 1024, 42, 4 * 1024, 42, 4 * 1024));
    printf("sceNetInetInit: %08x\n", sceNetInetInit());
    printf("sceNetApctlInit: %08x\n", sceNetApctlInit(0x8000, 48));
    printf("WLAN switch: %d, power: %d\n", sceWlanGetSwitchState(), sceWlanDevIsPowerOn());
    printf("sceNetApctlConnect: %08x\n", sceNetApctlConnect(1));
    int state = -1;
    printf("sceNetApctlGetState: %08x, state %d\n", sceNetApctlGetState(&state), state);

    int rid = -1;
    char buf[1024];
    unsigned int addr = 0;
    printf("resolver: init %08x, create %08x\n", sceNetResolverInit(), sceNetResolverCreate(&rid, buf, sizeof buf));
    printf("resolve example.com: %08x\n", sceNetResolverStartNtoA(rid, "example.com", &addr, 2, 3));
    printf("resolver: delete %08x, term %08x\n", sceNetResolverDelete(rid), sceNetResolverTerm());

    int s = sceNetInetSocket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.len = sizeof to;
    to.family = AF_INET;
    to.port = (80 >> 8) | ((80 & 0xFF) << 8);
    to.addr = sceNetInetInetAddr("93.184.216.34");
    printf("socket: %d\n", s);
    printf("connect: %d, errno %d\n", sceNetInetConnect(s, &to, sizeof to), sceNetInetGetErrno());
    printf("close: %d\n", sceNetInetClose(s));

    printf("sceHttpInit: %08x\n", sceHttpInit(20000));
    int template = sceHttpCreateTemplate("allegrex", 1, 0);
    int connection = sceHttpCreateConnectionWithURL(template, "http://example.com/", 0);
    int request = sceHttpCreateRequestWithURL(connection, 0, "http://example.com/", 0);
    printf("http ids: %08x %08x %08x\n", template, connection, request);
    printf("sceHttpSendRequest: %08x\n", sceHttpSendRequest(request, NULL, 0));
    printf("http cleanup: %08x %08x %08x %08x\n", sceHttpDeleteRequest(request), sceHttpDeleteConnection(connection),
           sceHttpDeleteTemplate(template), sceHttpEnd());

    printf("terms: %08x %08x %08x\n", sceNetApctlTerm(), sceNetInetTerm(), sceNetTerm());
    printf("unload inet: %08x, again: %08x\n", sceUtilityUnloadNetModule(NET_MODULE_INET),
           sceUtilityUnloadNetModule(NET_MODULE_INET));
    printf("unload common: %08x\n", sceUtilityUnloadNetModule(NET_MODULE_COMMON));
    return 0;
}
