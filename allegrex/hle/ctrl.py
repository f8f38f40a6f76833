"""sceCtrl: buttons and analog stick, driven by an input script.

Script lines (`--input FILE`), one event each, `#` starts a comment:
    <time> <BUTTON>[+<BUTTON>...] [for <duration>] [analog <x> <y>]
time and duration: `2s`, `500ms`, `120f` (frames at 59.94 Hz); e.g. `2s CROSS for 100ms`.
`--press CROSS@2s` is the same as the line `2s CROSS` (held 100 ms).
"""

from dataclasses import dataclass

from allegrex.errors import AllegrexError
from allegrex.hle import codes, costs
from allegrex.hle.kernel import VBLANK_HZ
from allegrex.hle.registry import Ptr, Raw, U32, hle
from allegrex.hle.threads import Wait, V0

BUTTONS = {
    "SELECT": 0x1, "START": 0x8, "UP": 0x10, "RIGHT": 0x20, "DOWN": 0x40, "LEFT": 0x80,
    "LTRIGGER": 0x100, "L": 0x100, "RTRIGGER": 0x200, "R": 0x200, "TRIANGLE": 0x1000, "CIRCLE": 0x2000,
    "CROSS": 0x4000, "SQUARE": 0x8000, "HOME": 0x10000, "HOLD": 0x20000, "NOTE": 0x800000,
    "SCREEN": 0x400000, "VOLUP": 0x100000, "VOLDOWN": 0x200000,
}
DEFAULT_PRESS_US = 100_000
CENTER = 128
DATA_SIZE = 16


class InputError(AllegrexError):
    pass


@dataclass
class InputEvent:
    start_us: int
    end_us: int
    buttons: int
    analog: tuple | None = None


def parse_time(text: str) -> int:
    """Microseconds from '2s', '1.5s', '500ms', '120f'."""
    t = text.strip().lower()
    try:
        if t.endswith("ms"):
            return int(float(t[:-2]) * 1000)
        if t.endswith("us"):
            return int(float(t[:-2]))
        if t.endswith("s"):
            return int(float(t[:-1]) * 1_000_000)
        if t.endswith("f"):
            return int(float(t[:-1]) * 1_000_000 / VBLANK_HZ)
    except ValueError:
        pass
    raise InputError(f"bad time {text!r}: use e.g. 2s, 500ms or 120f")


def parse_buttons(text: str) -> int:
    mask = 0
    for name in text.upper().split("+"):
        if name not in BUTTONS:
            raise InputError(f"unknown button {name!r}; known: {', '.join(sorted(BUTTONS))}")
        mask |= BUTTONS[name]
    return mask


def parse_line(line: str) -> InputEvent | None:
    words = line.split("#", 1)[0].split()
    if not words:
        return None
    start = parse_time(words[0])
    buttons, duration, analog = 0, DEFAULT_PRESS_US, None
    i = 1
    while i < len(words):
        w = words[i].lower()
        if w == "for" and i + 1 < len(words):
            duration = parse_time(words[i + 1])
            i += 2
        elif w == "analog" and i + 2 < len(words):
            try:
                analog = (int(words[i + 1]) & 0xFF, int(words[i + 2]) & 0xFF)
            except ValueError:
                raise InputError(f"bad analog values in {line.strip()!r}") from None
            i += 3
        else:
            buttons |= parse_buttons(words[i])
            i += 1
    return InputEvent(start, start + duration, buttons, analog)


def parse_script(text: str) -> list[InputEvent]:
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            ev = parse_line(line)
        except InputError as exc:
            raise InputError(f"input script line {n}: {exc}") from None
        if ev:
            events.append(ev)
    return events


def parse_press(spec: str) -> InputEvent:
    if "@" not in spec:
        raise InputError(f"bad --press {spec!r}: use BUTTON@TIME, e.g. CROSS@2s")
    buttons, when = spec.split("@", 1)
    start = parse_time(when)
    return InputEvent(start, start + DEFAULT_PRESS_US, parse_buttons(buttons))


class Ctrl:
    def __init__(self, kernel):
        self.k = kernel
        self.events = list(kernel.options.input_events)
        self.mode = 0  # 0 digital only, 1 analog
        self.cycle = 0
        self.latch_prev = 0
        self.latch = [0, 0, 0, 0]  # make, break, press, release
        self.idle_reset = -1
        self.idle_back = -1

    def state(self, us: int):
        buttons, analog = 0, (CENTER, CENTER)
        for ev in self.events:
            if ev.start_us <= us < ev.end_us:
                buttons |= ev.buttons
                if ev.analog:
                    analog = ev.analog
        return buttons, analog

    def sample(self) -> bytes:
        us = self.k.now_us()
        buttons, (x, y) = self.state(us)
        if self.mode == 0:
            x = y = CENTER
        self._update_latch(buttons)
        return ((us & 0xFFFFFFFF).to_bytes(4, "little") + buttons.to_bytes(4, "little")
                + bytes([x, y]) + bytes(6))

    def _update_latch(self, buttons: int) -> None:
        changed = buttons ^ self.latch_prev
        self.latch[0] |= changed & buttons
        self.latch[1] |= changed & ~buttons
        self.latch[2] |= buttons
        self.latch[3] |= ~buttons & 0xFFFFFFFF
        self.latch_prev = buttons


LIB = "sceCtrl"


def _write_samples(k, addr, count, negative=False) -> int:
    if count < 1 or count > 64:
        return codes.signed(codes.INVALID_SIZE)
    data = k.ctrl.sample()
    if negative:
        buttons = (~int.from_bytes(data[4:8], "little")) & 0xFFFFFFFF
        data = data[:4] + buttons.to_bytes(4, "little") + data[8:]
    for i in range(count):
        k.memory.write(addr + DATA_SIZE * i, data)
    return count


@hle(LIB, cost=costs.SYSCALL)
def sceCtrlPeekBufferPositive(k, data: Ptr, count: int) -> int:
    return _write_samples(k, data, count)


@hle(LIB, cost=costs.SYSCALL)
def sceCtrlPeekBufferNegative(k, data: Ptr, count: int) -> int:
    return _write_samples(k, data, count, negative=True)


def _read_blocking(k, data, count, negative) -> None:
    """Read waits for the next sample (taken at vblank), then returns it."""
    from allegrex.hle.display import vblank_us
    t = k.threads.current
    wait = Wait("ctrl")
    k.cpu.regs[V0] = 0

    def sampled():
        if t.wait is wait:
            k.threads.wake(t, _write_samples(k, data, count, negative))

    k.threads.block(wait)
    wait.timer = k.timers.add(vblank_us(k.display.vcount() + 1), sampled)


@hle(LIB, cost=costs.SYSCALL)
def sceCtrlReadBufferPositive(k, data: Ptr, count: int) -> Raw:
    _read_blocking(k, data, count, False)


@hle(LIB, cost=costs.SYSCALL)
def sceCtrlReadBufferNegative(k, data: Ptr, count: int) -> Raw:
    _read_blocking(k, data, count, True)


@hle(LIB)
def sceCtrlSetSamplingMode(k, mode: int) -> int:
    if mode not in (0, 1):
        return codes.signed(codes.INVALID_MODE)
    old, k.ctrl.mode = k.ctrl.mode, mode
    return old


@hle(LIB)
def sceCtrlGetSamplingMode(k, out: Ptr) -> int:
    if out:
        k.memory.write_u32(out, k.ctrl.mode)
    return 0


@hle(LIB)
def sceCtrlSetSamplingCycle(k, cycle: int) -> int:
    if cycle != 0 and not 5555 <= cycle <= 20000:
        return codes.signed(codes.INVALID_VALUE)
    old, k.ctrl.cycle = k.ctrl.cycle, cycle
    return old


@hle(LIB)
def sceCtrlGetSamplingCycle(k, out: Ptr) -> int:
    if out:
        k.memory.write_u32(out, k.ctrl.cycle)
    return 0


def _latch(k, out, reset) -> int:
    c = k.ctrl
    c.sample()
    for i, v in enumerate(c.latch):
        k.memory.write_u32(out + 4 * i, v)
    if reset:
        c.latch = [0, 0, 0, 0]
    return 1


@hle(LIB)
def sceCtrlReadLatch(k, out: Ptr) -> int:
    return _latch(k, out, True)


@hle(LIB)
def sceCtrlPeekLatch(k, out: Ptr) -> int:
    return _latch(k, out, False)


@hle(LIB)
def sceCtrlSetIdleCancelThreshold(k, reset: int, back: int) -> int:
    if not -1 <= reset <= 128 or not -1 <= back <= 128:
        return codes.signed(codes.INVALID_VALUE)
    k.ctrl.idle_reset, k.ctrl.idle_back = reset, back
    return 0


@hle(LIB)
def sceCtrlGetIdleCancelThreshold(k, reset: Ptr, back: Ptr) -> int:
    if reset:
        k.memory.write_u32(reset, k.ctrl.idle_reset)
    if back:
        k.memory.write_u32(back, k.ctrl.idle_back)
    return 0
