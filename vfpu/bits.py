"""float32 values as their bits inside numba code: a register move, where a store and a
load through a uint32 view of an array would otherwise carry them; and, for the
intrinsics that work on a VFPU vector at once, scalars as the lanes of one host vector
and a vector's four cells of the register file loaded and stored as one."""

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


I64 = ir.IntType(64)
WORDS = ir.VectorType(ir.IntType(32), 4)


def _adjacent(builder, cells):
    """i1: the four int64 cell indexes are c, c+1, c+2, c+3 (a column)."""
    b = builder
    together = ir.Constant(ir.IntType(1), 1)
    for k in range(1, 4):
        together = b.and_(together, b.icmp_signed("==", cells[k], b.add(cells[0], ir.Constant(I64, k))))
    return together


def _cell_pointer(context, builder, array_type, array, cell):
    return builder.gep(context.make_array(array_type)(context, builder, value=array).data, [cell])


def load_cells(context, builder, array_type, array, cells, n=None):
    """The uint32 words at `cells` (int64 indexes) of a 1-d array as one <4 x i32>, lanes
    from n on (an int64; None: 4) zero. Adjacent cells are one 16-byte load: loaded one
    by one, LLVM kept them apart even where a region's word made the cells constants (the
    test then folds)."""
    b = builder
    adjacent = _adjacent(b, cells)
    if n is not None:
        adjacent = b.and_(adjacent, b.icmp_signed("==", n, ir.Constant(I64, 4)))
    with b.if_else(adjacent, likely=True) as (column, other):
        with column:
            where = b.bitcast(_cell_pointer(context, b, array_type, array, cells[0]), WORDS.as_pointer())
            together = b.load(where, align=4)
            column_block = b.block
        with other:
            apart = lanes(b, [b.load(_cell_pointer(context, b, array_type, array, c)) for c in cells])
            if n is not None:
                present = b.icmp_signed("<", ir.Constant(ir.VectorType(I64, 4), list(range(4))), lanes(b, [n] * 4))
                apart = b.select(present, apart, ir.Constant(WORDS, [0] * 4))
            other_block = b.block
    v = b.phi(WORDS)
    v.add_incoming(together, column_block)
    v.add_incoming(apart, other_block)
    return v


def store_cells(context, builder, array_type, array, cells, words):
    """Store the <4 x i32> `words` to `cells` of a uint32 array: adjacent cells as one
    16-byte store (load_cells)."""
    b = builder
    with b.if_else(_adjacent(b, cells), likely=True) as (column, other):
        with column:
            where = b.bitcast(_cell_pointer(context, b, array_type, array, cells[0]), WORDS.as_pointer())
            b.store(words, where, align=4)
        with other:
            for k, c in enumerate(cells):
                b.store(b.extract_element(words, ir.Constant(ir.IntType(32), k)),
                        _cell_pointer(context, b, array_type, array, c))
