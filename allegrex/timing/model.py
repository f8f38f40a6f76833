"""The cycle model the run loop calls once per retired instruction (numba).

    t = account(tm, counters, prof, op, word, pc, maddr, taken, t)

t is the cycle at which the instruction may start; the result is the cycle at which the
next one may start. In between: the I-cache (on entering a new line), the scoreboard
(the instruction waits until every source register is ready and its unit is free), the
D-cache and memory for loads/stores, its issue cycles, its results' ready times, and
control-flow refill bubbles. Every cycle beyond one per instruction is charged to one
stall counter (counters.STALLS) or to OS_TICK_CYCLES, so
    cycles = instructions + sum(stalls) + os tick cycles   (HLE costs go to STALL_SYSCALL).

OS tick: the PSP's kernel takes periodic interrupts (system timer, vblank, audio) whose
handlers run on the same CPU; measured wall-clock figures include them (the reference's
loops read ~0.85% above their cycle counts beyond what the loop explains). Modelled as
OS_TICK_COST cycles every OS_TICK_US microseconds of simulated time (fitted, ESTIMATE of
the mechanism).

prof: int64[PROF_ROWS, n] per-instruction-slot rows (counters.PROF_*: cycles, stall
cycles, D-cache misses, count, stall cycles by cause, I-cache misses) for guest addresses
tm[T_PROF_BASE] + 4*i, or an empty [PROF_ROWS, 0] array when profiling is off. While
profiling with calls, timing.calls follows the call stack (track_calls).
"""

import numpy as np
from numba import njit

# No cache=True here: these functions are compiled into the run loop, whose cache is
# flushed when any timing source changes (interp.flush_stale_cache); a separately
# cached copy would keep stale constants.

from allegrex.cpu.hints import likely, unlikely
from allegrex.cpu.decode import BRANCH, CACHE_OP, JUMP, LIKELY, LOAD, STORE, VFPU_OP
from allegrex.timing import counters as C
from allegrex.timing import memory_model as M
from allegrex.timing.calls import track_calls
from allegrex.timing.classes import (ANNULLED_SLOT_PENALTY, FIXED, JUMP_PENALTY, OP_BUSY, OP_DST, OP_FLAGS,
                                     OP_ISSUE, OP_LATENCY, OP_SRC, OP_STALL, OP_UNIT, R_DUMMY, R_GPR,
                                     R_VCC_BRANCH, R_VCTRL, R_VPR, TAKEN_BRANCH_PENALTY)
from allegrex.timing.layout import (T_DC_DIRTY, T_DC_LRU, T_DC_TAG, T_DRAM_ROW, T_ENABLED, T_FRAC,
                                    T_IC_LRU, T_IC_TAG, T_KIND, T_LAST_ILINE, T_NEXT_TICK, T_PROF_BASE,
                                    T_PROF_INSNS, T_PROF_LAST, T_RATIO_Q8, T_READY, T_TICK_COST, T_TICK_PERIOD, T_UNIT, T_VMEMO_ROW,
                                    T_VMEMO_WORD, VMEMO_SIZE)
from allegrex.timing.vfpu_classes import (CTRL_LOW4, FLD_MEMQ, FLD_MEMS, FLD_VD, FLD_VS,
                                          FLD_VT, KIND_VEC, LUT_ROWS, LUT_START, MAT_CELLS64,
                                          MEM_LOAD, MEM_STORE, ROW_EXTRA, ROW_ISSUE_Q4, ROW_LATENCY,
                                          ROW_MASK, ROW_MATCH, ROW_OPS, VCMP_TO_BRANCH, VCMP_TO_MFVC,
                                          VEC_CELLS64)

OS_TICK_US = 100  # ESTIMATE: kernel interrupt work, charged in 100 us slices (fine grain, same share)
OS_TICK_COST = 285  # fitted: 0.85% of the time at 333 MHz (the reference loop figures)

# cache instruction function codes (rt field). Allegrex codes as used by the PSP kernel's
# cache routines; 0x04..0x0B act on the I-cache, 0x14..0x1F on the D-cache.
PROF_TRACKED = np.array(C.PROF_TRACKED, dtype=np.int64)

CACHE_I_INDEX_INV, CACHE_I_HIT_INV, CACHE_I_FILL, CACHE_I_FILL_LOCK = 0x04, 0x08, 0x0A, 0x0B
CACHE_D_INDEX_WB_INV, CACHE_D_CREATE, CACHE_D_HIT_INV = 0x14, 0x18, 0x19
CACHE_D_HIT_WB, CACHE_D_HIT_WB_INV, CACHE_D_CREATE_LOCK, CACHE_D_FILL, CACHE_D_FILL_LOCK = (
    0x1A, 0x1B, 0x1C, 0x1E, 0x1F)


@njit(inline="always")  # inlined into the run loop: a call there costs more than the lookup
def dcache_access(tm, counters, addr, is_store):
    """Stall cycles of one data access at guest `addr` (load or store)."""
    reg = M.region(addr)
    if reg == M.REG_SCRATCH:
        counters[C.SCRATCHPAD_ACCESSES] += 1
        return 0
    if reg == M.REG_UNCACHED:
        counters[C.UNCACHED_ACCESSES] += 1
        if is_store:  # the write buffer takes it; the CPU waits only for its drain rate
            p = M.bus_to_cpu(tm, T_RATIO_Q8, M.UNCACHED_STORE_BUS_CYCLES)
        else:
            p = M.MISS_CPU_CYCLES + M.bus_to_cpu(tm, T_RATIO_Q8, M.UNCACHED_BUS_CYCLES)
        counters[C.STALL_DCACHE] += p
        return p
    line = (addr & M.PHYS_MASK) >> M.LINE_BITS
    way = M.cache_lookup(tm, T_DC_TAG, T_DC_LRU, line)
    s = line & M.SET_MASK
    if way >= 0:
        counters[C.DCACHE_HITS] += 1
        if is_store:
            tm[T_DC_DIRTY + s * M.CACHE_WAYS + way] = 1
        return 0
    counters[C.DCACHE_MISSES] += 1
    way = M.cache_victim(tm, T_DC_TAG, T_DC_LRU, line)
    slot = s * M.CACHE_WAYS + way
    bus = 0
    if tm[T_DC_TAG + slot] >= 0 and tm[T_DC_DIRTY + slot] != 0:
        bus += M.BUS_WRITEBACK_CYCLES
        counters[C.DCACHE_WRITEBACKS] += 1
    if reg == M.REG_VRAM:
        bus += M.VRAM_FILL_BUS_CYCLES
    else:
        bus += M.dram_fill(tm, T_DRAM_ROW, T_RATIO_Q8, line << M.LINE_BITS, counters, C.DRAM_ROW_MISSES)
    tm[T_DC_TAG + slot] = line
    tm[T_DC_DIRTY + slot] = 1 if is_store else 0
    p = M.MISS_CPU_CYCLES + M.bus_to_cpu(tm, T_RATIO_Q8, bus)
    counters[C.STALL_DCACHE] += p
    return p


@njit(inline="always")
def icache_fetch(tm, counters, pc):
    """Stall cycles to fetch from the line holding `pc` (called when a new line is entered)."""
    line = (pc & M.PHYS_MASK) >> M.LINE_BITS
    if M.cache_lookup(tm, T_IC_TAG, T_IC_LRU, line) >= 0:
        counters[C.ICACHE_HITS] += 1
        return 0
    counters[C.ICACHE_MISSES] += 1
    way = M.cache_victim(tm, T_IC_TAG, T_IC_LRU, line)
    tm[T_IC_TAG + (line & M.SET_MASK) * M.CACHE_WAYS + way] = line
    bus = M.dram_fill(tm, T_DRAM_ROW, T_RATIO_Q8, line << M.LINE_BITS, counters, C.DRAM_ROW_MISSES)
    p = M.MISS_CPU_CYCLES + M.bus_to_cpu(tm, T_RATIO_Q8, bus)
    counters[C.STALL_ICACHE] += p
    return p


@njit(inline="always")
def cache_op(tm, counters, func, addr):
    """Memory cycles of a `cache` instruction (its effect on the cache state included)."""
    line = (addr & M.PHYS_MASK) >> M.LINE_BITS
    s = line & M.SET_MASK
    if func <= CACHE_I_FILL_LOCK:
        if func == CACHE_I_INDEX_INV:
            tm[T_IC_TAG + s * M.CACHE_WAYS + ((addr >> 13) & 1)] = -1
        elif func == CACHE_I_HIT_INV:
            way = M.cache_lookup(tm, T_IC_TAG, T_IC_LRU, line)
            if way >= 0:
                tm[T_IC_TAG + s * M.CACHE_WAYS + way] = -1
        elif func == CACHE_I_FILL or func == CACHE_I_FILL_LOCK:
            if M.cache_lookup(tm, T_IC_TAG, T_IC_LRU, line) < 0:
                tm[T_LAST_ILINE] = -1
                return icache_fetch(tm, counters, addr)
        return 0
    if func == CACHE_D_INDEX_WB_INV:
        slot = s * M.CACHE_WAYS + ((addr >> 13) & 1)
        way = -2  # index op: slot chosen by address bits
    else:
        way = M.cache_lookup(tm, T_DC_TAG, T_DC_LRU, line)
        slot = s * M.CACHE_WAYS + way
    cost = 0
    if func == CACHE_D_INDEX_WB_INV or func == CACHE_D_HIT_WB or func == CACHE_D_HIT_WB_INV:
        if way != -1 and tm[T_DC_TAG + slot] >= 0 and tm[T_DC_DIRTY + slot] != 0:
            counters[C.DCACHE_WRITEBACKS] += 1
            cost = M.bus_to_cpu(tm, T_RATIO_Q8, M.BUS_WRITEBACK_CYCLES)
            tm[T_DC_DIRTY + slot] = 0
    if func == CACHE_D_INDEX_WB_INV or func == CACHE_D_HIT_INV or func == CACHE_D_HIT_WB_INV:
        if way != -1:
            tm[T_DC_TAG + slot] = -1
            tm[T_DC_DIRTY + slot] = 0
    elif func == CACHE_D_CREATE or func == CACHE_D_CREATE_LOCK:
        if way < 0:  # allocate without reading memory (the victim may need writing back)
            way = M.cache_victim(tm, T_DC_TAG, T_DC_LRU, line)
            slot = s * M.CACHE_WAYS + way
            if tm[T_DC_TAG + slot] >= 0 and tm[T_DC_DIRTY + slot] != 0:
                counters[C.DCACHE_WRITEBACKS] += 1
                cost += M.bus_to_cpu(tm, T_RATIO_Q8, M.BUS_WRITEBACK_CYCLES)
            tm[T_DC_TAG + slot] = line
        tm[T_DC_DIRTY + slot] = 1
    elif func == CACHE_D_FILL or func == CACHE_D_FILL_LOCK:
        if way < 0:
            return dcache_access(tm, counters, addr, False)
    counters[C.STALL_DCACHE] += cost
    return cost


@njit(inline="always")
def vpr_field(word, field):
    if field == FLD_VD:
        return word & 0x7F
    if field == FLD_VS:
        return (word >> 8) & 0x7F
    if field == FLD_VT:
        return (word >> 16) & 0x7F
    if field == FLD_MEMS:
        return ((word >> 16) & 0x1F) | ((word & 3) << 5)
    return ((word >> 16) & 0x1F) | ((word & 1) << 5)  # FLD_MEMQ


@njit(inline="always")
def vfpu_row(tm, word, pc):
    """VFPU table row of `word` through a small memo keyed by the address (-1: unknown)."""
    slot = (pc >> 2) & (VMEMO_SIZE - 1)
    if tm[T_VMEMO_WORD + slot] == word:
        return tm[T_VMEMO_ROW + slot]
    row = vfpu_lookup(word)
    vfpu_remember(tm, pc, word, row)
    return row


@njit(inline="always")
def vfpu_lookup(word):
    """VFPU table row of `word` (-1: not a known row)."""
    top = word >> 16
    for k in range(LUT_START[top], LUT_START[top + 1]):
        r = LUT_ROWS[k]
        if (word & ROW_MASK[r]) == ROW_MATCH[r]:
            return r
    return -1


@njit(inline="always")
def vfpu_remember(tm, pc, word, row):
    """Keep `row` as the row of `word` at `pc` in the decode memo."""
    slot = (pc >> 2) & (VMEMO_SIZE - 1)
    tm[T_VMEMO_WORD + slot] = word
    tm[T_VMEMO_ROW + slot] = row


@njit(inline="always")
def vfpu_operand(row, k, word):
    """(kind, count, register) of operand k (0: d, 1: s, 2: t) of `row` in `word`;
    kind KIND_NONE: no such operand."""
    kind = ROW_OPS[row, k, 0]
    if kind == 0:
        return 0, 0, 0
    return kind, ROW_OPS[row, k, 1], vpr_field(word, ROW_OPS[row, k, 2])


@njit(inline="always")
def vfpu_gpr_source(row, word):
    """Scoreboard slot of the GPR a VFPU row reads (mtv, the loads' base), or -1."""
    gsrc = ROW_EXTRA[row, 0]
    return R_GPR + ((word >> gsrc) & 31) if gsrc >= 0 else -1


@njit(inline="always")
def vfpu_ctrl_source(row, word):
    """Scoreboard slot of the control register a VFPU row reads (mfvc, vmfvc), or -1."""
    csrc = ROW_EXTRA[row, 2]
    if csrc <= 0:
        return -1
    return R_VCTRL + ((word & 15) if csrc == CTRL_LOW4 else ((word >> 8) & 15))


@njit(inline="always")
def vfpu_gpr_dest(row, word):
    """Scoreboard slot of the GPR a VFPU row writes (mfv, mfvc), or -1 ($zero: none)."""
    gdst = ROW_EXTRA[row, 1]
    if gdst < 0 or ((word >> gdst) & 31) == 0:
        return -1
    return R_GPR + ((word >> gdst) & 31)


@njit(inline="always")
def vfpu_ctrl_dest(row, word):
    """Scoreboard slot of the control register a VFPU row writes (mtvc, vmtvc), or -1."""
    return R_VCTRL + (word & 15) if ROW_EXTRA[row, 3] > 0 else -1


@njit(inline="always")
def later(ready, stall_kind, t, kind):
    """(ready, stall kind) after also waiting for a source ready at cycle t, whose wait is
    charged to `kind`: the first source reaching the latest cycle names the stall."""
    if t > ready:
        return t, kind
    return ready, stall_kind


@njit(inline="always")
def wait_cells(tm, ready, stall_kind, kind, n, reg):
    """(ready, stall kind) after also waiting for VFPU operand (kind, n, reg)'s cells."""
    if kind == KIND_VEC:
        for i in range(n):
            c = T_READY + R_VPR + VEC_CELLS64[n, reg, i]
            ready, stall_kind = later(ready, stall_kind, tm[c], tm[c + (T_KIND - T_READY)])
    elif kind != 0:
        for i in range(n * n):
            c = T_READY + R_VPR + MAT_CELLS64[n, reg, i]
            ready, stall_kind = later(ready, stall_kind, tm[c], tm[c + (T_KIND - T_READY)])
    return ready, stall_kind


@njit(inline="always")
def latest_cells(tm, latest, kind, n, reg):
    """max(latest, the ready cycles of VFPU operand (kind, n, reg)'s cells): whether there
    is a wait at all, without wait_cells' search for the producer to charge it to."""
    if kind == KIND_VEC:
        for i in range(n):
            latest = max(latest, tm[T_READY + R_VPR + VEC_CELLS64[n, reg, i]])
    elif kind != 0:
        for i in range(n * n):
            latest = max(latest, tm[T_READY + R_VPR + MAT_CELLS64[n, reg, i]])
    return latest


@njit(inline="always")
def vfpu_wait(tm, counters, t, s_kind, s_n, s_reg, t_kind, t_n, t_reg, gpr, ctrl):
    """The cycle at which a VFPU op's sources are ready: operands s and t (kind, count,
    register), the GPR and control register slots gpr, ctrl (-1: none); the wait is
    charged to the last-arriving producer's stall kind (a control register: STALL_VFPU)."""
    ready, stall_kind = wait_cells(tm, t, C.STALL_VFPU, s_kind, s_n, s_reg)
    ready, stall_kind = wait_cells(tm, ready, stall_kind, t_kind, t_n, t_reg)
    if gpr >= 0 and tm[T_READY + gpr] > ready:
        ready = tm[T_READY + gpr]
        stall_kind = tm[T_KIND + gpr]
    if ctrl >= 0 and tm[T_READY + ctrl] > ready:
        ready = tm[T_READY + ctrl]
        stall_kind = C.STALL_VFPU
    return stall_until(counters, t, ready, stall_kind)


@njit(inline="always")
def vfpu_wait_seldom(tm, counters, t, s_kind, s_n, s_reg, t_kind, t_n, t_reg, gpr, ctrl):
    """vfpu_wait for code whose operands are constants (a compiled region's): the latest
    of the sources' ready cycles first (loads and maxima, no branch per cell), and
    vfpu_wait's search for the producer to charge only when there is a wait. (The
    interpreter, whose operands are not constants, ran its VFPU loop ~13% slower so.)"""
    latest = latest_cells(tm, latest_cells(tm, t, s_kind, s_n, s_reg), t_kind, t_n, t_reg)
    if gpr >= 0:
        latest = max(latest, tm[T_READY + gpr])
    if ctrl >= 0:
        latest = max(latest, tm[T_READY + ctrl])
    if likely(latest <= t):
        return t
    return vfpu_wait(tm, counters, t, s_kind, s_n, s_reg, t_kind, t_n, t_reg, gpr, ctrl)


@njit(inline="always")
def stall_until(counters, t, ready, stall_kind):
    """`ready` (>= t), its wait beyond t charged to stall_kind: the end of a wait for sources."""
    if ready > t:
        counters[stall_kind] += ready - t
    return ready


@njit(inline="always")
def vfpu_fraction(tm, counters, t, quarters, late):
    """(t, late cycle) after adding an op's quarter-cycle issue remainder: when the
    quarters add up to a whole cycle the op starts a cycle late (late: its issue ends a
    cycle late instead). Nothing changes for quarters == 0 (the sum stays below 4)."""
    frac = tm[T_FRAC] + quarters
    late_cycle = 0
    if frac >= 4:
        frac -= 4
        if late:
            late_cycle = 1
        else:
            t += 1
        counters[C.STALL_STRUCTURAL] += 1
    tm[T_FRAC] = frac
    return t, late_cycle


@njit(inline="always")
def vfpu_produce(tm, done, stall_kind, kind, n, reg, gpr, ctrl):
    """Results ready at cycle `done`: operand d's cells (kind, n, reg; their stall kind
    `stall_kind`), the GPR slot gpr and the control register slot ctrl (-1: none)."""
    if kind == KIND_VEC:
        for i in range(n):
            c = T_READY + R_VPR + VEC_CELLS64[n, reg, i]
            tm[c] = done
            tm[c + (T_KIND - T_READY)] = stall_kind
    elif kind != 0:
        for i in range(n * n):
            c = T_READY + R_VPR + MAT_CELLS64[n, reg, i]
            tm[c] = done
            tm[c + (T_KIND - T_READY)] = stall_kind
    if gpr >= 0:
        tm[T_READY + gpr] = done
        tm[T_KIND + gpr] = C.STALL_VFPU
    if ctrl >= 0:
        tm[T_READY + ctrl] = done


@njit(inline="always")
def vfpu_cc(tm, t):
    """vcmp issued at t: the CC as branches and mfvc see it."""
    tm[T_READY + R_VCC_BRANCH] = t + VCMP_TO_BRANCH
    tm[T_KIND + R_VCC_BRANCH] = C.STALL_VFPU
    tm[T_READY + R_VCTRL + 3] = t + VCMP_TO_MFVC


@njit(inline="always")
def vfpu_issue(counters, t, whole):
    """t after the op's whole issue cycles (beyond the first: structural stalls)."""
    if whole > 1:
        counters[C.STALL_STRUCTURAL] += whole - 1
    return t + whole


@njit(inline="always")
def vfpu_account(tm, counters, word, pc, maddr, t):
    """Cycle after a VFPU instruction that may start at `t` (I-fetch already charged).
    Written as the steps above, which compiled regions call with the row's operands
    known in advance (allegrex.cpu.jit.timing_gen)."""
    row = vfpu_row(tm, word, pc)
    if row < 0:
        return t + 1
    s_kind, s_n, s_reg = vfpu_operand(row, 1, word)
    t_kind, t_n, t_reg = vfpu_operand(row, 2, word)
    t = vfpu_wait(tm, counters, t, s_kind, s_n, s_reg, t_kind, t_n, t_reg, vfpu_gpr_source(row, word),
                  vfpu_ctrl_source(row, word))
    t, late_cycle = vfpu_fraction(tm, counters, t, ROW_ISSUE_Q4[row] & 3, ROW_EXTRA[row, 6] == 1)
    mem = ROW_EXTRA[row, 4]
    if mem == MEM_LOAD or mem == MEM_STORE:
        t += dcache_access(tm, counters, maddr & 0xFFFFFFFC, mem == MEM_STORE)
    d_kind, d_n, d_reg = vfpu_operand(row, 0, word)
    vfpu_produce(tm, t + ROW_LATENCY[row], C.STALL_LOAD_USE if mem == MEM_LOAD else C.STALL_VFPU, d_kind, d_n,
                 d_reg, vfpu_gpr_dest(row, word), vfpu_ctrl_dest(row, word))
    if ROW_EXTRA[row, 5] == 1:
        vfpu_cc(tm, t)
    # (vocp: the late cycle comes after the result is on its way)
    return vfpu_issue(counters, t, ROW_ISSUE_Q4[row] >> 2) + late_cycle


@njit(inline="always")
def os_tick(tm, counters, t):
    """t after the OS's periodic interrupt work, when it is due at cycle t."""
    if tm[T_TICK_PERIOD] > 0 and t >= tm[T_NEXT_TICK]:
        cost = tm[T_TICK_COST]
        counters[C.OS_TICK_CYCLES] += cost
        nxt = tm[T_NEXT_TICK] + tm[T_TICK_PERIOD]
        tm[T_NEXT_TICK] = nxt if nxt > t else t + tm[T_TICK_PERIOD]  # after idle time: no backlog
        t += cost
    return t


@njit(inline="always")
def next_tick(tm):
    """The cycle from which os_tick charges a tick (never, when ticks are off): code that
    keeps it in a local tests `t >= next_tick(tm)` before calling os_tick, and reads it
    again after a tick (only os_tick moves it while the CPU runs)."""
    return tm[T_NEXT_TICK] if tm[T_TICK_PERIOD] > 0 else np.int64(0x7FFFFFFFFFFFFFFF)


@njit(inline="always")
def tick_due(tm, counters, t, due):
    """(t, due) after the OS tick when t reached `due`, next_tick kept in a local: one call
    where the test would otherwise be a branch of its caller (a compiled region's)."""
    if unlikely(t >= due):
        return os_tick(tm, counters, t), next_tick(tm)
    return t, due


@njit(inline="always")
def fetch_line(tm, counters, t, pc):
    """t after entering the I-cache line of `pc`, when it is not the one being fetched from."""
    line = pc >> M.LINE_BITS
    if line != tm[T_LAST_ILINE]:
        tm[T_LAST_ILINE] = line
        t += icache_fetch(tm, counters, pc)
    return t


@njit(inline="always")
def operand_slot(table, op, k, word):
    """Scoreboard slot of operand k of `op` in `word` (OP_SRC/OP_DST), or -1: none."""
    shift = table[op, k, 1]
    if shift < 0:
        return -1
    if shift == FIXED:
        return table[op, k, 0]
    return table[op, k, 0] + ((word >> shift) & 31)


@njit(inline="always")
def wait_sources(tm, counters, t, a, b, c):
    """The cycle at which sources in slots a, b, c (-1: none) are ready; the wait is
    charged to the stall kind of the last-arriving producer."""
    ready = t
    kind = 0
    if a >= 0 and tm[T_READY + a] > ready:
        ready = tm[T_READY + a]
        kind = tm[T_KIND + a]
    if b >= 0 and tm[T_READY + b] > ready:
        ready = tm[T_READY + b]
        kind = tm[T_KIND + b]
    if c >= 0 and tm[T_READY + c] > ready:
        ready = tm[T_READY + c]
        kind = tm[T_KIND + c]
    if ready > t:
        counters[kind] += ready - t
    return ready


@njit(inline="always")
def wait_unit(tm, counters, t, unit, busy, stall):
    """The cycle at which functional unit `unit` is free; it is then busy for `busy`."""
    u = T_UNIT + unit
    if tm[u] > t:
        counters[stall] += tm[u] - t
        t = tm[u]
    tm[u] = t + busy
    return t


@njit(inline="always")
def produce(tm, done, kind, a, b):
    """Results in slots a, b (-1: none; $zero's slot is R_GPR) are ready at cycle `done`."""
    if a >= 0:
        a = R_DUMMY if a == R_GPR else a
        tm[T_READY + a] = done
        tm[T_KIND + a] = kind
    if b >= 0:
        b = R_DUMMY if b == R_GPR else b
        tm[T_READY + b] = done
        tm[T_KIND + b] = kind


@njit(inline="always")
def jump_cost(counters, t):
    counters[C.STALL_BRANCH] += JUMP_PENALTY
    counters[C.BRANCHES_TAKEN] += 1
    return t + JUMP_PENALTY


@njit(inline="always")
def branch_cost(counters, t, taken, likely):
    if taken:
        counters[C.STALL_BRANCH] += TAKEN_BRANCH_PENALTY
        counters[C.BRANCHES_TAKEN] += 1
        return t + TAKEN_BRANCH_PENALTY
    counters[C.BRANCHES_NOT_TAKEN] += 1
    if likely:
        counters[C.STALL_BRANCH] += ANNULLED_SLOT_PENALTY
        return t + ANNULLED_SLOT_PENALTY
    return t


@njit(inline="always")
def profile_slot(tm, counters, prof, pc, start, t, misses_before):
    """Charge the instruction at `pc` (started at `start`, done at t) to its profile slot:
    cycles, stall cycles, D-cache misses, count, and how much each PROF_TRACKED counter
    grew since the last profiled instruction (this one's stalls by cause)."""
    if prof.shape[1] > 0:
        i = (pc - tm[T_PROF_BASE]) >> 2
        inside = 0 <= i < prof.shape[1]
        if inside:
            prof[C.PROF_CYCLES, i] += t - start
            prof[C.PROF_STALLS, i] += t - start - 1
            prof[C.PROF_DCACHE_MISSES, i] += counters[C.DCACHE_MISSES] - misses_before
            prof[C.PROF_COUNT, i] += 1
        if t - start > 1:  # it stalled (without a stall no tracked counter moves: each cycle has one cause)
            profile_causes(tm, counters, prof, i, inside)
        tm[T_PROF_INSNS] += 1


@njit(inline="always")
def profile_causes(tm, counters, prof, i, inside):
    """Charge slot i (when inside the profiled range) the growth of each PROF_TRACKED
    counter since the last profiled instruction."""
    for j in range(PROF_TRACKED.shape[0]):
        d = counters[PROF_TRACKED[j]] - tm[T_PROF_LAST + j]
        if d != 0:  # usually one cause: touch only its row
            if inside:
                prof[C.PROF_TRACKED_ROW0 + j, i] += d
            tm[T_PROF_LAST + j] += d


@njit(inline="always")  # a call per instruction (with its array arguments' refcounting) cost ~10x the model
def account(tm, counters, prof, op, word, pc, maddr, taken, t):
    """Cycle at which the instruction after this one may start (see module doc). Written
    as the steps above so that compiled regions (allegrex.cpu.jit.timing_gen) can call
    the same steps with the operands known in advance."""
    if tm[T_ENABLED] == 0:
        return t + 1
    misses_before = counters[C.DCACHE_MISSES]
    t = os_tick(tm, counters, t)
    start = t  # the interrupt's cycles are not this instruction's
    t = fetch_line(tm, counters, t, pc)
    flags = OP_FLAGS[op]
    if flags & VFPU_OP:
        t = vfpu_account(tm, counters, word, pc, maddr, t)
    else:
        t = wait_sources(tm, counters, t, operand_slot(OP_SRC, op, 0, word), operand_slot(OP_SRC, op, 1, word),
                         operand_slot(OP_SRC, op, 2, word))
        if OP_UNIT[op] >= 0:
            t = wait_unit(tm, counters, t, OP_UNIT[op], OP_BUSY[op], OP_STALL[op])
        if flags & (LOAD | STORE):
            t += dcache_access(tm, counters, maddr & 0xFFFFFFFF, (flags & STORE) != 0)
        produce(tm, t + OP_LATENCY[op], OP_STALL[op], operand_slot(OP_DST, op, 0, word),
                operand_slot(OP_DST, op, 1, word))
        t += OP_ISSUE[op]
        if flags & JUMP:
            t = jump_cost(counters, t)
        elif flags & BRANCH:
            t = branch_cost(counters, t, taken, (flags & LIKELY) != 0)
        elif flags & CACHE_OP:
            t += cache_op(tm, counters, (word >> 16) & 31, maddr & 0xFFFFFFFF)
    if prof.shape[1] > 0:
        profile_slot(tm, counters, prof, pc, start, t, misses_before)
        track_calls(tm, counters, op, word, pc, maddr, taken, t)
    return t
