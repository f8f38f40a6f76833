"""VFPU words a compiled region runs without calling vfpu.exec.execute_called.

A region knows each VFPU word when it is generated, so the words the run loop's short
path covers (vfpu.exec.execute_with) need neither decoding nor the call passing a dozen
arrays: lv.s/sv.s/lv.q/sv.q run load_store's own steps (load_store_single/_quad, inlined)
with the address offset and cells known, and the prefix-free vadd/vsub/vmul/vscl/vdot/
vi2f/vc2i call vfpu.plain's plain_op (cached on disk, vfpu.plain.plain_op_called; one
compiled version per operation and size), guarded by the identity-prefix check (a
pending vpfx* makes the word call execute_called as before). Other words call
execute_called with the word as a plain value (one compiled version for all words).
"""

import re

import numpy as np

from allegrex.cpu.jit.timing_gen import value
from vfpu.exec import mem_address, mem_quad_reg, single_cell
from vfpu.plain import OP_VADD, OP_VC2I, OP_VDOT, OP_VI2F, OP_VMUL, OP_VSCL, OP_VSUB
from vfpu.table import OPS, find

SINGLES = {OPS["lv.s"]: False, OPS["sv.s"]: True}  # op: is a store
QUADS = {OPS["lv.q"]: False, OPS["sv.q"]: True}
PLAIN_OPS = {OP_VADD, OP_VSUB, OP_VMUL, OP_VSCL, OP_VDOT, OP_VI2F, OP_VC2I}


def called(call: str) -> str:
    """The interpreter's `cop2.execute(word, pc, ...)` line with its word and pc as plain
    int64 values: as bare numbers each word compiled execute_called once more."""
    return re.sub(r"cop2\.execute\((\d+), (\d+),",
                  lambda m: f"cop2.execute({value(m.group(1))}, {value(m.group(2))},", call)


def direct_source(word: int, call: str) -> list[str]:
    """Statements setting `status` for `word` (`call`: the interpreter's `status =
    cop2.execute(...)` line, kept as the fallback for words this module does not run
    directly)."""
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
        return ["if vfpu_identity_prefixes(vctrl):",
                f"    vfpu_plain_op({row.op}, {row.size}, {value(word)}, vpr, vpr_bits, vscratch, vterms)",
                "    vfpu_consume_prefixes(vctrl)",
                "    status = EV_NONE",
                "else:",
                "    " + call]
    return [call]
