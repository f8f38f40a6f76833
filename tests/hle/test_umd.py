"""The UMD drive of a memory-stick PSP holds no disc: waits for a ready disc time out, a wait
for 'not present' returns at once, and the registered callback hears of (de)activation."""

from allegrex.hle import codes, umd
from allegrex.hle.threads import Callback
from helpers import call, make_kernel

READY = 0x20


def test_waiting_for_a_disc_times_out():
    k = make_kernel()
    assert call(k, "sceUmdUser", "sceUmdGetDriveStat") == umd.NOT_PRESENT
    assert call(k, "sceUmdUser", "sceUmdWaitDriveStat", umd.NOT_PRESENT) == 0
    start = k.now_us()
    caller = k.threads.current
    call(k, "sceUmdUser", "sceUmdWaitDriveStatWithTimer", READY, 1000)
    assert k.threads.current is None  # waiting
    k.idle_until_next_event()
    assert k.threads.current is caller and k.now_us() - start >= 1000
    assert int(k.cpu.regs[2]) == codes.WAIT_TIMEOUT


def test_activation_notifies_the_registered_callback():
    k = make_kernel()
    k.memory.write(0x08A10000, b"umd\0")
    uid = call(k, "ThreadManForUser", "sceKernelCreateCallback", 0x08A10000, 0x08900000, 0x1234)
    cb = k.get(uid, Callback)
    assert call(k, "sceUmdUser", "sceUmdRegisterUMDCallBack", uid) == 0
    assert call(k, "sceUmdUser", "sceUmdActivate", 1, 0) == 0
    assert cb.notify_count == 1 and cb.notify_arg == umd.NOT_PRESENT
    assert call(k, "sceUmdUser", "sceUmdUnRegisterUMDCallBack", uid + 2) == codes.ERRNO_INVALID_ARGUMENT - (1 << 32)
    assert call(k, "sceUmdUser", "sceUmdUnRegisterUMDCallBack", uid) == uid  # old SDK: the id back


def test_a_wait_for_no_state_is_refused_and_one_that_may_not_wait_fails():
    k = make_kernel()  # measured: pspautotests intr/waits
    assert call(k, "sceUmdUser", "sceUmdWaitDriveStat", 0) == codes.signed(codes.ERRNO_INVALID_ARGUMENT)
    call(k, "ThreadManForUser", "sceKernelSuspendDispatchThread")
    assert call(k, "sceUmdUser", "sceUmdWaitDriveStat", READY) == codes.signed(codes.WAIT_CAN_NOT_WAIT)
    assert call(k, "sceUmdUser", "sceUmdWaitDriveStatWithTimer", 0, 100) == codes.signed(codes.ERRNO_INVALID_ARGUMENT)
