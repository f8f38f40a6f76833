"""Memory pools of ThreadManForUser: fixed-size (FPL) and variable-size (VPL) block
pools carved from a user partition; allocating from an exhausted pool waits."""

from allegrex.hle import codes, costs
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle
from allegrex.hle.sync import SyncObject, _cancel, _finish, _delete, _name, _status_block, _wait_on, _write_status
from allegrex.hle.sysmem import Block, Partition, TYPE_LOW, USER_PARTITION
from allegrex.hle.threads import V0

LIB = "ThreadManForUser"
NOT_FOUND_FPL = 0x8002019D
NOT_FOUND_VPL = 0x8002019C
VPL_HEADER = 8  # each variable block carries an 8-byte header
FPL_ALIGN = 4  # blocks are word aligned unless the option block asks for more


class Fpl(SyncObject):
    kind = "fpl"

    def __init__(self, name, attr, block_size, count, base):
        super().__init__(name, attr)
        self.block_size = block_size
        self.count = count
        self.base = base
        self.free = list(range(count))
        self.next = 0
        self.stride = block_size
        self.block = None


class Vpl(SyncObject):
    kind = "vpl"

    def __init__(self, name, attr, size, base):
        super().__init__(name, attr)
        self.size = size
        self.heap = Partition(0, base, size)
        self.used: dict[int, Block] = {}
        self.block = None

    def free_size(self) -> int:
        return sum(length for _, length in self.heap.gaps())


def _carve(k, pid, name, size):
    if pid not in (2, 5, 6):
        return None
    return k.sysmem.alloc_block(USER_PARTITION, name, size=size)


# --- fixed pools ---
@hle(LIB, cost=costs.ALLOC)
def sceKernelCreateFpl(k, name: CStr, pid: int, attr: U32, block_size: int, count: int, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if block_size <= 0 or count <= 0:
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    align = FPL_ALIGN
    if option and k.memory.read_u32(option) >= 8:  # option: size, alignment
        align = max(k.memory.read_u32(option + 4), FPL_ALIGN)
    stride = (block_size + align - 1) // align * align
    block = _carve(k, pid, f"fpl {name}", stride * count)
    if block is None:
        return codes.signed(codes.NO_MEMORY)
    fpl = Fpl(_name(name), attr, block_size, count, block.addr)
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
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(NOT_FOUND_FPL)
    if not fpl.waiters and _fpl_take(k, fpl, out):
        return 0
    if try_only:
        return codes.signed(codes.NO_MEMORY)
    _wait_on(k, fpl, "fpl", timeout, cb, data=out)
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
        return codes.signed(NOT_FOUND_FPL)
    if addr and not k.memory.is_valid(addr, 4):  # measured: a wild pointer, unlike NULL, is a bad address
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
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(NOT_FOUND_FPL)
    _delete(k, fpl)
    k.sysmem.free_block(fpl.block)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelFpl(k, uid: int, num_wait: Ptr) -> int:
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(NOT_FOUND_FPL)
    if num_wait:
        k.memory.write_u32(num_wait, len(fpl.waiters))
    _cancel(k, fpl)
    return 0


@hle(LIB)
def sceKernelReferFplStatus(k, uid: int, info: Ptr) -> int:
    fpl = _fpl(k, uid)
    if fpl is None:
        return codes.signed(NOT_FOUND_FPL)
    _write_status(k, info, _status_block(56, fpl.name, [fpl.attr, fpl.block_size, fpl.count, len(fpl.free),
                                                         len(fpl.waiters)]))
    return 0


# --- variable pools ---
@hle(LIB, cost=costs.ALLOC)
def sceKernelCreateVpl(k, name: CStr, pid: int, attr: U32, size: U32, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if size == 0 or size > 0x7FFFFFFF:
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    size = (size + 7) & ~7
    block = _carve(k, pid, f"vpl {name}", size)
    if block is None:
        return codes.signed(codes.NO_MEMORY)
    vpl = Vpl(_name(name), attr, size, block.addr)
    vpl.block = block
    vpl.uid = k.new_uid(vpl)
    return vpl.uid


def _vpl(k, uid):
    return k.get(uid, Vpl)


def _vpl_take(k, vpl, size, out) -> bool:
    need = (size + VPL_HEADER + 7) & ~7
    where = vpl.heap.place(need, TYPE_LOW, align=8)
    if where is None:
        return False
    block = Block(0, "", where, need)
    vpl.heap.insert(block)
    vpl.used[where + VPL_HEADER] = block
    k.memory.write_u32(out, where + VPL_HEADER)
    return True


def _allocate_vpl(k, uid, size, out, timeout, cb, try_only=False):
    vpl = _vpl(k, uid)
    if vpl is None:
        return codes.signed(NOT_FOUND_VPL)
    if size <= 0 or size > vpl.size:
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    if not vpl.waiters and _vpl_take(k, vpl, size, out):
        return 0
    if try_only:
        return codes.signed(codes.NO_MEMORY)
    _wait_on(k, vpl, "vpl", timeout, cb, data=(size, out))
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelAllocateVpl(k, uid: int, size: int, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _allocate_vpl(k, uid, size, out, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelAllocateVplCB(k, uid: int, size: int, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _allocate_vpl(k, uid, size, out, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelTryAllocateVpl(k, uid: int, size: int, out: Ptr) -> int:
    return _allocate_vpl(k, uid, size, out, 0, False, try_only=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelFreeVpl(k, uid: int, addr: Ptr) -> int:
    vpl = _vpl(k, uid)
    if vpl is None:
        return codes.signed(NOT_FOUND_VPL)
    block = vpl.used.pop(addr, None)
    if block is None:
        return codes.signed(codes.ILLEGAL_MEMBLOCK)
    vpl.heap.blocks.remove(block)
    for t in vpl.ordered_waiters():  # serve waiters in order while their requests fit
        size, out = t.wait.data
        if not _vpl_take(k, vpl, size, out):
            break
        k.threads.wake(t, 0)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteVpl(k, uid: int) -> int:
    vpl = _vpl(k, uid)
    if vpl is None:
        return codes.signed(NOT_FOUND_VPL)
    _delete(k, vpl)
    k.sysmem.free_block(vpl.block)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelVpl(k, uid: int, num_wait: Ptr) -> int:
    vpl = _vpl(k, uid)
    if vpl is None:
        return codes.signed(NOT_FOUND_VPL)
    if num_wait:
        k.memory.write_u32(num_wait, len(vpl.waiters))
    _cancel(k, vpl)
    return 0


@hle(LIB)
def sceKernelReferVplStatus(k, uid: int, info: Ptr) -> int:
    vpl = _vpl(k, uid)
    if vpl is None:
        return codes.signed(NOT_FOUND_VPL)
    _write_status(k, info, _status_block(52, vpl.name, [vpl.attr, vpl.size, vpl.free_size(), len(vpl.waiters)]))
    return 0
