"""sceUmdUser for a PSP running homebrew from the memory stick: the drive is there but holds
no disc. Programs may register a callback, activate the drive and wait on its state; the
state never becomes READY, so a wait for it only ends by its timeout (measured:
pspautotests umd/register, umd/callbacks)."""

from allegrex.cpu.state import V0
from allegrex.hle import codes
from allegrex.hle.kernel import IllegalContext
from allegrex.hle.registry import CStr, Raw, U32, hle
from allegrex.hle.threads import Callback, Wait, cannot_wait

LIB = "sceUmdUser"
NOT_PRESENT = 0x01  # PSP_UMD_NOT_PRESENT: the drive's state with no disc in it
# the states a wait may be for: not present, present, not ready, ready, readable (0 is
# refused, measured by intr/waits; leaving out 0x04 "changed" is PPSSPP's reading)
WAITABLE_STATES = 0x3B
SDK_UNREGISTER_RETURNS_ZERO = 0x3000001  # older programs get the callback id back


class UmdState:
    """The drive's registered callback (kernel.umd)."""

    def __init__(self, kernel):
        self.callback = 0  # the registered callback's id, 0 for none


def _notify(k) -> None:
    cb = k.get(k.umd.callback, Callback)
    if cb is not None:
        k.threads.notify(cb, NOT_PRESENT)


@hle(LIB)
def sceUmdRegisterUMDCallBack(k, uid: int) -> int:
    if k.get(uid, Callback) is None:
        return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
    k.umd.callback = uid
    return 0


@hle(LIB)
def sceUmdUnRegisterUMDCallBack(k, uid: int) -> int:
    state = k.umd
    if uid != state.callback:  # only the registered one (or 0 when none is) may go
        return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
    state.callback = 0
    return 0 if k.sdk_version >= SDK_UNREGISTER_RETURNS_ZERO else uid


@hle(LIB)
def sceUmdCheckMedium(k) -> int:
    return 0


@hle(LIB)
def sceUmdGetDriveStat(k) -> int:
    return NOT_PRESENT


@hle(LIB)
def sceUmdActivate(k, mode: int, drive: CStr) -> int:
    _notify(k)
    return 0


@hle(LIB)
def sceUmdDeactivate(k, mode: int, drive: CStr) -> int:
    _notify(k)
    return 0


def _wait_stat(k, wanted: int, timeout_us: int | None, cb: bool) -> None:
    """Return at once when the drive is in a wanted state (running pending callbacks first
    for the CB forms); else wait, until the timeout if there is one. States no wait can be
    for are refused first, then a caller that may not wait (measured: intr/waits)."""
    if not wanted & WAITABLE_STATES:
        k.cpu.regs[V0] = codes.ERRNO_INVALID_ARGUMENT
        return
    if k.interrupts:
        raise IllegalContext
    if cannot_wait(k):
        k.cpu.regs[V0] = codes.WAIT_CAN_NOT_WAIT
        return
    k.cpu.regs[V0] = 0
    if wanted & NOT_PRESENT:
        if cb and k.threads.pending_callbacks(k.threads.current):
            k.threads.block(Wait("check-callbacks", cb=True, data=0))
        return
    k.cpu.regs[V0] = codes.WAIT_TIMEOUT
    k.threads.block(Wait("umd", cb=cb), timeout_us=timeout_us)


@hle(LIB)
def sceUmdWaitDriveStat(k, wanted: int) -> Raw:
    _wait_stat(k, wanted, None, False)


@hle(LIB)
def sceUmdWaitDriveStatCB(k, wanted: int, timeout_us: U32) -> Raw:
    _wait_stat(k, wanted, timeout_us or None, True)


@hle(LIB)
def sceUmdWaitDriveStatWithTimer(k, wanted: int, timeout_us: U32) -> Raw:
    _wait_stat(k, wanted, timeout_us or None, False)
