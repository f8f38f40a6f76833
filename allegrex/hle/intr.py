"""Sub-interrupt handlers (InterruptManager): which interrupts and sub-interrupts a program
may hook, and the errors for the others, as measured in pspautotests intr/registersub,
releasesub and enablesub. Handlers of the vblank interrupt run (timers.VblankHandlers);
those of other interrupts are kept but never called (their devices are not simulated)."""

from allegrex.hle import codes
from allegrex.hle.registry import Ptr, hle

LIB = "InterruptManager"
SUB_INTERRUPTS = 32
USER_SUB_INTERRUPTS = 16  # a program may register sub-interrupts 0-15 only
GE_INTERRUPT, VBLANK_INTERRUPT = 25, 30
WITH_SUB_HANDLERS = (GE_INTERRUPT, VBLANK_INTERRUPT)
# interrupts that exist but take no sub-handlers (registering says "no handler")
WITHOUT_SUB_HANDLERS = frozenset((0, 1, 2, 3, 5, 9, 11, 13, 14, 27, 28, 29, 32, 33, 34, 35, 37, 38, 39, 40,
                                  41, 42, 43, 44, 45, 46, 47, 48, 49, 51, 52, 53, 54, 55, 62, 63, 64, 66))
# interrupts whose handlers the system keeps to itself: registering is refused outright
SYSTEM_ONLY = frozenset((4, 6, 8, 21))
# vblank sub-interrupts the system already hooks (registering says "found a handler")
SYSTEM_VBLANK_SUBS = frozenset((18, 19, 20, 24, 25, 26))


class SubHandlers:
    """Sub-handlers of an interrupt whose device is not simulated: kept, never run."""

    def __init__(self, kernel):
        self.handlers: dict[int, list] = {}  # sub number -> [handler, arg, enabled]

    def arm(self) -> None:
        pass


def table(k, intr: int):
    return k.vblank_handlers if intr == VBLANK_INTERRUPT else k.ge_sub_handlers


def _exists(intr: int) -> bool:
    return intr in WITH_SUB_HANDLERS or intr in WITHOUT_SUB_HANDLERS or intr in SYSTEM_ONLY


def _lookup_error(intr: int, sub: int) -> int:
    """The error for an (interrupt, sub) pair that cannot hold a handler, else 0."""
    if not _exists(intr) or not 0 <= sub < SUB_INTERRUPTS:
        return codes.ILLEGAL_INTRCODE
    if intr not in WITH_SUB_HANDLERS:
        return codes.NOT_FOUND_HANDLER
    return 0


@hle(LIB)
def sceKernelRegisterSubIntrHandler(k, intr: int, sub: int, handler: Ptr, arg: Ptr) -> int:
    if intr in SYSTEM_ONLY:
        return codes.signed(codes.ILLEGAL_INTRCODE)
    error = _lookup_error(intr, sub)
    if error:
        return codes.signed(error)
    if intr == VBLANK_INTERRUPT and sub in SYSTEM_VBLANK_SUBS:
        return codes.signed(codes.FOUND_HANDLER)
    if sub >= USER_SUB_INTERRUPTS:
        return codes.signed(codes.ILLEGAL_INTRCODE)
    if intr != VBLANK_INTERRUPT:
        k.warn_once(("intr", intr), f"interrupt {intr} handlers are registered but never called")
    slots = table(k, intr).handlers
    if sub in slots and slots[sub][0]:
        return codes.signed(codes.FOUND_HANDLER)
    enabled = slots[sub][2] if sub in slots else False  # enabling before registering counts
    slots[sub] = [handler, arg, enabled]
    return 0


@hle(LIB)
def sceKernelReleaseSubIntrHandler(k, intr: int, sub: int) -> int:
    error = _lookup_error(intr, sub)
    if error:
        return codes.signed(error)
    slots = table(k, intr).handlers
    if sub not in slots or not slots[sub][0]:
        return codes.signed(codes.NOT_FOUND_HANDLER)
    del slots[sub]  # and disabled: registering again does not re-enable it
    return 0


def _enable(k, intr: int, sub: int, on: bool) -> int:
    error = _lookup_error(intr, sub)
    if error == codes.ILLEGAL_INTRCODE:
        return codes.signed(error)
    if error:
        return 0  # no sub-handlers to switch: nothing to do
    handlers = table(k, intr)
    handlers.handlers.setdefault(sub, [0, 0, False])[2] = on
    handlers.arm()
    return 0


@hle(LIB)
def sceKernelEnableSubIntr(k, intr: int, sub: int) -> int:
    return _enable(k, intr, sub, True)


@hle(LIB)
def sceKernelDisableSubIntr(k, intr: int, sub: int) -> int:
    return _enable(k, intr, sub, False)
