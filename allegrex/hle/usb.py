"""USB (sceUsb, sceUsbstor, sceUsbstorBoot) on a PSP with no cable plugged in: drivers
start and stop, activation is remembered, and the state always says disconnected, so a
wait for a connection lasts until its timeout (or for good). State bits and errors as the
firmware reports them."""

from allegrex.cpu.state import V0
from allegrex.hle import codes
from allegrex.hle.io import wait_for_device
from allegrex.hle.registry import CStr, Ptr, U32, hle
from allegrex.hle.threads import Wait, cannot_wait

LIB = "sceUsb"
STARTED, DISCONNECTED, DEACTIVATED, ACTIVATED = 0x002, 0x010, 0x100, 0x200
WAIT_ANY = 1  # wait mode: any of the bits (else all of them)


class Usb:
    def __init__(self, kernel):
        self.drivers: set = set()  # names of the started drivers
        self.activated = False

    def state(self) -> int:
        if not self.drivers:
            return 0
        return STARTED | DISCONNECTED | (ACTIVATED if self.activated else DEACTIVATED)


@hle(LIB)
def sceUsbStart(k, driver: CStr, argsize: int, argp: Ptr) -> int:
    k.usb.drivers.add(driver)
    return 0


@hle(LIB)
def sceUsbStop(k, driver: CStr, argsize: int, argp: Ptr) -> int:
    k.usb.drivers.discard(driver)
    return 0


@hle(LIB)
def sceUsbGetState(k) -> int:
    return k.usb.state() if k.usb.drivers else codes.signed(codes.USB_NOT_STARTED)


@hle(LIB)
def sceUsbActivate(k, product: U32) -> int:
    k.usb.activated = True
    return 0


@hle(LIB)
def sceUsbDeactivate(k, product: U32) -> int:
    k.usb.activated = False
    return 0


def _wait_state(k, bits: U32, mode: int, timeout: Ptr, cb: bool) -> int:
    if mode not in (0, WAIT_ANY):
        return codes.signed(codes.ILLEGAL_MODE)
    state = k.usb.state()
    if (state & bits) == bits or (mode == WAIT_ANY and state & bits):
        return state
    if cannot_wait(k) or k.threads.current is None:
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    if timeout:  # a cable never comes: the wait ends at its timeout
        return wait_for_device(k, codes.signed(codes.USB_WAIT_TIMEOUT), k.memory.read_u32(timeout))
    k.cpu.regs[V0] = 0
    k.threads.block(Wait("usb", cb=cb, data=f"state 0x{bits:x}"))
    return None


@hle(LIB)
def sceUsbWaitState(k, bits: U32, mode: int, timeout: Ptr) -> int:
    return _wait_state(k, bits, mode, timeout, False)


@hle(LIB)
def sceUsbWaitStateCB(k, bits: U32, mode: int, timeout: Ptr) -> int:
    return _wait_state(k, bits, mode, timeout, True)


STOR = "sceUsbstorBoot"


@hle(STOR)
def sceUsbstorBootSetCapacity(k, size: U32) -> int:
    return 0


@hle(STOR)
def sceUsbstorBootRegisterNotify(k, event_flag: int) -> int:
    return 0


@hle(STOR)
def sceUsbstorBootUnregisterNotify(k, event_flag: int) -> int:
    return 0
