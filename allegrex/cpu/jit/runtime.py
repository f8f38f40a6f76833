"""Numba functions compiled regions call: the interpreter's and the timing model's
helpers as plain (not numba-inlined) copies, the model's large paths as calls, the
block lookup for jumps through a register, and the per-instruction cost bound.

No cache=True: these are compiled into each region's own cached code, whose file name
carries the fingerprint of every source they depend on (see jit.store).
"""

from types import ModuleType

from numba import njit

from allegrex import memory
from allegrex.cpu import cop2, fpu, interp
from allegrex.timing import counters as C
from allegrex.timing import memory_model as M
from allegrex.timing import model
from allegrex.timing.classes import (ANNULLED_SLOT_PENALTY, JUMP_PENALTY, OP_BUSY, OP_ISSUE, OP_LATENCY,
                                     TAKEN_BRANCH_PENALTY)
from allegrex.timing.layout import T_DC_DIRTY, T_DC_LRU, T_DC_TAG, T_RATIO_Q8, T_TICK_COST
from allegrex.timing.model import cache_op, dcache_access, icache_fetch, vfpu_account
from allegrex.timing.vfpu_classes import ROW_ISSUE_Q4, ROW_LATENCY, VCMP_TO_BRANCH, VCMP_TO_MFVC


# The run loop inlines these helpers into itself (numba inline="always"); a region calls
# plain copies instead, which LLVM inlines when it links the region: numba's own inlining
# re-analyses the whole function at every call site, which made compiling quadratic.
translate = njit(memory.translate.py_func)
sx32 = njit(interp.sx32.py_func)
clz32 = njit(interp.clz32.py_func)
bitrev32 = njit(interp.bitrev32.py_func)
div_signed = njit(interp.div_signed.py_func)
div_unsigned = njit(interp.div_unsigned.py_func)
float_to_word = njit(fpu.float_to_word.py_func)
finish = njit(interp.finish.py_func)
_cop2_plain = ModuleType("cop2")  # stands in for the module in the interpreter's `cop2.execute(...)`
_cop2_plain.execute = njit(cop2.execute.py_func)
cop2 = _cop2_plain


@njit
def icache_fetch_call(tm, counters, pc):
    return icache_fetch(tm, counters, pc)


@njit
def dcache_access_call(tm, counters, addr, is_store):
    return dcache_access(tm, counters, addr, is_store)


@njit
def cache_op_call(tm, counters, func, addr):
    return cache_op(tm, counters, func, addr)


@njit
def vfpu_account_call(tm, counters, word, pc, maddr, t):
    return vfpu_account(tm, counters, word, pc, maddr, t)


@njit
def dcache(tm, counters, addr, is_store):
    """model.dcache_access with its most common case first: a hit in cached main RAM
    (small enough for LLVM to inline; the rest is a call)."""
    phys = addr & M.PHYS_MASK
    if (addr & M.UNCACHED_BIT) == 0 and phys >= M.VRAM_HI:
        line = phys >> M.LINE_BITS
        way = M.cache_lookup(tm, T_DC_TAG, T_DC_LRU, line)
        if way >= 0:
            counters[C.DCACHE_HITS] += 1
            if is_store:
                tm[T_DC_DIRTY + (line & M.SET_MASK) * M.CACHE_WAYS + way] = 1
            return 0
    return dcache_access_call(tm, counters, addr, is_store)


@njit
def find_block(heads, pc):
    """Index of `pc` in the sorted array `heads`, or -1."""
    lo = 0
    hi = heads.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if heads[mid] < pc:
            lo = mid + 1
        else:
            hi = mid
    if lo < heads.shape[0] and heads[lo] == pc:
        return lo
    return -1


def _step_bound_parts():
    """(CPU cycles, bus cycles) no single instruction's cost can exceed, from the model's
    own constants: the OS tick, an I-fetch miss, the longest wait for a source (no
    result is ever later than its latency after the current cycle), a busy unit, a data
    access or cache operation that writes back and fills, the longest issue, a control
    penalty, and a carried quarter-cycle."""
    latency = max(int(OP_LATENCY.max()), int(ROW_LATENCY.max()), VCMP_TO_BRANCH, VCMP_TO_MFVC)
    issue = max(int(OP_ISSUE.max()), int(ROW_ISSUE_Q4.max()) // 4 + 1) + 1
    cpu = (latency + int(OP_BUSY.max()) + issue + TAKEN_BRANCH_PENALTY + JUMP_PENALTY + ANNULLED_SLOT_PENALTY
           + 3 * M.MISS_CPU_CYCLES)
    bus = 3 * (M.BUS_WRITEBACK_CYCLES + M.BUS_FILL_CYCLES + M.BUS_ROW_OPEN_CYCLES + M.UNCACHED_BUS_CYCLES
               + M.VRAM_FILL_BUS_CYCLES + M.UNCACHED_STORE_BUS_CYCLES)
    return cpu, bus


BOUND_CPU, BOUND_BUS = _step_bound_parts()


@njit
def step_bound(tm):
    """Cycles one instruction can cost at most, at the clock in force (timed mode)."""
    return BOUND_CPU + tm[T_TICK_COST] + M.bus_to_cpu(tm, T_RATIO_Q8, BOUND_BUS)


# The steps of model.account, called by regions with constant operands: one call is one
# statement for numba to type (compiling stays fast); LLVM inlines them when linking.
tick = njit(model.os_tick.py_func)
fetch_line = njit(model.fetch_line.py_func)
wait_sources = njit(model.wait_sources.py_func)
wait_unit = njit(model.wait_unit.py_func)
produce = njit(model.produce.py_func)
jump_cost = njit(model.jump_cost.py_func)
branch_cost = njit(model.branch_cost.py_func)
profile_slot = njit(model.profile_slot.py_func)
