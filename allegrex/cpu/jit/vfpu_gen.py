"""VFPU words a compiled region runs without calling vfpu.exec.execute_called.

A region knows each VFPU word when it is generated, so the words the run loop's short
path covers (vfpu.exec.execute_with) need neither decoding nor the call passing a dozen
arrays: lv.s/sv.s/lv.q/sv.q run load_store's own steps (load_store_single/_quad, inlined)
with the address offset and cells known, and the prefix-free operations vfpu.plain
writes out (lane-wise float ones, vcmp, vdot, conversions, packings, moves) run
plain_op's piece for their operation (inlined).
Those need the prefix registers to hold the identity, and consume them: where the words
before one (in its block, and through every path into its block, consumed_at_heads)
surely left them consumed, it runs alone (consuming them again would change nothing);
elsewhere an identity-prefix check picks it and the consume, or execute_called (a
pending vpfx*).
A region that relies on the prefixes being consumed when it is entered checks them on
entry and leaves at once otherwise. Other words call execute_called with the word as a
plain value (one compiled version for all words).
"""

import re

import numpy as np

from allegrex.cpu.decode import LIKELY, SEM, TABLE
from allegrex.cpu.jit.timing_gen import value
from vfpu.exec import mem_address, mem_quad_reg, single_cell
from vfpu.plain import LANE_OPS, F2I_OPS, MOVE_OPS, OP_VC2I, OP_VCMP, OP_VDOT, OP_VI2F, OP_VONE, OP_VZERO, PACK_OPS
from vfpu.table import OPS, find

SINGLES = {OPS["lv.s"]: False, OPS["sv.s"]: True}  # op: is a store
QUADS = {OPS["lv.q"]: False, OPS["sv.q"]: True}
S_VFPU = SEM["vfpu"]
PLAIN_OPS = {*LANE_OPS, *F2I_OPS, *MOVE_OPS, *PACK_OPS, OP_VCMP, OP_VDOT, OP_VI2F, OP_VC2I, OP_VZERO, OP_VONE}


def called(call: str) -> str:
    """The interpreter's `cop2.execute(word, pc, ...)` line with its word and pc as plain
    int64 values: as bare numbers each word compiled execute_called once more."""
    return re.sub(r"cop2\.execute\((\d+), (\d+),",
                  lambda m: f"cop2.execute({value(m.group(1))}, {value(m.group(2))},", call)


# What a VFPU word does to the prefix registers (vfpu.exec.execute_rest): these may set
# them (vpfx*, and mtvc/vmtvc writing the prefix control registers), these leave them
# alone (loads, stores, moves); every other word is an operation, which consumes them
# (leaves them as consume_prefixes does) or raises an event, and an event leaves the region.
PREFIX_SETTERS = {OPS[m] for m in ("vpfxs", "vpfxt", "vpfxd", "mtvc", "vmtvc")}
PREFIX_KEEPERS = {OPS[m] for m in ("lv.s", "sv.s", "lv.q", "sv.q", "lvl.q", "lvr.q", "svl.q", "svr.q",
                                   "mfv", "mtv", "mfvc", "vmfvc")}


def consumed_after(instructions, consumed: bool) -> bool:
    """Whether the prefix registers are surely as consume_prefixes leaves them after
    `instructions` run in order, when they were (`consumed`) before."""
    for ins in instructions:
        if ins.sem != S_VFPU:
            continue
        row = find(ins.word)
        if row is None or row.op in PREFIX_SETTERS:
            consumed = False
        elif row.op not in PREFIX_KEEPERS:
            consumed = True
    return consumed


def _leaves_consumed(block, consumed: bool) -> bool:
    """consumed_after for the whole block on every way out of it (a likely branch's
    annulled delay slot does not run)."""
    after = consumed_after(block.instructions, consumed)
    if block.ends_in_transfer and TABLE[block.instructions[-2].op].flags & LIKELY:
        return after and consumed_after(block.instructions[:-1], consumed)
    return after


def consumed_at_heads(region) -> dict:
    """head -> whether the prefix registers are surely consumed when its block starts,
    given that they are when the region is entered (the greatest fixed point over the
    region's control flow; a jump through a register may reach any block)."""
    heads = {b.head for b in region.blocks}
    preds = {h: [] for h in heads}
    for b in region.blocks:
        for s in (heads if b.dynamic else set(b.successors) & heads):
            preds[s].append(b)
    state = dict.fromkeys(heads, True)
    changed = True
    while changed:
        changed = False
        for b in region.blocks:
            new = all(_leaves_consumed(p, state[p.head]) for p in preds[b.head])
            if new != state[b.head]:
                state[b.head], changed = new, True
    return state


def runs_plain(region) -> bool:
    """Whether the region holds a word run as plain_op's piece (then it relies on the
    prefix registers being consumed when it is entered: consumed_at_heads)."""
    return any(ins.sem == S_VFPU and find(ins.word) is not None and find(ins.word).op in PLAIN_OPS
               for b in region.blocks for ins in b.instructions)


def plain_call(op: int, n: int, word: int) -> str:
    """The statement plain_op runs for `op` (its piece in vfpu.plain, inlined)."""
    if op == OP_VDOT:
        return f"vfpu_plain_dot({n}, {value(word)}, vpr_bits)"
    if op == OP_VI2F:
        return f"vfpu_plain_i2f({n}, {value(word)}, vpr, vpr_bits, vterms)"
    if op in F2I_OPS:
        return f"vfpu_plain_f2i({n}, {value(word)}, vpr, vpr_bits, vterms)"
    if op == OP_VC2I:
        return f"vfpu_plain_c2i({value(word)}, vpr_bits)"
    if op == OP_VZERO or op == OP_VONE:
        return f"vfpu_plain_fill({op}, {n}, {value(word)}, vpr_bits)"
    if op == OP_VCMP:
        return f"vfpu_plain_cmp({n}, {value(word)}, vpr, vctrl)"
    if op in PACK_OPS:
        return f"vfpu_plain_pack({op}, {n}, {value(word)}, vpr_bits, vterms)"
    if op in MOVE_OPS:
        return f"vfpu_plain_mov({op}, {n}, {value(word)}, vpr_bits, vterms)"
    return f"vfpu_plain_arith({op}, {n}, {value(word)}, vpr, vpr_bits)"


# What the statements for a VFPU word may raise (direct_source): nothing (the caller leaves
# out the event check); only a fault, before the word retires (a load or store: the check
# leaves at once, so none is left to check after its timing); any event (execute_called's,
# which the word may also retire with: checked again after its timing).
RAISES_NOTHING, RAISES_FAULT, RAISES_ANY = 0, 1, 2


def direct_source(word: int, call: str, earlier=(), consumed_at_head=False) -> tuple[list[str], int]:
    """(statements, what they may raise: RAISES_*): statements setting `status` for `word`
    (`call`: the interpreter's `status = cop2.execute(...)` line, kept as the fallback
    for words this module does not run directly; `earlier`: the instructions before it
    in its block; consumed_at_head: the prefixes are consumed when its block starts,
    consumed_at_heads), or, when they cannot raise, statements that only run the word
    (its status is EV_NONE)."""
    call = called(call.strip())
    row = find(word)
    if row is None:
        return [call], RAISES_ANY
    if row.op in SINGLES or row.op in QUADS:
        # load_store's steps with the word's fields known: the address's offset, the cells
        offset = int(mem_address.py_func(word, np.zeros(32, np.uint32)))
        addr = f"(np.int64(regs[{(word >> 21) & 0x1F}]) + {offset}) & 0xFFFFFFFF"
        if row.op in SINGLES:
            return [f"status = vfpu_load_store_single({SINGLES[row.op]}, {addr}, {value(single_cell.py_func(word))}, "
                    "vpr_bits, mem32, ram_size, mapping, event)"], RAISES_FAULT
        return [f"status = vfpu_load_store_quad({QUADS[row.op]}, {addr}, {value(mem_quad_reg.py_func(word))}, "
                "vpr_bits, mem32, ram_size, mapping, event)"], RAISES_FAULT
    if row.op in PLAIN_OPS:
        plain = plain_call(row.op, row.size, word)
        if consumed_after(earlier, consumed_at_head):
            return [plain], RAISES_NOTHING
        return ["if vfpu_identity_prefixes(vctrl):", "    " + plain, "    status = EV_NONE",
                "    vfpu_consume_prefixes(vctrl)", "else:", "    " + call], RAISES_ANY
    return [call], RAISES_ANY
