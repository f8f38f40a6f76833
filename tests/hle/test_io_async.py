"""Async file calls: the IO manager's thread carries an operation out once the caller waits
(pspautotests threads/scheduling/dispatch and intr/waits on a PSP), and the calls that collect
it answer as the PSP does while it is pending, with dispatch off and with interrupts off."""

import io

import pytest

from allegrex.hle import codes
from allegrex.hle.io import O_RDONLY, memstick_us
from allegrex.hle.kernel import RunOptions
from helpers import call, make_kernel

IO = "IoFileMgrForUser"
TM = "ThreadManForUser"
PATH, BUF, RES = 0x08A00000, 0x08A10000, 0x08A20000
PENDING = 1


@pytest.fixture
def k(tmp_path):
    (tmp_path / "data.bin").write_bytes(bytes(range(256)) * 4)
    return make_kernel(RunOptions(ms0=str(tmp_path), stderr=io.StringIO()))


def open_async(k):
    k.memory.write(PATH, b"ms0:/data.bin\0")
    fd = call(k, IO, "sceIoOpenAsync", PATH, O_RDONLY, 0)
    assert fd > 0
    return fd


def wait_async(k, fd):
    """sceIoWaitAsync, letting simulated time pass while the caller waits; (v0, us taken)."""
    caller, start = k.threads.current, k.now_us()
    k.memory.write(RES, b"\xff" * 8)
    call(k, IO, "sceIoWaitAsync", fd, RES)
    while k.threads.current is not caller:
        assert k.idle_until_next_event(), "the operation never completed"
    v0 = int(k.cpu.regs[2])
    return (v0 - (1 << 32) if v0 & 0x80000000 else v0), k.now_us() - start


def test_an_async_operation_waits_for_its_caller_to_wait(k):
    fd = open_async(k)
    assert call(k, IO, "sceIoPollAsync", fd, RES) == PENDING  # the open has not been done yet
    assert wait_async(k, fd)[0] == 0 and k.memory.read_u32(RES) == fd
    assert call(k, IO, "sceIoWaitAsync", fd, RES) == codes.signed(codes.NO_ASYNC_OP)  # collected
    assert call(k, IO, "sceIoReadAsync", fd, BUF, 512) == 0
    assert call(k, IO, "sceIoGetAsyncStat", fd, 1, RES) == PENDING
    assert k.memory.read(BUF, 4) == bytes(4)  # nothing read yet
    result, took = wait_async(k, fd)
    assert result == 0 and k.memory.read_u32(RES) == 512 and k.memory.read(BUF, 4) == bytes([0, 1, 2, 3])
    assert took >= memstick_us(512)  # carried out when the caller waited, then the medium's time


def test_a_file_with_an_operation_pending_takes_no_other(k):
    fd = open_async(k)
    assert call(k, IO, "sceIoLseekAsync", fd, 0, 0, 0) == codes.signed(codes.ASYNC_BUSY)
    assert call(k, IO, "sceIoRead", fd, BUF, 4) == codes.signed(codes.ASYNC_BUSY)
    assert call(k, IO, "sceIoCloseAsync", fd) == codes.signed(codes.ASYNC_BUSY)


def test_collecting_with_dispatch_or_interrupts_off(k):
    fd = open_async(k)
    call(k, TM, "sceKernelSuspendDispatchThread")
    assert call(k, IO, "sceIoPollAsync", fd, RES) == PENDING
    assert call(k, IO, "sceIoWaitAsync", fd, RES) == codes.signed(codes.WAIT_CAN_NOT_WAIT)
    assert call(k, IO, "sceIoGetAsyncStat", fd, 0, RES) == codes.signed(codes.WAIT_CAN_NOT_WAIT)
    call(k, TM, "sceKernelResumeDispatchThread", 1)
    state = call(k, "Kernel_Library", "sceKernelCpuSuspendIntr")
    assert call(k, IO, "sceIoWaitAsyncCB", fd, RES) == 0  # the CB form lets the IO thread run
    assert k.memory.read_u32(RES) == fd
    call(k, "Kernel_Library", "sceKernelCpuResumeIntr", state)


def test_a_files_first_async_call_resumes_dispatch(k):
    assert call(k, TM, "sceKernelSuspendDispatchThread") == 1
    open_async(k)  # it creates the file's IO thread, as sceKernelCreateThread resumes dispatch
    assert call(k, TM, "sceKernelSuspendDispatchThread") == 1


def test_an_async_close_closes_when_collected(k):
    fd = open_async(k)
    wait_async(k, fd)
    assert call(k, IO, "sceIoCloseAsync", fd) == 0
    assert wait_async(k, fd)[0] == 0 and k.memory.read_u32(RES) == 0
    assert call(k, IO, "sceIoPollAsync", fd, RES) == codes.signed(codes.BAD_FILE_DESCRIPTOR)
