"""sceHprm: the headphone/remote port of a PSP with nothing plugged in. No remote, no
headphones, no microphone, so no key is ever down and nothing ever changes: callbacks
registered for a change are never called (what a PSP does with an empty port)."""

from allegrex.hle.registry import Ptr, alias, hle

LIB = "sceHprm"
LATCH_WORDS = 4  # keys made, broken, held, and a fourth word: all zero with no remote


@hle(LIB)
def sceHprmPeekCurrentKey(k, key: Ptr) -> int:
    k.memory.write_u32(key, 0)
    return 0


def _clear_latch(k, latch: int) -> int:
    k.memory.fill(latch, 0, 4 * LATCH_WORDS)
    return 0


@hle(LIB)
def sceHprmPeekLatch(k, latch: Ptr) -> int:
    return _clear_latch(k, latch)


@hle(LIB)
def sceHprmReadLatch(k, latch: Ptr) -> int:
    return _clear_latch(k, latch)


@hle(LIB)
def sceHprmIsRemoteExist(k) -> int:
    return 0


@hle(LIB)
def sceHprmIsHeadphoneExist(k) -> int:
    return 0


@hle(LIB)
def sceHprmIsMicrophoneExist(k) -> int:
    return 0


@hle(LIB)
def sceHprmRegisterCallback(k, cbid: int) -> int:
    return 0  # nothing is ever plugged in or out: the callback has nothing to report


@hle(LIB, nid=0xFD7DE6CD)  # the firmware's NID is not SHA-1 of the name
def sceHprmUnregisterCallback(k, cbid: int) -> int:
    return 0


alias(LIB, "sceHprmUnregitserCallback", sceHprmUnregisterCallback)  # the misspelt export (SHA-1 0x444ED0B7)
