/* GU lists handed to the GE driver whole (sceGuSendList), and pausing the GE's queue.
   A file of its own so that programs that never call them do not import the driver
   functions they need. */
#include "gu_internal.h"

int sceGuSendList(int mode, const void *list, PspGeContext *context)
{
    PspGeListArgs args = {sizeof(PspGeListArgs), context, 0, NULL};
    int id = -1;
    if (mode == GU_HEAD)
        id = sceGeListEnQueueHead(list, NULL, gu.callback_id, &args);
    else if (mode == GU_TAIL)
        id = sceGeListEnQueue(list, NULL, gu.callback_id, &args);
    if (id < 0)
        return id;
    gu.send_list_id = id;
    return 0;
}

int sceGuBreak(int mode)
{
    PspGeBreakParam param;
    return sceGeBreak(mode, &param);
}

int sceGuContinue(void)
{
    return sceGeContinue();
}
