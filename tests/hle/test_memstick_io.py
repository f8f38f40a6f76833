"""sceIo* on the memory stick take the time of allegrex/timing/memstick.py: a read that
continues the previous transfer is sequential, one after a seek pays the seek; closing a
written file syncs it; the driver holds the CPU (no other thread runs while it copies),
and an asynchronous read is no faster than a blocking one."""

import pytest

from allegrex.hle.io import O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY
from allegrex.hle.kernel import RunOptions
from allegrex.timing import memstick
from helpers import call, make_kernel

IO = "IoFileMgrForUser"
PATH, BUF, RESULT = 0x08A00000, 0x08A10000, 0x08A08000
KIB256 = 256 * 1024


@pytest.fixture
def k(tmp_path):
    (tmp_path / "ms0").mkdir()
    (tmp_path / "ms0" / "model.bin").write_bytes(bytes(2 << 20))
    kernel = make_kernel(RunOptions(ms0=str(tmp_path / "ms0")))
    kernel.io.set_program_folder("ms0:/PSP/GAME/TEST", None)
    return kernel


def open_(k, path, flags=O_RDONLY):
    k.memory.write(PATH, path.encode() + b"\0")
    return call(k, IO, "sceIoOpen", PATH, flags, 0o777)


CALL_US = 50  # the IO manager's own work per call, on top of the medium's time


class Took:
    """A call's duration: equal to a medium time when it exceeds it by no more than the
    IO manager's own work."""

    def __init__(self, us):
        self.us = us

    def __eq__(self, medium_us):
        return medium_us <= self.us < medium_us + CALL_US

    def __repr__(self):
        return f"{self.us} us"


def timed(k, *args):
    """(result, duration) of one call from the current thread."""
    t0 = k.now_us()
    result = call(k, IO, *args)
    return result, Took(k.now_us() - t0)


def test_reads_that_continue_are_sequential_and_a_seek_costs_the_measured_difference(k):
    fd = open_(k, "ms0:/model.bin")
    assert timed(k, "sceIoRead", fd, BUF, KIB256) == (KIB256, memstick.read_us(KIB256))
    assert timed(k, "sceIoRead", fd, BUF, KIB256) == (KIB256, memstick.read_us(KIB256))
    assert call(k, IO, "sceIoLseek32", fd, 1 << 20, 0) == 1 << 20
    result, took = timed(k, "sceIoRead", fd, BUF, KIB256)
    assert result == KIB256 and took == memstick.read_us(KIB256, sequential=False)
    assert KIB256 / took.us == pytest.approx(4.6, abs=0.01)  # the measured scattered rate
    assert call(k, IO, "sceIoLseek32", fd, (1 << 20) + KIB256, 0) == (1 << 20) + KIB256
    assert timed(k, "sceIoRead", fd, BUF, 4096)[1] == memstick.read_us(4096)  # a seek to where it was


def test_closing_a_written_file_syncs_it(k):
    fd = open_(k, "ms0:/out.txt", O_WRONLY | O_CREAT | O_TRUNC)
    k.memory.write(BUF, b"x" * 1000)
    assert timed(k, "sceIoWrite", fd, BUF, 1000) == (1000, memstick.write_us(1000))
    assert timed(k, "sceIoClose", fd) == (0, memstick.REQUEST_US + memstick.SYNC_US)
    fd = open_(k, "ms0:/model.bin")
    assert timed(k, "sceIoClose", fd) == (0, memstick.REQUEST_US)  # nothing to sync


def test_no_thread_runs_while_the_driver_copies(k):
    main = k.threads.current
    other = k.threads.create("other", 0x08880100, 0x30, 0x4000, 0x80000000, 0)
    k.threads.start(other, 0, 0)
    assert k.threads.current is main  # lower priority: ready, waiting for the CPU
    fd = open_(k, "ms0:/model.bin")
    k.cpu.regs[4:7] = [fd, BUF, KIB256]
    from helpers import syscall_code
    k.on_syscall(syscall_code(k, IO, "sceIoRead"))
    assert k.threads.current is None and other in k.threads.ready  # ready, yet not running
    idle0 = k.idle_cycles
    while main.wait is not None:
        k.idle_until_next_event()
        assert k.threads.current is not other
    assert k.threads.current is main and int(k.cpu.regs[2]) == KIB256
    assert k.memstick_cycles > 0 and k.idle_cycles == idle0  # counted as the driver's work, not idle


def test_an_async_read_takes_the_same_time_as_a_blocking_one(k):
    fd = open_(k, "ms0:/model.bin")
    caller, t0 = k.threads.current, k.now_us()
    assert call(k, IO, "sceIoReadAsync", fd, BUF, KIB256) == 0  # left for the IO thread
    call(k, IO, "sceIoWaitAsync", fd, RESULT)  # the caller waits: the read runs, holding the CPU
    while k.threads.current is not caller:
        assert k.idle_until_next_event(), "the read never completed"
    assert int(k.cpu.regs[2]) == 0 and Took(k.now_us() - t0) == memstick.read_us(KIB256)
    assert k.memory.read_u32(RESULT) == KIB256
