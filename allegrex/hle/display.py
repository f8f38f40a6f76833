"""sceDisplay: mode, frame buffer, vblank timing; frame buffer -> PNG.

Vblank n happens at n / 59.94 s of simulated time. Pixel formats: 0 = 565, 1 = 5551,
2 = 4444, 3 = 8888 (red in the low bits, as the PSP stores them).
"""

import os

from allegrex.hle.registry import F32

import numpy as np

from allegrex.cpu.state import V0
from allegrex.hle import codes, costs, pure, threads
from allegrex.hle.registry import Ptr, Raw, hle
from allegrex.hle.threads import Wait

WIDTH, HEIGHT = 480, 272
FORMAT_565, FORMAT_5551, FORMAT_4444, FORMAT_8888 = 0, 1, 2, 3
BYTES_PER_PIXEL = {FORMAT_565: 2, FORMAT_5551: 2, FORMAT_4444: 2, FORMAT_8888: 4}
SETBUF_IMMEDIATE, SETBUF_NEXTFRAME = 0, 1
MAX_STRIDE = 4096  # wider buffers are accepted but not turned into pictures
VRAM_BASE, VRAM_BYTES = 0x04000000, 0x00200000
RAM_BASE, RAM_BYTES_MAX = 0x08000000, 0x04000000
HSYNC_PER_FRAME = 286
SCREENSHOT_WIDTH = 512


VBLANK_MICROHZ = pure.VBLANK_MICROHZ  # 59.94006 Hz, as sceDisplayGetFramePerSec reports
# when vblank n starts, and vblanks started by a time: one definition, which the run loop's
# pad peeks use too (allegrex.hle.pure), here as Python (exact for any time)
vblank_us, vcount_at = pure.vblank_us.py_func, pure.vcount_at.py_func


def to_rgba(raw: bytes, stride: int, fmt: int, width: int = WIDTH, height: int = HEIGHT) -> np.ndarray:
    """RGBA8888 image (height, width, 4) from PSP frame buffer bytes."""
    if fmt == FORMAT_8888:
        px = np.frombuffer(raw, dtype=np.uint8).reshape(height, stride, 4)[:, :width].copy()
        px[..., 3] = 255
        return px
    v = np.frombuffer(raw, dtype="<u2").reshape(height, stride)[:, :width].astype(np.uint32)
    out = np.empty((height, width, 4), dtype=np.uint8)
    if fmt == FORMAT_565:
        r, g, b = v & 0x1F, (v >> 5) & 0x3F, (v >> 11) & 0x1F
        out[..., 0], out[..., 1], out[..., 2] = (r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)
    elif fmt == FORMAT_5551:
        r, g, b = v & 0x1F, (v >> 5) & 0x1F, (v >> 10) & 0x1F
        out[..., 0], out[..., 1], out[..., 2] = (r << 3) | (r >> 2), (g << 3) | (g >> 2), (b << 3) | (b >> 2)
    else:
        r, g, b = v & 0xF, (v >> 4) & 0xF, (v >> 8) & 0xF
        out[..., 0], out[..., 1], out[..., 2] = r * 17, g * 17, b * 17
    out[..., 3] = 255
    return out


class Display:
    def __init__(self, kernel):
        self.k = kernel
        self.mode = 0
        self.width, self.height = WIDTH, HEIGHT
        self.topaddr = 0
        self.stride = 512
        self.format = FORMAT_8888
        self.pending = None  # frame buffer set for the next frame
        self.pending_vcount = 0
        self.frames_written = 0
        self.hcount_offset = 0
        self.frames_timer = None
        self.screenshots = 0
        self.screenshot = None  # RGBA of the last frame the program asked to be captured
        if kernel.options.frames_dir:
            os.makedirs(kernel.options.frames_dir, exist_ok=True)
            self._arm_frame_timer()

    def vcount(self) -> int:
        return vcount_at(self.k.now_us())

    def next_vblank_us(self) -> int:
        return vblank_us(self.vcount() + 1)

    def current(self):
        """(topaddr, stride, format) on screen now: a buffer set for the next frame shows
        from the first vblank after it was set."""
        if self.pending is not None and self.vcount() > self.pending_vcount:
            self.latch()
        return self.topaddr, self.stride, self.format

    def latched(self):
        """What the next frame will show."""
        self.current()
        return self.pending if self.pending is not None else (self.topaddr, self.stride, self.format)

    def image(self, final: bool = False, width: int = WIDTH):
        """The displayed frame as an RGBA array, or None when no frame buffer is set.
        final: the run is over, so a pending buffer counts as shown. width: pixels per
        row (up to the stride; pspautotests' screenshots keep 512)."""
        if final:
            self.latch()
        self.current()
        if not self.topaddr or not WIDTH <= self.stride <= MAX_STRIDE:
            return None
        size = self.stride * HEIGHT * BYTES_PER_PIXEL[self.format]
        if not self.k.memory.is_valid(self.topaddr, size):
            return None
        return to_rgba(self.k.memory.read(self.topaddr, size), self.stride, self.format, min(width, self.stride))

    def save_png(self, path: str, final: bool = False) -> bool:
        from PIL import Image
        px = self.image(final)
        if px is None:
            px = np.zeros((HEIGHT, WIDTH, 4), dtype=np.uint8)
            px[..., 3] = 255
        Image.fromarray(px, "RGBA").convert("RGB").save(path)
        return True

    def emit_screenshot(self) -> None:
        """pspautotests asks for a screenshot: kept (512 pixels wide, as the PSP's own
        screenshot code writes it) for `allegrex test`, and written into the frames folder
        if one is set."""
        self.screenshot = self.image(width=SCREENSHOT_WIDTH)
        folder = self.k.options.frames_dir
        if folder:
            self.screenshots += 1
            self.save_png(os.path.join(folder, f"screenshot_{self.screenshots:04d}.png"))

    def _arm_frame_timer(self) -> None:
        n = self.vcount() + 1
        self.frames_timer = self.k.timers.add(vblank_us(n), lambda: self._on_vblank(n))

    def _on_vblank(self, n: int) -> None:
        self.latch()
        every = max(1, self.k.options.frames_every)
        if n % every == 0 and self.topaddr and self.k.threads.any_alive():
            try:
                self.save_png(os.path.join(self.k.options.frames_dir, f"frame_{n:06d}.png"))
                self.frames_written += 1
            except OSError as exc:
                self.k.warn_once("frames", f"cannot write frames: {exc}")
        if self.k.threads.any_alive():
            self._arm_frame_timer()

    def latch(self) -> None:
        if self.pending is not None:
            self.topaddr, self.stride, self.format = self.pending
            self.pending = None


LIB = "sceDisplay"


@hle(LIB, cost=costs.DISPLAY)
def sceDisplaySetMode(k, mode: int, width: int, height: int) -> Raw:
    """Only the LCD mode exists; a valid call takes effect at the next vblank and waits for it."""
    if mode != 0:
        k.cpu.regs[V0] = codes.INVALID_MODE
        return
    if (width, height) != (WIDTH, HEIGHT):
        k.cpu.regs[V0] = codes.INVALID_SIZE
        return
    d = k.display
    d.mode, d.width, d.height = mode, width, height
    _wait_vblank(k, False)


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetMode(k, mode: Ptr, width: Ptr, height: Ptr) -> int:
    d = k.display
    for ptr, value in ((mode, d.mode), (width, d.width), (height, d.height)):
        if ptr:
            k.memory.write_u32(ptr, value)
    return 0


def _valid_framebuffer_address(addr: int) -> bool:
    phys = addr & 0x1FFFFFFF
    in_vram = VRAM_BASE <= phys < VRAM_BASE + VRAM_BYTES
    in_ram = RAM_BASE <= phys < RAM_BASE + RAM_BYTES_MAX
    return (in_vram or in_ram) and not addr & 0xF


@hle(LIB, cost=costs.DISPLAY)
def sceDisplaySetFrameBuf(k, topaddr: Ptr, stride: int, fmt: int, sync: int) -> int:
    """Latched (next frame) sets may change everything; an immediate set may only move
    the address, keeping the latched stride and format (as measured on hardware)."""
    if sync not in (SETBUF_IMMEDIATE, SETBUF_NEXTFRAME):
        return codes.signed(codes.INVALID_MODE)
    if not 0 <= fmt <= FORMAT_8888:
        return codes.signed(codes.INVALID_FORMAT)
    if topaddr and not _valid_framebuffer_address(topaddr):
        return codes.signed(codes.INVALID_POINTER)
    if topaddr and (stride == 0 or stride & 63):
        return codes.signed(codes.INVALID_SIZE)
    d = k.display
    latched = d.latched()
    if sync == SETBUF_IMMEDIATE:
        if (stride, fmt) != latched[1:]:
            return codes.signed(codes.INVALID_MODE)
        d.topaddr, d.stride, d.format = topaddr, stride, fmt
        d.pending = None
    else:
        d.current()
        d.stride, d.format = stride, fmt  # measured: stride and format apply at once, the address at vblank
        d.pending = (topaddr, stride, fmt)
        d.pending_vcount = d.vcount()
    return 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetFrameBuf(k, topaddr: Ptr, stride: Ptr, fmt: Ptr, sync: int) -> int:
    d = k.display
    cur = d.latched() if sync == SETBUF_NEXTFRAME else d.current()
    for ptr, value in zip((topaddr, stride, fmt), cur):
        if ptr:
            k.memory.write_u32(ptr, value)
    return 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetVcount(k) -> int:
    return k.display.vcount() & 0xFFFFFFFF


def _wait_vblank(k, cb: bool, count: int = 1) -> None:
    if threads.cannot_wait(k) and not k.interrupts:  # measured: intr/waits
        k.cpu.regs[V0] = codes.WAIT_CAN_NOT_WAIT
        return
    k.cpu.regs[V0] = 0
    d = k.display
    target = vblank_us(d.vcount() + count)

    def on_vblank(t=k.threads.current):
        d.latch()
        if t.wait is wait:
            k.threads.wake(t, 0)

    wait = Wait("vblank", cb=cb)
    k.threads.block(wait)
    wait.timer = k.timers.add(target, on_vblank)


# The run loop answers it when the thread runs alone until the vblank (allegrex.hle.pure.VBLANK_WAIT:
# the same vblank, idle skip and switch back as this wait leaves)
@hle(LIB, cost=costs.DISPLAY, in_loop=pure.VBLANK_WAIT)
def sceDisplayWaitVblankStart(k) -> Raw:
    _wait_vblank(k, False)


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayWaitVblankStartCB(k) -> Raw:
    _wait_vblank(k, True)


def _wait_in_or_for_vblank(k, cb: bool) -> None:
    """Return 1 at once inside a vblank, else wait for the next one (and return 0)."""
    if _into_frame(k) < VBLANK_LENGTH_US:
        k.cpu.regs[V0] = 1
        return
    _wait_vblank(k, cb)


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayWaitVblank(k) -> Raw:
    _wait_in_or_for_vblank(k, False)


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayWaitVblankCB(k) -> Raw:
    _wait_in_or_for_vblank(k, True)


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayWaitVblankStartMulti(k, count: int) -> Raw:
    if count <= 0:
        k.cpu.regs[V0] = codes.INVALID_VALUE
        return
    _wait_vblank(k, False, count)


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayWaitVblankStartMultiCB(k, count: int) -> Raw:
    if count <= 0:
        k.cpu.regs[V0] = codes.INVALID_VALUE
        return
    _wait_vblank(k, True, count)


VBLANK_LENGTH_US = 731.5  # measured on hardware (pspautotests display/isstate)
VSYNC_START_US = 631.5  # the vsync pulse comes late in the vblank


def _into_frame(k) -> int:
    return k.now_us() - vblank_us(k.display.vcount())


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayIsVblank(k) -> int:
    return 1 if _into_frame(k) < VBLANK_LENGTH_US else 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayIsVsync(k) -> int:
    return 1 if VSYNC_START_US <= _into_frame(k) < VBLANK_LENGTH_US else 0


# the vblank starts half-way through a scan line: the count reads 1 just after the vblank
# starts and 14 at its end, 731.5 us later (fitted to pspautotests display/hcount: 1 and 14)
VBLANK_LINE_PHASE = 0.5


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetCurrentHcount(k) -> int:
    into = k.now_us() - vblank_us(k.display.vcount())
    lines = into * HSYNC_PER_FRAME * VBLANK_MICROHZ / 10**12 + VBLANK_LINE_PHASE
    return int(lines) + 1  # lines are counted from 1


def _hcount_total(k) -> int:
    return k.now_us() * HSYNC_PER_FRAME * VBLANK_MICROHZ // 10**12


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetAccumulatedHcount(k) -> int:
    return (_hcount_total(k) + k.display.hcount_offset) & 0x7FFFFFFF  # measured: wraps from INT_MAX to 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayAdjustAccumulatedHcount(k, value: int) -> int:
    if value < 0:
        return codes.signed(codes.INVALID_VALUE)
    k.display.hcount_offset = value - _hcount_total(k)
    return 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetFramePerSec(k) -> F32:
    return VBLANK_MICROHZ / 1e6


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayIsForeground(k) -> int:
    return 1 if k.display.topaddr else 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplaySetHoldMode(k, hold: int) -> int:
    return 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplaySetResumeMode(k, mode: int) -> int:
    return 0


@hle(LIB, cost=costs.DISPLAY)
def sceDisplayGetVblankRest(k) -> int:
    return max(0, k.display.next_vblank_us() - k.now_us())
