"""sceVaudio: the SRC channel as the PSP's music player reserves it (audio.py has the
channel itself). Facts from pspautotests audio/sceaudio/reserve on a PSP: which calls
reschedule, the codes, and the arguments that make the caller wait forever."""

from allegrex.cpu.state import V0
from allegrex.hle import codes, threads
from allegrex.hle.audio import SRC_RATES, sceAudioSRCChRelease, sceAudioSRCOutputBlocking, src_reserve
from allegrex.hle.codes import signed
from allegrex.hle.registry import Raw, alias, hle
from allegrex.hle.threads import Wait

LIB = "sceVaudio"
CHANNELS = 2
GRAIN, MIN_FRAMES, MAX_FRAMES = 256, 256, 2048
# ESTIMATE: a reservation yields the CPU for about as long as the shortest delay does
# (sceaudio/reserve shows it reschedules; its length is unmeasured)
RESERVE_US = threads.MIN_DELAY_US


class VaudioState:
    """kernel.vaudio: whether the library holds the SRC channel."""

    def __init__(self, k):
        self.reserved = False
        self.broken = False  # a refused frequency: the library answers busy from then on


def _wait_forever(k) -> None:
    """What the PSP does with some arguments (sceaudio/reserve: 'makes the thread never wake')."""
    k.cpu.regs[V0] = 0
    k.threads.block(Wait("vaudio"))


@hle(LIB)
def sceVaudioChReserve(k, frames: int, rate: int, channels: int) -> Raw:
    state = k.vaudio
    regs = k.cpu.regs
    if state.reserved or state.broken:
        regs[V0] = codes.BUSY
        return
    if not MIN_FRAMES <= frames <= MAX_FRAMES:
        regs[V0] = codes.INVALID_SIZE
        return
    if frames % GRAIN:  # measured: 257, 384, 2047 never return
        _wait_forever(k)
        return
    if channels != CHANNELS:
        if channels == 4:  # measured: never returns
            _wait_forever(k)
            return
        regs[V0] = codes.INVALID_FORMAT
        return
    if threads.cannot_wait(k) and not k.interrupts:
        regs[V0] = codes.WAIT_CAN_NOT_WAIT
        return
    wait = Wait("vaudio")
    k.threads.block(wait)
    thread = k.threads.current

    def reserve():
        if thread.wait is not wait:
            return
        if rate not in SRC_RATES and rate != 0:
            state.broken = True
            result = signed(codes.AUDIO_INVALID_FREQUENCY)
        else:
            result = src_reserve(k, frames, rate, CHANNELS)
            state.reserved = result == 0
        k.threads.wake(thread, result)

    wait.timer = k.timers.add(k.now_us() + RESERVE_US, reserve)


@hle(LIB)
def sceVaudioChRelease(k) -> int:
    k.vaudio.reserved = False
    return sceAudioSRCChRelease(k)  # measured: it releases the SRC channel even when Output2 reserved it


alias(LIB, "sceVaudioOutputBlocking", sceAudioSRCOutputBlocking)
