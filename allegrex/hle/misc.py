"""Small libraries: program exit (LoadExecForUser), caches and
interrupt masking (UtilsForUser, Kernel_Library), power locks (sceSuspendForUser).
The GE (sceGe_user) is allegrex/hle/ge.py."""

from allegrex.cpu.state import V0
from allegrex.hle import codes
from allegrex.hle.registry import Ptr, Raw, U32, hle, alias
from allegrex.hle.sync import SyncObject, wait_on
from allegrex.hle import threads
from allegrex.memory import KERNEL_START

# --- exit ---
LE = "LoadExecForUser"


@hle(LE)
def sceKernelExitGame(k) -> int:
    k.request_stop("exit", "the program called sceKernelExitGame", 0)
    return 0


@hle(LE)
def sceKernelExitGameWithStatus(k, status: int) -> int:
    k.request_stop("exit", f"the program called sceKernelExitGameWithStatus({status})", 0)
    return 0


SDK_CHECKS_EXIT_CALLBACK = 0x03090500  # programs built for 3.95 on get their callback id checked


@hle(LE)
def sceKernelRegisterExitCallback(k, cbid: int) -> int:
    if k.sdk_version >= SDK_CHECKS_EXIT_CALLBACK and k.get(cbid, threads.Callback) is None:
        return codes.signed(codes.ILLEGAL_ARGUMENT)
    k.threads.exit_callback = cbid  # notified only if the user asked to quit (never, headless)
    return 0


@hle(LE, name="LoadExecForUser_362A956B", nid=0x362A956B)
def exit_callback_acknowledge(k) -> int:
    """Unnamed firmware call (pspautotests threads/callbacks/exit): checks the block the exit
    callback's common argument points into - {state 0-3, params, common} with params =
    {size >= 12, ...} - and answers in params: word 1 = 0, word 2 = -1."""
    cb = k.get(k.threads.exit_callback, threads.Callback)
    if cb is None:
        return codes.signed(codes.NOT_FOUND_CALLBACK)
    block = (cb.common - 8) & 0xFFFFFFFF
    if not k.memory.is_valid(block, 8):
        return codes.signed(codes.ILLEGAL_ADDR)
    if k.memory.read_u32(block) >= 4:
        return codes.signed(codes.ILLEGAL_ARGUMENT)
    params = k.memory.read_u32(block + 4)
    if params & 3 or not k.memory.is_valid(params, 12):
        return codes.signed(codes.ILLEGAL_ADDR)
    if k.memory.read_u32(params) < 12:
        return codes.signed(codes.ILLEGAL_SIZE)
    k.memory.write_u32(params + 4, 0)
    k.memory.write_u32(params + 8, 0xFFFFFFFF)
    return 0


# --- caches: the simulator keeps no stale copies, so these only cost time ---
UT = "UtilsForUser"
for _name in ("sceKernelDcacheWritebackAll", "sceKernelDcacheWritebackInvalidateAll", "sceKernelIcacheInvalidateAll",
              "sceKernelDcacheInvalidateAll"):
    hle(UT, name=_name)(lambda k: 0)


def _range_op(k, addr: Ptr, size: int) -> int:
    return 0


def _writeback_range(k, addr: Ptr, size: int) -> int:
    return codes.signed(codes.INVALID_SIZE) if size < 0 else 0  # the address is not checked (misc/dcache)


CACHE_LINE = 64


def _invalidate_range(k, addr: Ptr, size: int) -> int:
    """Measured (misc/dcache): the range must stay below kernel space, and a non-empty one
    must cover whole 64-byte lines."""
    if size < 0 or addr + size > KERNEL_START:
        return codes.signed(codes.ILLEGAL_ADDR)
    if size and (addr | size) % CACHE_LINE:
        return codes.signed(codes.CACHE_ALIGNMENT)
    return 0


hle(UT, name="sceKernelDcacheWritebackRange")(_writeback_range)
hle(UT, name="sceKernelDcacheWritebackInvalidateRange")(_writeback_range)
hle(UT, name="sceKernelDcacheInvalidateRange")(_invalidate_range)
hle(UT, name="sceKernelIcacheInvalidateRange")(_range_op)
hle("UtilsForKernel", name="sceKernelIcacheInvalidateRange")(_range_op)


# --- interrupts: nothing interrupts HLE guest code, but the mask state is kept ---
KL = "Kernel_Library"


@hle(KL)
def sceKernelCpuSuspendIntr(k) -> int:
    was = k.intr_enabled
    k.set_interrupts(0)
    return was


@hle(KL)
def sceKernelCpuResumeIntr(k, flags: int) -> int:
    k.set_interrupts(1 if flags else 0)
    return 0


@hle(KL)
def sceKernelCpuResumeIntrWithSync(k, flags: int) -> int:
    k.set_interrupts(1 if flags else 0)
    return 0


@hle(KL)
def sceKernelIsCpuIntrSuspended(k, flags: int) -> int:
    return 1 if flags == 0 else 0


@hle(KL)
def sceKernelIsCpuIntrEnable(k) -> int:
    return k.intr_enabled


@hle(KL)
def sceKernelMemset(k, addr: Ptr, value: int, size: U32) -> int:
    if size:
        k.memory.fill(addr, value, size)
    return addr


@hle(KL)
def sce_paf_private_memcpy(k, dst: Ptr, src: Ptr, size: U32) -> int:
    if size:
        k.memory.write(dst, forward_copy(k.memory, dst, src, size))
    return dst


def forward_copy(memory, dst: int, src: int, size: int) -> bytes:
    """What a byte-by-byte forward copy leaves at dst: when dst overlaps the source ahead
    of it, the first dst-src bytes repeat (measured: misc/libc 'Overlapping')."""
    if src < dst < src + size:
        period = memory.read(src, dst - src)
        return (period * (size // len(period) + 1))[:size]
    return memory.read(src, size)


alias(KL, "sceKernelGetThreadId", threads.sceKernelGetThreadId)


# --- power locks ---
SU = "sceSuspendForUser"
hle(SU, name="sceKernelPowerTick")(lambda k, kind: 0)


def _power_lock(k, mode: int) -> int:
    return codes.signed(codes.INVALID_MODE) if mode != 0 else 0  # only mode 0 exists (power/power)


for _name in ("sceKernelPowerLock", "sceKernelPowerUnlock"):
    hle(SU, name=_name)(_power_lock)


alias(KL, "KL_sceKernelCheckThreadStack", threads.sceKernelCheckThreadStack, nid=0xD13BDE95)

VOLATILE_ADDR = 0x08400000
VOLATILE_SIZE = 0x00400000
NOT_LOCKED = codes.SEMA_OVERFLOW  # Unlock without a lock: the firmware's semaphore says overflow


class VolatileLock(SyncObject):
    """The 4 MiB of volatile memory, lent to one holder at a time; others wait in line.
    Measured in pspautotests power/volatile: only mode 0 is valid, a Lock that cannot wait
    still reports the memory, and TryLock works anywhere."""
    kind = "volatile"

    def __init__(self, kernel):
        super().__init__("volatile memory", 0)
        self.held = False


def _report_volatile(k, addr_out, size_out) -> None:
    if addr_out:
        k.memory.write_u32(addr_out, VOLATILE_ADDR)
    if size_out:
        k.memory.write_u32(size_out, VOLATILE_SIZE)


def _volatile_lock(k, mode: int, addr_out: Ptr, size_out: Ptr) -> Raw:
    if mode != 0:
        k.cpu.regs[V0] = codes.INVALID_MODE
        return
    _report_volatile(k, addr_out, size_out)
    if k.interrupts:
        k.cpu.regs[V0] = codes.ILLEGAL_CONTEXT
        return
    if threads.cannot_wait(k):
        k.cpu.regs[V0] = codes.WAIT_CAN_NOT_WAIT
        return
    lock = k.volatile_lock
    if not lock.held:
        lock.held = True
        k.cpu.regs[V0] = 0
        return
    wait_on(k, lock, lock.kind, 0, False, data=(addr_out, size_out))


def _volatile_try_lock(k, mode: int, addr_out: Ptr, size_out: Ptr) -> int:
    if mode != 0:
        return codes.signed(codes.INVALID_MODE)
    lock = k.volatile_lock
    if lock.held:
        return codes.signed(codes.VOLATILE_MEM_IN_USE)
    lock.held = True
    _report_volatile(k, addr_out, size_out)
    return 0


def _volatile_unlock(k, mode: int) -> int:
    if mode != 0:
        return codes.signed(codes.INVALID_MODE)
    lock = k.volatile_lock
    if not lock.held:
        return codes.signed(NOT_LOCKED)
    waiters = lock.ordered_waiters()
    if waiters:  # handed straight to the next in line
        _report_volatile(k, *waiters[0].wait.data)
        k.threads.wake(waiters[0], 0)
    else:
        lock.held = False
    return 0


for _lib, _prefix in ((SU, "sceKernelVolatileMem"), ("scePower", "scePowerVolatileMem")):
    hle(_lib, name=f"{_prefix}Lock")(_volatile_lock)
    hle(_lib, name=f"{_prefix}TryLock")(_volatile_try_lock)
    hle(_lib, name=f"{_prefix}Unlock")(_volatile_unlock)
