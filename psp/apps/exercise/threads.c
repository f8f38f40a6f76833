/* Two worker threads hand a token back and forth through semaphores while the main
   thread (created by crt0 with PSP_MAIN_THREAD_ATTR) waits for both to end. */
#include <stdio.h>
#include <pspsdk.h>

PSP_MODULE_INFO("threads", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);
PSP_HEAP_SIZE_KB(256);

#define ROUNDS 5
static SceUID ping, pong;
static int trace[2 * ROUNDS], traced;

static int worker(SceSize args, void *argp)
{
    int id = *(int *)argp;
    SceUID mine = id == 0 ? ping : pong, other = id == 0 ? pong : ping;
    (void)args;
    for (int i = 0; i < ROUNDS; i++) {
        sceKernelWaitSema(mine, 1, NULL);
        trace[traced++] = id;
        sceKernelSignalSema(other, 1);
    }
    return 100 + id;
}

int main(void)
{
    ping = sceKernelCreateSema("ping", 0, 1, 1, NULL);
    pong = sceKernelCreateSema("pong", 0, 0, 1, NULL);
    SceUID threads[2];
    for (int id = 0; id < 2; id++) {
        threads[id] = sceKernelCreateThread(id ? "pong" : "ping", worker, 0x20, 0x4000, PSP_THREAD_ATTR_USER, NULL);
        sceKernelStartThread(threads[id], sizeof id, &id);
    }
    int status0 = sceKernelWaitThreadEnd(threads[0], NULL);
    int status1 = sceKernelWaitThreadEnd(threads[1], NULL);
    printf("threads ended with %d %d; order:", status0, status1);
    for (int i = 0; i < traced; i++)
        printf(" %d", trace[i]);
    printf("\n");
    sceKernelDeleteSema(ping);
    sceKernelDeleteSema(pong);
    return 0;
}
