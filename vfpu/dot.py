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
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from vfpu.bits import float32_bits

NAN_BITS = 0x7F800001  # the VFPU's NaN
ONE_BITS = 0x3F800000
# vavg.n: the dot product with the float32 constant 1/n (the prefix unit's constants 1/2,
# 1/3, 1/4; PPSSPP's reading of the hardware). For n = 2, 4 this equals the sum / n
# exactly; for n = 3 the two readings can differ in the last bit, and the recorded
# real-PSP outputs (printed to 6 decimals) agree with both.
AVG_WEIGHT_BITS = np.array([0, ONE_BITS, 0x3F000000, 0x3EAAAAAB, 0x3E800000], dtype=np.uint32)
GUARD = 2  # bits the dot-product unit keeps below a float32 mantissa


@njit(cache=True, inline="always", error_model="numpy")
def bit_length(m):
    """Number of significant bits of m (0 < m < 2**63): one count-leading-zeros
    instruction (a loop here, data-dependent, was ~15% of a vdot-heavy compiled loop)."""
    return 64 - leading_zeros(np.uint64(m))


@njit(cache=True, error_model="numpy")
def special_dot_bits(xs, ys):
    """dot4_bits when some operand is an infinity or a NaN (lanes xs, ys: four words each):
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


@njit(cache=True, inline="always", error_model="numpy")
def special(x, y):
    """1 when x or y is an infinity or a NaN."""
    return np.int64(((x >> 23) & 0xFF) == 255) | np.int64(((y >> 23) & 0xFF) == 255)


@njit(cache=True, inline="always", error_model="numpy")
def term_exponent(x, y):
    """ex + ey of the term x * y, 0 when an operand is zero or denormal (no term)."""
    ex, ey = (x >> 23) & 0xFF, (y >> 23) & 0xFF
    return (ex + ey) * (np.int64(ex != 0) & np.int64(ey != 0))


@njit(cache=True, inline="always", error_model="numpy")
def aligned_term(x, y, top):
    """The term x * y as the unit adds it: the exact product of the mantissas rounded to
    odd at 23 + GUARD fraction bits, shifted to exponent `top` truncating, signed."""
    ex, ey = (x >> 23) & 0xFF, (y >> 23) & 0xFF
    live = np.int64(ex != 0) & np.int64(ey != 0)  # a zero (or denormal) operand: no term
    v = ((x & 0x7FFFFF) | 0x800000) * ((y & 0x7FFFFF) | 0x800000)
    p = (v >> (23 - GUARD)) | np.int64((v & ((np.int64(1) << (23 - GUARD)) - 1)) != 0)  # round to odd
    p = (p >> min(top - (ex + ey) * live, np.int64(63))) & -live  # (p < 2**27: past 40 leaves 0 too)
    negative = -((x ^ y) >> 31)  # 0 or -1
    return (p ^ negative) - negative


@njit(cache=True, inline="always", error_model="numpy")
def dot4_bits(x0, x1, x2, x3, y0, y1, y2, y3):
    """float32 bits of x0*y0 + ... + x3*y3 (float32 bits as int64; a lane of zeros is no
    term, so a shorter dot is this with its lanes padded), as the VFPU computes it (module
    docstring): the largest exponent, the aligned integer sum, and the final rounding to
    24 bits, which is the host's int-to-float32 conversion (nearest, ties to even). The
    lanes are arguments, not an array: a compiled vdot reads them straight from the
    registers (a loop of four vdot.q a pass ran ~10% faster so than staged through an
    array, MEASURED 2026-12-06). Without data-dependent branches on the common path: a
    sum's sign, size and rounding are random in real data, and mispredicted branches were
    most of its cost."""
    if special(x0, y0) | special(x1, y1) | special(x2, y2) | special(x3, y3):
        return special_dot_bits((x0, x1, x2, x3), (y0, y1, y2, y3))
    top = max(max(term_exponent(x0, y0), term_exponent(x1, y1)), max(term_exponent(x2, y2), term_exponent(x3, y3)))
    val = aligned_term(x0, y0, top) + aligned_term(x1, y1, top) + aligned_term(x2, y2, top) + aligned_term(x3, y3, top)
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
    n <= 4), as the VFPU computes it (dot4_bits)."""
    zero = np.int64(0)
    return dot4_bits(np.int64(b[x0]), np.int64(b[x0 + 1]) if n > 1 else zero,
                     np.int64(b[x0 + 2]) if n > 2 else zero, np.int64(b[x0 + 3]) if n > 3 else zero,
                     np.int64(b[y0]), np.int64(b[y0 + 1]) if n > 1 else zero,
                     np.int64(b[y0 + 2]) if n > 2 else zero, np.int64(b[y0 + 3]) if n > 3 else zero)
