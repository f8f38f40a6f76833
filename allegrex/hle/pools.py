"""Fixed-size memory pools (FPL) of ThreadManForUser, carved from a user partition;
allocating from an exhausted pool waits. Variable-size pools are in vpl.py."""

from allegrex.hle import codes, costs, threads
from allegrex.hle.objects import object_name, status_block, write_status
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle
from allegrex.hle.sync import SyncObject, _cancel, _finish, _delete, wait_on
from allegrex.hle.sysmem import USER_PARTITION, pool_partition_error

LIB = "ThreadManForUser"
FPL_ALIGN = 4  # blocks are word aligned unless the option block asks for more


class Fpl(SyncObject):
    kind = "fpl"
    threadman_type = 6

    def __init__(self, name, attr, block_size, count, base):
        super().__init__(name, attr)
        self.block_size = block_size
        self.count = count
        self.base = base
        self.free = list(range(count))
        self.next = 0
        self.stride = block_size
        self.block = None


ATTR_HIGH_MEMORY = 0x4000  # the pool comes from the top of its partition
FPL_ATTR_KNOWN = 0x41FF  # other attribute bits are refused (measured: threads/fpl/create)


def refused_pool(name, pid: int, attr: int, known_attr: int, unnamed: int = codes.NO_MEMORY,
                 last_partition: int = 9) -> int | None:
    """The error a pool-like object (FPL, VPL, TLSPL, message pipe) is refused with, in the
    firmware's order (name, partition, attributes: the low byte is always allowed), or None."""
    if name is None:
        return codes.signed(unnamed)
    refused = pool_partition_error(pid, last_partition)
    if refused is not None:
        return refused
    if attr & ~known_attr & ~0xFF:
        return codes.signed(codes.ILLEGAL_ATTR)
    return None


def cancel_waits(k, obj, count_out: int) -> int:
    """Wake every waiter of `obj` with WAIT_CANCELLED, telling how many there were."""
    if count_out:
        k.memory.write_u32(count_out, len(obj.waiters))
    _cancel(k, obj)
    return 0


def delete_pool(k, obj, missing: int) -> int:
    """Delete a pool-like object: its waiters get WAIT_DELETE and its memory goes back."""
    if obj is None:
        return codes.signed(missing)
    _delete(k, obj)
    if obj.block is not None:
        k.sysmem.free_block(obj.block)
    return 0


def pool_stride(k, name, pid, attr, known_attr, block_size, count, option, last_partition=9) -> int:
    """The spacing of the blocks of a new fixed-size pool (FPL, TLSPL), or the negative
    error the pool is refused with."""
    refused = refused_pool(name, pid, attr, known_attr, last_partition=last_partition)
    if refused is not None:
        return refused
    if illegal_pool_size(block_size, count):
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    align = option_alignment(k, option)
    if align is None:
        return codes.signed(codes.ILLEGAL_ARGUMENT)
    return (block_size + align - 1) // align * align


def illegal_pool_size(block_size: int, count: int) -> bool:
    """Block size and count the firmware refuses as an illegal size (their product, with
    4-byte rounding, must stay within 32 bits; measured in threads/fpl/create)."""
    if block_size == 0 or count == 0:
        return True
    return block_size > (1 << 32) // count - 4 or count >= (1 << 32) // ((block_size + 3) & ~3)


def option_alignment(k, option: int) -> int | None:
    """The alignment an option block asks for (at least 4 bytes), or None if it is not a power of 2."""
    align = FPL_ALIGN
    if option and k.memory.is_valid(option, 8):
        if k.memory.read_u32(option) >= 4:
            align = k.memory.read_u32(option + 4)
        if align & (align - 1):
            return None
    return max(align, FPL_ALIGN)


# --- fixed pools ---
@hle(LIB, cost=costs.ALLOC)
def sceKernelCreateFpl(k, name: CStr, pid: int, attr: U32, block_size: U32, count: U32, option: Ptr) -> int:
    stride = pool_stride(k, name, pid, attr, FPL_ATTR_KNOWN, block_size, count, option)
    if stride < 0:
        return stride
    if stride * count > 0xFFFFFFFF:
        return codes.signed(codes.NO_MEMORY)
    block = k.sysmem.alloc_block(pid, f"fpl {name}", size=stride * count, high=bool(attr & ATTR_HIGH_MEMORY))
    if block is None:
        return codes.signed(codes.NO_MEMORY)
    fpl = Fpl(object_name(name), attr, block_size, count, block.addr)
    fpl.stride = stride
    fpl.block = block
    fpl.uid = k.new_uid(fpl)
    return fpl.uid


def _fpl(k, uid):
    return k.get(uid, Fpl)


def _fpl_take(k, fpl, out) -> bool:
    """Blocks are handed out round robin from the one after the last taken (measured)."""
    if not fpl.free:
        return False
    index = min(fpl.free, key=lambda i: (i - fpl.next) % fpl.count)
    fpl.free.remove(index)
    fpl.next = (index + 1) % fpl.count
    k.memory.write_u32(out, fpl.base + index * fpl.stride)
    return True


def _allocate_fpl(k, uid, out, timeout, cb, try_only=False):
    refused = None if try_only else threads.wait_refused(k)  # before any other check (measured: intr/waits)
    if refused is not None:
        return refused
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(codes.NOT_FOUND_FPL)
    if not fpl.waiters and _fpl_take(k, fpl, out):
        return 0
    if try_only:
        return codes.signed(codes.NO_MEMORY)
    wait_on(k, fpl, "fpl", timeout, cb, data=out)
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelAllocateFpl(k, uid: int, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _allocate_fpl(k, uid, out, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelAllocateFplCB(k, uid: int, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _allocate_fpl(k, uid, out, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelTryAllocateFpl(k, uid: int, out: Ptr) -> int:
    return _allocate_fpl(k, uid, out, 0, False, try_only=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelFreeFpl(k, uid: int, addr: Ptr) -> int:
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(codes.NOT_FOUND_FPL)
    if addr >= k.sysmem.partitions[USER_PARTITION].end:  # beyond user memory: a bad address, else a bad block
        return codes.signed(codes.ILLEGAL_ADDR)
    offset = addr - fpl.base
    index = offset // fpl.stride
    if offset < 0 or offset % fpl.stride or index >= fpl.count or index in fpl.free:
        return codes.signed(codes.ILLEGAL_MEMBLOCK)
    fpl.free.append(index)
    for t in fpl.ordered_waiters():  # the freed block goes to the first waiter
        if _fpl_take(k, fpl, t.wait.data):
            k.threads.wake(t, 0)
        break
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteFpl(k, uid: int) -> int:
    return delete_pool(k, _fpl(k, uid), codes.NOT_FOUND_FPL)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelFpl(k, uid: int, num_wait: Ptr) -> int:
    fpl = _fpl(k, uid)
    return codes.signed(codes.NOT_FOUND_FPL) if fpl is None else cancel_waits(k, fpl, num_wait)


@hle(LIB)
def sceKernelReferFplStatus(k, uid: int, info: Ptr) -> int:
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(codes.NOT_FOUND_FPL)
    write_status(k, info, status_block(56, fpl.name, [fpl.attr, fpl.block_size, fpl.count, len(fpl.free),
                                                         len(fpl.waiters)]))
    return 0
