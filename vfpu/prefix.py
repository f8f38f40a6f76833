"""Operand prefixes: how vpfxs/vpfxt rewrite source lanes and vpfxd filters results.

Source prefix (20 bits; lane i of the operand):
  bits 2i..2i+1  swizzle: which element (x, y, z, w) the lane reads
  bit  8+i       abs: clear the sign (with the constant bit: selects constants 4-7)
  bit  12+i      constant: the lane is a constant chosen by (abs << 2 | swizzle)
  bit  16+i      negate: flip the sign (after abs, also of constants)
Destination prefix (12 bits):
  bits 2i..2i+1  saturation: 0 none, 1 clamp to [0, 1], 3 clamp to [-1, 1]
  bit  8+i       mask: the lane is not written
A swizzle past the operand's size reads on along its row or column (wrapping within
the 4 cells), which is what regs.VEC_CELLS lays out in lanes n..3.

The prefix registers are always applied (the identity values 0xE4 / 0 change nothing);
every VFPU operation consumes them, resetting them to the identity.
"""

import numpy as np
from numba import njit

from vfpu.regs import VEC_CELLS

IDENTITY_ST = 0x000000E4
IDENTITY_D = 0

# Constants by (abs << 2 | swizzle): 0, 1, 2, 1/2, 3, 1/3, 1/4, 1/6 as float32 bits.
CONST_VALUES = (0.0, 1.0, 2.0, 0.5, 3.0, 1.0 / 3.0, 0.25, 1.0 / 6.0)
CONST_BITS = np.array([np.float32(v).view(np.uint32) for v in CONST_VALUES], dtype=np.uint32)
CONST_TEXT = ("0", "1", "2", "1/2", "3", "1/3", "1/4", "1/6")


@njit(cache=True, inline="always", error_model="numpy")
def read_source(vpr_bits, field, n, pfx, mode, out_bits, base):
    """Read n lanes of register `field` into out_bits[base:base+n], applying prefix `pfx`
    with `mode` 0 (ignored), 1 (swizzle only) or 2 (full)."""
    for i in range(n):
        if mode == 0:
            out_bits[base + i] = vpr_bits[VEC_CELLS[n, field, i]]
            continue
        swz = (pfx >> (2 * i)) & 3
        if mode == 1:
            out_bits[base + i] = vpr_bits[VEC_CELLS[n, field, swz]]
            continue
        absb = (pfx >> (8 + i)) & 1
        if (pfx >> (12 + i)) & 1:
            bits = CONST_BITS[swz + 4 * absb]
        else:
            bits = vpr_bits[VEC_CELLS[n, field, swz]]
            if absb:
                bits &= np.uint32(0x7FFFFFFF)
        if (pfx >> (16 + i)) & 1:
            bits ^= np.uint32(0x80000000)
        out_bits[base + i] = bits


@njit(cache=True, inline="always", error_model="numpy")
def saturate(v, sat):
    """Destination saturation: 1 -> [0, 1] (-0 becomes +0), 3 -> [-1, 1]; NaN passes."""
    if sat == 1:
        if v <= 0.0:
            return np.float32(0.0)
        if v > 1.0:
            return np.float32(1.0)
    elif sat == 3:
        if v < -1.0:
            return np.float32(-1.0)
        if v > 1.0:
            return np.float32(1.0)
    return v


@njit(cache=True, inline="always", error_model="numpy")
def write_dest(vpr, vpr_bits, field, n, vals, vals_bits, base, pfx, mode, shift):
    """Write n lanes from vals[base:] to register `field` under the destination prefix
    (`mode` 0 ignored, 1 mask only, 2 full). `shift` rotates the written lanes along the
    row/column (the vhtfm2/3 erratum); 0 normally."""
    for i in range(n):
        if mode >= 1 and (pfx >> (8 + i)) & 1:
            continue
        cell = VEC_CELLS[n, field, (i + shift) & 3]
        sat = (pfx >> (2 * i)) & 3
        if mode == 2 and sat != 0:
            vpr[cell] = saturate(vals[base + i], sat)
        else:
            vpr_bits[cell] = vals_bits[base + i]
