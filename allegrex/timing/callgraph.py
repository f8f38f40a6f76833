"""The call graph the run loop recorded (timing/calls.py), read back from `tm`.

    edges = call_edges(machine)           # every (call site, callee) with inclusive costs
    events, lost = read_log(machine.timing.tm)

Costs are dicts keyed by COST_NAMES: cycles (= instructions + stall cycles + HLE
cycles, the measure of the profile's rows), instructions, stall cycles by cause, I- and
D-cache misses, HLE cycles. Calls still open when the profile is read (main, the thread
entry's callees) count as returning now, so a caller's inclusive cost covers them.
"""

from dataclasses import dataclass

import numpy as np

from allegrex.timing import calls as K
from allegrex.timing import counters as C
from allegrex.timing.layout import (T_CG_DEPTH, T_CG_EDGE_CAP, T_CG_EDGES, T_CG_HLE_BASE, T_CG_HLE_EDGE, T_CG_LOG,
                                    T_CG_LOG_LOST, T_CG_LOG_N, T_CG_LOST, T_PROF_INSNS, TM_SIZE)

STALL_NAMES = tuple(C.NAMES[k] for k in C.PROF_STALL_KINDS)
# A snapshot vector's fields by name (calls.SNAP_*), then the derived cycles.
SNAP_NAMES = ("instructions",) + tuple(C.NAMES[k] for k in C.PROF_TRACKED) + ("dcache_misses", "hle_cycles")
COST_NAMES = ("cycles",) + SNAP_NAMES


@dataclass
class Edge:
    site: int  # address of the call instruction
    callee: int  # entry address of the called function
    count: int  # calls completed (or closed when the profile was read)
    costs: dict  # inclusive costs of those calls, by COST_NAMES


def has_calls(tm) -> bool:
    return tm.shape[0] > TM_SIZE


def costs_of(snap) -> dict:
    """Named costs of a snapshot difference (a length-N_SNAP vector)."""
    out = {name: int(v) for name, v in zip(SNAP_NAMES, snap)}
    out["cycles"] = (out["instructions"] + sum(out[n] for n in STALL_NAMES) + out["hle_cycles"])
    return {name: out[name] for name in COST_NAMES}


def _snapshot_now(tm, counters):
    return np.array([int(tm[T_PROF_INSNS])] + [int(counters[k]) for k in C.PROF_TRACKED]
                    + [int(counters[C.DCACHE_MISSES]), int(counters[C.STALL_SYSCALL])], dtype=np.int64)


def _edge_rows(tm):
    cap = int(tm[T_CG_EDGE_CAP])
    rows = tm[int(tm[T_CG_EDGES]):int(tm[T_CG_EDGES]) + cap * K.EDGE].reshape(cap, K.EDGE)
    return rows[rows[:, K.E_SITE] != 0]


def read_edges(tm) -> list:
    """The completed calls per (site, callee), as recorded (open frames not included)."""
    if not has_calls(tm):
        return []
    return [Edge(int(r[K.E_SITE]), int(r[K.E_CALLEE]), int(r[K.E_COUNT]), costs_of(r[K.E_SNAP:]))
            for r in _edge_rows(tm)]


def call_edges(machine) -> list:
    """Every call edge with inclusive costs, counting the calls still open as returning
    now and a stub's HLE charge not yet taken (the run ended in that call)."""
    tm, counters = machine.timing.tm, machine.cpu.counters
    if not has_calls(tm):
        return []
    now = _snapshot_now(tm, counters)
    table = {}
    for r in _edge_rows(tm):
        table[(int(r[K.E_SITE]), int(r[K.E_CALLEE]))] = [int(r[K.E_COUNT]), r[K.E_SNAP:].copy()]
    pending = int(tm[T_CG_HLE_EDGE])
    if pending >= 0:
        r = tm[pending:pending + K.EDGE]
        table[(int(r[K.E_SITE]), int(r[K.E_CALLEE]))][1][K.SNAP_HLE] += int(counters[C.STALL_SYSCALL]) \
            - int(tm[T_CG_HLE_BASE])
    for k in range(int(tm[T_CG_DEPTH])):
        f = tm[TM_SIZE + k * K.FRAME:TM_SIZE + (k + 1) * K.FRAME]
        entry = table.setdefault((int(f[K.F_SITE]), int(f[K.F_CALLEE])), [0, np.zeros(K.N_SNAP, np.int64)])
        entry[0] += 1
        entry[1] += now - f[K.F_SNAP:]
    return [Edge(site, callee, count, costs_of(snap)) for (site, callee), (count, snap) in sorted(table.items())]


def lost_calls(tm) -> int:
    """Calls not recorded (stack deeper than its limit, or the edge table full)."""
    return int(tm[T_CG_LOST]) if has_calls(tm) else 0


def read_log(tm):
    """(events int64[n, 3] of (LOG_OPEN/LOG_CLOSE, callee, cycle), events lost to a full log)."""
    if not has_calls(tm):
        return np.zeros((0, K.LOG_ENTRY), np.int64), 0
    n = int(tm[T_CG_LOG_N])
    start = int(tm[T_CG_LOG])
    return tm[start:start + n * K.LOG_ENTRY].reshape(n, K.LOG_ENTRY).copy(), int(tm[T_CG_LOG_LOST])
