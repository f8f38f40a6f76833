"""sceGe_user: the GE driver's user calls, answered by the display-list queue of
allegrex/ge/queue.py (kernel.ge, started on the first call). Calls that can start the GE
start it at their entry time: a short list finishes while the call still runs, and its
interrupts come right after it returns, as on the PSP."""

from allegrex.cpu.state import CYCLES
from allegrex.ge.queue import GeQueue
from allegrex.hle import costs, threads
from allegrex.hle.registry import Ptr, Raw, hle

LIB = "sceGe_user"
EDRAM_ADDR = 0x04000000
EDRAM_SIZE = 0x00200000


def queue(k) -> GeQueue:
    """The kernel's GE driver (kernel.ge, an allegrex.ge.queue.GeQueue), started on first use."""
    q = k.ge
    if not q.started:
        q.start()
    return q


def _from_entry(k, cost: int, operation, *args):
    """operation(queue, *args), a GeQueue method: the work it does (starting the GE) counts
    from the call's entry, before its cost, worked out only if it starts the GE (most calls
    do not). (A plain call: a context manager cost more than the call's own work.)"""
    q = queue(k)
    q.call_entry = (k.clock.counters[CYCLES], cost)  # now, the call's cost charged
    try:
        return operation(q, *args)
    finally:
        q.call_entry = None


@hle(LIB, cost=costs.GE)
def sceGeEdramGetAddr(k) -> int:
    return EDRAM_ADDR


@hle(LIB, cost=costs.GE)
def sceGeEdramGetSize(k) -> int:
    return EDRAM_SIZE


@hle(LIB, cost=costs.GE)
def sceGeEdramSetAddrTranslation(k, width: int) -> int:
    return queue(k).set_edram_translation(width)


@hle(LIB, cost=costs.GE_ENQUEUE)
def sceGeListEnQueue(k, start: Ptr, stall: Ptr, cbid: int, args: Ptr) -> int:
    return _from_entry(k, costs.GE_ENQUEUE, GeQueue.enqueue, start, stall, cbid, args, False)


@hle(LIB, cost=costs.GE_ENQUEUE)
def sceGeListEnQueueHead(k, start: Ptr, stall: Ptr, cbid: int, args: Ptr) -> int:
    return _from_entry(k, costs.GE_ENQUEUE, GeQueue.enqueue, start, stall, cbid, args, True)


@hle(LIB, cost=costs.GE_SYNC)
def sceGeListDeQueue(k, list_id: int) -> int:
    return queue(k).dequeue(list_id)


@hle(LIB, cost=costs.GE_STALL)
def sceGeListUpdateStallAddr(k, list_id: int, stall: Ptr) -> int:
    return _from_entry(k, costs.GE_STALL, GeQueue.update_stall, list_id, stall)


@hle(LIB, cost=costs.GE_SYNC)
def sceGeListSync(k, list_id: int, mode: int) -> Raw:
    threads.finish_wait_call(k, queue(k).list_sync(list_id, mode))


@hle(LIB, cost=costs.GE_DRAW_SYNC)
def sceGeDrawSync(k, mode: int) -> Raw:
    threads.finish_wait_call(k, queue(k).draw_sync(mode))


@hle(LIB, cost=costs.GE_SYNC)
def sceGeBreak(k, mode: int, param: Ptr) -> int:
    return _from_entry(k, costs.GE_SYNC, GeQueue.break_, mode, param)


@hle(LIB, cost=costs.GE_SYNC)
def sceGeContinue(k) -> int:
    return _from_entry(k, costs.GE_SYNC, GeQueue.continue_)


@hle(LIB, cost=costs.GE)
def sceGeSetCallback(k, data: Ptr) -> int:
    return queue(k).set_callback(data)


@hle(LIB, cost=costs.GE)
def sceGeUnsetCallback(k, cbid: int) -> int:
    return queue(k).unset_callback(cbid)


@hle(LIB, cost=costs.GE)
def sceGeSaveContext(k, context: Ptr) -> int:
    return queue(k).save_context(context)


@hle(LIB, cost=costs.GE)
def sceGeRestoreContext(k, context: Ptr) -> int:
    return queue(k).restore_context(context)


@hle(LIB, cost=costs.GE)
def sceGeGetCmd(k, op: int) -> int:
    return queue(k).get_cmd(op)


@hle(LIB, cost=costs.GE)
def sceGeGetMtx(k, which: int, matrix: Ptr) -> int:
    return queue(k).get_matrix(which, matrix)


@hle(LIB, cost=costs.GE)
def sceGeGetStack(k, index: int, stack: Ptr) -> int:
    return queue(k).get_stack(index, stack)
