/* GU display lists: starting and finishing them, handing them to the GE driver,
   synchronising, temporary memory inside a list, calls, signals and raw commands. */
#include <string.h>
#include "gu_internal.h"

GuState gu;

/* The opcode ranges sceGuInit resets to a zero argument (every state and matrix
   command; not the flow, drawing and transfer-start commands). */
static const unsigned char reset_ranges[][2] = {
    {0x00, 0x02}, {0x10, 0x10}, {0x12, 0x13}, {0x15, 0x28}, {0x2A, 0x33}, {0x36, 0x38}, {0x3A, 0x4D},
    {0x50, 0x51}, {0x53, 0x58}, {0x5B, 0xB5}, {0xB8, 0xD0}, {0xD2, 0xE9}, {0xEB, 0xEC}, {0xEE, 0xEE},
};
#define RESET_WORDS (210 + 2)   /* the ranges' opcodes, then FINISH and END */
static u32 reset_list[RESET_WORDS] __attribute__((aligned(16)));

/* The GE's usual ordered-dither matrix, sent by the first sceGuStart. */
static const int default_dither[16] __attribute__((aligned(16))) = {
    -4, 0, -3, 1,
    2, -2, 3, -1,
    -3, 1, -4, 0,
    3, -1, 2, -2,
};

/* Written through the uncached view: the GE reads memory, not the CPU's cache. */
static const u32 *fill_reset_list(void)
{
    u32 *out = (u32 *)((u32)reset_list | 0x40000000u);
    int n = 0;
    for (unsigned i = 0; i < sizeof reset_ranges / sizeof reset_ranges[0]; i++)
        for (unsigned op = reset_ranges[i][0]; op <= reset_ranges[i][1]; op++)
            out[n++] = op << 24;
    out[n++] = (u32)GE_FINISH << 24;
    out[n++] = (u32)GE_END << 24;
    return reset_list;
}

static void signal_interrupt(int id, void *arg)
{
    (void)arg;
    if (gu.on_signal)
        gu.on_signal(id & 0xFFFF);
}

static void finish_interrupt(int id, void *arg)
{
    (void)arg;
    if (gu.on_finish)
        gu.on_finish(id & 0xFFFF);
}

static void reset_state(void)
{
    memset(&gu, 0, sizeof gu);
    gu.psm = GU_PSM_5551;
    gu.frame_width = GU_SCR_WIDTH;
    gu.width = GU_SCR_WIDTH;
    gu.height = GU_SCR_HEIGHT;
    gu.swap_behaviour = 0;   /* PSP_DISPLAY_SETBUF_NEXTHSYNC */
    for (int i = 0; i < 3; i++) {
        gu.contexts[i].far_plane = 1;
        gu.contexts[i].clear_depth = 0xFFFF;
    }
}

int sceGuInit(void)
{
    reset_state();
    gu.edram = sceGeEdramGetAddr();
    PspGeCallbackData handlers = {signal_interrupt, &gu, finish_interrupt, &gu};
    int id = sceGeSetCallback(&handlers);
    if (id < 0)
        return id;
    gu.callback_id = id;
    const u32 *reset = fill_reset_list();
    int list = sceGeListEnQueue((const void *)((u32)reset & 0x1FFFFFFFu), NULL, id, NULL);
    if (list < 0) {
        sceGeUnsetCallback(id);
        return list;
    }
    gu.direct_list_id = list;
    sceGeListSync(list, 0);
    sceGeDrawSync(0);
    gu.first_start = 1;
    return 0;
}

void sceGuTerm(void)
{
    sceGeUnsetCallback(gu.callback_id);
}

int gu_update_stall(void)
{
    if (gu.context != GU_DIRECT || gu.object_depth)
        return 0;
    int res = sceGeListUpdateStallAddr(gu.direct_list_id, gu.list->current);
    return res < 0 ? res : 0;
}

static void switch_list(int cid, u32 *start)
{
    unsigned int intr = sceKernelCpuSuspendIntr();
    GuContext *c = &gu.contexts[cid];
    if (start)
        c->list.start = c->list.current = start;
    c->list.parent = gu.context;
    gu.list = &c->list;
    gu.context = cid;
    sceKernelCpuResumeIntr(intr);
}

int sceGuStart(int cid, void *list)
{
    u32 *start = (u32 *)((u32)list | 0x40000000u);   /* written uncached */
    switch_list(cid, start);
    if (cid == GU_DIRECT) {
        int id = sceGeListEnQueue(start, start, gu.callback_id, NULL);
        if (id < 0)
            return id;
        gu.direct_list_id = id;
    }
    if (gu.first_start) {
        sceGuSetDither((const ScePspIMatrix4 *)default_dither);
        sceGuPatchDivide(16, 16);
        sceGuColorMaterial(GU_AMBIENT | GU_DIFFUSE | GU_SPECULAR);
        sceGuSpecular(1.0f);
        sceGuTexScale(1.0f, 1.0f);
        gu.first_start = 0;
    }
    if (cid == GU_DIRECT && gu.frame_width) {
        gu_cmd(GE_FRAMEBUFPTR, (u32)gu.frame_buffer);
        gu_cmd(GE_FRAMEBUFWIDTH, gu_high_bits(gu.frame_buffer) | gu.frame_width);
    }
    return 0;
}

/* Ends the current list and returns to the one sceGuStart interrupted; the size of the
   finished list in bytes. A call list ends with RET (or, in signal call mode, with the
   driver's return signal). */
int sceGuFinishId(unsigned int id)
{
    if (gu.context == GU_CALL) {
        if (gu.call_mode == GU_CALL_SIGNAL) {
            gu_cmd(GE_SIGNAL, 0x12 << 16);
            gu_cmd(GE_END, 0);
        } else {
            gu_cmd(GE_RET, 0);
        }
    } else {
        gu_cmd(GE_FINISH, id & 0xFFFF);
        gu_cmd(GE_END, 0);
        int res = gu_update_stall();
        if (res < 0)
            return res;
    }
    int size = (int)((u32)gu.list->current - (u32)gu.list->start);
    unsigned int intr = sceKernelCpuSuspendIntr();
    gu.context = gu.list->parent;
    gu.list = &gu.contexts[gu.context].list;
    sceKernelCpuResumeIntr(intr);
    return size;
}

int sceGuFinish(void)
{
    return sceGuFinishId(0);
}

int sceGuSync(int mode, int what)
{
    switch (mode) {
    case GU_SYNC_FINISH:
        return sceGeDrawSync(what);
    case GU_SYNC_LIST:
        return sceGeListSync(gu.direct_list_id, what);
    case GU_SYNC_SEND:
        return sceGeListSync(gu.send_list_id, what);
    default:
        return 0;
    }
}

/* `size` bytes inside the list, skipped by the GE: a JUMP over them. Valid until the
   list is written again from its start. */
void *sceGuGetMemory(int size)
{
    u32 *block = gu.list->current;
    u32 *after = (u32 *)((u32)block + 8 + (((u32)size + 3) & ~3u));
    block[0] = ((u32)GE_BASE << 24) | gu_base_of(after);
    block[1] = ((u32)GE_JUMP << 24) | ((u32)after & 0xFFFFFF);
    gu.list->current = after;
    if (gu.context == GU_DIRECT)
        sceGeListUpdateStallAddr(gu.direct_list_id, after);
    return block + 2;
}

int sceGuCallList(const void *list)
{
    u32 address = (u32)list;
    if (gu.call_mode == GU_CALL_SIGNAL) {   /* the driver calls it at signal 0x11 */
        gu_cmd(GE_SIGNAL, (0x11 << 16) | (address >> 16));
        gu_cmd(GE_END, address & 0xFFFF);
    } else {
        gu_cmd(GE_BASE, gu_base_of(list));
        gu_cmd(GE_CALL, address);
    }
    return gu_update_stall();
}

void sceGuCallMode(int mode)
{
    gu.call_mode = mode;
}

int sceGuCheckList(void)
{
    return (int)((u32)gu.list->current - (u32)gu.list->start);
}

void *sceGuSetCallback(int signal, void (*callback)(int))
{
    void (*old)(int) = NULL;
    if (signal == GU_CALLBACK_SIGNAL) {
        old = gu.on_signal;
        gu.on_signal = callback;
    } else if (signal == GU_CALLBACK_FINISH) {
        old = gu.on_finish;
        gu.on_finish = callback;
    }
    return (void *)old;
}

void sceGuSignal(int signal, int argument)
{
    gu_cmd(GE_SIGNAL, ((signal & 0xFF) << 16) | (argument & 0xFFFF));
    gu_cmd(GE_END, 0);
    if (signal == GU_SIGNAL_PAUSE) {
        gu_cmd(GE_FINISH, 0);
        gu_cmd(GE_END, 0);
    }
    gu_update_stall();
}

void sceGuSendCommandi(int cmd, int argument)
{
    gu_cmd(cmd, (u32)argument);
}

void sceGuSendCommandf(int cmd, float argument)
{
    gu_cmdf(cmd, argument);
}

/* Drawing between BeginObject and EndObject is skipped by the GE when the bounding box
   (count vertices) is off screen: a BOUNDINGBOX test, then a conditional jump past the
   object that EndObject fills in. */
void sceGuBeginObject(int vtype, int count, const void *indices, const void *vertices)
{
    gu_send_arrays(vtype, indices, vertices);
    gu_cmd(GE_BOUNDINGBOX, count);
    if (gu.object_depth < GU_OBJECT_DEPTH)
        gu.objects[gu.object_depth++] = gu.list->current;
    gu_cmd(GE_BASE, 0);
    gu_cmd(GE_BJUMP, 0);
}

int sceGuEndObject(void)
{
    if (gu.object_depth == 0)
        return (int)(0u - 0x80000025u);   /* the official library's -ERROR_NOT_FOUND, as it computes it */
    u32 *end = gu.list->current;
    u32 *jump = gu.objects[--gu.object_depth];
    jump[0] = ((u32)GE_BASE << 24) | gu_base_of(end);
    jump[1] = ((u32)GE_BJUMP << 24) | ((u32)end & 0xFFFFFF);
    int res = gu_update_stall();
    return res < 0 ? res : gu.object_depth;
}
