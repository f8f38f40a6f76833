"""float32 values as their bits inside numba code: a register move, where a store and a
load through a uint32 view of an array would otherwise carry them; and scalars as the
lanes of one host vector, for the intrinsics that work on a VFPU vector at once."""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def float32_bits(typingctx, x):
    """The bits of float32 `x`, as an int64 (0 <= result < 2**32)."""
    def codegen(context, builder, signature, args):
        return builder.zext(builder.bitcast(args[0], ir.IntType(32)), ir.IntType(64))
    return types.int64(types.float32), codegen


def lanes(builder, values):
    """The LLVM values (all of one type) as the lanes of one vector, in order."""
    v = ir.Constant(ir.VectorType(values[0].type, len(values)), ir.Undefined)
    for i, x in enumerate(values):
        v = builder.insert_element(v, x, ir.Constant(ir.IntType(32), i))
    return v
