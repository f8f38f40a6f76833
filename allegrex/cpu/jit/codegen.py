"""Python source of one compiled region: the run loop specialised to known code.

The function has the run loop's signature and contract (allegrex.cpu.interp.run, minus
the decode memo, breakpoints and JIT arguments) and keeps its per-instruction order:
semantics (the interpreter's own branch for the instruction with
the word's fields filled in, see jit.semantics), `$zero`, timing (jit.timing_gen),
trace ring. What is gone is everything known when compiling: fetch, decode, operand
fields, dispatch, and per-instruction bookkeeping (the instruction count and the trace
ring move once per block: a block's pcs run head, head + 4, ...; every exit path adds
what its block retired so far).
It returns EV_NONE when control leaves the region (regs[PC]/[NPC] say where),
EV_NEAR_BUDGET when it stopped before a block the instruction or cycle budget may end
in (the interpreter then runs up to the exact end), EV_STALE when its code was
overwritten (nothing ran), or the event the interpreter would have raised.
The statements of each piece and block are written as they read; each run of simple ones
is then one call of an intrinsic holding that text (jit.statement_runs), which numba's
passes type and lower as one statement.
"""

import ast
import textwrap

from allegrex.cpu.decode import CACHE_OP, SEM, STORE, TABLE
from allegrex.cpu.fields import code_of, imm_of, rd_of, rs_of, rt_of
from allegrex.cpu.interp import TRACE_LOG
from allegrex.cpu.jit import timing_gen as TG
from allegrex.cpu.jit.region import BRANCHES, PIECE, TRANSFERS, Region
from allegrex.cpu.jit.semantics import specialised
from allegrex.cpu.jit.statement_runs import Run, runs_in
from allegrex.cpu.jit.timing_gen import value
from allegrex.cpu.jit.vfpu_gen import RAISES_ANY, RAISES_NOTHING, consumed_at_heads, direct_source, runs_plain
from allegrex.timing.memory_model import LINE_BITS

PHYS_MASK = 0x1FFFFFFF
STORE_SLACK = 16  # VFPU offsets carry other fields in their low bits: compare a little wide
S_VFPU = SEM["vfpu"]
S_SYSCALL = SEM["syscall"]
VFPU_STORE_OPCODES = (0x3A, 0x3D, 0x3E)  # sv.s, svl.q/svr.q, sv.q

ARGS = ("regs, fpr, fpr_bits, vpr, vpr_bits, vctrl, counters, mem, mem16, mem32, memf32, ram_size, mapping, "
        "trace, trace_log, max_instructions, cycle_limit, event, tm, prof, vscratch, vterms, syscalls")
# What a region's instructions read and write beyond the arguments: a piece takes and returns them.
CARRIED = "pc, npc, cycles, icount, code, value, extra, event_pc, stop, due_tick"
PIECE_INPUTS = ARGS.split(", ") + ["bound"]  # what a piece may read besides CARRIED (it takes those it does)

PROLOGUE = """\
@njit(cache=True, error_model="numpy", _nrt=False)
def {name}(pieces, {args}):
    pc = np.int64(regs[PC])
    npc = np.int64(regs[NPC])
    cycles = counters[CYCLES]
    icount = counters[INSTRUCTIONS]
    budget = np.int64(max_instructions)
    code = EV_NONE
    value = np.int64(0)
    extra = np.int64(0)
    event_pc = pc
    next_npc = np.int64(0)
    stop = np.int64(-1)  # leaving before an instruction: its index in STOP_PC... (a value: as a literal the first piece compiled twice)
    runs = 0  # whole blocks retired, logged in trace_log (written out to the trace ring on leaving)
    logged_to = icount  # the instruction count after the last of them
    blk = {first}
    bound = {bound}
    due_tick = next_tick(tm)  # (timed mode: jit.timing_gen's tick step)
    if tm[T_ENABLED] != {timed} or pc != {entry} or npc != {entry} + 4{prefixes}:
        blk = -1  # compiled for another timing mode or entered elsewhere (or with the VFPU prefixes not consumed): leave at once
    else:
        for k in range(CODE_PCS.shape[0]):  # the guest may have rewritten its code since
            o = translate(CODE_PCS[k], 4, ram_size, mapping)
            if o < 0 or mem32[o >> 2] != CODE_WORDS[k]:
                code = EV_STALE
                blk = -1
                break
    while blk >= 0:
"""

# (a piece is only ever called at its address, jit.piece_calls: no wrappers for Python or C
# callers, which were ~5% of its compile)
PIECE_FUNCTION = """\
@njit(cache=True, error_model="numpy", _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True,
      pipeline_class=PiecePasses)
def {name}({args}):
    left = 1  # left the region (a break below), or ran to the end
    while True:
{body}
        left = 0
        break
    return left, {carried}
"""

EPILOGUE = """\
    if stop >= 0:  # an event before an instruction retired (the event is set)
        pc = STOP_PC[stop]
        npc = next_npc if STOP_IN_SLOT[stop] else pc + 4
        trace_run(trace, icount, pc - 4 * STOP_RETIRED[stop], STOP_RETIRED[stop])
        icount += STOP_RETIRED[stop]
    trace_runs(trace, trace_log, runs, logged_to, icount)
    return finish(regs, counters, event, pc, npc, cycles, icount, code, value, extra, event_pc)
"""


def piece_name(name: str, k: int) -> str:
    """The name of region `name`'s k-th piece function (see _Writer.piece)."""
    return f"{name}_piece{k}"


def _indent(lines, depth=1):
    pad = "    " * depth
    return [pad + line for line in lines]


def _is_store(ins) -> bool:
    if ins.sem == S_VFPU:
        return (ins.word >> 26) in VFPU_STORE_OPCODES
    return bool(TABLE[ins.op].flags & STORE)


def _names_read(lines) -> set:
    """The variables the statements `lines` read (one parse: a piece's text is ~400 lines)."""
    tree = ast.parse("\n".join(lines))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _names_written(lines) -> set:
    """The variables the statements `lines` assign."""
    tree = ast.parse("\n".join(lines))
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _retire(head, count):
    """Statements retiring the first `count` instructions of the block at `head`: their
    entries in the trace ring, the instruction count."""
    return [f"trace_run(trace, icount, {value(head)}, {value(count)})", f"icount += {count}"] if count else []


def _retire_block(head, count):
    """_retire for a whole block (its end, the hot path): logged as one entry, its head and
    count, which the region writes out to the trace ring when it leaves (trace_runs)."""
    return [f"trace_log[runs & {TRACE_LOG - 1}] = {head | count << 32}", "runs += 1", f"icount += {count}",
            "logged_to = icount"]


def _exit(head, pc, npc, retired):
    """Statements leaving the region after a retired instruction: execution goes on
    at `pc` (npc: its successor, as text); `retired`: the instructions of the block at
    `head` retired so far."""
    return _retire(head, retired) + [f"pc = {pc}", f"npc = {npc}", "break"]


def _with_statement_runs(lines, name, defined, live):
    """(module lines, statements) for the statements `lines` with each run of simple
    statements (jit.statement_runs) made one call of a module-level intrinsic holding its
    text, named after `name`; a run that may `break` returns a flag first, tested here.
    defined: the locals with a value where `lines` begin; live: those read after them."""
    segments = runs_in(lines)
    read_after, later = [], set(live)  # what the segments after each one read
    for _, seg in reversed(segments):
        read_after.append(set(later))
        later |= _names_read(seg)
    read_after.reverse()
    defined = set(defined)  # the locals with a value so far
    module, body = [], []
    for (is_run, seg), after in zip(segments, read_after):
        if not is_run:
            body += seg
            defined |= _names_written(seg)
            continue
        text = "\n".join(seg)
        run = Run(text)
        # given: what it reads first, and what it may leave as it was (an exit's branch not taken)
        inputs = tuple(dict.fromkeys([n for n in run.read_first if n in defined]
                                     + [n for n in run.written if n in defined]))
        outputs = tuple(n for n in run.written if n in after)
        run_name = f"{name}_run{len(module)}"
        assert '"""' not in text and "\\" not in text, "a run's text goes in a plain triple-quoted string"
        module.append(f'{run_name} = statement_run(__name__, """\\\n{text}\n""",\n    {inputs!r},\n    {outputs!r})\n\n')
        targets = ("left_piece, " if run.breaks else "") + "".join(f"{n}, " for n in outputs)
        call = f"{run_name}({', '.join(inputs)})"
        body.append(f"{targets}= {call}" if targets else call)
        if run.breaks:
            body += ["if left_piece:", "    break"]
        defined |= set(run.written)
    return module, body


class _Writer:
    def __init__(self, region: Region, name: str, timed: bool, profile: bool):
        self.region = region
        self.name = name
        self.pieces = []  # the module text of each piece function (see piece)
        self.piece_statements = []  # the lines of statements in each piece's text (PIECE_STATEMENTS)
        self.timed = timed
        self.profile = profile
        self.index = {b.head: k for k, b in enumerate(region.blocks)}
        self.stops = []  # (pc, in a delay slot, instructions of its block retired before it)
        self.body = []  # the instructions of the block being written
        self.may_raise = True  # whether the last VFPU word written may retire with an event (_after checks)
        self.consumed_heads = consumed_at_heads(region)  # head -> VFPU prefixes surely consumed there
        pcs = sorted(region.words)
        self.code_lo, self.code_hi = pcs[0] & PHYS_MASK, (pcs[-1] + 4) & PHYS_MASK

    def instruction(self, ins, prev, k, npc_text):
        """Statements for instruction `ins`, the block's k-th; prev: the instruction that
        ran just before it (same block) or None; npc_text: its successor address as text
        (a constant, or `next_npc` in a delay slot)."""
        w, pc = ins.word, ins.pc
        name = TABLE[ins.op].mnemonic if ins.op < len(TABLE) else "invalid"
        g = len(self.stops)  # leaving before this instruction: the epilogue finds pc etc. in STOP_*
        self.stops.append((pc, not npc_text.isdigit(), k))
        L = [f"# {pc:08x}: {name} ({w:08x})"]
        store = _is_store(ins)
        known = dict(word=w, sem=ins.sem, rs=rs_of(w), rt=rt_of(w), rd=rd_of(w), pc=pc)
        if npc_text.isdigit():
            known["npc"] = int(npc_text)
        body = specialised(ins.sem, known, [f"stop = {g}"])
        if ins.sem == S_VFPU:  # body[0]: `status = cop2.execute(...)`, then the event check
            direct, raises = direct_source(w, body[0], self.body[:k], self.consumed_heads[self.head])
            body = direct if raises == RAISES_NOTHING else direct + body[1:]
            self.may_raise = raises == RAISES_ANY
        read = _names_read(body)
        if store or (self.timed and TG.needs_addr(ins.op, w)) or "addr" in read:
            L.append(f"addr = (np.int64(regs[{rs_of(w)}]) + {imm_of(w)}) & 0xFFFFFFFF")
        if ins.sem in TRANSFERS:
            L += [f"next_pc = {pc + 4}", f"next_npc = {pc + 8}"]
        L += body
        # (the VFPU words run directly write no GPR; execute_called may: mfv $zero)
        if (ins.sem == S_VFPU and "cop2" in read) or any(line.lstrip().startswith("regs[0] =") for line in body):
            L.append("regs[0] = 0")
        if self.timed:
            if ins.sem in BRANCHES:
                L.append(f"taken = next_npc != {pc + 8} and next_pc == {pc + 4}")
            L += TG.account_source(ins.op, w, pc, self._iline(ins, prev), self.profile, self.results,
                                   TG.tracks_calls(ins.op, prev.op if prev is not None else None))
        else:
            L.append("cycles += 1")
        return L, store

    def _after(self, ins, store, pc_text, npc_text, retired, left):
        """Leave after a retired instruction when it wrote our own code, the VFPU raised
        an event or a system call is not the run loop's to answer (its pc/npc: where
        execution goes on; left: the block's instructions still to run)."""
        L = []
        if store:
            L += [f"if unlikely({self.code_lo - STORE_SLACK} <= (addr & {PHYS_MASK}) < {self.code_hi + STORE_SLACK}):"]
            L += _indent(_exit(self.head, pc_text, npc_text, retired))
        if ins.sem == S_VFPU and self.may_raise:
            L += ["if unlikely(code != EV_NONE):"] + _indent(_exit(self.head, pc_text, npc_text, retired))
        if ins.sem == S_SYSCALL:  # the run loop's step after a syscall (interp.run), then the budget
            L += [f"cycles = charge({code_of(ins.word)}, regs, counters, cycles, syscalls, event)",
                  f"answered_at = answered({code_of(ins.word)}, regs, counters, cycles, syscalls, mem32, ram_size, "
                  "mapping)",
                  "if answered_at < 0:"] + _indent(_exit(self.head, pc_text, npc_text, retired))
            L += ["cycles = answered_at", "code, value = EV_NONE, np.int64(0)",
                  f"if cycles + {left} * bound >= cycle_limit:  # the call's cost may end the budget here"]
            L += _indent(_exit(self.head, pc_text, npc_text, retired))
        return L

    def _iline(self, ins, prev):
        if prev is None or TABLE[prev.op].flags & CACHE_OP:
            return TG.ILINE_UNKNOWN
        return TG.ILINE_SAME if (prev.pc >> LINE_BITS) == (ins.pc >> LINE_BITS) else TG.ILINE_NEW

    def straight(self, run, first, n):
        """Statements for `run`, the instructions first, first + 1, ... of the n-instruction
        block being written (straight code: none is a transfer or its slot)."""
        L, prev = [], self.body[first - 1] if first else None
        for k, ins in enumerate(run, first):
            lines, store = self.instruction(ins, prev, k, str(ins.pc + 4))
            L += lines + self._after(ins, store, ins.pc + 4, ins.pc + 8, k + 1, n - k - 1)
            prev = ins
        return L

    def piece(self, run, first, n):
        """The call of a new piece function running straight(run, first, n) (a `break` in
        it leaves the region). Its words and those after it find in locals (BlockResults)
        only results produced in the same function."""
        self.results = TG.BlockResults()
        lines = self.straight(run, first, n)
        name = piece_name(self.name, len(self.pieces))
        # only the inputs it reads: passing all ~20 arrays made a call cost ~0.3 us (an array
        # is several words; LLVM does not inline a piece)
        read = _names_read(lines)
        args = ", ".join([a for a in PIECE_INPUTS if a in read] + [CARRIED])
        carried = CARRIED.split(", ")
        runs, body = _with_statement_runs(lines, name, PIECE_INPUTS + carried, carried)
        self.piece_statements.append(sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#")))
        self.pieces.append("\n".join(runs) + PIECE_FUNCTION.format(name=name, args=args, carried=CARRIED,
                                                                  body="\n".join(_indent(body, 2))))
        self.results = TG.BlockResults()
        call = f"call_piece({name}, pieces[{len(self.pieces) - 1}], {args})"  # (jit.piece_calls)
        return [f"left, {CARRIED} = {call}", "if left:", "    break"]

    def dispatch(self, block):
        """Choose the next block from pc (npc is pc + 4 here), or leave the region."""
        if block.dynamic:
            return ["blk = find_block(HEADS, pc)", "if blk < 0:", "    break", "continue"]
        L = []
        for s in block.successors:
            k = self.index.get(s)
            if k is not None:
                L += [f"if pc == {s}:", f"    blk = {k}", "    continue"]
        return L + ["break"]

    def block(self, block):
        body = self.body = block.instructions  # (vfpu_gen reads the words before each VFPU word)
        assert all(ins.pc == block.head + 4 * k for k, ins in enumerate(body)), "a block is straight code"
        self.head = block.head
        self.results = TG.BlockResults()  # VFPU results produced so far in this block
        n = len(body)
        # Near the instruction or cycle budget the interpreter runs the block instead and
        # stops exactly where the budget ends; here, no instruction can reach it.
        L = [f"if budget < {n} or cycles + {n} * bound >= cycle_limit:", "    code = EV_NEAR_BUDGET"]
        L += _indent(_exit(block.head, block.head, block.head + 4, 0))
        straight = body[:-2] if block.ends_in_transfer else body
        if len(straight) <= PIECE:
            L += self.straight(straight, 0, n)
        else:
            for start in range(0, len(straight), PIECE):
                L += self.piece(straight[start:start + PIECE], start, n)
        prev = straight[-1] if straight else None
        if not block.ends_in_transfer:
            nxt = (straight[-1].pc + 4) & 0xFFFFFFFF
            return L + _retire_block(block.head, n) + [f"budget -= {n}", f"pc = {nxt}", f"npc = {nxt + 4}"] + self.dispatch(block)
        transfer, slot = body[-2], body[-1]
        k = n - 2
        lines, _ = self.instruction(transfer, prev, k, str(transfer.pc + 4))
        L += lines
        slot_lines, store = self.instruction(slot, transfer, k + 1, "next_npc")
        slot_lines += _retire_block(block.head, n) + [f"budget -= {n}", "pc = next_npc & 0xFFFFFFFF"]
        slot_lines += self._after(slot, store, "pc", "pc + 4", 0, 0)
        L += [f"if next_pc == {slot.pc}:"] + _indent(slot_lines)
        L += ["else:"] + _indent(_retire_block(block.head, n - 1) + [f"budget -= {n - 1}", "pc = next_pc & 0xFFFFFFFF"])
        return L + ["npc = pc + 4"] + self.dispatch(block)


def region_source(region: Region, name: str, timed: bool, profile: bool) -> str:
    """The module text defining `name`, the compiled form of `region`."""
    w = _Writer(region, name, timed, profile)
    pcs = sorted(region.words)
    out = ["# Generated by allegrex.cpu.jit from guest code; do not edit.",
           "from allegrex.cpu.interp import *  # noqa: F401,F403 (the names the semantics use)",
           "from allegrex.cpu.interp import np, njit",
           "from allegrex.cpu.jit.runtime import (access, bitrev32, clz32, cop2, div_signed, div_unsigned,",
           "    float_to_word, finish, sx32, translate)  # plain copies of the run loop's inlined helpers",
           "from allegrex.cpu.events import EV_NEAR_BUDGET, EV_STALE",
           "from allegrex.cpu.hints import unlikely  # the tests of the region's own rare exits",
           "from allegrex.cpu.state import CYCLES, INSTRUCTIONS, NPC, PC",
           "from allegrex.timing.layout import T_ENABLED",
           "from allegrex.cpu.jit.runtime import (branch_cost, cache_op_call, dcache, fetch_line, find_block,",
           "    icache_fetch_call, jump_cost, later, next_tick, produce, profile_slot, stall_until, step_bound, tick_due,",
           "    track_calls, trace_run, trace_runs, vfpu_cc, vfpu_fraction, vfpu_issue, vfpu_produce, vfpu_wait,",
           "    vfpu_step, vfpu_step_after, vfpu_wait_cells,",
           "    wait_sources, wait_unit)",
           "from allegrex.cpu.jit.piece_calls import call_piece  # a piece is called at its address (pieces[k])",
           "from allegrex.cpu.jit.passes import PiecePasses  # the numba passes a piece needs",
           "from allegrex.cpu.jit.statement_runs import statement_run  # runs of simple statements, each lowered as one",
           "from allegrex.cpu.jit.runtime import answered, charge  # system calls the run loop answers, charges (hle.pure)",
           "from allegrex.cpu.jit.runtime import (vfpu_consume_prefixes, vfpu_identity_prefixes, vfpu_load_store_quad,",
           "    vfpu_load_store_single, vfpu_prefixes_consumed, vfpu_plain_arith, vfpu_plain_c2i, vfpu_plain_dot,",
           "    vfpu_plain_cmp, vfpu_plain_f2i, vfpu_plain_fill, vfpu_plain_i2f, vfpu_plain_mov, vfpu_plain_pack)  # the VFPU words a region runs directly (jit.vfpu_gen)",
           "",
           f"HEADS = np.array({region.heads!r}, dtype=np.int64)",
           f"CODE_PCS = np.array({pcs!r}, dtype=np.int64)",
           f"CODE_WORDS = np.array({[region.words[p] for p in pcs]!r}, dtype=np.uint32)",
           "",
           ""]
    blocks = [w.block(block) for block in region.blocks]
    prologue = PROLOGUE.format(name=name, args=ARGS, timed=1 if timed else 0, entry=region.entry,
                               first=w.index[region.entry], bound="step_bound(tm)" if timed else "1",
                               prefixes=" or not vfpu_prefixes_consumed(vctrl)" if runs_plain(region) else "")
    # A block's runs may read what the prologue and its own earlier statements set, and write
    # what any block or the epilogue reads (the loop goes round the blocks).
    defined = _names_written((prologue + "        pass").splitlines()) | {"pieces", *ARGS.split(", ")}
    live = set().union(*map(_names_read, blocks), _names_read(textwrap.dedent(EPILOGUE).splitlines()))
    body, runs = [], []
    for k, (block, lines) in enumerate(zip(region.blocks, blocks)):
        block_runs, lines = _with_statement_runs(lines, f"{name}_block{k}", defined, live)
        runs += block_runs
        body.append(f"        {'if' if k == 0 else 'elif'} blk == {k}:  # block at {block.head:08x}")
        body += _indent(lines, 3)
    pcs_, slots, retired = zip(*w.stops)
    out += [f"STOP_PC = np.array({list(pcs_)!r}, dtype=np.int64)",
            f"STOP_IN_SLOT = np.array({[int(x) for x in slots]!r}, dtype=np.int64)",
            f"STOP_RETIRED = np.array({list(retired)!r}, dtype=np.int64)",
            f"PIECE_STATEMENTS = {tuple(w.piece_statements)!r}  # (piece_calls.largest_first)", "", ""]
    code = []
    for piece in w.pieces:
        code += piece.splitlines() + ["", ""]
    code += runs + prologue.splitlines()
    code += body + ["        else:", "            break"]
    code += EPILOGUE.splitlines()
    code = "\n".join(code) + "\n"
    return "\n".join(out + TG.value_globals(code) + ["", ""]) + code
