"""SysMemUserForUser: memory partitions and blocks, firmware/SDK version calls.

User partition (2) on a psp-1000: 0x08800000-0x0A000000 (24 MiB). A psp-2000/3000 in
large-memory mode (SFO MEMSIZE=1 or the program asks) extends it to 0x0C000000 (56 MiB).
Allocations are rounded to 256 bytes; "low" blocks come from the bottom, "high" from the top.
"""

from allegrex.errors import AllegrexError
from allegrex.hle import codes, costs
from allegrex.hle.objects import KernelObject
from allegrex.hle.registry import CStr, Ptr, U32, hle
from allegrex.memory import USER_START

USER_PARTITION = 2
VOLATILE_PARTITION = 5  # the 4 MiB below user memory the firmware lends out (scePowerVolatileMemLock)
VOLATILE_START, VOLATILE_SIZE = 0x08400000, 0x00400000
USER_SIZE = 0x01800000
USER_SIZE_LARGE = 0x03800000
KERNEL_PARTITION_START = 0x08000000
KERNEL_PARTITION_SIZE = 0x00300000
ALIGN = 0x100
USER_SYSTEM_SIZE = 0x4000
TYPE_LOW, TYPE_HIGH, TYPE_ADDR = 0, 1, 2
FIRMWARE_VERSION = 0x06060010  # 6.60, the firmware pspautotests' expected files come from
SDK_VERSION_NONE = 0


class Block(KernelObject):
    def __init__(self, partition, name, addr, size):
        self.uid = 0
        self.partition = partition
        self.name = name
        self.addr = addr
        self.size = size


class Partition:
    def __init__(self, pid, start, size):
        self.pid = pid
        self.start = start
        self.size = size
        self.blocks: list[Block] = []  # sorted by address

    @property
    def end(self):
        return self.start + self.size

    def gaps(self):
        pos = self.start
        for b in self.blocks:
            if b.addr > pos:
                yield pos, b.addr - pos
            pos = max(pos, b.addr + b.size)
        if self.end > pos:
            yield pos, self.end - pos

    def place(self, size, kind, addr=0, align=ALIGN):
        if kind == TYPE_LOW:
            for start, length in self.gaps():
                a = (start + align - 1) & ~(align - 1)
                if a + size <= start + length:
                    return a
        elif kind == TYPE_HIGH:
            for start, length in reversed(list(self.gaps())):
                a = (start + length - size) & ~(align - 1)
                if a >= start:
                    return a
        else:
            for start, length in self.gaps():
                if start <= addr and addr + size <= start + length:
                    return addr
        return None

    def insert(self, block):
        self.blocks.append(block)
        self.blocks.sort(key=lambda b: b.addr)


class SysMem:
    def __init__(self, kernel):
        self.k = kernel
        self.large = False
        self.partitions = {
            1: Partition(1, KERNEL_PARTITION_START + 0x10000, KERNEL_PARTITION_SIZE - 0x10000),
            USER_PARTITION: Partition(USER_PARTITION, USER_START, USER_SIZE),
            VOLATILE_PARTITION: Partition(VOLATILE_PARTITION, VOLATILE_START, VOLATILE_SIZE),
        }

    def enable_large_memory(self) -> bool:
        """Grow the user partition to 56 MiB (only models with 64 MiB of RAM)."""
        if self.k.memory.ram_size < 64 * 1024 * 1024:
            return False
        self.large = True
        self.partitions[USER_PARTITION].size = USER_SIZE_LARGE
        return True

    def reserve(self, addr, size, name) -> Block:
        """Mark a fixed range (the loaded program) as used."""
        part = self.partitions[USER_PARTITION]
        start = addr & ~(ALIGN - 1)
        end = (addr + size + ALIGN - 1) & ~(ALIGN - 1)
        if part.place(end - start, TYPE_ADDR, start) is None:
            raise AllegrexError(f"the program's memory 0x{addr:08x}+0x{size:x} is outside the user partition")
        block = Block(part.pid, name, start, end - start)
        part.insert(block)
        block.uid = self.k.new_uid(block)
        return block

    def reserve_system_area(self) -> None:
        """The firmware's user-mode library (Kernel_Library) occupies the first 16 KiB of the
        user partition; programs load and allocate above it. Skipped if the program sits there."""
        part = self.partitions[USER_PARTITION]
        if part.place(USER_SYSTEM_SIZE, TYPE_ADDR, part.start) is not None:
            self.reserve(part.start, USER_SYSTEM_SIZE, "usersystemlib")

    def alloc_block(self, pid, name, high=False, size=0, kind=None, addr=0, align=ALIGN):
        part = self.partitions.get(USER_PARTITION if pid == 6 else pid)  # 6 aliases the user partition
        if part is None:
            return None
        size = (size + ALIGN - 1) & ~(ALIGN - 1)
        kind = kind if kind is not None else (TYPE_HIGH if high else TYPE_LOW)
        where = part.place(size, kind, addr, align)
        if where is None:
            return None
        block = Block(part.pid, name, where, size)
        part.insert(block)
        block.uid = self.k.new_uid(block)
        return block

    def free_block(self, block) -> None:
        part = self.partitions[block.partition]
        if block in part.blocks:
            part.blocks.remove(block)
        self.k.free_uid(block.uid)

    def max_free(self, pid=USER_PARTITION) -> int:
        return max((length for _, length in self.partitions[pid].gaps()), default=0)

    def total_free(self, pid=USER_PARTITION) -> int:
        return sum(length for _, length in self.partitions[pid].gaps())


LIB = "SysMemUserForUser"


TYPE_LOW_ALIGNED, TYPE_HIGH_ALIGNED = 3, 4  # addr holds the alignment
USER_ALIASES = (2, 5, 6)  # partitions a user program may allocate from (6 shares the user memory here)
KERNEL_ONLY = (1, 3, 4)


def pool_partition_error(pid: int, last: int = 9) -> int | None:
    """Why a thread-manager pool may not come from partition `pid`, or None: no such partition
    (above `last`: 9 for most pools, 6 for TLS pools) or a kernel one (measured in
    pspautotests threads/fpl/create and threads/tls/create)."""
    if not 1 <= pid <= last or pid == 7:
        return codes.signed(codes.ILLEGAL_ARGUMENT)
    if pid not in USER_ALIASES:
        return codes.signed(codes.ILLEGAL_PERM)
    return None


@hle(LIB, cost=costs.ALLOC)
def sceKernelAllocPartitionMemory(k, pid: int, name: CStr, kind: int, size: U32, addr: Ptr) -> int:
    if not 0 <= kind <= TYPE_HIGH_ALIGNED:  # checked first (measured: sysmem/volatile "Multi-error")
        return codes.signed(codes.ILLEGAL_MEMBLOCK_ALLOC_TYPE)
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if pid in KERNEL_ONLY:
        return codes.signed(codes.ILLEGAL_PARTITION)
    if pid not in USER_ALIASES:
        return codes.signed(codes.ILLEGAL_ARGUMENT)
    align = ALIGN
    if kind in (TYPE_LOW_ALIGNED, TYPE_HIGH_ALIGNED):
        if addr == 0 or addr & (addr - 1):
            return codes.signed(codes.ILLEGAL_ALIGNMENT_SIZE)
        align = max(addr, ALIGN)
        kind = TYPE_LOW if kind == TYPE_LOW_ALIGNED else TYPE_HIGH
    if size == 0 or size > 0x7FFFFFFF:
        return codes.signed(codes.FAILED_ALLOC_MEMBLOCK)
    if kind == TYPE_ADDR and addr == 0:
        return codes.signed(codes.FAILED_ALLOC_MEMBLOCK)
    block = k.sysmem.alloc_block(pid, name[:31], size=size, kind=kind, addr=addr & ~(ALIGN - 1), align=align)
    if block is None:
        return codes.signed(codes.FAILED_ALLOC_MEMBLOCK)
    return block.uid


@hle(LIB, cost=costs.ALLOC)
def sceKernelFreePartitionMemory(k, uid: int) -> int:
    block = k.get(uid, Block)
    if block is None:
        return codes.signed(codes.UNKNOWN_UID)
    k.sysmem.free_block(block)
    return 0


@hle(LIB)
def sceKernelGetBlockHeadAddr(k, uid: int) -> int:
    block = k.get(uid, Block)
    return 0 if block is None else block.addr  # the firmware answers 0 for an unknown block


@hle(LIB)
def sceKernelMaxFreeMemSize(k) -> int:
    return k.sysmem.max_free()


@hle(LIB)
def sceKernelTotalFreeMemSize(k) -> int:
    return k.sysmem.total_free()


@hle(LIB)
def sceKernelTotalMemSize(k) -> int:
    return k.sysmem.partitions[USER_PARTITION].size


@hle(LIB)
def sceKernelDevkitVersion(k) -> int:
    return FIRMWARE_VERSION


@hle(LIB)
def sceKernelPrintf(k, fmt: CStr) -> int:
    # Kprintf goes to the host's stderr (formatting of varargs is not reproduced)
    k.stderr.write(fmt or "")
    return 0


def _set_sdk(k, version) -> int:
    k.sdk_version = version & 0xFFFFFFFF
    return 0


@hle(LIB)
def sceKernelSetCompiledSdkVersion(k, version: U32) -> int:
    return _set_sdk(k, version)


for _suffix in ("370", "380_390", "395", "401_402", "500_505", "507", "600_602", "603_605", "606"):
    hle(LIB, name=f"sceKernelSetCompiledSdkVersion{_suffix}")(
        lambda k, version: _set_sdk(k, version))


@hle(LIB)
def sceKernelGetCompiledSdkVersion(k) -> int:
    return k.sdk_version


@hle(LIB)
def sceKernelSetCompilerVersion(k, version: U32) -> int:
    k.compiler_version = version
    return 0


@hle(LIB)
def sceKernelQueryMemoryInfo(k, addr: Ptr, partition_out: Ptr, block_out: Ptr) -> int:
    for part in k.sysmem.partitions.values():
        for b in part.blocks:
            if b.addr <= addr < b.addr + b.size:
                if partition_out:
                    k.memory.write_u32(partition_out, part.pid)
                if block_out:
                    k.memory.write_u32(block_out, b.uid)
                return 0
    return codes.signed(codes.ILLEGAL_ADDR)


@hle(LIB)
def sceKernelSetUsersystemLibWork(k, a: Ptr, b: U32, c: Ptr) -> int:
    return 0


@hle(LIB)
def sceKernelGetPTRIG(k) -> int:
    return 0


@hle(LIB)
def sceKernelSetPTRIG(k, value: int) -> int:
    return 0


@hle(LIB, cost=costs.ALLOC)
def sceKernelAllocMemoryBlock(k, name: CStr, kind: int, size: U32, params: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if params and k.memory.read_u32(params) != 4:  # the option block holds only its own size
        return codes.signed(codes.ILLEGAL_ARGUMENT)
    if kind not in (TYPE_LOW, TYPE_HIGH):
        return codes.signed(codes.ILLEGAL_MEMBLOCK_ALLOC_TYPE)
    if size == 0:
        return codes.signed(codes.FAILED_ALLOC_MEMBLOCK)
    block = k.sysmem.alloc_block(USER_PARTITION, name[:31], size=size, kind=kind)
    return codes.signed(codes.FAILED_ALLOC_MEMBLOCK) if block is None else block.uid


@hle(LIB, cost=costs.ALLOC)
def sceKernelFreeMemoryBlock(k, uid: int) -> int:
    return sceKernelFreePartitionMemory(k, uid)


@hle(LIB)
def sceKernelGetMemoryBlockPtr(k, uid: int, out: Ptr) -> int:
    block = k.get(uid, Block)
    if block is None:
        return 0  # measured: an unknown block answers 0 and writes nothing
    k.memory.write_u32(out, block.addr)
    return 0
