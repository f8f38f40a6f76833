"""sceCtrl: buttons and analog stick, driven by an input script.

Script lines (`--input FILE`), one event each, `#` starts a comment:
    <time> <BUTTON>[+<BUTTON>...] [for <duration>] [analog <x> <y>]
time and duration: `2s`, `500ms`, `120f` (frames at 59.94 Hz); e.g. `2s CROSS for 100ms`.
`--press CROSS@2s` is the same as the line `2s CROSS` (held 100 ms).
"""

import struct
from dataclasses import dataclass

from allegrex.cpu.state import V0
from allegrex.errors import AllegrexError
from allegrex.hle import codes, costs, pure, threads
from allegrex.hle.kernel import VBLANK_HZ
from allegrex.hle.registry import Ptr, Raw, hle
from allegrex.hle.threads import Wait

BUTTONS = {
    "SELECT": 0x1, "START": 0x8, "UP": 0x10, "RIGHT": 0x20, "DOWN": 0x40, "LEFT": 0x80,
    "LTRIGGER": 0x100, "L": 0x100, "RTRIGGER": 0x200, "R": 0x200, "TRIANGLE": 0x1000, "CIRCLE": 0x2000,
    "CROSS": 0x4000, "SQUARE": 0x8000, "HOME": 0x10000, "HOLD": 0x20000, "NOTE": 0x800000,
    "SCREEN": 0x400000, "VOLUP": 0x100000, "VOLDOWN": 0x200000,
}
DEFAULT_PRESS_US = 100_000
DATA_SIZE = 4 * pure.PAD_RECORD_WORDS
# The pad's sampling rules and records have one definition, allegrex.hle.pure's (the run
# loop answers peeks with it); these are those functions as Python, over the Kernel's table.
_samples_at, _sample_us = pure.pad_samples_at.py_func, pure.pad_sample_us.py_func
_pad_state, _pad_record = pure.pad_state.py_func, pure.pad_record.py_func
_latch_update = pure.pad_latch_update.py_func
_RECORD = struct.Struct("<4I")
VBLANK_SAMPLE_DELAY_US = pure.VBLANK_SAMPLE_DELAY_US  # in vblank mode: a sample as the vblank ends


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
    """The pad is sampled at the end of every vblank (cycle 0) or every `cycle` microseconds
    into a 64-entry buffer. Reads consume the samples taken since the previous read and wait for
    the next sample when there is none; the latch counts samples since it was last read.
    The sampling mode and cycle, what was read last and the latch live in the Kernel's
    allegrex.hle.pure table (with the input script, which the Kernel put there), where the
    run loop reads them for peeks and reads."""

    def __init__(self, kernel):
        self.k = kernel
        self.table = kernel.clock.state  # a memoryview of the table: cheap from Python
        self.last_read = self.sample_us(-2)  # the sample taken before the program started is unread
        self.idle_reset = -1
        self.idle_back = -1

    @property
    def mode(self) -> int:
        """0: digital only (the stick reads centred), 1: analog."""
        return self.table[pure.PAD_MODE]

    @mode.setter
    def mode(self, mode: int) -> None:
        self.table[pure.PAD_MODE] = mode

    @property
    def last_read(self) -> int:
        """When the last sample read was taken."""
        return self.table[pure.PAD_LAST_READ]

    @last_read.setter
    def last_read(self, us: int) -> None:
        self.table[pure.PAD_LAST_READ] = us

    @property
    def latch_base(self) -> int:
        """The latch counts the samples taken after this microsecond."""
        return self.table[pure.PAD_LATCH_BASE]

    @latch_base.setter
    def latch_base(self, us: int) -> None:
        self.table[pure.PAD_LATCH_BASE] = us

    @property
    def latch(self) -> list:
        """make, break, press, release"""
        return self.table[pure.PAD_LATCH:pure.PAD_LATCH + pure.PAD_LATCH_WORDS].tolist()

    def reset_latch(self) -> None:
        for i in range(pure.PAD_LATCH_WORDS):
            self.table[pure.PAD_LATCH + i] = 0

    @property
    def cycle(self) -> int:
        """0: a sample as each vblank ends, else every `cycle` us from cycle_base."""
        return self.table[pure.PAD_CYCLE]

    @property
    def cycle_base(self) -> int:
        return self.table[pure.PAD_CYCLE_BASE]

    def state(self, us: int):
        buttons, x, y = _pad_state(self.table, us)
        return buttons, (x, y)

    # --- sample instants ---
    def _index(self, us: int) -> int:
        """Number of samples taken at or before `us` (since the cycle was set)."""
        return _samples_at(self.table, us)

    def samples_between(self, start: int, end: int) -> int:
        return max(0, self._index(end) - self._index(start))

    def sample_us(self, index: int) -> int:
        """When sample `index` is taken."""
        return _sample_us(self.table, index)

    def next_sample_us(self, us: int) -> int:
        return self.sample_us(self._index(us) + 1)

    def set_cycle(self, cycle: int) -> None:
        now = self.k.now_us()
        self.update_latch(now)
        self.table[pure.PAD_CYCLE], self.table[pure.PAD_CYCLE_BASE] = cycle, now

    # --- data ---
    def record(self, now: int, negative: bool = False) -> bytes:
        """The 16 bytes a peek or read at `now` writes (the latest sample's)."""
        return _RECORD.pack(*_pad_record(self.table, now, negative))

    def update_latch(self, now: int) -> int:
        """Fold the samples since the latch was reset into make/break/press/release; the count."""
        return _latch_update(self.table, now)


LIB = "sceCtrl"


MAX_SAMPLES = pure.PAD_RECORDS_MAX


def _fill(k, addr, count, negative, now) -> None:
    data = k.ctrl.record(now, negative)
    for i in range(count):
        k.memory.write(addr + DATA_SIZE * i, data)


def _peek(k, addr, count, negative) -> int:
    if not 1 <= count <= MAX_SAMPLES:
        return codes.signed(codes.INVALID_SIZE)
    _fill(k, addr, count, negative, k.now_us())
    return count


def _read(k, addr, count, negative) -> None:
    """Samples taken since the last read; with none, wait for the next one."""
    c = k.ctrl
    if not 1 <= count <= MAX_SAMPLES:
        k.cpu.regs[V0] = codes.INVALID_SIZE
        return
    if threads.cannot_wait(k) and not k.interrupts:  # even with samples waiting (measured: intr/waits)
        k.cpu.regs[V0] = codes.WAIT_CAN_NOT_WAIT
        return
    now = k.now_us()
    unread = min(MAX_SAMPLES, c.samples_between(c.last_read, now))
    if unread:
        n = min(count, unread)
        _fill(k, addr, n, negative, now)
        c.last_read = now
        k.cpu.regs[V0] = n
        return
    t = k.threads.current
    wait = Wait("ctrl")
    k.cpu.regs[V0] = 0
    at = c.next_sample_us(now)

    def sampled():
        if t.wait is wait:
            _fill(k, addr, 1, negative, at)
            c.last_read = at
            c.update_latch(at - 1)  # the sample read here still counts for the latch
            c.latch_base = at - 1
            k.threads.wake(t, 1)

    k.threads.block(wait)
    wait.timer = k.timers.add(at, sampled)


# The run loop answers peeks itself (allegrex.hle.pure.PAD_PEEK: the same pad_record).
@hle(LIB, cost=costs.SYSCALL, in_loop=pure.PAD_PEEK)
def sceCtrlPeekBufferPositive(k, data: Ptr, count: int) -> int:
    return _peek(k, data, count, False)


@hle(LIB, cost=costs.SYSCALL, in_loop=pure.PAD_PEEK_NEGATIVE)
def sceCtrlPeekBufferNegative(k, data: Ptr, count: int) -> int:
    return _peek(k, data, count, True)


# The run loop answers reads when the thread runs alone until the sample it waits for
# (allegrex.hle.pure.PAD_READ: the same samples, records and latch as _read leaves).
@hle(LIB, cost=costs.SYSCALL, in_loop=pure.PAD_READ)
def sceCtrlReadBufferPositive(k, data: Ptr, count: int) -> Raw:
    _read(k, data, count, False)


@hle(LIB, cost=costs.SYSCALL, in_loop=pure.PAD_READ_NEGATIVE)
def sceCtrlReadBufferNegative(k, data: Ptr, count: int) -> Raw:
    _read(k, data, count, True)


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
    old = k.ctrl.cycle
    k.ctrl.set_cycle(cycle)
    return old


@hle(LIB)
def sceCtrlGetSamplingCycle(k, out: Ptr) -> int:
    if out:
        k.memory.write_u32(out, k.ctrl.cycle)
    return 0


def _latch(k, out, reset) -> int:
    c = k.ctrl
    now = k.now_us()
    count = c.update_latch(now)
    for i, v in enumerate(c.latch):
        k.memory.write_u32(out + 4 * i, v)
    if reset:
        c.reset_latch()
        c.latch_base = now
    else:
        c.latch_base = now  # the samples are folded in; keep counting from here
        c.latch_pending = getattr(c, "latch_pending", 0) + count
        count = c.latch_pending
    if reset:
        count += getattr(c, "latch_pending", 0)
        c.latch_pending = 0
    return count


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
    for ptr in (reset, back):
        if ptr and (ptr & 0x80000000 or not k.memory.is_valid(ptr, 4)):
            return codes.signed(codes.PRIV_REQUIRED)
    if reset:
        k.memory.write_u32(reset, k.ctrl.idle_reset)
    if back:
        k.memory.write_u32(back, k.ctrl.idle_back)
    return 0
