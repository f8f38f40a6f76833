"""The VFPU's dot-product unit: one adder for every sum of products (vdot, vhdp, vdet,
vfad, vavg, vcrsp, vqmul, vtfm, vhtfm, vmmul), modelled bit for bit in integer arithmetic.

Facts (PPSSPP issue 21070, hrydgard/ppsspp; checked here against every dot-product result
in pspautotests' real-PSP outputs, tests/vfpu/test_dot.py):
- each product is the exact 48-bit product of the two 24-bit mantissas, kept with
  23 + GUARD fraction bits, the dropped bits ORed into the last one (round to odd); its
  exponent is ex + ey, so products of mantissas lie in [1, 4);
- every product is shifted to the largest exponent, truncating, and the signed sum is
  exact; the guard bits are then dropped, truncating the magnitude;
- the magnitude is normalised to 24 bits rounding to nearest even (only when the sum
  carried past 2.0); below the normal range the result is +-0, above it +-inf; 0 is +0;
- denormal operands count as zero; NaN, inf*0 and inf-inf give NaN (0x7F800001), other
  infinities the infinity of the product's sign.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.cpython.unsafe.numbers import leading_zeros
from numba.extending import intrinsic

from allegrex.cpu.hints import unlikely
from vfpu.bits import float32_bits, load_cells

NAN_BITS = 0x7F800001  # the VFPU's NaN
ONE_BITS = 0x3F800000
# vavg.n: the dot product with the float32 constant 1/n (the prefix unit's constants 1/2,
# 1/3, 1/4; PPSSPP's reading of the hardware). For n = 2, 4 this equals the sum / n
# exactly; for n = 3 the two readings can differ in the last bit, and the recorded
# real-PSP outputs (printed to 6 decimals) agree with both.
AVG_WEIGHT_BITS = np.array([0, ONE_BITS, 0x3F000000, 0x3EAAAAAB, 0x3E800000], dtype=np.uint32)
GUARD = 2  # bits the dot-product unit keeps below a float32 mantissa
I32 = ir.IntType(32)
V4 = ir.VectorType(ir.IntType(64), 4)


@njit(cache=True, inline="always", error_model="numpy")
def bit_length(m):
    """Number of significant bits of m (0 < m < 2**63): one count-leading-zeros
    instruction (a loop here, data-dependent, was ~15% of a vdot-heavy compiled loop)."""
    return 64 - leading_zeros(np.uint64(m))


@njit(cache=True, error_model="numpy")
def special_dot_bits(xs, ys):
    """dot_cells_bits when some operand is an infinity or a NaN (lanes xs, ys: four words each):
    the VFPU's NaN, or the infinity of the infinite products' sign (finite terms do not
    matter)."""
    inf_sign = 0
    for i in range(4):
        x, y = xs[i], ys[i]
        ex, ey = (x >> 23) & 0xFF, (y >> 23) & 0xFF
        if ex == 255 or ey == 255:
            if (ex == 255 and (x & 0x7FFFFF)) or (ey == 255 and (y & 0x7FFFFF)) or ex == 0 or ey == 0:
                return NAN_BITS
            sign = -1 if (x ^ y) & 0x80000000 else 1
            if inf_sign == -sign:
                return NAN_BITS
            inf_sign = sign
    return 0xFF800000 if inf_sign < 0 else 0x7F800000


def _splat(c):
    """The constant c in every lane."""
    return ir.Constant(V4, [c] * 4)


def _across(builder, v, combine):
    """v with every lane `combine` folded over all four of v's lanes (two swaps of lane
    pairs: an associative max or sum across the vector)."""
    for order in ((2, 3, 0, 1), (1, 0, 3, 2)):
        v = combine(v, builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(I32, 4), order)))
    return v


def _first(builder, v):
    """Lane 0 of v."""
    return builder.extract_element(v, ir.Constant(I32, 0))


@intrinsic
def aligned_sum(typingctx, bits, n, x0, x1, x2, x3, y0, y1, y2, y3):
    """(top, sum, special) of the terms bits[x0]*bits[y0] ... bits[x3]*bits[y3] (float32
    bits in a uint32 array; lanes from n on make no term): top, the largest term exponent
    ex + ey; sum, the signed sum of the terms as the unit adds them (each the exact product
    of the mantissas rounded to odd at 23 + GUARD fraction bits, shifted to exponent top
    truncating); special, 1 when an operand is an infinity or a NaN (then top and sum mean
    nothing). A zero or denormal operand makes no term. The four terms are one 4-lane
    vector (the host's SIMD unit): as four scalar terms, a compiled loop of 8 vdot.q a pass
    took ~20 ns a vdot with the cycle model instead of ~13 (MEASURED 2026-12-07)."""
    def codegen(context, builder, signature, args):
        b = builder
        x, y = (b.zext(load_cells(context, b, signature.args[0], args[0], cells, n=args[1]), V4)
                for cells in (args[2:6], args[6:]))
        zero = _splat(0)
        ex, ey = (b.and_(b.lshr(v, _splat(23)), _splat(0xFF)) for v in (x, y))
        lanes_special = b.or_(b.icmp_unsigned("==", ex, _splat(255)), b.icmp_unsigned("==", ey, _splat(255)))
        special = b.zext(b.icmp_unsigned("!=", b.bitcast(lanes_special, ir.IntType(4)), ir.Constant(ir.IntType(4), 0)),
                         ir.IntType(64))
        live = b.sext(b.and_(b.icmp_unsigned("!=", ex, zero), b.icmp_unsigned("!=", ey, zero)), V4)  # 0 or -1
        exponent = b.and_(b.add(ex, ey), live)
        mx, my = (b.or_(b.and_(v, _splat(0x7FFFFF)), _splat(0x800000)) for v in (x, y))
        product = b.mul(mx, my)  # < 2**48
        sticky = b.zext(b.icmp_unsigned("!=", b.and_(product, _splat((1 << (23 - GUARD)) - 1)), zero), V4)
        term = b.and_(b.or_(b.lshr(product, _splat(23 - GUARD)), sticky), live)  # rounded to odd, < 2**27
        top = _across(b, exponent, lambda v, w: b.select(b.icmp_signed(">", v, w), v, w))  # the largest
        shift = b.sub(top, exponent)
        shift = b.select(b.icmp_signed(">", shift, _splat(63)), _splat(63), shift)  # (63 leaves 0 too)
        negative = b.sub(zero, b.and_(b.lshr(b.xor(x, y), _splat(31)), _splat(1)))  # 0 or -1
        signed = b.sub(b.xor(b.lshr(term, shift), negative), negative)
        return context.make_tuple(b, signature.return_type, (_first(b, top), _first(b, _across(b, signed, b.add)),
                                                               special))
    return types.UniTuple(types.int64, 3)(bits, *[types.int64] * 9), codegen


@njit(cache=True, inline="always", error_model="numpy")
def lane(b, n, cell, i):
    """Word `cell` of b as an int64 when lane i is one of the first n, else 0."""
    return np.int64(b[cell]) if i < n else np.int64(0)


@njit(cache=True, inline="always", error_model="numpy")
def dot_cells_bits(b, n, x0, x1, x2, x3, y0, y1, y2, y3):
    """float32 bits of b[x0]*b[y0] + ... (the first n lanes; b a uint32 array, the x and y
    cell indexes valid even past n), as the VFPU computes it (module docstring): the
    largest exponent, the aligned integer sum, and the final rounding to 24 bits, which
    is the host's int-to-float32 conversion (nearest, ties to even). The cells are indexes,
    not values: a compiled vdot.q of two columns loads each as one 16-byte load. Without
    data-dependent branches on the common path: a sum's sign, size and rounding are random
    in real data, and mispredicted branches were most of its cost."""
    top, val, special = aligned_sum(b, n, x0, x1, x2, x3, y0, y1, y2, y3)
    if unlikely(special != 0):
        return special_dot_bits((lane(b, n, x0, 0), lane(b, n, x1, 1), lane(b, n, x2, 2), lane(b, n, x3, 3)),
                                (lane(b, n, y0, 0), lane(b, n, y1, 1), lane(b, n, y2, 2), lane(b, n, y3, 3)))
    negative = val < 0
    m = (-val if negative else val) >> GUARD  # < 2**27: exact as an int64, one rounding to float32
    if m == 0:
        return np.int64(0)
    f = float32_bits(np.float32(m))
    e = top - 254 + ((f >> 23) - 127) - 23  # m counts units of 2^(top - 254 - 23)
    sign = np.int64(0x80000000) if negative else np.int64(0)
    if e <= -127:
        return sign
    if e >= 128:
        return sign | 0x7F800000
    return sign | ((e + 127) << 23) | (f & 0x7FFFFF)


@njit(cache=True, error_model="numpy")
def dot_bits(b, x0, y0, n):
    """float32 bits of the dot product of lanes b[x0:x0+n] and b[y0:y0+n] (uint32 arrays,
    n <= 4), as the VFPU computes it (dot_cells_bits)."""
    return dot_cells_bits(b, n, x0, x0 + (1 if n > 1 else 0), x0 + (2 if n > 2 else 0), x0 + (3 if n > 3 else 0),
                          y0, y0 + (1 if n > 1 else 0), y0 + (2 if n > 2 else 0), y0 + (3 if n > 3 else 0))
