"""Source text of the cycle model for one known instruction: model.account specialised.

model.account reads per-op tables at run time; for an instruction whose word and address
are known when a region is compiled, every table lookup is a constant, so this writes
out calls to the same steps account is made of (model.wait_sources, produce...) with
constant operands, only the steps the
instruction needs. The text updates `cycles` exactly as
`cycles = account(tm, counters, prof, op, word, pc, addr, taken, cycles)` would;
tests/cpu/test_jit.py holds the two to the same counters, cycle for cycle.
"""

import re
from typing import NamedTuple

from allegrex.cpu.fields import rt_of
from allegrex.timing import calls
from allegrex.timing import counters as C
from allegrex.cpu.decode import BRANCH, CACHE_OP, JUMP, LIKELY, LOAD, STORE, VFPU_OP
from allegrex.timing.classes import OP_BUSY, OP_DST, OP_FLAGS, OP_ISSUE, OP_LATENCY, OP_SRC, OP_STALL, OP_UNIT
from allegrex.timing.layout import T_LAST_ILINE
from allegrex.timing.memory_model import LINE_BITS
from allegrex.timing import model
from allegrex.timing.model import operand_slot
from allegrex.timing.vfpu_classes import (KIND_VEC, MAT_CELLS64, MEM_LOAD, MEM_STORE, ROW_EXTRA, ROW_ISSUE_Q4,
                                          ROW_LATENCY, VEC_CELLS64)

# How the instruction's I-cache line relates to the previous instruction's:
ILINE_SAME = 0  # same line, previous instruction known: nothing to do
ILINE_NEW = 1  # a different line, previous instruction known: always a fetch
ILINE_UNKNOWN = 2  # entered from elsewhere: compare with the last line fetched


VALUE_NAME = re.compile(r"\bi64_(m?)(\d+)\b")


def value(x) -> str:
    """A constant operand as a plain int64 for numba: a bare number is typed as a literal,
    and each distinct literal compiles the called step once more (compiling is what costs;
    LLVM still folds the value where it inlines the step). Bare numbers are for operands
    that choose the step's shape (counts, kinds, flags). The operand is a module global,
    `i64_5` (`i64_m1` for -1), that value_globals defines: numba reads a global int64 as one
    constant, where `np.int64(5)` was four statements and a call to type (~8 an instruction)."""
    x = int(x)
    return f"i64_{'m' if x < 0 else ''}{abs(x)}"


def value_globals(text: str) -> list:
    """The module lines defining the value() names `text` uses."""
    used = sorted({(m.group(1), int(m.group(2))) for m in VALUE_NAME.finditer(text)})
    return [f"i64_{sign}{n} = np.int64({'-' if sign else ''}{n})" for sign, n in used]


def _values(xs) -> str:
    return ", ".join(value(x) for x in xs)


def _shape(operand) -> str:
    """A VFPU operand (kind, count, register) as step arguments: kind and count bare (they
    shape the step's loops over the cells), the register a value."""
    return f"{operand[0]}, {operand[1]}, {value(operand[2])}"


def _operand(table, op, k, word):
    """Scoreboard slot of operand k of `op` in `word`, or -1 past the last one."""
    return int(operand_slot.py_func(table, op, k, word))


def _iline(pc, iline):
    line = pc >> LINE_BITS
    if iline == ILINE_SAME:
        return []
    if iline == ILINE_NEW:
        return [f"tm[{T_LAST_ILINE}] = {line}", f"cycles += icache_fetch_call(tm, counters, {value(pc)})"]
    return [f"cycles = fetch_line(tm, counters, cycles, {value(pc)})"]


def _scalar(op, word):
    """Scoreboard, unit, cache access, results and issue of a non-VFPU instruction."""
    flags = int(OP_FLAGS[op])
    lines = []
    srcs = [_operand(OP_SRC, op, k, word) for k in range(3)]
    if any(s >= 0 for s in srcs):
        lines.append(f"cycles = wait_sources(tm, counters, cycles, {_values(srcs)})")
    stall = int(OP_STALL[op])
    if int(OP_UNIT[op]) >= 0:
        lines.append(f"cycles = wait_unit(tm, counters, cycles, {_values((OP_UNIT[op], OP_BUSY[op], stall))})")
    if flags & (LOAD | STORE):
        lines.append(f"cycles += dcache(tm, counters, addr, {bool(flags & STORE)})")
    dsts = [_operand(OP_DST, op, k, word) for k in range(2)]
    if dsts[0] >= 0:
        lines.append(f"produce(tm, cycles + {int(OP_LATENCY[op])}, {_values((stall, dsts[0], dsts[1]))})")
    lines.append(f"cycles += {int(OP_ISSUE[op])}")
    if flags & JUMP:
        lines.append("cycles = jump_cost(counters, cycles)")
    elif flags & BRANCH:
        lines.append(f"cycles = branch_cost(counters, cycles, taken, {bool(flags & LIKELY)})")
    elif flags & CACHE_OP:
        lines.append(f"cycles += cache_op_call(tm, counters, {rt_of(word)}, addr)")
    return lines


class BlockResults:
    """The VFPU cells the instructions written so far in a block produced: cell -> (the
    local holding its ready cycle, its stall kind). A later word of the block that reads
    only such cells compares those locals instead of loading the cells' ready cycles and
    kinds from tm (the values vfpu_produce stored there: nothing else in a block writes a
    cell's ready time)."""

    def __init__(self):
        self.cells = {}

    def produced(self, local, kind, operand):
        for c in _cells(operand):
            self.cells[c] = (local, kind)

    def known(self, operand):
        """The (local, kind) of each distinct producer of `operand`'s cells, in cell order,
        or None when a cell was not produced in the block."""
        producers = [self.cells.get(c) for c in _cells(operand)]
        if None in producers:
            return None
        return list(dict.fromkeys(producers))


def _cells(operand):
    """The scoreboard cells (R_VPR-relative) of a VFPU operand (kind, count, register)."""
    kind, n, reg = operand
    if kind == 0:
        return []
    return [int(c) for c in (VEC_CELLS64[n, reg, :n] if kind == KIND_VEC else MAT_CELLS64[n, reg, :n * n])]


def _wait(s_op, t_op, gsrc, csrc, results):
    """model.vfpu_wait's text: a call, or where a source operand's cells all come from
    earlier words of the block, the same comparisons made on their locals (in the same
    order: the first source reaching the latest cycle names the stall)."""
    known = [results.known(o) if results is not None and o[0] else None for o in (s_op, t_op)]
    if gsrc >= 0 or csrc >= 0 or known == [None, None]:
        return [f"cycles = vfpu_wait(tm, counters, cycles, {_shape(s_op)}, {_shape(t_op)}, {_values((gsrc, csrc))})"]
    lines = [f"ready, stall = cycles, {value(C.STALL_VFPU)}"]
    compared = set()  # (a producer met again cannot be later than `ready` already is)
    for operand, producers in zip((s_op, t_op), known):
        if producers is None:
            if operand[0]:
                lines.append(f"ready, stall = vfpu_wait_cells(tm, ready, stall, {_shape(operand)})")
            continue
        for local, kind in producers:
            if local not in compared:
                compared.add(local)
                lines.append(f"ready, stall = later(ready, stall, {local}, {value(kind)})")
    return lines + ["cycles = stall_until(counters, cycles, ready, stall)"]


class _Word(NamedTuple):
    """What model.vfpu_account reads for a known VFPU word, as constants."""
    row: int
    s_op: tuple  # source operands (kind, count, register)
    t_op: tuple
    d_op: tuple  # the destination
    gsrc: int  # GPR and control register scoreboard slots (-1: none)
    csrc: int
    gdst: int
    cdst: int

    @property
    def quarters(self):
        return int(ROW_ISSUE_Q4[self.row]) & 3

    @property
    def whole(self):
        return int(ROW_ISSUE_Q4[self.row]) >> 2

    @property
    def mem(self):
        return int(ROW_EXTRA[self.row, 4])

    @property
    def stall_kind(self):
        return C.STALL_LOAD_USE if self.mem == MEM_LOAD else C.STALL_VFPU

    @property
    def produces(self):
        return bool(self.d_op[0]) or self.gdst >= 0 or self.cdst >= 0


def _word(word):
    """The _Word of a VFPU word, or None when the model has no row for it (one cycle)."""
    row = int(model.vfpu_lookup.py_func(word))
    if row < 0:
        return None
    s_op, t_op, d_op = (tuple(int(x) for x in model.vfpu_operand.py_func(row, k, word)) for k in (1, 2, 0))
    return _Word(row, s_op, t_op, d_op, int(model.vfpu_gpr_source.py_func(row, word)),
                 int(model.vfpu_ctrl_source.py_func(row, word)), int(model.vfpu_gpr_dest.py_func(row, word)),
                 int(model.vfpu_ctrl_dest.py_func(row, word)))


def _vfpu(word, pc, results=None):
    """model.vfpu_account's steps for a known VFPU word: its row, operands, issue and
    latency are constants (each step skipped where it would change nothing); results:
    the block's BlockResults, which this word's sources read and its results join."""
    # (the interpreter's decode memo in tm, vfpu_row's, is a cache keyed by the word that no
    # simulated figure reads: a region leaves it alone; keeping it cost the llama2 matmul ~13%)
    w = _word(word)
    if w is None:
        return ["cycles += 1"]
    lines = []
    if w.s_op[0] or w.t_op[0] or w.gsrc >= 0 or w.csrc >= 0:
        lines += _wait(w.s_op, w.t_op, w.gsrc, w.csrc, results)
    late = "0"
    if w.quarters:
        lines.append(f"cycles, late = vfpu_fraction(tm, counters, cycles, {value(w.quarters)}, "
                     f"{bool(ROW_EXTRA[w.row, 6] == 1)})")
        late = "late"
    if w.mem in (MEM_LOAD, MEM_STORE):
        lines.append(f"cycles += dcache(tm, counters, addr & 0xFFFFFFFC, {w.mem == MEM_STORE})")
    if w.produces:
        done = f"done_{pc:08x}"
        lines += [f"{done} = cycles + {int(ROW_LATENCY[w.row])}",
                  f"vfpu_produce(tm, {done}, {value(w.stall_kind)}, {_shape(w.d_op)}, {_values((w.gdst, w.cdst))})"]
        if results is not None:
            results.produced(done, w.stall_kind, w.d_op)
    if ROW_EXTRA[w.row, 5] == 1:
        lines.append("vfpu_cc(tm, cycles)")
    issue = f"vfpu_issue(counters, cycles, {value(w.whole)})" if w.whole > 1 else f"cycles + {w.whole}"
    return lines + [f"cycles = {issue}" + (f" + {late}" if w.quarters else "")]


def _vfpu_step(word, pc, results):
    """The OS tick and _vfpu's steps as one call (runtime.vfpu_step, vfpu_step_after) for a word of the common shape: no quarter-cycle issue, no CC, a one-cycle
    issue, sources waited for in tm, produced by at most two earlier words of the block, or
    one operand each way (its block part from one word). None for any other word (the
    separate steps then). One call instead of four cut the llama2 matmul region's
    compile by ~20%."""
    w = _word(word)
    if w is None or w.quarters or ROW_EXTRA[w.row, 5] == 1 or w.whole > 1:
        return None
    known = [results.known(o) if results is not None and o[0] else None for o in (w.s_op, w.t_op)]
    done = f"done_{pc:08x}"
    access = {MEM_LOAD: 1, MEM_STORE: 2}.get(w.mem, 0)
    tail = (f"{access}, {'addr' if access else value(0)}, {value(ROW_LATENCY[w.row])}, {value(w.stall_kind)}, "
            f"{_shape(w.d_op)}, {_values((w.gdst, w.cdst, w.whole))}")
    if w.gsrc >= 0 or w.csrc >= 0 or known == [None, None]:
        call = (f"vfpu_step(tm, counters, cycles, due_tick, {_shape(w.s_op)}, {_shape(w.t_op)}, "
                f"{_values((w.gsrc, w.csrc))}, {tail})")
    else:  # producers from the block, and perhaps one operand's cells from tm
        cells_first = int(known[0] is None and bool(w.s_op[0]))
        cells = (w.s_op if cells_first else w.t_op if known[1] is None and w.t_op[0] else (0, 0, 0))
        producers = list(dict.fromkeys(p for k in known if k for p in k))
        if len(producers) > (1 if cells[0] else 2):
            return None
        (a, ka), (b, kb) = (producers + [(value(0), 0)])[:2]
        call = (f"vfpu_step_after(tm, counters, cycles, due_tick, {cells_first}, {_shape(cells)}, {a}, {value(ka)}, "
                f"{b}, {value(kb)}, {tail})")
    if w.produces and results is not None:
        results.produced(done, w.stall_kind, w.d_op)
    return [f"cycles, due_tick, {done} = {call}"]


def tracks_calls(op: int, prev_op: int | None) -> bool:
    """Whether call tracking (calls.track_calls) can do anything at instruction `op` when
    `prev_op` ran just before it (None: unknown, as at a block's head). It acts only at a
    call or return, at the instruction after one (its slot, which completes it; a return
    whose slot is a system call marks the stub's edge) and at the instruction after that
    slot, which charges the edge and begins a block (a return ends its block): for any
    other it reads tm and returns."""
    return prev_op is None or calls.OP_CALL_KIND[op] != calls.K_NONE or calls.OP_CALL_KIND[prev_op] != calls.K_NONE


def account_source(op: int, word: int, pc: int, iline: int, profile: bool, results=None,
                   track: bool = True) -> list[str]:
    """Statements that advance `cycles` past the instruction (op, word) at `pc`; results:
    the BlockResults of its block (the instructions before it, written in order); track:
    whether it needs the profiler's call tracking (tracks_calls)."""
    lines = [f"mb = counters[{C.DCACHE_MISSES}]"] if profile else []
    # the OS tick: due_tick is model.next_tick kept in a local (a compare per instruction
    # instead of two loads of tm, which every store to tm makes LLVM read again). Calls, not
    # branches: numba's SSA pass walks the whole function once per variable a branch assigns.
    vfpu = bool(int(OP_FLAGS[op]) & VFPU_OP)
    if vfpu and not profile and not _iline(pc, iline) and (step := _vfpu_step(word, pc, results)) is not None:
        return step
    lines.append("cycles, due_tick = tick_due(tm, counters, cycles, due_tick)")
    if profile:
        lines.append("start = cycles")
    lines += _iline(pc, iline)
    if vfpu:
        lines += _vfpu(word, pc, results)
    else:
        lines += _scalar(op, word)
    if profile:
        lines.append(f"profile_slot(tm, counters, prof, {pc}, start, cycles, mb)")
        if track:
            addr = "addr" if calls.needs_register(op) else "0"
            taken = "taken" if int(OP_FLAGS[op]) & BRANCH else "False"
            lines.append(f"track_calls(tm, counters, {op}, {word}, {pc}, {addr}, {taken}, cycles)")
    return lines


def needs_addr(op: int, word: int) -> bool:
    """Whether the timing text reads `addr` (the address the instruction accesses, or
    for jr/jalr the register the call tracking reads: rs = addr - offset)."""
    if int(OP_FLAGS[op]) & VFPU_OP:
        row = int(model.vfpu_lookup.py_func(word))
        return row >= 0 and int(ROW_EXTRA[row, 4]) in (MEM_LOAD, MEM_STORE)
    return bool(int(OP_FLAGS[op]) & (LOAD | STORE | CACHE_OP)) or calls.needs_register(op)
