"""The DMA controller's memory copy (sceDmac): one copy at a time, done by the DMAC while
the calling thread waits. Measured in pspautotests dmac/dmactest: copies of 272 bytes or
more make the caller wait (other threads run), shorter ones return at once; a second copy
waits for the first (sceDmacMemcpy) or is refused as busy (sceDmacTryMemcpy)."""

from allegrex.cpu.state import V0
from allegrex.hle import codes
from allegrex.hle.registry import Ptr, Raw, U32, hle
from allegrex.hle.threads import Wait
from allegrex.memory import KERNEL_START

LIB = "sceDmac"
WAIT_FROM_BYTES = 272  # measured: 271 bytes return at once, 272 make the caller wait
BYTES_PER_US = 236  # ~225 MiB/s, measured on hardware (pspautotests dmactest; PPSSPP's figure)


def _refusal(k, dst: int, src: int, size: int) -> int:
    """The firmware's argument checks, in its order (0 = the copy may go ahead)."""
    if size == 0:
        return codes.INVALID_SIZE
    if not (k.memory.is_valid(dst) and k.memory.is_valid(src)):
        return codes.INVALID_POINTER
    if dst + size >= KERNEL_START or src + size >= KERNEL_START:
        return codes.PRIV_REQUIRED
    return 0


def _copy(k, dst: int, src: int, size: int) -> None:
    """Copy now; the caller waits until the DMAC would have finished (after any copy
    already under way) when the copy is long enough or had to queue."""
    k.memory.write(dst, k.memory.read(src, size))
    now = k.now_us()
    start = max(now, k.dmac_busy_until_us)
    done = start + size // BYTES_PER_US if size >= WAIT_FROM_BYTES else start
    k.dmac_busy_until_us = done
    k.cpu.regs[V0] = 0
    if done > now and k.threads.current is not None and not k.interrupts:
        k.threads.block(Wait("io", data=0), timeout_us=done - now)


@hle(LIB)
def sceDmacMemcpy(k, dst: Ptr, src: Ptr, size: U32) -> Raw:
    refusal = _refusal(k, dst, src, size)
    if refusal:
        k.cpu.regs[V0] = refusal
        return
    _copy(k, dst, src, size)


@hle(LIB)
def sceDmacTryMemcpy(k, dst: Ptr, src: Ptr, size: U32) -> Raw:
    refusal = _refusal(k, dst, src, size) or (codes.BUSY if k.dmac_busy_until_us > k.now_us() else 0)
    if refusal:
        k.cpu.regs[V0] = refusal
        return
    _copy(k, dst, src, size)
