"""vadd.q, vsub.q, vmul.q, vscl.q, vi2f.q and vc2i as one host vector operation on the four lanes.

The lanes follow vfpu.ops.lane_value and vfpu.plain's flushing bit for bit: each source
lane with a denormal read as signed zero, a NaN first operand giving itself quieted
(s + s), the result flushed the same way, and an adder's NaN (vadd, vsub) without its
sign. Written out lane by lane, LLVM kept each lane scalar: ~20 host instructions a lane
and a branch for the adder's NaN (sim_speed's VFPU loop runs three vadd.q a pass).
vi2f.q is the host's int32-to-float32 conversion of the four lanes and a multiply by
its scale 2^-k (exact: the result is at least 2^-31, never denormal), as one rounding of
the scaled integer, as the lane-by-lane path's double arithmetic rounds it.
vc2i's four bytes are one shift and mask of the source word in each lane. Written as one
16-byte store, its result is read back as one 16-byte load by the vi2f.q that usually
follows: four small stores cannot forward to it, and the host waited for them to retire.
tests/vfpu/test_plain.py holds these to the lane-by-lane path on random bit patterns.
"""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from vfpu.bits import lanes, load_cells, store_cells
from vfpu.table import OPS

OP_VADD, OP_VSUB, OP_VMUL = OPS["vadd"], OPS["vsub"], OPS["vmul"]
I32 = ir.IntType(32)
BITS = ir.VectorType(I32, 4)
FLOATS = ir.VectorType(ir.FloatType(), 4)


def _splat(c):
    return ir.Constant(BITS, [c] * 4)


def _flushed(b, bits):
    """Lanes (float32 bits) with a denormal as the zero of its sign."""
    small = b.icmp_unsigned("<", b.and_(bits, _splat(0x7FFFFFFF)), _splat(0x00800000))
    return b.select(small, b.and_(bits, _splat(0x80000000)), bits)


@intrinsic
def arith4_bits(typingctx, op, s0, s1, s2, s3, t0, t1, t2, t3):
    """The four result lanes' bits (int64s) of `op` (OP_VADD, OP_VSUB, or OP_VMUL and
    OP_VSCL: a multiply) on source lanes s and t (float32 bits as int64s, unflushed)."""
    def codegen(context, builder, signature, args):
        b = builder
        s, t = (lanes(b, [b.trunc(x, I32) for x in xs]) for xs in (args[1:5], args[5:9]))
        sf, tf = (b.bitcast(_flushed(b, v), FLOATS) for v in (s, t))
        code = args[0]
        is_add, is_sub = (b.icmp_signed("==", code, ir.Constant(code.type, k)) for k in (OP_VADD, OP_VSUB))
        r = b.select(is_add, b.fadd(sf, tf), b.select(is_sub, b.fsub(sf, tf), b.fmul(sf, tf)))
        r = b.select(b.fcmp_unordered("uno", sf, sf), b.fadd(sf, sf), r)  # a NaN s: itself, quieted
        bits = _flushed(b, b.bitcast(r, BITS))
        no_lane = ir.Constant(ir.VectorType(ir.IntType(1), 4), [0] * 4)
        unsigned_nan = b.select(b.or_(is_add, is_sub), b.fcmp_unordered("uno", r, r), no_lane)
        bits = b.select(unsigned_nan, b.and_(bits, _splat(0x7FFFFFFF)), bits)
        results = [b.zext(b.extract_element(bits, ir.Constant(I32, i)), ir.IntType(64)) for i in range(4)]
        return context.make_tuple(b, signature.return_type, results)
    return types.UniTuple(types.int64, 4)(op, *[types.int64] * 8), codegen


@intrinsic
def i2f4_cells(typingctx, bits, s0, s1, s2, s3, d0, d1, d2, d3, scale):
    """vi2f.q: the int32 words at cells s of `bits` (a uint32 array), each converted to
    float32 and multiplied by `scale` (a float32 power of two), stored as bits at cells d
    (all four read before any is written)."""
    def codegen(context, builder, signature, args):
        b = builder
        array_type = signature.args[0]
        words = load_cells(context, b, array_type, args[0], args[1:5])
        scaled = b.fmul(b.sitofp(words, FLOATS), lanes(b, [args[9]] * 4))
        store_cells(context, b, array_type, args[0], args[5:9], b.bitcast(scaled, BITS))
        return context.get_dummy_value()
    return types.none(bits, *[types.int64] * 8, types.float32), codegen


@intrinsic
def c2i4_cells(typingctx, bits, s, d0, d1, d2, d3):
    """vc2i: byte i of the word at cell s of `bits` (a uint32 array) as the top byte of
    the word at cell d_i, the rest zero."""
    def codegen(context, builder, signature, args):
        b = builder
        word = b.load(b.gep(context.make_array(signature.args[0])(context, b, value=args[0]).data, [args[1]]))
        spread = b.shl(lanes(b, [word] * 4), ir.Constant(BITS, [24, 16, 8, 0]))
        store_cells(context, b, signature.args[0], args[0], args[2:6], b.and_(spread, _splat(0xFF000000)))
        return context.get_dummy_value()
    return types.none(bits, *[types.int64] * 5), codegen
