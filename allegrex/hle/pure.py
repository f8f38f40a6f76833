"""System calls the run loop answers itself: the commonest calls that only read state the
loop has (the time, the pad's scripted input), so a call costs no trip through Python.

Each such call has ONE definition, `value` below: numba compiles it into the run loop
(allegrex.cpu.interp, after the syscall's timing step), and the HLE function registered
for it (`@hle(..., in_loop=KIND)`) calls the same function as Python (`answer`), for
callers that are not the run loop. The loop does what Kernel.on_syscall does for any
call, in the same order: charge the call's cost, count it, set the caller-saved
registers to 0xDEADBEEF, write the result. Nothing else changes, because the call
changes nothing else (no thread waits or wakes); the cycle count is the same either way.
A call the loop cannot answer exactly as Python would (a pad buffer that is not plain
word-aligned memory, a size Python refuses) is left to Python once charged, before
anything else changed.

The loop charges and counts every other HLE function too (`charge`, kind BY_PYTHON)
before it stops for Python to answer it: a Kernel.run pass then does no accounting in
Python (a third of what a call cost there).

Two calls that wait are answered here too, where the wait is certain to be one idle skip:
sceDisplayWaitVblankStart, and a pad read with no sample left to read (one with samples
waiting returns at once), when the Kernel said the calling thread runs alone (no other
thread ready, nothing that runs when a thread leaves the CPU, dispatch and interrupts on)
and no timer falls due before the vblank or the sample (IDLE_LIMIT: the cycle count of the
earliest deadline, written before each step). Python would then block the thread, jump
time to then as idle time, wake it and switch back to it; the loop does what that leaves:
the cycle count then plus the switch, the idle cycles (IDLE_CYCLES), the result (and the
pad's record and latch).

`table` (int64, one per Kernel, passed to the run loop): the clock (Kernel's Clock keeps
its state here: base cycles, base microseconds, CPU MHz), the HLE cycles and calls the
loop charged, the pad's sampling state (sceCtrl's Ctrl keeps it here), per syscall code
(from SYSCALL_BASE) its kind (0: no HLE function), cost and count, and at the end the
input script's events. A Kernel fills in the codes of the HLE functions it links.
"""

import numpy as np
from numba import njit

from allegrex.cpu.events import EVENT_ARGS
from allegrex.cpu.state import A0, A1, AT, HI, LO, T7, T8, T9, V0, V1
from allegrex.hle.costs import THREAD_SWITCH
from allegrex.memory import translate
from allegrex.timing.counters import HLE_CALLS, STALL_SYSCALL

SYSCALL_BASE = 0x1000  # the first syscall code a Kernel hands out (codes are 20-bit fields)
# A syscall returns with the caller-saved registers it did not answer in set to 0xDEADBEEF:
# at, a0-a3, t0-t9, hi and lo (measured: pspautotests misc/deadbeef; v0/v1 carry results,
# s0-s7, gp, sp, fp, ra and the FPU registers survive).
DEADBEEF = 0xDEADBEEF
SYSCALL_CLOBBERED = np.array([AT, *range(A0, T7 + 1), T8, T9, HI, LO])

# Kinds: what the call returns (0: no HLE function, nothing the loop does).
SYSTEM_TIME = 1  # microseconds since boot, 64 bits in v0:v1 (sceKernelGetSystemTimeWide)
SYSTEM_TIME_LOW = 2  # its low 32 bits in v0 (sceKernelGetSystemTimeLow)
PAD_PEEK = 3  # the latest pad sample into a0's count records, the count in v0 (sceCtrlPeekBufferPositive)
PAD_PEEK_NEGATIVE = 4  # the same with the buttons inverted (sceCtrlPeekBufferNegative)
VBLANK_WAIT = 5  # wait for the next vblank's start, 0 in v0 (sceDisplayWaitVblankStart): see above
PAD_READ = 6  # the samples not yet read, or wait for the next (sceCtrlReadBufferPositive): see above
PAD_READ_NEGATIVE = 7  # the same with the buttons inverted (sceCtrlReadBufferNegative)
BY_PYTHON = 8  # any other HLE function: Python answers it, the loop charges and counts it (`charge`)
BY_PYTHON_KEEPS = 9  # the same, but the call restores a context: the loop leaves the registers alone
WAITS = (VBLANK_WAIT, PAD_READ, PAD_READ_NEGATIVE)  # the kinds that may wait (the Kernel then bounds IDLE_LIMIT)

# table layout
BASE_CYCLES, BASE_US, CPU_MHZ = 0, 1, 2  # the clock: now = BASE_US + (cycles - BASE_CYCLES) // CPU_MHZ
CHARGED_CYCLES = 3  # HLE cycles the loop charged (Kernel.hle_cycles adds them)
# the pad: sampling mode (0 digital, 1 analog), cycle (0: at each vblank's end, else every
# `cycle` us from the base), and how many input events follow the codes
PAD_MODE, PAD_CYCLE, PAD_CYCLE_BASE, PAD_EVENTS = 4, 5, 6, 7
# a wait the loop may answer with an idle skip: the cycle count it must stay below (0: it
# may not; the Kernel writes it before each step), and the idle cycles the loop added
IDLE_LIMIT, IDLE_CYCLES = 8, 9
# what the pad's reads and latch keep (sceCtrl's Ctrl keeps it here): the time of the last
# sample read, when the latch last counted from, the buttons it saw last, and the latch's
# four words (make, break, press, release)
PAD_LAST_READ, PAD_LATCH_BASE, PAD_LATCH_PREV, PAD_LATCH = 10, 11, 12, 13
PAD_LATCH_WORDS = 4
ANSWERS = PAD_LATCH + PAD_LATCH_WORDS  # calls the loop answered (it charges and counts more: BY_PYTHON)
HEADER = ANSWERS + 1
CODES = 4096  # syscall codes the table covers; a later code is answered by Python
KIND, COST, COUNT = HEADER, HEADER + CODES, HEADER + 2 * CODES
INPUT = HEADER + 3 * CODES  # the input script: per event start us, end us, buttons, analog x (-1: none), y
INPUT_FIELDS = 5
TABLE_SIZE = INPUT  # with no input events

# The pad (sceCtrl). Vblank n starts at n / 59.94006 s; in vblank mode the pad is sampled
# as the vblank ends, 731.5 us after it starts (measured: pspautotests ctrl/vblank sees the
# new sample outside the vblank, one frame apart).
VBLANK_MICROHZ = 59_940_060  # 59.94006 Hz, as sceDisplayGetFramePerSec reports
VBLANK_SAMPLE_DELAY_US = 732
ANALOG_CENTER = 128
PAD_RECORDS_MAX = 64  # a peek or read fills 1..64 records
PAD_RECORD_WORDS = 4  # time stamp, buttons, analog x | y << 8, reserved (16 bytes)
# the loop's 64-bit vblank arithmetic holds up to here (42 h of simulated time); later, Python answers
LOOP_VBLANK_UNTIL_US = 10**11


def new_table(events=()) -> np.ndarray:
    """A table with no code answered in the loop (the Kernel's Clock sets the clock) and the
    input script `events` (allegrex.hle.ctrl.InputEvent: start_us, end_us, buttons, analog)."""
    table = np.zeros(INPUT + INPUT_FIELDS * len(events), dtype=np.int64)
    table[PAD_EVENTS] = len(events)
    for i, ev in enumerate(events):
        x, y = ev.analog if ev.analog else (-1, 0)
        table[INPUT + INPUT_FIELDS * i:INPUT + INPUT_FIELDS * (i + 1)] = ev.start_us, ev.end_us, ev.buttons, x, y
    return table


@njit(cache=True, inline="always")
def vblank_us(n):
    """Simulated microsecond at which vblank n starts (rounded up)."""
    return -(-(n * 10**12) // VBLANK_MICROHZ)


@njit(cache=True, inline="always")
def vcount_at(us):
    """Vblanks started at or before simulated microsecond `us`."""
    return (us * VBLANK_MICROHZ) // 10**12


@njit(cache=True, inline="always")
def pad_samples_at(table, us):
    """Pad samples taken at or before `us` (since the sampling cycle was set)."""
    cycle = table[PAD_CYCLE]
    if cycle == 0:
        return vcount_at(us - VBLANK_SAMPLE_DELAY_US)
    base = table[PAD_CYCLE_BASE]
    return (max(us, base) - base) // cycle


@njit(cache=True, inline="always")
def pad_sample_us(table, index):
    """When pad sample `index` is taken."""
    if table[PAD_CYCLE] == 0:
        return vblank_us(index) + VBLANK_SAMPLE_DELAY_US
    return table[PAD_CYCLE_BASE] + index * table[PAD_CYCLE]


@njit(cache=True, inline="always")
def pad_state(table, us):
    """(buttons, analog x, analog y) the input script holds at `us`: the buttons of every
    event under way, the stick of the last of them that moves it."""
    buttons, x, y = 0, ANALOG_CENTER, ANALOG_CENTER
    for i in range(table[PAD_EVENTS]):
        e = INPUT + INPUT_FIELDS * i
        if table[e] <= us < table[e + 1]:
            buttons |= table[e + 2]
            if table[e + 3] >= 0:
                x, y = table[e + 3], table[e + 4]
    return buttons, x, y


@njit(cache=True, inline="always")
def pad_record(table, now, negative):
    """The words of the record a peek or read at `now` writes: the latest sample's time
    stamp, its buttons (inverted for the Negative calls), analog x | y << 8 (centred in
    digital mode), and a zero word."""
    at = max(0, pad_sample_us(table, pad_samples_at(table, now)))
    buttons, x, y = pad_state(table, at)
    if table[PAD_MODE] == 0:
        x = y = ANALOG_CENTER
    if negative:
        buttons = ~buttons & 0xFFFFFFFF
    return at & 0xFFFFFFFF, buttons, x | (y << 8), 0


@njit(cache=True, inline="always")
def pad_latch_update(table, now):
    """Fold the samples taken since the latch last counted into its make/break/press/release
    words (the buttons seen at each of the last microseconds, one per sample); the count."""
    count = max(0, pad_samples_at(table, now) - pad_samples_at(table, table[PAD_LATCH_BASE]))
    for i in range(min(count, PAD_RECORDS_MAX)):  # the button state can only change at script events
        buttons = pad_state(table, now - i)[0]
        changed = buttons ^ table[PAD_LATCH_PREV]
        table[PAD_LATCH] |= changed & buttons
        table[PAD_LATCH + 1] |= changed & ~buttons & 0xFFFFFFFF
        table[PAD_LATCH + 2] |= buttons
        table[PAD_LATCH + 3] |= ~buttons & 0xFFFFFFFF
        table[PAD_LATCH_PREV] = buttons
    return count


@njit(cache=True, inline="always")
def value(kind, clock, cycles):
    """What call `kind` returns at cycle count `cycles`; clock: the table (or a view of it)."""
    now = clock[BASE_US] + (cycles - clock[BASE_CYCLES]) // clock[CPU_MHZ]
    if kind == SYSTEM_TIME_LOW:
        return now & 0xFFFFFFFF
    return now


@njit(cache=True, inline="always")
def cycles_at(clock, us):
    """The first cycle count at which the time is simulated microsecond `us` (whole)."""
    return clock[BASE_CYCLES] + (us - clock[BASE_US]) * clock[CPU_MHZ]


def answer(k, kind: int) -> int:
    """The HLE function's result when Python answers (the same definition as the loop's)."""
    return value.py_func(kind, k.clock.state, k.clock.cycles)


@njit(cache=True, inline="always")
def pad_buffer(addr, count, mem32, ram_size, mapping):
    """The word index in mem32 of `count` pad records at `addr` when they lie in one piece
    of plain memory, else -1 (Python then answers: it refuses the size or faults)."""
    if count < 1 or count > PAD_RECORDS_MAX or addr & 3:
        return -1
    words = count * PAD_RECORD_WORDS
    first = translate(addr, 4, ram_size, mapping)
    last = translate(addr + 4 * (words - 1), 4, ram_size, mapping)
    if first < 0 or last - first != 4 * (words - 1):
        return -1
    return first >> 2


@njit(cache=True, inline="always")
def charge(code, regs, counters, cycles, table, event):
    """The cycle count after system call `code`, which just retired at `cycles`, was charged
    its cost (before it runs, whoever answers it) and counted: every HLE function the
    table lists, so Python's dispatch of the rest does no accounting (Kernel.on_syscall).
    A call Python answers (BY_PYTHON) also gets its caller-saved registers set to
    0xDEADBEEF here, its argument registers kept in event[EVENT_ARGS:] for Python to read."""
    i = code - SYSCALL_BASE
    if i < 0 or i >= CODES or table[KIND + i] == 0:
        return cycles
    cost = table[COST + i]
    counters[STALL_SYSCALL] += cost
    counters[HLE_CALLS] += 1
    table[CHARGED_CYCLES] += cost
    table[COUNT + i] += 1
    if table[KIND + i] == BY_PYTHON:
        for j in range(4):  # a0-t3, two words a slot, low word first: uint32 words in order
            event[EVENT_ARGS + j] = np.int64(regs[A0 + 2 * j]) | (np.int64(regs[A0 + 2 * j + 1]) << 32)
        for r in SYSCALL_CLOBBERED:
            regs[r] = DEADBEEF
    return cycles + cost


@njit(cache=True, inline="always")
def answered(code, regs, counters, at, table, mem32, ram_size, mapping):
    """The cycle count after the loop answered system call `code`, charged up to `at`
    (`charge`), or -1 when Python answers it (the loop then stops with EV_SYSCALL)."""
    i = code - SYSCALL_BASE
    if i < 0 or i >= CODES or table[KIND + i] == 0 or table[KIND + i] >= BY_PYTHON:
        return -1
    kind = table[KIND + i]
    now = value(SYSTEM_TIME, table, at)
    result = value(kind, table, at)
    resume = at
    if kind == VBLANK_WAIT:
        if now >= LOOP_VBLANK_UNTIL_US:
            return -1
        woken = cycles_at(table, vblank_us(vcount_at(now) + 1))
        if woken >= table[IDLE_LIMIT]:  # not alone, or a timer falls due first: Python waits
            return -1
        table[IDLE_CYCLES] += woken - at
        resume = woken + THREAD_SWITCH  # back to the thread that waited
        result = 0
    elif kind == PAD_PEEK or kind == PAD_PEEK_NEGATIVE or kind == PAD_READ or kind == PAD_READ_NEGATIVE:
        count = np.int64(regs[A1])
        w = pad_buffer(np.int64(regs[A0]), count, mem32, ram_size, mapping)
        if w < 0 or now >= LOOP_VBLANK_UNTIL_US:
            return -1
        at_us = now  # the sample the records show: the latest
        if kind == PAD_READ or kind == PAD_READ_NEGATIVE:
            if table[IDLE_LIMIT] == 0:  # a read may wait: not alone (or it may not wait), Python answers
                return -1
            unread = min(PAD_RECORDS_MAX, max(0, pad_samples_at(table, now) - pad_samples_at(table, table[PAD_LAST_READ])))
            if unread > 0:  # the samples not yet read, at once
                count = min(count, unread)
            else:  # wait for the next sample, which is the one read
                at_us = pad_sample_us(table, pad_samples_at(table, now) + 1)
                woken = cycles_at(table, at_us)
                if woken >= table[IDLE_LIMIT]:
                    return -1
                count = 1
                pad_latch_update(table, at_us - 1)  # the sample read here still counts for the latch
                table[PAD_LATCH_BASE] = at_us - 1
                table[IDLE_CYCLES] += woken - at
                resume = woken + THREAD_SWITCH
            table[PAD_LAST_READ] = at_us
        stamp, buttons, stick, reserved = pad_record(table, at_us, kind == PAD_PEEK_NEGATIVE or kind == PAD_READ_NEGATIVE)
        for r in range(count):
            mem32[w] = stamp
            mem32[w + 1] = buttons
            mem32[w + 2] = stick
            mem32[w + 3] = reserved
            w += PAD_RECORD_WORDS
        result = count
    table[ANSWERS] += 1
    for r in SYSCALL_CLOBBERED:
        regs[r] = DEADBEEF
    regs[V0] = result & 0xFFFFFFFF
    if kind == SYSTEM_TIME:
        regs[V1] = (result >> 32) & 0xFFFFFFFF
    return resume
