"""Call tracking for the profiler (numba): a shadow call stack kept from the retired
instructions, the inclusive cost of every call edge, and a log of calls and returns
over simulated time.

Only while profiling with calls (Timing.enable_profile(..., calls=True)): the state then
lives in the area of `tm` after layout.TM_SIZE, and model.account calls `track_calls`
after `profile_slot` for every instruction (compiled regions too).

A call is `jal`, `jalr` with a link register, or a taken `bltzal`/`bgezal` (likely
forms too); a return is `jr $ra`. Both take effect once their delay slot has retired,
so the slot is the caller's (or the callee's) own cost, as it is in the per-address
profile. A return pops the newest frame whose return address it goes to (frames above it
were left without a return: longjmp, a thread switch); a return that matches no frame
(a thread's entry returning to the kernel) changes nothing.

Costs are counter snapshots (SNAP_* fields): instructions, the PROF_TRACKED counters
(stall cycles by cause, I-cache misses), D-cache misses and HLE cycles. A call's cycles
are instructions + stall cycles + HLE cycles, the same measure as the profile's rows
(OS interrupt work is not in it). An import stub returns with `jr ra; syscall`: the HLE
charges the syscall's service after the run loop returned, so that edge takes the
charge when the next instruction retires (T_CG_HLE_EDGE).
"""

import numpy as np
from numba import njit

from allegrex.cpu.decode import BRANCH, JUMP, LINK, REGISTER_TARGET, TABLE
from allegrex.cpu.fields import branch_target, imm_of, jump_target, rd_of, rs_of
from allegrex.timing import counters as C
from allegrex.timing.layout import (T_CG_DEPTH, T_CG_EDGE_CAP, T_CG_EDGES, T_CG_HLE_BASE, T_CG_HLE_EDGE, T_CG_KIND,
                                    T_CG_LOG, T_CG_LOG_CAP, T_CG_LOG_LOST, T_CG_LOG_N, T_CG_LOST, T_CG_MAX_DEPTH,
                                    T_CG_SITE, T_CG_STATE, T_CG_TARGET, T_PROF_INSNS, TM_SIZE)

CALL, RETURN = 1, 2  # T_CG_KIND
# How each decode-table row takes part (OP_CALL_KIND): by the row's control-flow flags.
K_NONE, K_JAL, K_JALR, K_LINK_BRANCH, K_JR = 0, 1, 2, 3, 4


def _call_kind(ins):
    if ins.flags & BRANCH:
        return K_LINK_BRANCH if ins.flags & LINK else K_NONE
    if ins.flags & REGISTER_TARGET:
        return K_JALR if ins.flags & LINK else K_JR
    return K_JAL if ins.flags & JUMP and ins.flags & LINK else K_NONE


OP_CALL_KIND = np.array([_call_kind(ins) for ins in TABLE], dtype=np.int64)
OP_IS_SYSCALL = np.array([ins.sem == "syscall" for ins in TABLE], dtype=np.int64)

TRACKED = np.array(C.PROF_TRACKED, dtype=np.int64)
N_TRACKED = len(C.PROF_TRACKED)
# A cost snapshot: instructions, the tracked counters, D-cache misses, HLE cycles.
SNAP_INSNS = 0
SNAP_TRACKED0 = 1
SNAP_DMISSES = SNAP_TRACKED0 + N_TRACKED
SNAP_HLE = SNAP_DMISSES + 1
N_SNAP = SNAP_HLE + 1

# A frame of the shadow stack: return address, callee entry, call site, snapshot at entry.
F_RET, F_CALLEE, F_SITE, F_SNAP = 0, 1, 2, 3
FRAME = F_SNAP + N_SNAP
# An edge (call site, callee): completed calls and the summed inclusive snapshot deltas.
E_SITE, E_CALLEE, E_COUNT, E_SNAP = 0, 1, 2, 3
EDGE = E_SNAP + N_SNAP
# A log entry: OPEN or CLOSE, callee entry, cycle count.
LOG_OPEN, LOG_CLOSE = 1, 2
LOG_ENTRY = 3

DEFAULT_MAX_DEPTH = 1024
DEFAULT_EDGES = 1 << 14


def area_size(max_depth: int, edges: int, log_entries: int) -> int:
    """tm entries the call-tracking area needs after TM_SIZE."""
    return max_depth * FRAME + edges * EDGE + log_entries * LOG_ENTRY


def init_area(tm, max_depth: int, edges: int, log_entries: int) -> None:
    """Set the header of a freshly allocated area (tm longer than TM_SIZE, area zeroed)."""
    if edges & (edges - 1):
        raise ValueError(f"the edge table needs a power-of-two size, got {edges}")
    tm[T_CG_STATE] = 0
    tm[T_CG_DEPTH] = 0
    tm[T_CG_MAX_DEPTH] = max_depth
    tm[T_CG_EDGES] = TM_SIZE + max_depth * FRAME
    tm[T_CG_EDGE_CAP] = edges
    tm[T_CG_LOG] = tm[T_CG_EDGES] + edges * EDGE
    tm[T_CG_LOG_CAP] = log_entries
    tm[T_CG_LOG_N] = 0
    tm[T_CG_LOST] = 0
    tm[T_CG_LOG_LOST] = 0
    tm[T_CG_HLE_EDGE] = -1


@njit(inline="always")
def snap_value(tm, counters, s):
    """Field s of the cost snapshot taken now."""
    if s == SNAP_INSNS:
        return tm[T_PROF_INSNS]
    if s < SNAP_DMISSES:
        return counters[TRACKED[s - SNAP_TRACKED0]]
    if s == SNAP_DMISSES:
        return counters[C.DCACHE_MISSES]
    return counters[C.STALL_SYSCALL]


@njit(inline="always")
def _log(tm, kind, callee, t):
    n = tm[T_CG_LOG_N]
    if n < tm[T_CG_LOG_CAP]:
        e = tm[T_CG_LOG] + LOG_ENTRY * n
        tm[e] = kind
        tm[e + 1] = callee
        tm[e + 2] = t
        tm[T_CG_LOG_N] = n + 1
    else:
        tm[T_CG_LOG_LOST] += 1


@njit(_nrt=False)
def edge_slot(tm, site, callee):
    """tm index of the edge (site, callee), made if new; -1 when the table is full."""
    base = tm[T_CG_EDGES]
    mask = tm[T_CG_EDGE_CAP] - 1
    h = (((site >> 2) * 0x9E3779B1) ^ (callee >> 2)) & mask
    for probe in range(mask + 1):
        e = base + ((h + probe) & mask) * EDGE
        if tm[e + E_SITE] == site and tm[e + E_CALLEE] == callee:
            return e
        if tm[e + E_SITE] == 0:  # empty (no call site is at address 0)
            tm[e + E_SITE] = site
            tm[e + E_CALLEE] = callee
            return e
    tm[T_CG_LOST] += 1
    return -1


@njit(_nrt=False)
def _push(tm, counters, t):
    d = tm[T_CG_DEPTH]
    if d >= tm[T_CG_MAX_DEPTH]:
        tm[T_CG_LOST] += 1
        return
    f = TM_SIZE + d * FRAME
    tm[f + F_RET] = tm[T_CG_SITE] + 8
    tm[f + F_CALLEE] = tm[T_CG_TARGET]
    tm[f + F_SITE] = tm[T_CG_SITE]
    for s in range(N_SNAP):
        tm[f + F_SNAP + s] = snap_value(tm, counters, s)
    tm[T_CG_DEPTH] = d + 1
    _log(tm, LOG_OPEN, tm[T_CG_TARGET], t)


@njit(_nrt=False)
def _pop(tm, counters, t, slot_is_syscall):
    target = tm[T_CG_TARGET]
    d = tm[T_CG_DEPTH] - 1
    while d >= 0 and tm[TM_SIZE + d * FRAME + F_RET] != target:
        d -= 1
    if d < 0:
        return
    e = -1
    for k in range(tm[T_CG_DEPTH] - 1, d - 1, -1):
        f = TM_SIZE + k * FRAME
        e = edge_slot(tm, tm[f + F_SITE], tm[f + F_CALLEE])
        if e >= 0:
            tm[e + E_COUNT] += 1
            for s in range(N_SNAP):
                tm[e + E_SNAP + s] += snap_value(tm, counters, s) - tm[f + F_SNAP + s]
        _log(tm, LOG_CLOSE, tm[f + F_CALLEE], t)
    tm[T_CG_DEPTH] = d
    if slot_is_syscall and e >= 0:
        tm[T_CG_HLE_EDGE] = e
        tm[T_CG_HLE_BASE] = counters[C.STALL_SYSCALL]


@njit(inline="always")
def track_calls(tm, counters, op, word, pc, addr, taken, t):
    """Follow calls and returns: called after profile_slot for the instruction (op, word)
    at `pc` that just retired at cycle t (addr: rs + offset before it ran)."""
    if tm.shape[0] > TM_SIZE:
        _track(tm, counters, op, word, pc, addr, taken, t)


@njit(_nrt=False)  # a call, made only while tracking calls: the run loop stays small
def _track(tm, counters, op, word, pc, addr, taken, t):
    if tm[T_CG_HLE_EDGE] >= 0:  # the stub's syscall was served since: its charge is the edge's
        e = tm[T_CG_HLE_EDGE]
        tm[e + E_SNAP + SNAP_HLE] += counters[C.STALL_SYSCALL] - tm[T_CG_HLE_BASE]
        tm[T_CG_HLE_EDGE] = -1
    if tm[T_CG_STATE] == 1:
        tm[T_CG_STATE] = 0
        if pc == tm[T_CG_SITE] + 4:  # the delay slot (else a thread switch came between: drop it)
            if tm[T_CG_KIND] == CALL:
                _push(tm, counters, t)
            else:
                _pop(tm, counters, t, OP_IS_SYSCALL[op] != 0)
    kind = OP_CALL_KIND[op]
    if kind == K_NONE:
        return
    if kind == K_JAL:
        target = jump_target(pc + 4, word)
    elif kind == K_LINK_BRANCH:
        if not taken:
            return
        target = branch_target(pc + 4, word) & 0xFFFFFFFF
    elif kind == K_JALR:
        if rd_of(word) == 0:  # no link: a plain jump
            return
        target = (addr - imm_of(word)) & 0xFFFFFFFF
    else:
        if rs_of(word) != 31:  # jr through another register: a jump, not a return
            return
        target = (addr - imm_of(word)) & 0xFFFFFFFF
    tm[T_CG_STATE] = 1
    tm[T_CG_KIND] = RETURN if kind == K_JR else CALL
    tm[T_CG_SITE] = pc
    tm[T_CG_TARGET] = target


def needs_register(op: int) -> bool:
    """Whether track_calls reads `addr` for this op (its target comes from a register)."""
    return int(OP_CALL_KIND[op]) in (K_JALR, K_JR)
