"""Variable-size memory pools (VPL), kept the way the firmware keeps them: in the pool's
own memory, so a program that looks at the bookkeeping sees what the PSP shows
(pspautotests threads/vpl/order walks it).

Pool memory of `size` bytes at `base`:
    +0x00 base, +0x04 base again, +0x08 base + 7 (the mark allocated blocks point at)
    +0x0C size - 8, +0x10 allocated 8-byte units, +0x14 where the next search starts
    +0x18 the first block ... +size-8 the last block: size 0, never allocated or merged
Each block starts with {next, size in 8-byte units}. Free blocks form a ring in address
order through the last block; an allocated block's `next` holds the mark. Allocation
walks the ring from the search start and carves the request from the END of the first
block big enough; freeing links the block back in order and merges it with free
neighbours (the search then starts at the block before it).
"""

from allegrex.hle import codes, costs, threads
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle
from allegrex.hle.pools import ATTR_HIGH_MEMORY, cancel_waits, delete_pool, refused_pool
from allegrex.hle.objects import object_name, status_block, write_status
from allegrex.hle.sync import SyncObject, wait_on
from allegrex.hle.threads import done_now, finish_wait_call

LIB = "ThreadManForUser"
UNIT = 8
FIRST_BLOCK = 0x18
OVERHEAD = 0x20  # bookkeeping words, the first block's header and the last block
SMALLEST = 0x30  # pools of this size or less get this much instead:
SMALL_POOL_SIZE = 0x1000
ATTR_PRIORITY, ATTR_ORDER = 0x100, 0x300  # waiters served by priority (else FIFO)
ATTR_KNOWN = 0x300 | ATTR_HIGH_MEMORY
STATUS_SIZE = 52


class Vpl(SyncObject):
    kind = "vpl"
    threadman_type = 5

    def __init__(self, name, attr, size, base):
        super().__init__(name, attr)
        self.size = size
        self.base = base
        self.block = None

    @property
    def pool_size(self) -> int:
        return self.size - OVERHEAD

    def serve_waiters(self, k) -> None:
        _serve_waiters(k, self)


class PoolMemory:
    """The bookkeeping of one pool, read and written in guest memory."""

    def __init__(self, memory, vpl: Vpl):
        self.m = memory
        self.base = vpl.base
        self.mark = vpl.base + 8
        self.last = vpl.base + vpl.size - UNIT
        self.first = vpl.base + FIRST_BLOCK

    # block fields
    def next(self, block: int) -> int:
        return self.m.read_u32(block)

    def units(self, block: int) -> int:
        return self.m.read_u32(block + 4)

    def set(self, block: int, next_block: int, units: int | None = None) -> None:
        self.m.write_u32(block, next_block)
        if units is not None:
            self.m.write_u32(block + 4, units)

    # header fields
    @property
    def allocated(self) -> int:
        return self.m.read_u32(self.base + 0x10)

    @allocated.setter
    def allocated(self, units: int) -> None:
        self.m.write_u32(self.base + 0x10, units)

    @property
    def search(self) -> int:
        return self.m.read_u32(self.base + 0x14)

    @search.setter
    def search(self, block: int) -> None:
        self.m.write_u32(self.base + 0x14, block)

    def format(self, size: int) -> None:
        for offset, value in ((0, self.base), (4, self.base), (8, self.base + 7), (0xC, size - UNIT)):
            self.m.write_u32(self.base + offset, value)
        self.allocated = 0
        self.search = self.first
        self.set(self.first, self.last, (size - OVERHEAD) // UNIT)
        self.set(self.last, self.first, 0)

    def allocate(self, nbytes: int) -> int | None:
        """Address of a new block's data, or None when no free block is big enough."""
        want = (nbytes + UNIT - 1) // UNIT + 1  # the data and its header
        prev = start = self.search
        for _ in range(self.steps_limit()):
            block = self.next(prev)
            units = self.units(block)
            if units > want:  # take the end of the block, the rest stays free where it is
                self.set(block, self.next(block), units - want)
                taken = block + (units - want) * UNIT
                self.set(taken, self.mark, want)
                self.allocated += want
                self.search = prev
                return taken + UNIT
            if units == want:
                self.set(prev, self.next(block))
                self.set(block, self.mark)
                self.allocated += want
                self.search = prev
                return block + UNIT
            prev = block
            if prev == start:
                return None
        return None  # the guest broke the ring

    def free(self, addr: int) -> bool:
        block = addr - UNIT
        if not self.first <= block < self.last or block & (UNIT - 1):
            return False
        if self.next(block) != self.mark or self.units(block) > self.allocated:
            return False  # not an allocated block of this pool (or already freed)
        prev = self.last
        for _ in range(self.steps_limit()):
            after = self.next(prev)
            if after == block:
                return False
            if after > block:
                self.link(block, prev, after)
                return True
            prev = after
        return False  # the guest broke the ring

    def steps_limit(self) -> int:
        """More steps than a ring of this pool can have: a ring the guest broke cannot hang us."""
        return (self.last - self.first) // UNIT + 2

    def link(self, block: int, prev: int, after: int) -> None:
        units = self.units(block)
        self.allocated -= units
        self.search = prev
        self.set(block, after)
        if block + units * UNIT == after and self.units(after):
            self.set(block, self.next(after), units + self.units(after))
        if prev + self.units(prev) * UNIT == block:
            self.set(prev, self.next(block), self.units(prev) + self.units(block))
        else:
            self.set(prev, block)

    def free_bytes(self, size: int) -> int:
        return size - OVERHEAD - self.allocated * UNIT


def _pool(k, vpl) -> PoolMemory:
    return PoolMemory(k.memory, vpl)


@hle(LIB, cost=costs.ALLOC)
def sceKernelCreateVpl(k, name: CStr, pid: int, attr: U32, size: U32, option: Ptr) -> int:
    refused = refused_pool(name, pid, attr, ATTR_KNOWN, unnamed=codes.KERNEL_ERROR)
    if refused is not None:
        return refused
    if size == 0:
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    if size >= 0x80000000:
        return codes.signed(codes.NO_MEMORY)
    if size <= SMALLEST:
        size = SMALL_POOL_SIZE
    size = (size + UNIT - 1) & ~(UNIT - 1)
    block = k.sysmem.alloc_block(pid, f"vpl {name}", size=size, high=bool(attr & ATTR_HIGH_MEMORY))
    if block is None:
        return codes.signed(codes.NO_MEMORY)
    vpl = Vpl(object_name(name), attr, size, block.addr)
    vpl.block = block
    _pool(k, vpl).format(size)
    vpl.uid = k.new_uid(vpl)
    return vpl.uid


def _serve_waiters(k, vpl) -> None:
    """Freed memory goes to the waiters in order; a FIFO queue stops at the first that does not fit."""
    pool = _pool(k, vpl)
    for t in vpl.ordered_waiters():
        nbytes, out = t.wait.data
        addr = pool.allocate(nbytes)
        if addr is None:
            if not vpl.attr & ATTR_ORDER:
                break
            continue
        k.memory.write_u32(out, addr)
        k.threads.wake(t, 0)


def _allocate(k, uid, nbytes, out, timeout, cb, try_only=False):
    refused = None if try_only else threads.wait_refused(k)  # before any other check (measured: intr/waits)
    if refused is not None:
        return refused
    vpl = k.get(uid, Vpl)
    if vpl is None:
        return codes.signed(codes.NOT_FOUND_VPL)
    if nbytes == 0 or nbytes > vpl.pool_size:
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    queued = bool(vpl.waiters) and not vpl.attr & ATTR_ORDER and not try_only  # FIFO: no overtaking
    addr = None if queued else _pool(k, vpl).allocate(nbytes)
    if addr is not None:
        k.memory.write_u32(out, addr)
        return done_now(k, 0, cb)
    if try_only:
        return codes.signed(codes.NO_MEMORY)
    if timeout and k.memory.read_u32(timeout) == 0:
        return codes.signed(codes.WAIT_TIMEOUT)
    wait_on(k, vpl, "vpl", timeout, cb, data=(nbytes, out))
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelAllocateVpl(k, uid: int, nbytes: U32, out: Ptr, timeout: Ptr) -> Raw:
    finish_wait_call(k, _allocate(k, uid, nbytes, out, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelAllocateVplCB(k, uid: int, nbytes: U32, out: Ptr, timeout: Ptr) -> Raw:
    finish_wait_call(k, _allocate(k, uid, nbytes, out, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelTryAllocateVpl(k, uid: int, nbytes: U32, out: Ptr) -> int:
    return _allocate(k, uid, nbytes, out, 0, False, try_only=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelFreeVpl(k, uid: int, addr: Ptr) -> int:
    if addr and not k.memory.is_valid(addr, 4):
        return codes.signed(codes.ILLEGAL_ADDR)
    vpl = k.get(uid, Vpl)
    if vpl is None:
        return codes.signed(codes.NOT_FOUND_VPL)
    if not _pool(k, vpl).free(addr):
        return codes.signed(codes.ILLEGAL_MEMBLOCK)
    _serve_waiters(k, vpl)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteVpl(k, uid: int) -> int:
    return delete_pool(k, k.get(uid, Vpl), codes.NOT_FOUND_VPL)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelVpl(k, uid: int, num_wait: Ptr) -> int:
    vpl = k.get(uid, Vpl)
    return codes.signed(codes.NOT_FOUND_VPL) if vpl is None else cancel_waits(k, vpl, num_wait)


@hle(LIB)
def sceKernelReferVplStatus(k, uid: int, info: Ptr) -> int:
    vpl = k.get(uid, Vpl)
    if vpl is None:
        return codes.signed(codes.NOT_FOUND_VPL)
    free = _pool(k, vpl).free_bytes(vpl.size)
    write_status(k, info, status_block(STATUS_SIZE, vpl.name, [vpl.attr, vpl.pool_size, free, len(vpl.waiters)]))
    return 0
