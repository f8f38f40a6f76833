"""The async forms of IoFileMgrForUser. An async call leaves its operation with the file for
the IO manager's thread, which runs after the caller at its priority: the operation is
carried out when the calling thread next waits, yields or ends, and completes after the
medium's time (measured: pspautotests threads/scheduling/dispatch polls an OpenAsync as pending
until it waits; intr/waits finds an LseekAsync still pending while it never waited).
Until the result is collected the file takes no other async call (ASYNC_BUSY).

Collecting: PollAsync and GetAsyncStat(poll) answer 1 while the operation is pending;
WaitAsync and GetAsyncStat(wait) wait for it, and refuse with dispatch or interrupts off
(CAN_NOT_WAIT) and inside an interrupt (ILLEGAL_CONTEXT). WaitAsyncCB with interrupts off
lets the IO thread run and returns the result (intr/waits: 0 for an LseekAsync, collected).
"""

from allegrex.cpu.state import V0
from allegrex.hle import codes, costs
from allegrex.hle.io import LIB, driver_us, sceIoIoctl
from allegrex.hle.registry import CStr, Ptr, Raw, S64, U32, hle, write64
from allegrex.hle.threads import Callback, Wait, cannot_wait

PENDING = 1  # what a poll answers while the operation has not completed


class AsyncOp:
    """One async operation of a file: `run()` carries it out and gives its result; `kind`
    says what the medium does for it ("read", "write", "close" or another request)."""

    def __init__(self, run, issuer, kind="request", closes=False):
        self.run, self.issuer, self.kind, self.closes = run, issuer, kind, closes
        self.started = False
        self.done = False
        self.result = 0


def _leaves_cpu(k, thread) -> None:
    """The IO thread gets the CPU after `thread`: it starts the operations `thread` issued."""
    for fd, f in list(k.io.files.items()):
        op = f.async_op
        if op is not None and not op.started and op.issuer is thread:
            _start(k, fd, f, op)


def _start(k, fd, f, op) -> None:
    op.started = True
    start = f.handle.tell() if f.kind == "file" else 0
    op.result = op.run()
    us = driver_us(f, op.kind, start, op.result)
    if us:
        k.threads.hold_cpu(k.now_us() + us)  # the driver copies on the CPU: an async transfer overlaps nothing
        k.timers.add(k.now_us() + us, lambda: _complete(k, fd, f, op))
    else:
        _complete(k, fd, f, op)


def _complete(k, fd, f, op) -> None:
    op.done = True
    for t in list(k.threads.threads):  # a thread waiting for it collects the result
        if t.wait is not None and t.wait.kind == "async-io" and t.wait.data[0] is f:
            _collect(k, fd, f, t.wait.data[1])
            k.threads.wake(t, 0)
            return
    if f.async_callback:
        cb = k.get(f.async_callback, Callback)
        if cb is not None:
            k.threads.notify(cb, 0)


def _collect(k, fd, f, res_ptr) -> int:
    op, f.async_op = f.async_op, None
    if res_ptr:
        write64(k.memory, res_ptr, op.result & 0xFFFFFFFFFFFFFFFF)
    if op.closes:
        if f.handle is not None:
            f.handle.close()
        k.io.files.pop(fd, None)
    return 0


def issue(k, fd, run, kind="request", closes=False) -> int:
    """Leave an operation with file `fd` for the IO thread."""
    f = k.io.files.get(fd)
    if f is None:
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    if f.async_op is not None:
        return codes.signed(codes.ASYNC_BUSY)
    if not f.async_thread:  # a file's first async call creates its IO thread, which resumes
        f.async_thread = True  # dispatch as sceKernelCreateThread does (threads/scheduling/dispatch)
        k.threads.set_dispatch(False)
    if not k.io.async_hooked:  # the IO thread follows every thread that leaves the CPU
        k.threads.add_leave_hook(lambda thread: _leaves_cpu(k, thread))
        k.io.async_hooked = True
    f.async_op = AsyncOp(run, k.threads.current, kind, closes)
    if k.threads.current is None:  # no thread to follow: the IO thread runs at once
        _start(k, fd, f, f.async_op)
    return 0


def _finish(k, fd, res_ptr, poll, may_wait=True, cb=False):
    f = k.io.files.get(fd)
    if f is None:
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    if may_wait and k.interrupts:  # even a peek through GetAsyncStat (measured: intr/waits)
        return codes.signed(codes.ILLEGAL_CONTEXT)
    op = f.async_op
    if op is None:
        return PENDING if poll else codes.signed(codes.NO_ASYNC_OP)
    if poll:
        return _collect(k, fd, f, res_ptr) if op.done else PENDING
    if cb and not k.intr_enabled and not k.threads.dispatch_suspended:
        if not op.started:  # the CB form lets the IO thread run even with interrupts off
            op.started, op.result = True, op.run()
        op.done = True
        return _collect(k, fd, f, res_ptr)
    if cannot_wait(k):  # even when it is done: like any call that may wait
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    if op.done:
        return _collect(k, fd, f, res_ptr)
    k.cpu.regs[V0] = 0
    k.threads.block(Wait("async-io", cb=cb, data=(f, res_ptr)))  # the IO thread runs meanwhile
    return None


@hle(LIB, cost=costs.IO)
def sceIoOpenAsync(k, path: CStr, flags: int, mode: int) -> int:
    fd = k.io.open(path, flags, mode)
    if fd >= 0:
        issue(k, fd, lambda: fd)  # the open's result comes through the async calls
    return fd


@hle(LIB, cost=costs.IO)
def sceIoCloseAsync(k, fd: int) -> int:
    return issue(k, fd, lambda: 0, "close", closes=True)


@hle(LIB, cost=costs.IO)
def sceIoReadAsync(k, fd: int, addr: Ptr, size: int) -> int:
    return issue(k, fd, lambda: k.io.read(fd, addr, size), "read")


@hle(LIB, cost=costs.IO)
def sceIoWriteAsync(k, fd: int, addr: Ptr, size: int) -> int:
    return issue(k, fd, lambda: k.io.write(fd, addr, size), "write")


@hle(LIB, cost=costs.IO)
def sceIoLseekAsync(k, fd: int, offset: S64, whence: int) -> int:
    return issue(k, fd, lambda: k.io.lseek(fd, offset, whence))


@hle(LIB, cost=costs.IO)
def sceIoLseek32Async(k, fd: int, offset: int, whence: int) -> int:
    return issue(k, fd, lambda: k.io.lseek(fd, offset, whence))


@hle(LIB, cost=costs.IO)
def sceIoIoctlAsync(k, fd: int, cmd: U32, inp: Ptr, inlen: int, out: Ptr, outlen: int) -> int:
    return issue(k, fd, lambda: sceIoIoctl(k, fd, cmd, inp, inlen, out, outlen))


@hle(LIB, cost=costs.IO)
def sceIoWaitAsync(k, fd: int, res: Ptr) -> Raw:
    _answer(k, _finish(k, fd, res, False))


@hle(LIB, cost=costs.IO)
def sceIoWaitAsyncCB(k, fd: int, res: Ptr) -> Raw:
    _answer(k, _finish(k, fd, res, False, cb=True))


@hle(LIB, cost=costs.IO)
def sceIoPollAsync(k, fd: int, res: Ptr) -> int:
    return _finish(k, fd, res, True, may_wait=False)


@hle(LIB, cost=costs.IO)
def sceIoGetAsyncStat(k, fd: int, poll: int, res: Ptr) -> Raw:
    _answer(k, _finish(k, fd, res, bool(poll)))


def _answer(k, result) -> None:
    if result is not None:  # None: the caller waits, v0 is set when it is woken
        k.cpu.regs[V0] = result & 0xFFFFFFFF


@hle(LIB)
def sceIoSetAsyncCallback(k, fd: int, cb: int, arg: Ptr) -> int:
    f = k.io.files.get(fd)
    if f is None:
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    f.async_callback = cb
    return 0


@hle(LIB)
def sceIoChangeAsyncPriority(k, fd: int, priority: int) -> int:
    return 0 if fd in k.io.files or fd == -1 else codes.signed(codes.BAD_FILE_DESCRIPTOR)
