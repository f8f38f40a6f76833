"""Branch hints for LLVM inside numba code.

A compiled region inlines each instruction's rare paths (the OS tick, a fault, a D-cache
miss, a NaN in a dot product) next to its common one. Told which way such a test usually
goes, LLVM lays the rare blocks out of the common path, so the code a loop runs stays
dense in the host's instruction cache: a VFPU word is ~50-200 host instructions, and a
loop of a few hundred words outgrows that cache (the llama2 VFPU matmul region ran 1.23x
as fast with the hints, MEASURED 2026-12-07; docs/architecture.md, compiled regions).
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

BIT = ir.IntType(1)


def _expect(builder, cond, value: int):
    expect = cgutils.get_or_insert_function(builder.module, ir.FunctionType(BIT, [BIT, BIT]), "llvm.expect.i1")
    return builder.call(expect, [cond, ir.Constant(BIT, value)])


@intrinsic
def likely(typingctx, cond):
    """`cond` (a bool), which LLVM is told is usually True (llvm.expect)."""
    return types.boolean(types.boolean), lambda context, builder, signature, args: _expect(builder, args[0], 1)


@intrinsic
def unlikely(typingctx, cond):
    """`cond` (a bool), which LLVM is told is usually False (llvm.expect)."""
    return types.boolean(types.boolean), lambda context, builder, signature, args: _expect(builder, args[0], 0)
