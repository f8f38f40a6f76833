"""The cycle model: per-instruction timing classes, a register scoreboard, caches and a
bus-clocked main memory, control-flow costs, the CPU clock, HLE and memory-stick costs,
and per-address profiling. See docs/timing.md.

A Machine owns one `Timing` (machine.timing): its `tm` array is the model's whole
state, handed to the run loop with `prof` (per-address profile counters, empty when
profiling is off).
"""

import numpy as np

from allegrex.timing import calls as calls_model
from allegrex.timing import counters
from allegrex.timing.clock import DEFAULT_BUS_MHZ, DEFAULT_CPU_MHZ, HLE_CALL_CYCLES, hle_call_cycles
from allegrex.timing.memstick import memstick_cycles
from allegrex.timing import memory_model as M
from allegrex.timing.layout import (T_BUS_MHZ, T_CPU_MHZ, T_DC_DIRTY, T_DC_LRU, T_DC_TAG, T_DRAM_ROW, T_ENABLED,
                                    T_IC_LRU, T_IC_TAG, T_LAST_ILINE, T_NEXT_TICK, T_PROF_BASE, T_PROF_INSNS,
                                    T_PROF_LAST, T_RATIO_Q8, T_TICK_COST, T_TICK_PERIOD, T_VMEMO_ROW,
                                    T_VMEMO_WORD, TM_SIZE, VMEMO_SIZE)
from allegrex.timing.memory_model import CACHE_SETS, CACHE_WAYS, DRAM_BANKS, LINE_BITS
from allegrex.timing.model import OS_TICK_COST, OS_TICK_US

__all__ = ["Timing", "new_state", "counters", "hle_call_cycles", "memstick_cycles", "HLE_CALL_CYCLES"]


def new_state(cpu_mhz=DEFAULT_CPU_MHZ, bus_mhz=DEFAULT_BUS_MHZ, enabled=True, os_tick=True):
    """A fresh timing state array: empty caches and scoreboard, clock set."""
    tm = np.zeros(TM_SIZE, dtype=np.int64)
    tm[T_ENABLED] = 1 if enabled else 0
    tm[T_LAST_ILINE] = -1
    tm[T_DC_TAG:T_DC_TAG + 2 * CACHE_SETS * CACHE_WAYS] = 0  # tags, dirty
    tm[T_DC_TAG:T_DC_TAG + CACHE_SETS * CACHE_WAYS] = -1
    tm[T_IC_TAG:T_IC_TAG + CACHE_SETS * CACHE_WAYS] = -1
    tm[T_IC_LRU:T_IC_LRU + CACHE_SETS] = 0
    tm[T_DRAM_ROW:T_DRAM_ROW + DRAM_BANKS] = -1
    tm[T_VMEMO_WORD:T_VMEMO_WORD + VMEMO_SIZE] = -1
    tm[T_VMEMO_ROW:T_VMEMO_ROW + VMEMO_SIZE] = -1
    tm[T_TICK_COST] = OS_TICK_COST if os_tick else 0
    _set_clock(tm, cpu_mhz, bus_mhz, 0)
    return tm


def _set_clock(tm, cpu_mhz, bus_mhz, now_cycles):
    tm[T_CPU_MHZ], tm[T_BUS_MHZ] = cpu_mhz, bus_mhz
    tm[T_RATIO_Q8] = (cpu_mhz * 256 + bus_mhz // 2) // bus_mhz
    period = cpu_mhz * OS_TICK_US if tm[T_TICK_COST] > 0 else 0
    tm[T_TICK_PERIOD] = period
    tm[T_NEXT_TICK] = now_cycles + period if period else 0


class Timing:
    """A machine's timing state, clock history and optional profile arrays."""

    def __init__(self, cpu_mhz=DEFAULT_CPU_MHZ, bus_mhz=DEFAULT_BUS_MHZ, enabled=True, os_tick=True):
        self.tm = new_state(cpu_mhz, bus_mhz, enabled, os_tick)
        self.prof = np.zeros((counters.PROF_ROWS, 0), dtype=np.int64)
        self.profile_base = 0
        self.arrays_changed = None  # a Machine's hook, called after tm or prof is replaced (its run loop takes them)
        # (cycle at which a clock took effect, seconds elapsed then, cpu MHz, bus MHz)
        self.clock_log = [(0, 0.0, cpu_mhz, bus_mhz)]

    @property
    def enabled(self) -> bool:
        return bool(self.tm[T_ENABLED])

    @property
    def cpu_mhz(self) -> int:
        return int(self.tm[T_CPU_MHZ])

    @property
    def bus_mhz(self) -> int:
        return int(self.tm[T_BUS_MHZ])

    def set_clock(self, cpu_mhz: int, bus_mhz: int, now_cycles: int) -> None:
        """Change the clocks from cycle `now_cycles` on (scePowerSetClockFrequency):
        later fills cost bus cycles at the new ratio, later cycles last 1/cpu_mhz us."""
        if cpu_mhz <= 0 or bus_mhz <= 0:
            raise ValueError(f"clock must be positive, got {cpu_mhz}/{bus_mhz} MHz")
        self.clock_log.append((now_cycles, self.seconds(now_cycles), cpu_mhz, bus_mhz))
        _set_clock(self.tm, int(cpu_mhz), int(bus_mhz), now_cycles)

    def set_os_tick(self, on: bool, now_cycles: int) -> None:
        """Charge the OS's periodic interrupt work from cycle `now_cycles` on, or not
        (a benchmark that wants every call timed alike: the interrupt's cycles also let
        pending results complete, so a call that takes one stalls a little less)."""
        self.tm[T_TICK_COST] = OS_TICK_COST if on else 0
        _set_clock(self.tm, self.cpu_mhz, self.bus_mhz, now_cycles)

    def seconds(self, cycles: int) -> float:
        """Simulated time at cycle count `cycles`, following every clock change."""
        start, secs, cpu, _ = self.clock_log[0]
        for entry in self.clock_log[1:]:
            if entry[0] > cycles:
                break
            start, secs, cpu, _ = entry
        return secs + (cycles - start) / (cpu * 1e6)

    def clock_text(self) -> str:
        """The clock in force, and every change, for reports."""
        text = f"{self.cpu_mhz}/{self.bus_mhz} MHz"
        if len(self.clock_log) > 1:
            text += " (changes: " + ", ".join(f"{c}/{b} MHz at cycle {cy}" for cy, _, c, b in self.clock_log) + ")"
        return text

    def enable_profile(self, base: int, size_bytes: int, cpu_counters=None, calls: bool = False,
                       log_entries: int = 0, max_depth: int = calls_model.DEFAULT_MAX_DEPTH,
                       edges: int = calls_model.DEFAULT_EDGES) -> None:
        """Attribute cycles, stalls (by cause) and cache misses to every instruction
        address in [base, base + size_bytes). `cpu_counters`: the CPU's counters now (None:
        all zero). calls=True also follows the call stack (timing.calls): inclusive
        costs per call edge, and the first `log_entries` calls and returns over time."""
        n = max(0, size_bytes // 4)
        self.prof = np.zeros((counters.PROF_ROWS, n), dtype=np.int64)
        self.profile_base = base & 0xFFFFFFFF
        tm = self.tm[:TM_SIZE].copy()
        tm[T_PROF_BASE] = self.profile_base
        for j, k in enumerate(counters.PROF_TRACKED):
            tm[T_PROF_LAST + j] = 0 if cpu_counters is None else cpu_counters[k]
        tm[T_PROF_INSNS] = 0
        if calls:
            tm = np.concatenate([tm, np.zeros(calls_model.area_size(max_depth, edges, log_entries), np.int64)])
            calls_model.init_area(tm, max_depth, edges, log_entries)
        self.tm = tm
        if self.arrays_changed is not None:
            self.arrays_changed()

    def kernel_stores(self, addr: int, size: int) -> None:
        """The D-cache after the kernel stored `size` bytes from `addr` (a fill through the
        cache, such as a new thread's stack: write-allocate leaves the last 16 KiB of the
        range dirty in the cache, evicting what was there). Runs the run loop's own lookup
        and replacement rules; the stores' cycles are part of the calling HLE function's."""
        if size <= 0 or M.region.py_func(addr) != M.REG_RAM:
            return
        lookup, victim = M.cache_lookup.py_func, M.cache_victim.py_func
        end = addr + size
        first = max(addr, end - (CACHE_SETS * CACHE_WAYS << LINE_BITS))  # earlier lines are evicted again
        for line in range((first & M.PHYS_MASK) >> M.LINE_BITS, (((end - 1) & M.PHYS_MASK) >> M.LINE_BITS) + 1):
            way = lookup(self.tm, T_DC_TAG, T_DC_LRU, line)
            if way < 0:
                way = victim(self.tm, T_DC_TAG, T_DC_LRU, line)
                self.tm[T_DC_TAG + (line & M.SET_MASK) * CACHE_WAYS + way] = line
            self.tm[T_DC_DIRTY + (line & M.SET_MASK) * CACHE_WAYS + way] = 1

    def reset_caches(self) -> None:
        """Invalidate both caches and forget open DRAM rows (keeps the scoreboard)."""
        fresh = new_state(self.cpu_mhz, self.bus_mhz)
        for lo, n in ((T_DC_TAG, 2 * CACHE_SETS * CACHE_WAYS + CACHE_SETS), (T_IC_TAG, CACHE_SETS * CACHE_WAYS),
                      (T_DRAM_ROW, DRAM_BANKS)):
            self.tm[lo:lo + n] = fresh[lo:lo + n]
        self.jumped()

    def jumped(self) -> None:
        """The next instruction is reached by a jump from Python (Machine.cpu.jump): its
        I-cache line is looked up even if the last instruction ran from the same line."""
        self.tm[T_LAST_ILINE] = -1


def charge_hle(machine, cycles: int, calls: int = 1) -> None:
    """Charge `cycles` of HLE work to the machine: the cycle counter, the 'syscalls'
    stall row and the call count. The HLE's dispatch calls this once per call (and the
    IO manager with calls=0 for the memory stick's transfer time)."""
    c = machine.cpu.counters_view
    c[counters.CYCLES] += cycles
    c[counters.STALL_SYSCALL] += cycles
    c[counters.HLE_CALLS] += calls
