"""System calls the run loop answers itself: the commonest calls that only read state the
loop has (the time), so a call costs no trip through Python.

Each such call has ONE definition, `value` below: numba compiles it into the run loop
(allegrex.cpu.interp, after the syscall's timing step), and the HLE function registered
for it (`@hle(..., in_loop=KIND)`) calls the same function as Python (`answer`), for
callers that are not the run loop. The loop does what Kernel.on_syscall does for any
call, in the same order: charge the call's cost, count it, set the caller-saved
registers to 0xDEADBEEF, write the result. Nothing else changes, because the call
changes nothing else (no thread waits or wakes); the cycle count is the same either way.

`table` (int64, one per Machine, passed to the run loop): the clock (Kernel's Clock
keeps its state here: base cycles, base microseconds, CPU MHz), the HLE cycles and calls
the loop charged, and per syscall code (from SYSCALL_BASE) its kind (0: Python answers),
cost and count. A Kernel fills in the codes of the HLE functions it links.
"""

import numpy as np
from numba import njit

from allegrex.cpu.state import A0, AT, HI, LO, T7, T8, T9, V0, V1
from allegrex.timing.counters import HLE_CALLS, STALL_SYSCALL

SYSCALL_BASE = 0x1000  # the first syscall code a Kernel hands out (codes are 20-bit fields)
# A syscall returns with the caller-saved registers it did not answer in set to 0xDEADBEEF:
# at, a0-a3, t0-t9, hi and lo (measured: pspautotests misc/deadbeef; v0/v1 carry results,
# s0-s7, gp, sp, fp, ra and the FPU registers survive).
DEADBEEF = 0xDEADBEEF
SYSCALL_CLOBBERED = np.array([AT, *range(A0, T7 + 1), T8, T9, HI, LO])

# Kinds: what the call returns (0: not answered in the loop).
SYSTEM_TIME = 1  # microseconds since boot, 64 bits in v0:v1 (sceKernelGetSystemTimeWide)
SYSTEM_TIME_LOW = 2  # its low 32 bits in v0 (sceKernelGetSystemTimeLow)

# table layout
BASE_CYCLES, BASE_US, CPU_MHZ = 0, 1, 2  # the clock: now = BASE_US + (cycles - BASE_CYCLES) // CPU_MHZ
CHARGED_CYCLES = 3  # HLE cycles the loop charged (Kernel.hle_cycles adds them)
HEADER = 8
CODES = 4096  # syscall codes the table covers; a later code is answered by Python
KIND, COST, COUNT = HEADER, HEADER + CODES, HEADER + 2 * CODES
TABLE_SIZE = HEADER + 3 * CODES


def new_table() -> np.ndarray:
    """An empty table (no code answered in the loop); the Kernel's Clock sets the clock."""
    return np.zeros(TABLE_SIZE, dtype=np.int64)


@njit(cache=True, inline="always")
def value(kind, clock, cycles):
    """What call `kind` returns at cycle count `cycles`; clock: the table (or a view of it)."""
    now = clock[BASE_US] + (cycles - clock[BASE_CYCLES]) // clock[CPU_MHZ]
    if kind == SYSTEM_TIME_LOW:
        return now & 0xFFFFFFFF
    return now


def answer(k, kind: int) -> int:
    """The HLE function's result when Python answers (the same definition as the loop's)."""
    return value.py_func(kind, k.clock.state, k.clock.cycles)


@njit(cache=True, inline="always")
def answered(code, regs, counters, cycles, table):
    """The cycle count after the loop answered system call `code` that just retired at
    `cycles`, or -1 when Python answers it (the loop then stops with EV_SYSCALL)."""
    i = code - SYSCALL_BASE
    if i < 0 or i >= CODES or table[KIND + i] == 0:
        return -1
    kind = table[KIND + i]
    cost = table[COST + i]
    cycles += cost  # charged before the call runs, as Kernel.on_syscall does
    counters[STALL_SYSCALL] += cost
    counters[HLE_CALLS] += 1
    table[CHARGED_CYCLES] += cost
    table[COUNT + i] += 1
    result = value(kind, table, cycles)
    for r in SYSCALL_CLOBBERED:
        regs[r] = DEADBEEF
    regs[V0] = result & 0xFFFFFFFF
    if kind == SYSTEM_TIME:
        regs[V1] = (result >> 32) & 0xFFFFFFFF
    return cycles
