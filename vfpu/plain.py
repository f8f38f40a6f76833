"""The common vector operations without prefixes: a short path for the run loop.

When the prefix registers hold the identity (no vpfxs/vpfxt/vpfxd pending), a source lane
is the register's lane and every result lane is written as computed, so the lane-wise
float operations (vadd/vsub/vmul/vscl/vdiv/vmin/vmax/vsge/vslt/vscmp, vsgn/vocp/vsat0/
vsat1), vcmp, vdot, the conversions vi2f/vf2in/vf2iz/vf2iu/vf2id/vc2i, the packings vi2uc/
vi2c/vi2us/vi2s and the moves vzero/vone/vmov/vabs/vneg need none of vector_path's prefix
machinery, 48-lane scratch zeroing or uint32 views. `plain_op` computes them straight
from and into the registers with the same float32 arithmetic, denormal flushing and NaN
rules as vfpu/ops.py (so the results are the same bits); any other operation returns
False and takes the full path. Every operand is read before the first result is written
(overlapping registers see the old values, as in vector_path).
"""

import math

import numpy as np
from numba import njit

from allegrex.cpu.state import VFPU_CC
from vfpu.dot import dot_cells_bits
from vfpu.lanes4 import arith4_bits, c2i4_cells, i2f4_cells
from vfpu.ops import (LANE_OPS, PACK_OPS, UNARY_LANE_OPS, compare, compared_cc, f2i, lane_value, moved_bits,
                      pack_word, packed_lanes)
from vfpu.regs import VEC_CELLS
from vfpu.table import OPS

OP_VADD, OP_VSUB, OP_VMUL, OP_VSCL = OPS["vadd"], OPS["vsub"], OPS["vmul"], OPS["vscl"]
OP_VDOT, OP_VI2F, OP_VC2I, OP_VCMP = OPS["vdot"], OPS["vi2f"], OPS["vc2i"], OPS["vcmp"]
OP_VZERO, OP_VONE, OP_VMOV, OP_VABS, OP_VNEG = OPS["vzero"], OPS["vone"], OPS["vmov"], OPS["vabs"], OPS["vneg"]
F2I_OPS = (OPS["vf2in"], OPS["vf2iz"], OPS["vf2iu"], OPS["vf2id"])  # plain_f2i's
MOVE_OPS = (OP_VMOV, OP_VABS, OP_VNEG)  # plain_mov's
ONE_BITS = np.uint32(0x3F800000)
FLT_MIN = np.float32(1.17549435e-38)  # the least normal float32: below it the exponent bits are 0


@njit(cache=True, inline="always", error_model="numpy")
def identity_prefixes(vctrl):
    """True when vpfxs/vpfxt/vpfxd hold the identity (what consuming them leaves)."""
    return vctrl[0] == 0xE4 and vctrl[1] == 0xE4 and vctrl[2] == 0


@njit(cache=True, inline="always", error_model="numpy")
def flushed(x):
    """float32 x with a denormal read as signed zero (ops.flush). Its exponent bits are 0
    exactly when |x| < FLT_MIN (NaN compares false), so the float alone tells: no look at
    its bits. A select, not a branch: real data mixes both."""
    return np.float32(math.copysign(0.0, x)) if abs(x) < FLT_MIN else x


@njit(cache=True, inline="always", error_model="numpy")
def flushed_float(vpr, cell):
    """The lane's value with a denormal read as signed zero (flushed)."""
    return flushed(vpr[cell])


@njit(cache=True, inline="always", error_model="numpy")
def store_float(vpr, vpr_bits, cell, value, positive_nan):
    """Write a float result, flushing a denormal to signed zero; positive_nan: the adder's
    NaN has no sign (ops.vector_op's vadd/vsub). Tested on the value, not on the bits
    read back from the lane just written (flushed_float)."""
    vpr[cell] = flushed(value)
    if positive_nan and value != value:
        vpr_bits[cell] &= np.uint32(0x7FFFFFFF)


@njit(cache=True, inline="always", error_model="numpy")
def padded_cell(n, reg, i):
    """The cell of lane i of the size-n vector `reg`, its last lane's past n: a valid
    index for the four-lane paths, which read every lane (and ignore or repeat those)."""
    return VEC_CELLS[n, reg, min(i, n - 1)]


@njit(cache=True, inline="always", error_model="numpy")
def plain_op(op, n, word, vpr, vpr_bits, terms, vctrl):
    """Run `op` (size n) when it is one of this module's operations; False otherwise.
    terms: uint32[8] (the conversions', moves' and packings' staging), vctrl: the control
    registers (vcmp's CC)."""
    if op in LANE_OPS:
        plain_arith(op, n, word, vpr, vpr_bits)
    elif op == OP_VDOT:
        plain_dot(n, word, vpr_bits)
    elif op == OP_VI2F:
        plain_i2f(n, word, vpr, vpr_bits, terms)
    elif op in F2I_OPS:
        plain_f2i(n, word, vpr, vpr_bits, terms)
    elif op == OP_VC2I:
        plain_c2i(word, vpr_bits)
    elif op == OP_VZERO or op == OP_VONE:
        plain_fill(op, n, word, vpr_bits)
    elif op in MOVE_OPS:
        plain_mov(op, n, word, vpr_bits, terms)
    elif op in PACK_OPS:
        plain_pack(op, n, word, vpr_bits, terms)
    elif op == OP_VCMP:
        plain_cmp(n, word, vpr, vctrl)
    else:
        return False
    return True


@njit(cache=True, inline="always", error_model="numpy")
def second_operand(op, n, vpr, rt, i, s):
    """Lane i's second operand t of lane-wise `op` (s: its first): vscl's one scale, s
    itself for a one-operand operation, else the T register's lane."""
    if op == OP_VSCL:
        return flushed_float(vpr, VEC_CELLS[1, rt, 0])
    if op in UNARY_LANE_OPS:
        return s
    return flushed_float(vpr, VEC_CELLS[n, rt, i])


@njit(cache=True, inline="always", error_model="numpy")
def plain_arith(op, n, word, vpr, vpr_bits):
    """A lane-wise float operation of size n (vfpu.ops.LANE_OPS, its lanes computed by the
    full path's own lane_value): every operand read before the first result is written.
    The lanes are locals, not an array: stores to an array that may share memory with the
    registers kept LLVM from holding them in registers (sim_speed's VFPU loop, three vadd.q
    of its ten words, ran ~5% faster so as a compiled region, MEASURED 2026-12-06: 156-159
    against 149-151 MIPS in alternated runs; its vmath loop ran as fast as before)."""
    rd, rs, rt = word & 0x7F, (word >> 8) & 0x7F, (word >> 16) & 0x7F
    if n == 4 and (op == OP_VADD or op == OP_VSUB or op == OP_VMUL or op == OP_VSCL):
        t_size = 1 if op == OP_VSCL else 4  # vscl: one scale for every lane (a vmul by it)
        r = arith4_bits(op, np.int64(vpr_bits[VEC_CELLS[4, rs, 0]]), np.int64(vpr_bits[VEC_CELLS[4, rs, 1]]),
                        np.int64(vpr_bits[VEC_CELLS[4, rs, 2]]), np.int64(vpr_bits[VEC_CELLS[4, rs, 3]]),
                        np.int64(vpr_bits[padded_cell(t_size, rt, 0)]), np.int64(vpr_bits[padded_cell(t_size, rt, 1)]),
                        np.int64(vpr_bits[padded_cell(t_size, rt, 2)]), np.int64(vpr_bits[padded_cell(t_size, rt, 3)]))
        for i in range(4):
            vpr_bits[VEC_CELLS[4, rd, i]] = r[i]
        return
    zero = np.float32(0.0)
    s0 = flushed_float(vpr, VEC_CELLS[n, rs, 0])
    s1 = flushed_float(vpr, VEC_CELLS[n, rs, 1]) if n > 1 else zero
    s2 = flushed_float(vpr, VEC_CELLS[n, rs, 2]) if n > 2 else zero
    s3 = flushed_float(vpr, VEC_CELLS[n, rs, 3]) if n > 3 else zero
    r0 = lane_value(op, s0, second_operand(op, n, vpr, rt, 0, s0))
    r1 = lane_value(op, s1, second_operand(op, n, vpr, rt, 1, s1)) if n > 1 else zero
    r2 = lane_value(op, s2, second_operand(op, n, vpr, rt, 2, s2)) if n > 2 else zero
    r3 = lane_value(op, s3, second_operand(op, n, vpr, rt, 3, s3)) if n > 3 else zero
    adder = op == OP_VADD or op == OP_VSUB
    store_float(vpr, vpr_bits, VEC_CELLS[n, rd, 0], r0, adder)
    if n > 1:
        store_float(vpr, vpr_bits, VEC_CELLS[n, rd, 1], r1, adder)
    if n > 2:
        store_float(vpr, vpr_bits, VEC_CELLS[n, rd, 2], r2, adder)
    if n > 3:
        store_float(vpr, vpr_bits, VEC_CELLS[n, rd, 3], r3, adder)


@njit(cache=True, inline="always", error_model="numpy")
def plain_dot(n, word, vpr_bits):
    """vdot of size n through the dot unit's bit-exact sum (vfpu.dot), its lanes read
    straight from the registers. Nothing to flush: the unit counts a denormal operand as
    zero and gives no denormal."""
    rd, rs, rt = word & 0x7F, (word >> 8) & 0x7F, (word >> 16) & 0x7F
    vpr_bits[VEC_CELLS[1, rd, 0]] = dot_cells_bits(
        vpr_bits, n, padded_cell(n, rs, 0), padded_cell(n, rs, 1), padded_cell(n, rs, 2), padded_cell(n, rs, 3),
        padded_cell(n, rt, 0), padded_cell(n, rt, 1), padded_cell(n, rt, 2), padded_cell(n, rt, 3))


@njit(cache=True, inline="always", error_model="numpy")
def plain_i2f(n, word, vpr, vpr_bits, terms):
    """vi2f: not a float op: raw bits in, the converted value out unflushed (four lanes
    as one host vector operation, lanes4.i2f4_cells)."""
    rd, rs = word & 0x7F, (word >> 8) & 0x7F
    scale = 2.0 ** -float((word >> 16) & 0x1F)
    if n == 4:
        i2f4_cells(vpr_bits, VEC_CELLS[4, rs, 0], VEC_CELLS[4, rs, 1], VEC_CELLS[4, rs, 2], VEC_CELLS[4, rs, 3],
                   VEC_CELLS[4, rd, 0], VEC_CELLS[4, rd, 1], VEC_CELLS[4, rd, 2], VEC_CELLS[4, rd, 3],
                   np.float32(scale))
        return
    for i in range(n):
        terms[i] = vpr_bits[VEC_CELLS[n, rs, i]]
    for i in range(n):
        vpr[VEC_CELLS[n, rd, i]] = np.float32(float(np.int32(terms[i])) * scale)


@njit(cache=True, inline="always", error_model="numpy")
def plain_f2i(n, word, vpr, vpr_bits, terms):
    """vf2in/vf2iz/vf2iu/vf2id: flushed floats in, scaled by 2^imm, rounded in the word's
    mode and saturated (vfpu.ops.f2i); the integers out unflushed."""
    rd, rs = word & 0x7F, (word >> 8) & 0x7F
    mode = (word >> 21) & 3
    scale = 2.0 ** float((word >> 16) & 0x1F)
    for i in range(n):
        terms[i] = f2i(float(flushed_float(vpr, VEC_CELLS[n, rs, i])) * scale, mode)
    for i in range(n):
        vpr_bits[VEC_CELLS[n, rd, i]] = terms[i]


@njit(cache=True, inline="always", error_model="numpy")
def plain_c2i(word, vpr_bits):
    """vc2i: one source word (S), four destination lanes (either size; lanes4.c2i4_cells)."""
    rd, rs = word & 0x7F, (word >> 8) & 0x7F
    c2i4_cells(vpr_bits, VEC_CELLS[1, rs, 0], VEC_CELLS[4, rd, 0], VEC_CELLS[4, rd, 1], VEC_CELLS[4, rd, 2],
               VEC_CELLS[4, rd, 3])


@njit(cache=True, inline="always", error_model="numpy")
def plain_fill(op, n, word, vpr_bits):
    """vzero/vone: every destination lane set to +0.0 or 1.0."""
    rd = word & 0x7F
    bits = ONE_BITS if op == OP_VONE else np.uint32(0)
    for i in range(n):
        vpr_bits[VEC_CELLS[n, rd, i]] = bits


@njit(cache=True, inline="always", error_model="numpy")
def plain_mov(op, n, word, vpr_bits, terms):
    """vmov/vabs/vneg of size n (vfpu.ops.moved_bits: nothing flushed)."""
    rd, rs = word & 0x7F, (word >> 8) & 0x7F
    for i in range(n):
        terms[i] = moved_bits(op, vpr_bits[VEC_CELLS[n, rs, i]])
    for i in range(n):
        vpr_bits[VEC_CELLS[n, rd, i]] = terms[i]


@njit(cache=True, inline="always", error_model="numpy")
def plain_pack(op, n, word, vpr_bits, terms):
    """vi2uc/vi2c/vi2us/vi2s of size n: the n source lanes' bits packed into n / 4 or n / 2
    destination words (vfpu.ops.pack_word), the sources read first."""
    rd, rs = word & 0x7F, (word >> 8) & 0x7F
    for i in range(n):
        terms[i] = vpr_bits[VEC_CELLS[n, rs, i]]
    words = n // packed_lanes(op)
    for j in range(words):
        vpr_bits[VEC_CELLS[words, rd, j]] = pack_word(op, terms, 0, j)


@njit(cache=True, inline="always", error_model="numpy")
def plain_cmp(n, word, vpr, vctrl):
    """vcmp of size n: the flushed lanes compared in the word's condition (vfpu.ops.compare),
    the CC register set from the lanes that held (vfpu.ops.compared_cc)."""
    rs, rt, cond = (word >> 8) & 0x7F, (word >> 16) & 0x7F, word & 0xF
    hits = np.int64(0)
    for i in range(n):
        if compare(cond, flushed_float(vpr, VEC_CELLS[n, rs, i]), flushed_float(vpr, VEC_CELLS[n, rt, i])):
            hits |= 1 << i
    vctrl[VFPU_CC] = compared_cc(vctrl[VFPU_CC], n, hits)
