"""Source text of the cycle model for one known instruction: model.account specialised.

model.account reads per-op tables at run time; for an instruction whose word and address
are known when a region is compiled, every table lookup is a constant, so this writes
out the steps account is made of (model.wait_sources, produce...) with constant
operands, only the steps the instruction needs. The text updates `cycles` exactly as
`cycles = account(tm, counters, prof, op, word, pc, addr, taken, cycles)` would;
tests/cpu/test_jit.py holds the two to the same counters, cycle for cycle.

The steps that read or write tm at constant places (the scoreboard's ready cycles and
stall kinds, the VFPU decode memo) are written as the same operations on locals standing
for those places (TmLocals): only this text touches them while a region runs, so a
region loads them once when it is entered and stores them back when it leaves, and
LLVM keeps them in registers instead of storing to tm (which also made it load the
guest's registers again after every store) at every instruction.
"""
from allegrex.cpu.fields import rt_of
from allegrex.timing import calls
from allegrex.timing import counters as C
from allegrex.cpu.decode import BRANCH, CACHE_OP, JUMP, LIKELY, LOAD, STORE, VFPU_OP
from allegrex.timing.classes import (OP_BUSY, OP_DST, OP_FLAGS, OP_ISSUE, OP_LATENCY, OP_SRC, OP_STALL, OP_UNIT, R_DUMMY,
                                     R_GPR, R_VCC_BRANCH, R_VCTRL, R_VPR)
from allegrex.timing.layout import T_KIND, T_LAST_ILINE, T_READY, T_VMEMO_ROW, T_VMEMO_WORD, VMEMO_SIZE
from allegrex.timing.memory_model import LINE_BITS
from allegrex.timing import model
from allegrex.timing.model import operand_slot
from allegrex.timing.vfpu_classes import (KIND_VEC, MAT_CELLS64, MEM_LOAD, MEM_STORE, ROW_EXTRA, ROW_ISSUE_Q4,
                                          ROW_LATENCY, VCMP_TO_BRANCH, VCMP_TO_MFVC, VEC_CELLS64)

# How the instruction's I-cache line relates to the previous instruction's:
ILINE_SAME = 0  # same line, previous instruction known: nothing to do
ILINE_NEW = 1  # a different line, previous instruction known: always a fetch
ILINE_UNKNOWN = 2  # entered from elsewhere: compare with the last line fetched


def value(x) -> str:
    """A constant operand as a plain int64 for numba: a bare number is typed as a literal,
    and each distinct literal compiles the called step once more (compiling is what costs;
    LLVM still folds the value where it inlines the step). Bare numbers are for operands
    that choose the step's shape (counts, kinds, flags)."""
    return f"np.int64({int(x)})"


def _values(xs) -> str:
    return ", ".join(value(x) for x in xs)


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


class TmLocals:
    """Places of tm a region keeps in locals (`tm_<index>`): the text reads and writes
    those names; the region loads them on entry (loads()) and stores them on leaving
    (stores())."""

    def __init__(self):
        self.indices = set()

    def __call__(self, index: int) -> str:
        """The local standing for tm[index]."""
        self.indices.add(int(index))
        return f"tm_{int(index)}"

    def loads(self) -> list[str]:
        return [f"tm_{i} = tm[{i}]" for i in sorted(self.indices)]

    def stores(self) -> list[str]:
        return [f"tm[{i}] = tm_{i}" for i in sorted(self.indices)]


def _wait_sources(slots, first_kind, tml, known=()):
    """model.wait_sources (first_kind 0) / model.vfpu_wait (STALL_VFPU) on locals: `slots`
    compared in order, the first to reach the latest cycle naming the stall. slots: scoreboard
    slots, or (local, kind) pairs standing for some (a result of the block, BlockResults;
    a pair met again cannot be later than `ready` already is); known: the slots whose stall
    kind is a constant (slot -> kind: a control register's is STALL_VFPU)."""
    lines = [f"ready, stall = cycles, {value(first_kind)}"]
    compared = set()
    for slot in slots:
        if isinstance(slot, tuple):
            local, kind = slot[0], value(slot[1])
        else:
            local = tml(T_READY + slot)
            kind = value(known[slot]) if slot in known else tml(T_KIND + slot)
        if local not in compared:
            compared.add(local)
            lines += [f"if {local} > ready:", f"    ready, stall = {local}, {kind}"]
    return lines + ["cycles = stall_until(counters, cycles, ready, stall)"]


def _produce(tml, done, kind, slots):
    """model.produce / vfpu_produce on locals: results in `slots` ready at `done` (text),
    their stall kind `kind` (None: a control register's, whose kind is not kept)."""
    lines = []
    for slot in slots:
        lines.append(f"{tml(T_READY + slot)} = {done}")
        if kind is not None:
            lines.append(f"{tml(T_KIND + slot)} = {value(kind)}")
    return lines


def _scalar(op, word, tml):
    """Scoreboard, unit, cache access, results and issue of a non-VFPU instruction."""
    flags = int(OP_FLAGS[op])
    lines = []
    srcs = [_operand(OP_SRC, op, k, word) for k in range(3)]
    if any(s >= 0 for s in srcs):
        lines += _wait_sources([s for s in srcs if s >= 0], 0, tml)
    stall = int(OP_STALL[op])
    if int(OP_UNIT[op]) >= 0:
        lines.append(f"cycles = wait_unit(tm, counters, cycles, {_values((OP_UNIT[op], OP_BUSY[op], stall))})")
    if flags & (LOAD | STORE):
        lines.append(f"cycles += dcache(tm, counters, addr, {bool(flags & STORE)})")
    dsts = [_operand(OP_DST, op, k, word) for k in range(2)]
    if dsts[0] >= 0:  # ($zero's results land in R_DUMMY)
        lines.append(f"done = cycles + {int(OP_LATENCY[op])}")
        lines += _produce(tml, "done", stall, [R_DUMMY if d == R_GPR else d for d in dsts if d >= 0])
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
    local holding its ready cycle, its stall kind). A later word of the block waiting for
    several cells of one such word compares its result once."""

    def __init__(self):
        self.cells = {}

    def produced(self, local, kind, operand):
        for c in _cells(operand):
            self.cells[c] = (local, kind)

    def sources(self, operand):
        """The scoreboard slots of `operand`'s cells in order, a cell produced in the block
        as its producer's (local, kind)."""
        return [self.cells.get(c, R_VPR + c) for c in _cells(operand)]


def _cells(operand):
    """The scoreboard cells (R_VPR-relative) of a VFPU operand (kind, count, register)."""
    kind, n, reg = operand
    if kind == 0:
        return []
    return [int(c) for c in (VEC_CELLS64[n, reg, :n] if kind == KIND_VEC else MAT_CELLS64[n, reg, :n * n])]


def _vfpu(word, pc, results, tml):
    """model.vfpu_account's steps for a known VFPU word: its row, operands, issue and
    latency are constants (each step skipped where it would change nothing); results:
    the block's BlockResults, which this word's sources read and its results join;
    tml: the region's TmLocals."""
    row = int(model.vfpu_lookup.py_func(word))
    memo = (pc >> 2) & (VMEMO_SIZE - 1)  # the decode memo, as vfpu_row leaves it
    lines = [f"{tml(T_VMEMO_WORD + memo)} = {value(word)}", f"{tml(T_VMEMO_ROW + memo)} = {value(row)}"]
    if row < 0:
        return lines + ["cycles += 1"]
    s_op, t_op, d_op = (tuple(int(x) for x in model.vfpu_operand.py_func(row, k, word)) for k in (1, 2, 0))
    gsrc, csrc = int(model.vfpu_gpr_source.py_func(row, word)), int(model.vfpu_ctrl_source.py_func(row, word))
    gdst, cdst = int(model.vfpu_gpr_dest.py_func(row, word)), int(model.vfpu_ctrl_dest.py_func(row, word))
    if s_op[0] or t_op[0] or gsrc >= 0 or csrc >= 0:
        sources = results.sources(s_op) + results.sources(t_op) + [x for x in (gsrc, csrc) if x >= 0]
        lines += _wait_sources(sources, C.STALL_VFPU, tml, {csrc: C.STALL_VFPU})
    quarters = int(ROW_ISSUE_Q4[row]) & 3
    late = "0"
    if quarters:
        lines.append(f"cycles, late = vfpu_fraction(tm, counters, cycles, {value(quarters)}, {bool(ROW_EXTRA[row, 6] == 1)})")
        late = "late"
    mem = int(ROW_EXTRA[row, 4])
    if mem in (MEM_LOAD, MEM_STORE):
        lines.append(f"cycles += dcache(tm, counters, addr & 0xFFFFFFFC, {mem == MEM_STORE})")
    if d_op[0] or gdst >= 0 or cdst >= 0:
        kind = C.STALL_LOAD_USE if mem == MEM_LOAD else C.STALL_VFPU
        done = f"done_{pc:08x}"
        lines.append(f"{done} = cycles + {int(ROW_LATENCY[row])}")
        lines += _produce(tml, done, kind, [R_VPR + c for c in _cells(d_op)])
        lines += _produce(tml, done, C.STALL_VFPU, [gdst] if gdst >= 0 else [])
        lines += _produce(tml, done, None, [cdst] if cdst >= 0 else [])
        results.produced(done, kind, d_op)
    if ROW_EXTRA[row, 5] == 1:  # vcmp: the CC as branches and mfvc see it (model.vfpu_cc)
        lines += _produce(tml, f"cycles + {VCMP_TO_BRANCH}", C.STALL_VFPU, [R_VCC_BRANCH])
        lines += _produce(tml, f"cycles + {VCMP_TO_MFVC}", None, [R_VCTRL + 3])
    whole = int(ROW_ISSUE_Q4[row]) >> 2
    issue = f"vfpu_issue(counters, cycles, {value(whole)})" if whole > 1 else f"cycles + {whole}"
    return lines + [f"cycles = {issue}" + (f" + {late}" if quarters else "")]


def account_source(op: int, word: int, pc: int, iline: int, profile: bool, results, tml) -> list[str]:
    """Statements that advance `cycles` past the instruction (op, word) at `pc`; results:
    the BlockResults of its block (the instructions before it, written in order); tml:
    the region's TmLocals."""
    lines = [f"mb = counters[{C.DCACHE_MISSES}]"] if profile else []
    # the OS tick: due_tick is model.next_tick kept in a local (a compare per instruction
    # instead of two loads of tm, which every store to tm makes LLVM read again)
    lines += ["if cycles >= due_tick:", "    cycles = tick(tm, counters, cycles)", "    due_tick = next_tick(tm)"]
    if profile:
        lines.append("start = cycles")
    lines += _iline(pc, iline)
    if int(OP_FLAGS[op]) & VFPU_OP:
        lines += _vfpu(word, pc, results, tml)
    else:
        lines += _scalar(op, word, tml)
    if profile:
        lines.append(f"profile_slot(tm, counters, prof, {pc}, start, cycles, mb)")
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
