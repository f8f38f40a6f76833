"""Message pipes (ThreadManForUser): byte streams between threads through an optional
buffer in a memory partition.

A sender's bytes go into the buffer (or, with no buffer, straight to waiting receivers);
a receiver takes bytes from the front of the buffer (or straight from waiting senders).
Mode FULL waits until the whole request is done; mode ASAP is done as soon as some bytes
moved. Waiting senders and receivers are served in arrival order (or by priority with the
attributes 0x100 and 0x1000); the count of bytes moved goes to the caller's result word.
"""

from dataclasses import dataclass

from allegrex.cpu.state import V0
from allegrex.hle import codes, costs
from allegrex.hle.pools import ATTR_HIGH_MEMORY, delete_pool, refused_pool
from allegrex.hle.objects import object_name, status_block, write_status
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle
from allegrex.hle.sync import SyncObject
from allegrex.hle.threads import Wait, cannot_wait, done_now, finish_wait_call

LIB = "ThreadManForUser"
ATTR_SENDERS_BY_PRIORITY, ATTR_RECEIVERS_BY_PRIORITY = 0x100, 0x1000
ATTR_KNOWN = ATTR_SENDERS_BY_PRIORITY | ATTR_RECEIVERS_BY_PRIORITY | ATTR_HIGH_MEMORY
MODE_FULL, MODE_ASAP = 0, 1
STATUS_SIZE = 56
INSTANT_TIMEOUT_US = 2  # a timeout this short fails at once, without waiting (measured by PPSSPP's authors)


@dataclass
class Transfer:
    """One waiting send or receive: where it is in the caller's buffer and what is left."""
    sending: bool
    addr: int
    remaining: int
    mode: int
    result_ptr: int
    moved: int = 0
    waiting: bool = False  # a waiting transfer's count is kept up to date in its result word

    def satisfied(self) -> bool:
        return self.remaining == 0 or self.mode == MODE_ASAP


class MsgPipe(SyncObject):
    kind = "msgpipe"
    threadman_type = 7

    def __init__(self, name, attr, size, block):
        super().__init__(name, attr)
        self.size = size
        self.block = block
        self.used = 0  # bytes waiting in the buffer, at its start

    @property
    def free(self) -> int:
        return self.size - self.used

    def queue(self, sending: bool) -> list:
        """The waiting senders (or receivers), in the order they are served."""
        waiting = [t for t in self.waiters if t.wait is not None and t.wait.data.sending == sending]
        by_priority = ATTR_SENDERS_BY_PRIORITY if sending else ATTR_RECEIVERS_BY_PRIORITY
        return sorted(waiting, key=lambda t: t.priority) if self.attr & by_priority else waiting


def _move(k, src: int, dst: int, n: int) -> None:
    k.memory.write(dst, k.memory.read(src, n))


def _note(k, transfer: Transfer, n: int) -> None:
    """`n` more bytes of a transfer moved (a waiting one shows the count in its result word)."""
    transfer.addr += n
    transfer.remaining -= n
    transfer.moved += n
    if transfer.waiting:
        _report(k, transfer)


def _report(k, transfer: Transfer) -> None:
    if transfer.result_ptr and k.memory.is_valid(transfer.result_ptr, 4):
        k.memory.write_u32(transfer.result_ptr, transfer.moved)


def _take_from_buffer(k, pipe, dst: int, n: int) -> None:
    base = pipe.block.addr
    _move(k, base, dst, n)
    pipe.used -= n
    if pipe.used:
        _move(k, base + n, base, pipe.used)  # the rest moves to the front


def _serve(k, pipe, sending: bool) -> None:
    """The waiting senders fill the free buffer space (or the receivers empty the buffer), in
    queue order; the first that stays unsatisfied stops it. Bytes that moved may let the
    other side go on."""
    moved = False
    for t in pipe.queue(sending):
        room = pipe.free if sending else pipe.used
        if not room:
            break
        transfer = t.wait.data
        n = min(transfer.remaining, room)
        if sending:
            _move(k, transfer.addr, pipe.block.addr + pipe.used, n)
            pipe.used += n
        else:
            _take_from_buffer(k, pipe, transfer.addr, n)
        _note(k, transfer, n)
        moved = True
        if not transfer.satisfied():
            break
        k.threads.wake(t, 0)
    if moved:
        _serve(k, pipe, not sending)


def _direct(k, pipe, transfer: Transfer) -> None:
    """No buffer: move bytes between the caller and the waiting threads of the other side."""
    for t in pipe.queue(sending=not transfer.sending):
        if not transfer.remaining:
            break
        other = t.wait.data
        n = min(other.remaining, transfer.remaining)
        src, dst = (transfer.addr, other.addr) if transfer.sending else (other.addr, transfer.addr)
        _move(k, src, dst, n)
        _note(k, other, n)
        _note(k, transfer, n)
        if other.satisfied():
            k.threads.wake(t, 0)


def _buffered(k, pipe, transfer: Transfer) -> None:
    if transfer.sending:
        if pipe.queue(sending=True):
            return  # others wait to send: get in line
        n = transfer.remaining if transfer.remaining <= pipe.free else (
            pipe.free if transfer.mode == MODE_ASAP else 0)
        if n:
            _move(k, transfer.addr, pipe.block.addr + pipe.used, n)
            pipe.used += n
            _note(k, transfer, n)
            _serve(k, pipe, sending=False)
        return
    while pipe.used and transfer.remaining:
        n = min(transfer.remaining, pipe.used)
        _take_from_buffer(k, pipe, transfer.addr, n)
        _note(k, transfer, n)
        _serve(k, pipe, sending=True)


def _transfer(k, uid, sending, addr, size, mode, result_ptr, timeout, cb, poll):
    if size & 0x80000000 or (size and not k.memory.is_valid(addr, 1)):  # only the start is checked
        return codes.signed(codes.ILLEGAL_ADDR)
    if mode not in (MODE_FULL, MODE_ASAP):
        return codes.signed(codes.ILLEGAL_MODE)
    if not poll and cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    if not poll and k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    pipe = k.get(uid, MsgPipe)
    if pipe is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_PIPE)
    if pipe.size and size > pipe.size:
        return codes.signed(codes.ILLEGAL_SIZE)
    transfer = Transfer(sending, addr, size, mode, result_ptr)
    (_buffered if pipe.size else _direct)(k, pipe, transfer)
    if transfer.remaining == 0 or (mode == MODE_ASAP and transfer.moved):
        _report(k, transfer)
        return done_now(k, 0, cb)
    if poll:
        if not pipe.size and mode == MODE_ASAP:
            _report(k, transfer)  # with no buffer the ASAP form still reports its count
        return codes.signed(codes.MESSAGE_PIPE_FULL if sending else codes.MESSAGE_PIPE_EMPTY)
    transfer.moved, transfer.waiting = 0, True  # a waiting transfer counts afresh
    _report(k, transfer)
    if timeout and k.memory.read_u32(timeout) <= INSTANT_TIMEOUT_US:
        return codes.signed(codes.WAIT_TIMEOUT)
    k.cpu.regs[V0] = 0
    k.threads.block(Wait("msgpipe", obj=pipe, cb=cb, timeout_ptr=timeout, data=transfer))  # may refuse: first
    pipe.waiters.append(k.threads.current)
    return None


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateMsgPipe(k, name: CStr, pid: int, attr: U32, size: U32, option: Ptr) -> int:
    refused = refused_pool(name, pid, attr, ATTR_KNOWN)
    if refused is not None:
        return refused
    block = None
    if size:
        block = k.sysmem.alloc_block(pid, f"msgpipe {name}", size=size, high=bool(attr & ATTR_HIGH_MEMORY))
        if block is None:
            return codes.signed(codes.NO_MEMORY)
    pipe = MsgPipe(object_name(name), attr, size, block)
    pipe.uid = k.new_uid(pipe)
    return pipe.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteMsgPipe(k, uid: int) -> int:
    return delete_pool(k, k.get(uid, MsgPipe), codes.NOT_FOUND_MESSAGE_PIPE)


def _register_transfer(name: str, sending: bool, cb: bool = False, poll: bool = False) -> None:
    """One of the six send/receive calls: waiting, waiting with callbacks, or trying."""
    if poll:
        def call(k, uid: int, addr: Ptr, size: U32, mode: U32, result: Ptr) -> int:
            return _transfer(k, uid, sending, addr, size, mode, result, 0, False, True)
    else:
        def call(k, uid: int, addr: Ptr, size: U32, mode: U32, result: Ptr, timeout: Ptr) -> Raw:
            finish_wait_call(k, _transfer(k, uid, sending, addr, size, mode, result, timeout, cb, False))
    hle(LIB, name=name, cost=costs.SYNC)(call)


for _verb, _sending in (("Send", True), ("Receive", False)):
    _register_transfer(f"sceKernel{_verb}MsgPipe", _sending)
    _register_transfer(f"sceKernel{_verb}MsgPipeCB", _sending, cb=True)
    _register_transfer(f"sceKernelTry{_verb}MsgPipe", _sending, poll=True)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelMsgPipe(k, uid: int, send_count: Ptr, receive_count: Ptr) -> int:
    pipe = k.get(uid, MsgPipe)
    if pipe is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_PIPE)
    for ptr, sending in ((send_count, True), (receive_count, False)):
        if ptr and k.memory.is_valid(ptr, 4):
            k.memory.write_u32(ptr, len(pipe.queue(sending)))
    for t in list(pipe.waiters):
        k.threads.wake(t, codes.signed(codes.WAIT_CANCELLED))
    pipe.used = 0  # and the buffer empties
    return 0


@hle(LIB)
def sceKernelReferMsgPipeStatus(k, uid: int, info: Ptr) -> int:
    pipe = k.get(uid, MsgPipe)
    if pipe is None:
        return codes.signed(codes.NOT_FOUND_MESSAGE_PIPE)
    words = [pipe.attr, pipe.size, pipe.free, len(pipe.queue(True)), len(pipe.queue(False))]
    write_status(k, info, status_block(STATUS_SIZE, pipe.name, words))
    return 0
