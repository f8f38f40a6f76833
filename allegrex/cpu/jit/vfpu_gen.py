"""VFPU words a compiled region runs without calling vfpu.exec.execute_called.

A region knows each VFPU word when it is generated, so the words the run loop's short
path covers (vfpu.exec.execute_with) need neither decoding nor the call passing a dozen
arrays: lv.s/sv.s/lv.q/sv.q run load_store's own steps (load_store_single/_quad, inlined)
with the address offset and cells known, and the prefix-free vadd/vsub/vmul/vscl/vdot/
vi2f/vc2i run plain_op's piece for their operation (vfpu.plain, inlined), guarded by
the identity-prefix check (a pending vpfx* makes the word call execute_called as
before) unless an earlier word of its block leaves the prefixes known to be the identity. Other words call
execute_called with the word as a plain value (one compiled version for all words).
"""

import re

import numpy as np

from allegrex.cpu.decode import SEM
from allegrex.cpu.jit.timing_gen import value
from vfpu.exec import mem_address, mem_quad_reg, single_cell
from vfpu.plain import OP_VADD, OP_VC2I, OP_VDOT, OP_VI2F, OP_VMUL, OP_VSCL, OP_VSUB
from vfpu.table import OPS, find

SINGLES = {OPS["lv.s"]: False, OPS["sv.s"]: True}  # op: is a store
QUADS = {OPS["lv.q"]: False, OPS["sv.q"]: True}
S_VFPU = SEM["vfpu"]
PLAIN_OPS = {OP_VADD, OP_VSUB, OP_VMUL, OP_VSCL, OP_VDOT, OP_VI2F, OP_VC2I}


def called(call: str) -> str:
    """The interpreter's `cop2.execute(word, pc, ...)` line with its word and pc as plain
    int64 values: as bare numbers each word compiled execute_called once more."""
    return re.sub(r"cop2\.execute\((\d+), (\d+),",
                  lambda m: f"cop2.execute({value(m.group(1))}, {value(m.group(2))},", call)


def prefixes_are_identity(earlier) -> bool:
    """Whether the prefix registers surely hold the identity after the instructions
    `earlier` (those before a word in its block, in order): an operation of PLAIN_OPS
    ran, which consumes them, and after it only words that leave them alone (integer
    words, lv/sv.s/.q). A block is only entered at its head, and any event leaves it."""
    for ins in reversed(earlier):
        if ins.sem != S_VFPU:
            continue
        row = find(ins.word)
        if row is None:
            return False
        if row.op in PLAIN_OPS:
            return True
        if row.op not in SINGLES and row.op not in QUADS:
            return False
    return False


def plain_call(op: int, n: int, word: int) -> str:
    """The statement plain_op runs for `op` (its piece in vfpu.plain, inlined)."""
    if op == OP_VDOT:
        return f"vfpu_plain_dot({n}, {value(word)}, vpr_bits, vterms)"
    if op == OP_VI2F:
        return f"vfpu_plain_i2f({n}, {value(word)}, vpr, vpr_bits, vterms)"
    if op == OP_VC2I:
        return f"vfpu_plain_c2i({value(word)}, vpr_bits)"
    return f"vfpu_plain_arith({op}, {n}, {value(word)}, vpr, vpr_bits, vscratch)"


def direct_source(word: int, call: str, earlier=()) -> list[str]:
    """Statements setting `status` for `word` (`call`: the interpreter's `status =
    cop2.execute(...)` line, kept as the fallback for words this module does not run
    directly; `earlier`: the instructions before it in its block)."""
    call = called(call.strip())
    row = find(word)
    if row is None:
        return [call]
    if row.op in SINGLES or row.op in QUADS:
        # load_store's steps with the word's fields known: the address's offset, the cells
        offset = int(mem_address.py_func(word, np.zeros(32, np.uint32)))
        addr = f"(np.int64(regs[{(word >> 21) & 0x1F}]) + {offset}) & 0xFFFFFFFF"
        if row.op in SINGLES:
            return [f"status = vfpu_load_store_single({SINGLES[row.op]}, {addr}, {value(single_cell.py_func(word))}, "
                    "vpr_bits, mem32, ram_size, mapping, event)"]
        return [f"status = vfpu_load_store_quad({QUADS[row.op]}, {addr}, {value(mem_quad_reg.py_func(word))}, "
                "vpr_bits, mem32, ram_size, mapping, event)"]
    if row.op in PLAIN_OPS:
        plain = [plain_call(row.op, row.size, word),
                 "vfpu_consume_prefixes(vctrl)", "status = EV_NONE"]
        if prefixes_are_identity(earlier):
            return plain
        return ["if vfpu_identity_prefixes(vctrl):"] + ["    " + line for line in plain] + ["else:", "    " + call]
    return [call]
