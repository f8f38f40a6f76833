"""VFPU words a compiled region runs without calling vfpu.exec.execute_called.

A region knows each VFPU word when it is generated, so the words the run loop's short
path covers (vfpu.exec.execute_with) need neither decoding nor the call passing a dozen
arrays: quad and single loads/stores call load_store with the word's fields as
constants, and the prefix-free vadd/vsub/vmul/vscl/vdot/vi2f/vc2i call vfpu.plain's
plain_op the same way, guarded by the identity-prefix check (a pending vpfx* makes the
word call execute_called as before). Both are ordinary numba calls with constant
operands (jit.runtime; plain_op's is cached on disk, vfpu.plain.plain_op_called), which
LLVM may inline and fold (register cells, operation tests) when it links the region.
"""

from vfpu.plain import OP_VADD, OP_VC2I, OP_VDOT, OP_VI2F, OP_VMUL, OP_VSCL, OP_VSUB
from vfpu.table import OPS, find

LOADS_STORES = {OPS["lv.s"], OPS["sv.s"], OPS["lv.q"], OPS["sv.q"]}
PLAIN_OPS = {OP_VADD, OP_VSUB, OP_VMUL, OP_VSCL, OP_VDOT, OP_VI2F, OP_VC2I}


def direct_source(word: int, call: str) -> list[str] | None:
    """Statements setting `status` for `word` without execute_called (`call`: the
    interpreter's `status = cop2.execute(...)` line, kept as the fallback), or None when
    the word is not one this module runs directly."""
    row = find(word)
    if row is None:
        return None
    if row.op in LOADS_STORES:
        return [f"status = vfpu_load_store({row.op}, {word}, regs, vpr_bits, mem32, ram_size, mapping, event)"]
    if row.op in PLAIN_OPS:
        return ["if vfpu_identity_prefixes(vctrl):",
                f"    vfpu_plain_op({row.op}, {row.size}, {word}, vpr, vpr_bits, vscratch, vterms)",
                "    vfpu_consume_prefixes(vctrl)",
                "    status = EV_NONE",
                "else:",
                "    " + call.strip()]
    return None
