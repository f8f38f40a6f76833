"""Thread-local storage pools (TLSPL): a pool of `count` equal blocks; each thread that
asks gets one block of its own (cleared), keeps it until it frees it or ends, and waits
when every block is taken. sceKernelGetTlsAddr lives in Kernel_Library."""

from allegrex.cpu.state import V0
from allegrex.hle import codes, costs, threads
from allegrex.hle.objects import object_name, status_block, write_status
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle
from allegrex.hle.sync import SyncObject, wait_on
from allegrex.hle.pools import ATTR_HIGH_MEMORY, pool_stride
from allegrex.hle.threads import finish_wait_call

LIB = "ThreadManForUser"
ATTR_KNOWN = ATTR_HIGH_MEMORY | 0x100  # and 0x100: waiters by priority
STATUS_SIZE = 60
MAX_POOLS = 16  # the firmware has 16 pool slots
LAST_PARTITION = 6  # partitions 8 and 9 are not even considered for TLS pools


class Tlspl(SyncObject):
    kind = "tlspl"
    threadman_type = 14

    def __init__(self, name, attr, block_size, count, stride, base):
        super().__init__(name, attr)
        self.block_size = block_size
        self.count = count
        self.stride = stride
        self.base = base
        self.owners = [None] * count  # the thread holding each block
        self.next = 0  # blocks are handed out round robin: a freed block is not given straight back
        self.block = None
        self.index = 0  # the pool's slot among the live pools (the firmware has 16)

    def address(self, index: int) -> int:
        return self.base + index * self.stride

    def free_blocks(self) -> int:
        return self.owners.count(None)

    def release_thread(self, k, thread) -> None:
        """A thread that ends gives back its block."""
        if thread in self.owners:
            self.owners[self.owners.index(thread)] = None
            _hand_over(k, self)


@hle(LIB, cost=costs.ALLOC)
def sceKernelCreateTlspl(k, name: CStr, pid: int, attr: U32, block_size: U32, count: U32, option: Ptr) -> int:
    stride = pool_stride(k, name, pid, attr, ATTR_KNOWN, block_size, count, option, last_partition=LAST_PARTITION)
    if stride < 0:
        return stride
    taken = {o.index for o in k.objects.values() if isinstance(o, Tlspl)}
    free_slots = sorted(set(range(MAX_POOLS)) - taken)
    if not free_slots:
        return codes.signed(codes.TOO_MANY_TLSPL)
    block = k.sysmem.alloc_block(pid, f"tlspl {name}", size=stride * count, high=bool(attr & ATTR_HIGH_MEMORY))
    if block is None:
        return codes.signed(codes.NO_MEMORY)
    pool = Tlspl(object_name(name), attr, block_size, count, stride, block.addr)
    pool.block = block
    pool.index = free_slots[0]
    pool.uid = k.new_uid(pool)
    return pool.uid


def _give(k, pool, thread) -> int | None:
    """The thread's block (taking the next free one, cleared); None when none is free."""
    if thread in pool.owners:
        return pool.address(pool.owners.index(thread))
    for step in range(pool.count):
        index = (pool.next + step) % pool.count
        if pool.owners[index] is None:
            pool.owners[index] = thread
            pool.next = (index + 1) % pool.count
            k.memory.fill(pool.address(index), 0, pool.block_size)
            return pool.address(index)
    return None


def _find(k, uid: int):
    """The pool of a uid; the firmware also accepts any non-negative number whose bits 3-6
    name a pool slot (measured: threads/tls/get)."""
    pool = k.get(uid, Tlspl)
    if pool is None and uid >= 0:
        slot = (uid >> 3) & (MAX_POOLS - 1)
        pool = next((o for o in k.objects.values() if isinstance(o, Tlspl) and o.index == slot), None)
    return pool


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelGetTlsAddr(k, uid: int) -> Raw:
    pool = _find(k, uid)
    if pool is None or k.interrupts or threads.cannot_wait(k):  # measured: intr/waits
        k.cpu.regs[V0] = 0  # no pool, or no thread to own a block: the address reads 0
        return
    addr = _give(k, pool, k.threads.current)
    if addr is None:
        wait_on(k, pool, "tlspl", 0, False)
        return
    finish_wait_call(k, addr)


def _hand_over(k, pool) -> None:
    for t in pool.ordered_waiters():
        addr = _give(k, pool, t)
        if addr is None:
            break
        k.threads.wake(t, addr)


@hle(LIB, cost=costs.SYNC)
def sceKernelFreeTlspl(k, uid: int) -> int:
    pool = k.get(uid, Tlspl)
    if pool is None:
        return codes.signed(codes.NOT_FOUND_TLSPL)
    thread = k.threads.current
    if thread in pool.owners:
        index = pool.owners.index(thread)
        k.memory.fill(pool.address(index), 0, pool.block_size)  # measured: a freed block reads as zeros
        pool.owners[index] = None
        _hand_over(k, pool)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteTlspl(k, uid: int) -> int:
    pool = k.get(uid, Tlspl)
    if pool is None:
        return codes.signed(codes.NOT_FOUND_TLSPL)
    if any(owner is not None and owner is not k.threads.current for owner in pool.owners):
        return codes.signed(codes.TLSPL_IN_USE)
    for t in pool.ordered_waiters():  # measured: waiters get no block (address 0), not an error
        k.threads.wake(t, 0)
    k.free_uid(pool.uid)
    k.sysmem.free_block(pool.block)
    return 0


@hle(LIB)
def sceKernelReferTlsplStatus(k, uid: int, info: Ptr) -> int:
    pool = k.get(uid, Tlspl)
    if pool is None:
        return codes.signed(codes.NOT_FOUND_TLSPL)
    words = [pool.attr, pool.index, pool.block_size, pool.count, pool.free_blocks(), len(pool.waiters)]
    write_status(k, info, status_block(STATUS_SIZE, pool.name, words))
    return 0
