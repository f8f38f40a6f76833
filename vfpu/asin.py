"""vasin as the VFPU computes it: a table of 128 quadratic pieces, evaluated in fixed point.

Facts, read off the real PSP's outputs for every input (as recorded in PPSSPP's
hardware-derived vasin tables, hrydgard/ppsspp issue 16946; no table is taken from there):
- the input |x| is truncated to 9.23 fixed point; the result is 2.30 fixed point truncated
  to 23 significant bits, with the input's sign; |x| > 1 (and NaN, inf) gives NaN;
- [0, 1] is cut into 128 pieces of 2^-7. On each piece the result is the chord between
  asin's values at the ends (floored to 2.30) plus a curvature term A * t * (1 - t)
  (t: position in the piece); A matches the quadratic through the piece's midpoint, but
  it is held in a signed 19-bit field (units 2^-30), so from x = 116/128 on, where asin
  bends harder, it wraps around. That wrap is the hardware's large error near 1 (up to
  0.0199 at x = 0.998; vfpu-docs documents an absolute accuracy of 2e-2). The first
  piece is the plain chord (A = 0), which gives all its 65536 results bit for bit.
We compute the knots and A from math.asin. On the other pieces the hardware's results
scatter +-1-4 units of the last place around such a quadratic (its internal rounding is
unknown), so we are not bit-exact there: over all 2^23 inputs ours is identical for 47%
and otherwise within 4 units of the last place, 4.8e-7 absolute (docs/vfpu.md).
"""

import math

import numpy as np
from numba import njit

from vfpu.dot import NAN_BITS, ONE_BITS, bit_length

PIECES = 128
PIECE_BITS = 16  # 9.23 inputs per piece: 2^23 / 128
CURVE_BITS = 19  # width of the signed curvature field


def quarter_turns(x: float) -> float:
    """asin(x) in units of pi/2, in 2.30 fixed point (float)."""
    return math.asin(x) / (math.pi / 2) * 2.0 ** 30


def wrap_signed(value: int, bits: int) -> int:
    half = 1 << (bits - 1)
    return ((value + half) & ((1 << bits) - 1)) - half


KNOTS = np.array([math.floor(quarter_turns(k / PIECES)) for k in range(PIECES + 1)], dtype=np.int64)
CURVES = np.array([wrap_signed(round(4 * (quarter_turns((k + 0.5) / PIECES) - (KNOTS[k] + KNOTS[k + 1]) / 2)),
                               CURVE_BITS) for k in range(PIECES)], dtype=np.int64)
CURVES[0] = 0  # the first piece is the plain chord: then all its 65536 results are the PSP's


@njit(cache=True, error_model="numpy")
def asin_fixed(x):
    """asin(x / 2^23) / (pi/2) in 2.30 fixed point, 0 < x < 2^23, as the hardware rounds it."""
    k = x >> PIECE_BITS
    u = x & ((1 << PIECE_BITS) - 1)
    left, right = KNOTS[k], KNOTS[k + 1]
    v = left + (((right - left) * u) >> PIECE_BITS) + ((CURVES[k] * (u * ((1 << PIECE_BITS) - u))) >> 32)
    if v >= (1 << 23):
        v &= -(np.int64(1) << (bit_length(v) - 23))  # keep 23 significant bits
    return v


@njit(cache=True, error_model="numpy")
def asin_bits(x):
    """float32 bits of vasin(x) for float32 bits x: asin(x) / (pi/2)."""
    x = np.int64(x)
    sign = x & 0x80000000
    mag = x & 0x7FFFFFFF
    if mag > ONE_BITS:
        return NAN_BITS ^ sign
    if mag == ONE_BITS:
        return ONE_BITS | sign
    e = mag >> 23
    if e < 104:  # below 2^-23 (and denormals): 0 in 9.23
        return sign
    fixed = ((mag & 0x7FFFFF) | 0x800000) >> (127 - e)
    v = asin_fixed(fixed)
    n = bit_length(v)
    mant = v << (24 - n) if n <= 24 else v >> (n - 24)
    return sign | ((n - 1 - 30 + 127) << 23) | (mant & 0x7FFFFF)
