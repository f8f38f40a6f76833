"""Thread synchronisation objects of ThreadManForUser (and Kernel_Library's lightweight
mutex): semaphores, event flags, mutexes, lightweight mutexes, message boxes.

Every object keeps its waiting threads in arrival order; objects created with the
priority attribute (0x100) wake the highest-priority waiter first.
"""

from allegrex.cpu.state import V0
from allegrex.hle import codes, costs
from allegrex.hle.objects import KernelObject, object_name, status_block, write_status
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle
from allegrex.hle.threads import Wait, Thread, cannot_wait, done_now, finish_wait_call as _finish, wait_refused

ATTR_PRIORITY = 0x100
LIB = "ThreadManForUser"


class SyncObject(KernelObject):
    """An object threads wait on, in a queue of its own."""
    kind = "object"

    def __init__(self, name, attr):
        self.uid = 0
        self.name = name
        self.attr = attr
        self.waiters: list[Thread] = []

    def ordered_waiters(self) -> list:
        if self.attr & ATTR_PRIORITY:
            return sorted(self.waiters, key=lambda t: t.priority)  # stable: FIFO within a priority
        return list(self.waiters)

    def forget_waiter(self, thread) -> None:
        if thread in self.waiters:
            self.waiters.remove(thread)


def wait_on(k, obj, kind, timeout_ptr, cb, data=None, provisional=0) -> None:
    """Block the current thread on a waitable object (sema, flag, mutex, pool...):
    v0 holds `provisional` until the wait ends and sets the real result."""
    k.cpu.regs[V0] = provisional & 0xFFFFFFFF
    wait = Wait(kind, obj=obj, cb=cb, timeout_ptr=timeout_ptr, data=data)
    k.threads.block(wait)  # first: inside an interrupt it refuses, and no waiter is recorded
    obj.waiters.append(k.threads.current)


def _delete(k, obj) -> None:
    for t in obj.ordered_waiters():
        k.threads.wake(t, codes.signed(codes.WAIT_DELETE))
    k.free_uid(obj.uid)


def _cancel(k, obj) -> int:
    n = len(obj.waiters)
    for t in obj.ordered_waiters():
        k.threads.wake(t, codes.signed(codes.WAIT_CANCELLED))
    return n


# ------------------------------------------------------------------ semaphores
class Semaphore(SyncObject):
    kind = "sema"
    threadman_type = 2

    def __init__(self, name, attr, init, maximum):
        super().__init__(name, attr)
        self.init = init
        self.count = init
        self.max = maximum

    def serve_waiters(self, k) -> None:
        _sema_wake(k, self)


def _sema(k, uid):
    return k.get(uid, Semaphore)


def _sema_wake(k, sema) -> None:
    for t in sema.ordered_waiters():
        if t.wait is None or t.wait.obj is not sema:
            continue
        need = t.wait.data
        if need <= sema.count:
            sema.count -= need
            k.threads.wake(t, 0)
        elif not sema.attr & ATTR_PRIORITY:
            break  # FIFO: later waiters do not overtake the first


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateSema(k, name: CStr, attr: U32, init: int, maximum: int, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if attr & ~0x1FF:
        return codes.signed(codes.ILLEGAL_ATTR)
    sema = Semaphore(object_name(name), attr, init, maximum)
    sema.uid = k.new_uid(sema)
    return sema.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteSema(k, uid: int) -> int:
    sema = _sema(k, uid)
    if sema is None:
        return codes.signed(codes.NOT_FOUND_SEMAPHORE)
    _delete(k, sema)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelSignalSema(k, uid: int, signal: int) -> int:
    sema = _sema(k, uid)
    if sema is None:
        return codes.signed(codes.NOT_FOUND_SEMAPHORE)
    if sema.count + signal - sum(t.wait.data for t in sema.waiters) > sema.max:
        return codes.signed(codes.SEMA_OVERFLOW)
    sema.count += signal
    _sema_wake(k, sema)
    return 0


def _wait_sema(k, uid, need, timeout, cb):
    refused = wait_refused(k)
    if refused is not None:
        return refused
    sema = _sema(k, uid)
    if sema is None:
        return codes.signed(codes.NOT_FOUND_SEMAPHORE)
    if need <= 0 or need > sema.max:
        return codes.signed(codes.ILLEGAL_COUNT)
    if sema.count >= need and not sema.waiters:
        sema.count -= need
        return done_now(k, 0, cb)
    wait_on(k, sema, "sema", timeout, cb, data=need)
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelWaitSema(k, uid: int, need: int, timeout: Ptr) -> Raw:
    _finish(k, _wait_sema(k, uid, need, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelWaitSemaCB(k, uid: int, need: int, timeout: Ptr) -> Raw:
    _finish(k, _wait_sema(k, uid, need, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelPollSema(k, uid: int, need: int) -> int:
    if need <= 0:
        return codes.signed(codes.ILLEGAL_COUNT)
    sema = _sema(k, uid)
    if sema is None:
        return codes.signed(codes.NOT_FOUND_SEMAPHORE)
    if sema.count >= need and not sema.waiters:
        sema.count -= need
        return 0
    return codes.signed(codes.SEMA_ZERO)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelSema(k, uid: int, count: int, num_wait: Ptr) -> int:
    sema = _sema(k, uid)
    if sema is None:
        return codes.signed(codes.NOT_FOUND_SEMAPHORE)
    if count > sema.max:
        return codes.signed(codes.ILLEGAL_COUNT)
    if num_wait:
        k.memory.write_u32(num_wait, len(sema.waiters))
    _cancel(k, sema)
    sema.count = sema.init if count < 0 else count
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelReferSemaStatus(k, uid: int, info: Ptr) -> int:
    sema = _sema(k, uid)
    if sema is None:
        return codes.signed(codes.NOT_FOUND_SEMAPHORE)
    write_status(k, info, status_block(56, sema.name, [sema.attr, sema.init, sema.count, sema.max,
                                                          len(sema.waiters)]))
    return 0


# ------------------------------------------------------------------ event flags
class EventFlag(SyncObject):
    kind = "eventflag"
    threadman_type = 3
    WAIT_MULTIPLE = 0x200

    def __init__(self, name, attr, bits):
        super().__init__(name, attr)
        self.init = bits
        self.bits = bits

    def wait_ended(self, k, wait, result: int) -> None:
        """A wait that ends without a match (timeout, delete, cancel, release) still
        reports the flag's bits (measured: threads/events)."""
        if result != 0 and wait.data[2]:
            k.memory.write_u32(wait.data[2], self.bits)


WAIT_AND, WAIT_OR, WAIT_CLEAR_ALL, WAIT_CLEAR = 0, 1, 0x10, 0x20  # CLEAR clears the bits waited for
WAIT_MODES = WAIT_OR | WAIT_CLEAR_ALL | WAIT_CLEAR


def _flag_matches(bits, pattern, mode) -> bool:
    if mode & WAIT_OR:
        return bits & pattern != 0
    return bits & pattern == pattern


def _flag_take(k, flag, pattern, mode, out) -> bool:
    """On a match: the bits to `out` (before clearing), then the clearing the mode asks for."""
    if not _flag_matches(flag.bits, pattern, mode):
        return False
    if out:
        k.memory.write_u32(out, flag.bits)
    if mode & WAIT_CLEAR:
        flag.bits &= ~pattern
    if mode & WAIT_CLEAR_ALL:
        flag.bits = 0
    return True


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateEventFlag(k, name: CStr, attr: U32, bits: U32, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if attr & 0x100 or attr >= 0x300:
        return codes.signed(codes.ILLEGAL_ATTR)
    flag = EventFlag(object_name(name), attr, bits)
    flag.uid = k.new_uid(flag)
    return flag.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteEventFlag(k, uid: int) -> int:
    flag = k.get(uid, EventFlag)
    if flag is None:
        return codes.signed(codes.NOT_FOUND_EVENT_FLAG)
    _delete(k, flag)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelSetEventFlag(k, uid: int, bits: U32) -> int:
    flag = k.get(uid, EventFlag)
    if flag is None:
        return codes.signed(codes.NOT_FOUND_EVENT_FLAG)
    flag.bits |= bits
    for t in flag.ordered_waiters():
        pattern, mode, out = t.wait.data
        if _flag_take(k, flag, pattern, mode, out):
            k.threads.wake(t, 0)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelClearEventFlag(k, uid: int, bits: U32) -> int:
    flag = k.get(uid, EventFlag)
    if flag is None:
        return codes.signed(codes.NOT_FOUND_EVENT_FLAG)
    flag.bits &= bits
    return 0


def _wait_flag(k, uid, pattern, mode, out, timeout, cb, poll=False):
    # checked in the firmware's order (measured: threads/events/poll, wait; intr/waits)
    if not poll and k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if mode & ~WAIT_MODES or (poll and mode & WAIT_CLEAR and mode & WAIT_CLEAR_ALL):
        return codes.signed(codes.ILLEGAL_MODE)
    if pattern == 0:
        return codes.signed(codes.EVENT_FLAG_ILLEGAL_WAIT_PATTERN)
    if not poll and cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    flag = k.get(uid, EventFlag)
    if flag is None:
        return codes.signed(codes.NOT_FOUND_EVENT_FLAG)
    if _flag_take(k, flag, pattern, mode, out):
        return done_now(k, 0, cb)
    if poll and out:
        k.memory.write_u32(out, flag.bits)
    if flag.waiters and not flag.attr & EventFlag.WAIT_MULTIPLE:
        return codes.signed(codes.EVENT_FLAG_NO_MULTI_PERM)
    if poll:
        return codes.signed(codes.EVENT_FLAG_POLL_FAILED)
    if timeout and k.memory.read_u32(timeout) == 0:
        out = 0  # a zero timeout leaves the bits unreported (measured by PPSSPP's authors)
    wait_on(k, flag, "eventflag", timeout, cb, data=(pattern, mode, out))
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelWaitEventFlag(k, uid: int, pattern: U32, mode: U32, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _wait_flag(k, uid, pattern, mode, out, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelWaitEventFlagCB(k, uid: int, pattern: U32, mode: U32, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _wait_flag(k, uid, pattern, mode, out, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelPollEventFlag(k, uid: int, pattern: U32, mode: U32, out: Ptr) -> int:
    return _wait_flag(k, uid, pattern, mode, out, 0, False, poll=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelEventFlag(k, uid: int, bits: U32, num_wait: Ptr) -> int:
    flag = k.get(uid, EventFlag)
    if flag is None:
        return codes.signed(codes.NOT_FOUND_EVENT_FLAG)
    if num_wait:
        k.memory.write_u32(num_wait, len(flag.waiters))
    flag.bits = bits  # set first: the cancelled waiters report the new bits
    _cancel(k, flag)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelReferEventFlagStatus(k, uid: int, info: Ptr) -> int:
    flag = k.get(uid, EventFlag)
    if flag is None:
        return codes.signed(codes.NOT_FOUND_EVENT_FLAG)
    write_status(k, info, status_block(52, flag.name, [flag.attr, flag.init, flag.bits, len(flag.waiters)]))
    return 0


# ------------------------------------------------------------------ mutexes
class Mutex(SyncObject):
    kind = "mutex"
    threadman_type = 12
    ATTR_RECURSIVE = 0x200

    def __init__(self, name, attr, count):
        super().__init__(name, attr)
        self.init = count
        self.count = 0
        self.owner = None

    def serve_waiters(self, k) -> None:
        _mutex_hand_over(k, self)

    def release_thread(self, k, thread) -> None:
        """A thread that ends releases the mutexes it holds."""
        if self.owner is thread:
            self.count = 0
            self.owner = None
            _mutex_hand_over(k, self)


def _mutex_hand_over(k, mutex) -> None:
    waiters = mutex.ordered_waiters()
    if mutex.count == 0 and waiters:
        t = waiters[0]
        mutex.owner = t
        mutex.count = t.wait.data
        k.threads.wake(t, 0)


def _lock(k, mutex, count, timeout, cb, try_only, errors) -> int | None:
    locked, overflow, recursive = errors
    cur = k.threads.current
    if count <= 0:
        return codes.signed(codes.ILLEGAL_COUNT)
    if count > 1 and not mutex.attr & Mutex.ATTR_RECURSIVE:
        return codes.signed(codes.ILLEGAL_COUNT)
    if count + mutex.count > INT_MAX:
        return codes.signed(overflow)
    if mutex.count == 0:
        mutex.owner = cur
        mutex.count = count
        return done_now(k, 0, cb)
    if mutex.owner is cur:
        if not mutex.attr & Mutex.ATTR_RECURSIVE:
            return codes.signed(recursive)
        mutex.count += count
        return done_now(k, 0, cb)
    if try_only:
        return codes.signed(locked)
    wait_on(k, mutex, mutex.kind, timeout, cb, data=count)
    return None


def _unlock(k, mutex, count, errors) -> int:
    unlocked, underflow = errors
    if count <= 0 or (count > 1 and not mutex.attr & Mutex.ATTR_RECURSIVE):
        return codes.signed(codes.ILLEGAL_COUNT)
    if mutex.count == 0 or mutex.owner is not k.threads.current:
        return codes.signed(unlocked)
    if mutex.count < count:
        return codes.signed(underflow)
    mutex.count -= count
    if mutex.count == 0:
        mutex.owner = None
        _mutex_hand_over(k, mutex)
    return 0


INT_MAX = 0x7FFFFFFF  # lock counts are signed: more would overflow
MUTEX_LOCK_ERRORS = (codes.MUTEX_LOCKED, codes.MUTEX_LOCK_OVERFLOW, codes.MUTEX_RECURSIVE_NOT_ALLOWED)
MUTEX_UNLOCK_ERRORS = (codes.MUTEX_UNLOCKED, codes.MUTEX_UNLOCK_UNDERFLOW)


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateMutex(k, name: CStr, attr: U32, count: int, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if attr & ~0xBFF:
        return codes.signed(codes.ILLEGAL_ATTR)
    if count < 0 or (count > 1 and not attr & Mutex.ATTR_RECURSIVE):
        return codes.signed(codes.ILLEGAL_COUNT)
    mutex = Mutex(object_name(name), attr, count)
    mutex.uid = k.new_uid(mutex)
    if count > 0:
        mutex.owner = k.threads.current
        mutex.count = count
    return mutex.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteMutex(k, uid: int) -> int:
    mutex = k.get(uid, Mutex)
    if mutex is None:
        return codes.signed(codes.MUTEX_NOT_FOUND)
    _delete(k, mutex)
    return 0


def _lock_mutex(k, uid, count, timeout, cb, try_only=False):
    refused = None if try_only else wait_refused(k)
    if refused is not None:
        return refused
    mutex = k.get(uid, Mutex)
    if mutex is None:
        return codes.signed(codes.MUTEX_NOT_FOUND)
    return _lock(k, mutex, count, timeout, cb, try_only, MUTEX_LOCK_ERRORS)


@hle(LIB, cost=costs.SYNC)
def sceKernelLockMutex(k, uid: int, count: int, timeout: Ptr) -> Raw:
    _finish(k, _lock_mutex(k, uid, count, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelLockMutexCB(k, uid: int, count: int, timeout: Ptr) -> Raw:
    _finish(k, _lock_mutex(k, uid, count, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelTryLockMutex(k, uid: int, count: int) -> int:
    return _lock_mutex(k, uid, count, 0, False, try_only=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelUnlockMutex(k, uid: int, count: int) -> int:
    mutex = k.get(uid, Mutex)
    if mutex is None:
        return codes.signed(codes.MUTEX_NOT_FOUND)
    return _unlock(k, mutex, count, MUTEX_UNLOCK_ERRORS)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelMutex(k, uid: int, count: int, num_wait: Ptr) -> int:
    mutex = k.get(uid, Mutex)
    if mutex is None:
        return codes.signed(codes.MUTEX_NOT_FOUND)
    if count > 1 and not mutex.attr & Mutex.ATTR_RECURSIVE:
        return codes.signed(codes.ILLEGAL_COUNT)
    if num_wait:
        k.memory.write_u32(num_wait, len(mutex.waiters))
    _cancel(k, mutex)
    mutex.count = max(count, 0)
    mutex.owner = k.threads.current if count > 0 else None
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelReferMutexStatus(k, uid: int, info: Ptr) -> int:
    mutex = k.get(uid, Mutex)
    if mutex is None:
        return codes.signed(codes.MUTEX_NOT_FOUND)
    owner = mutex.owner.uid if mutex.owner else -1
    write_status(k, info, status_block(56, mutex.name, [mutex.attr, mutex.init, mutex.count, owner,
                                                           len(mutex.waiters)]))
    return 0


# ------------------------------------------------------------------ lightweight mutexes
# The lock state lives in the guest's work area, which the user-side library reads and
# writes itself (programs may even fill one in by hand): count, owner thread uid, attr,
# number of waiters, kernel uid, three pad words. The kernel object only queues waiters.
class LwMutex(SyncObject):
    kind = "lwmutex"
    threadman_type = 13

    def __init__(self, name, attr, count, workarea):
        super().__init__(name, attr)
        self.init = count
        self.workarea = workarea

    def serve_waiters(self, k) -> None:
        _lw_hand_over(k, self)


LW_COUNT, LW_THREAD, LW_ATTR, LW_WAITERS, LW_UID = 0, 4, 8, 12, 16
LW_SIZE = 32
INT_MAX = 0x7FFFFFFF


class Workarea:
    def __init__(self, k, addr):
        self.k, self.addr = k, addr

    def __getitem__(self, offset):
        return self.k.memory.read_s32(self.addr + offset)

    def __setitem__(self, offset, value):
        self.k.memory.write_u32(self.addr + offset, value)


def _workarea(k, addr):
    """The work area, or the PSP error for an address the kernel cannot touch."""
    if not addr or not k.memory.is_valid(addr, LW_SIZE):
        return None
    return Workarea(k, addr)


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateLwMutex(k, workarea: Ptr, name: CStr, attr: U32, count: int, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if attr & ~0x3FF:
        return codes.signed(codes.ILLEGAL_ATTR)
    if count < 0 or (count > 1 and not attr & Mutex.ATTR_RECURSIVE):
        return codes.signed(codes.ILLEGAL_COUNT)
    w = _workarea(k, workarea)
    if w is None:
        return codes.signed(codes.ILLEGAL_ADDR)
    lw = LwMutex(object_name(name), attr, count, workarea)
    lw.uid = k.new_uid(lw)
    w[LW_COUNT] = count
    w[LW_THREAD] = k.threads.current.uid if count > 0 else 0
    w[LW_ATTR] = attr
    w[LW_WAITERS] = 0
    w[LW_UID] = lw.uid
    k.memory.write(workarea + 20, bytes(12))
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteLwMutex(k, workarea: Ptr) -> int:
    w = _workarea(k, workarea)
    if w is None:
        return codes.signed(codes.ILLEGAL_ADDR)
    lw = k.get(w[LW_UID] & 0xFFFFFFFF, LwMutex)
    if lw is None:
        return codes.signed(codes.LWMUTEX_NOT_FOUND)
    _delete(k, lw)  # the work area keeps the dead uid: later calls answer "not found"
    return 0


def _dead(k, w) -> bool:
    """A work area naming a kernel object that no longer exists (uid 0: a hand-made one)."""
    uid = w[LW_UID] & 0xFFFFFFFF
    return uid != 0 and k.get(uid, LwMutex) is None


def _lw_lock(k, workarea, count, timeout, cb, try_errors=None):
    """try_errors: (locked code) for the Try forms, None to wait."""
    refused = wait_refused(k) if try_errors is None else None
    if refused is not None:
        return refused
    if count <= 0:
        return codes.signed(codes.ILLEGAL_COUNT)
    w = _workarea(k, workarea)
    if w is None:
        return codes.signed(codes.ILLEGAL_ADDR)
    if _dead(k, w):
        return codes.signed(codes.LWMUTEX_NOT_FOUND)
    attr = w[LW_ATTR]
    if count > 1 and not attr & Mutex.ATTR_RECURSIVE:
        return codes.signed(codes.ILLEGAL_COUNT)
    me = k.threads.current.uid
    held = w[LW_COUNT]
    if held == 0:
        w[LW_COUNT] = count
        w[LW_THREAD] = me
        return 0
    if w[LW_THREAD] == me:
        if not attr & Mutex.ATTR_RECURSIVE:
            return codes.signed(codes.LWMUTEX_RECURSIVE_NOT_ALLOWED)
        if held + count > INT_MAX:
            return codes.signed(codes.LWMUTEX_LOCK_OVERFLOW)
        w[LW_COUNT] = held + count
        return 0
    if try_errors is not None:
        return codes.signed(try_errors)
    lw = k.get(w[LW_UID] & 0xFFFFFFFF, LwMutex)
    if lw is None:
        return codes.signed(codes.LWMUTEX_NOT_FOUND)
    wait_on(k, lw, "lwmutex", timeout, cb, data=count)
    w[LW_WAITERS] = len(lw.waiters)
    return None


def _lw_hand_over(k, lw) -> None:
    """The lock was released: the first waiter takes it (runs when its wait ends)."""
    w = _workarea(k, lw.workarea)
    if w is None or w[LW_COUNT] != 0:
        return
    for t in lw.ordered_waiters():
        w[LW_COUNT] = t.wait.data
        w[LW_THREAD] = t.uid
        k.threads.wake(t, 0)
        break
    w[LW_WAITERS] = len(lw.waiters)


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelLockLwMutex(k, workarea: Ptr, count: int, timeout: Ptr) -> Raw:
    _finish(k, _lw_lock(k, workarea, count, timeout, False))


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelLockLwMutexCB(k, workarea: Ptr, count: int, timeout: Ptr) -> Raw:
    _finish(k, _lw_lock(k, workarea, count, timeout, True))


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelTryLockLwMutex(k, workarea: Ptr, count: int) -> int:
    r = _lw_lock(k, workarea, count, 0, False, try_errors=codes.MUTEX_LOCKED)
    return codes.signed(codes.MUTEX_LOCKED) if r < 0 else r  # the pre-6.00 call has one failure code


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelTryLockLwMutex_600(k, workarea: Ptr, count: int) -> int:
    return _lw_lock(k, workarea, count, 0, False, try_errors=codes.LWMUTEX_LOCKED)


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelUnlockLwMutex(k, workarea: Ptr, count: int) -> int:
    if count <= 0:
        return codes.signed(codes.ILLEGAL_COUNT)
    w = _workarea(k, workarea)
    if w is None:
        return codes.signed(codes.ILLEGAL_ADDR)
    if _dead(k, w):
        return codes.signed(codes.LWMUTEX_NOT_FOUND)
    if count > 1 and not w[LW_ATTR] & Mutex.ATTR_RECURSIVE:
        return codes.signed(codes.ILLEGAL_COUNT)
    held = w[LW_COUNT]
    if held == 0 or w[LW_THREAD] != k.threads.current.uid:
        return codes.signed(codes.LWMUTEX_UNLOCKED)
    if held < count:
        return codes.signed(codes.LWMUTEX_UNLOCK_UNDERFLOW)
    w[LW_COUNT] = held - count
    if held == count:
        w[LW_THREAD] = 0
        lw = k.get(w[LW_UID] & 0xFFFFFFFF, LwMutex)
        if lw is not None:
            _lw_hand_over(k, lw)
    return 0


@hle("Kernel_Library", cost=costs.SYNC)
def sceKernelReferLwMutexStatus(k, workarea: Ptr, info: Ptr) -> int:
    w = _workarea(k, workarea)
    if w is None:
        return codes.signed(codes.ILLEGAL_ADDR)
    lw = k.get(w[LW_UID] & 0xFFFFFFFF, LwMutex)
    if lw is None:
        return codes.signed(codes.LWMUTEX_NOT_FOUND)
    owner = w[LW_THREAD] if w[LW_COUNT] else -1
    write_status(k, info, status_block(64, lw.name, [w[LW_ATTR], lw.uid, workarea, lw.init, w[LW_COUNT], owner,
                                                        len(lw.waiters)]))
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelReferLwMutexStatusByID(k, uid: int, info: Ptr) -> int:
    lw = k.get(uid, LwMutex)
    if lw is None:
        return codes.signed(codes.LWMUTEX_NOT_FOUND)
    return sceKernelReferLwMutexStatus(k, lw.workarea, info)


# ------------------------------------------------------------------ message boxes
class Mbx(SyncObject):
    """Messages form a ring in guest memory through their first word; the box keeps the
    last one (tail) and a count, and the first message is whatever tail->next says then,
    as on the PSP (pspautotests threads/mbx rewrites the links and sees the firmware follow)."""
    kind = "mbx"
    threadman_type = 4

    def __init__(self, name, attr):
        super().__init__(name, attr)
        self.tail = 0
        self.count = 0

    def first(self, memory) -> int:
        return memory.read_u32(self.tail) if self.tail else 0


MBX_ATTR_MSG_PRIORITY = 0x400


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateMbx(k, name: CStr, attr: U32, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if attr & ~0x5FF:
        return codes.signed(codes.ILLEGAL_ATTR)
    mbx = Mbx(object_name(name), attr)
    mbx.uid = k.new_uid(mbx)
    return mbx.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteMbx(k, uid: int) -> int:
    mbx = k.get(uid, Mbx)
    if mbx is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_BOX)
    _delete(k, mbx)
    return 0


def _mbx_ring(k, mbx) -> list[int] | int:
    """The queued messages from the first, following the links `count` times; or the error
    a broken link gives (an invalid address)."""
    ring, msg = [], mbx.first(k.memory)
    for _ in range(mbx.count):
        if not msg or msg & 3 or not k.memory.is_valid(msg, 8):
            return codes.signed(codes.ILLEGAL_ADDR)
        ring.append(msg)
        msg = k.memory.read_u32(msg)
    return ring


def _mbx_insert(k, mbx, ring: list[int], msg: int) -> None:
    m = k.memory
    if not ring:
        m.write_u32(msg, msg)
        mbx.tail = msg
        return
    at = len(ring)
    if mbx.attr & MBX_ATTR_MSG_PRIORITY:  # before the first of a lower priority (higher number)
        at = next((i for i, other in enumerate(ring) if m.read_u8(other + 4) > m.read_u8(msg + 4)), at)
    before = ring[at - 1] if at else mbx.tail
    m.write_u32(msg, m.read_u32(before))
    m.write_u32(before, msg)
    if at == len(ring):
        mbx.tail = msg


@hle(LIB, cost=costs.SYNC)
def sceKernelSendMbx(k, uid: int, msg: Ptr) -> int:
    mbx = k.get(uid, Mbx)
    if mbx is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_BOX)
    waiters = mbx.ordered_waiters()
    if waiters and not mbx.count:
        t = waiters[0]
        k.memory.write_u32(t.wait.data, msg)
        k.threads.wake(t, 0)
        return 0
    ring = _mbx_ring(k, mbx)
    if isinstance(ring, int):
        return ring
    if msg in ring:
        return codes.signed(codes.MESSAGEBOX_DUPLICATE_MESSAGE)
    _mbx_insert(k, mbx, ring, msg)
    mbx.count += 1
    return 0


def _mbx_take(k, mbx) -> int:
    """Unlink the first message: its address, or a negative error (a ring the guest broke)."""
    first = mbx.first(k.memory)
    if not first or first & 3 or not k.memory.is_valid(first, 4):
        return codes.signed(codes.ILLEGAL_ADDR)
    if first == mbx.tail:
        if mbx.count > 1:
            return codes.signed(codes.MESSAGEBOX_DUPLICATE_MESSAGE)  # the ring is shorter than the count
        mbx.tail = 0
    else:
        k.memory.write_u32(mbx.tail, k.memory.read_u32(first))
    mbx.count -= 1
    return first


def _receive(k, uid, out, timeout, cb, poll=False):
    refused = None if poll else wait_refused(k)  # before the id check (measured: intr/waits)
    if refused is not None:
        return refused
    mbx = k.get(uid, Mbx)
    if mbx is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_BOX)
    if mbx.count:
        msg = _mbx_take(k, mbx)
        if msg < 0:
            return msg
        k.memory.write_u32(out, msg)
        return done_now(k, 0, cb)
    if poll:
        return codes.signed(codes.MESSAGEBOX_NO_MESSAGE)
    wait_on(k, mbx, "mbx", timeout, cb, data=out)
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelReceiveMbx(k, uid: int, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _receive(k, uid, out, timeout, False))


@hle(LIB, cost=costs.SYNC)
def sceKernelReceiveMbxCB(k, uid: int, out: Ptr, timeout: Ptr) -> Raw:
    _finish(k, _receive(k, uid, out, timeout, True))


@hle(LIB, cost=costs.SYNC)
def sceKernelPollMbx(k, uid: int, out: Ptr) -> int:
    return _receive(k, uid, out, 0, False, poll=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelReceiveMbx(k, uid: int, num_wait: Ptr) -> int:
    mbx = k.get(uid, Mbx)
    if mbx is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_BOX)
    if num_wait:
        k.memory.write_u32(num_wait, len(mbx.waiters))
    _cancel(k, mbx)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelReferMbxStatus(k, uid: int, info: Ptr) -> int:
    mbx = k.get(uid, Mbx)
    if mbx is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_BOX)
    write_status(k, info, status_block(52, mbx.name, [mbx.attr, len(mbx.waiters), mbx.count,
                                                         mbx.first(k.memory)]))
    return 0
