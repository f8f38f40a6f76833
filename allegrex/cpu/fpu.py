"""Single-precision FPU arithmetic as the Allegrex does it (numba, called by the run loop).

- FCR31 bits 0-1 (RM) choose the rounding of add/sub/mul/div/sqrt and cvt (the PSP
  honours them: pspautotests fpu.expected "Rounding modes with multiply").
- FCR31 bit 24 (FS) flushes denormal results to zero (fpu.expected "Flush-to-zero").
- Each arithmetic op writes the cause bits (12-16) and ORs the sticky flags (2-6), as
  fcr.expected shows for sqrt(-1), 0/0, NaN*NaN, overflow, underflow and inexact.
  Any NaN operand raises invalid (V): fcr.expected shows V for NaN*NaN where the NaN is
  0x7FBFFFFF (gcc's NAN for MIPS, a quiet NaN in the legacy encoding), so the Allegrex
  does not spare quiet NaNs. (One data point; compares follow the same rule.)
  Exceptions are never taken (the enables only matter to a kernel handler we do not run).
"""

import numpy as np
from numba import njit

ROUND_NEAREST, ROUND_ZERO, ROUND_UP, ROUND_DOWN = 0, 1, 2, 3
OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQRT = 0, 1, 2, 3, 4

# Exception bits, in flag position (<< 2) and cause position (<< 12).
EXC_I, EXC_U, EXC_O, EXC_Z, EXC_V = 1, 2, 4, 8, 16
CAUSE_MASK = 0x1F << 12
FS_BIT = 1 << 24
FLT_MIN = 1.1754943508222875e-38  # smallest normal float32


@njit(cache=True)
def round_to_f32(d, err, mode):
    """The float32 nearest the exact value d + err in the direction of FCR31's rounding
    mode. d is a float64 result, err its rounding error (from TwoSum for add/sub; 0 for
    mul, which is exact in float64, and for div/sqrt, whose float64 result cannot sit on
    a float32 value unless exact, so comparing against d decides the direction)."""
    f = np.float32(d)
    fd = np.float64(f)
    if d != d or mode == ROUND_NEAREST:
        return f
    if fd == d:
        if err == 0.0:
            return f
        above = err < 0.0  # f lies above the exact value
    else:
        above = fd > d
    if mode == ROUND_ZERO:
        if (above and fd > 0.0) or (not above and fd < 0.0):
            f = np.nextafter(f, np.float32(0.0))
    elif mode == ROUND_UP:
        if not above:
            f = np.nextafter(f, np.float32(np.inf))
    elif above:  # ROUND_DOWN
        f = np.nextafter(f, np.float32(-np.inf))
    return f


@njit(cache=True, inline="always")
def with_exceptions(fcr31, exc):
    """FCR31 after an arithmetic op raising `exc`: cause replaced, flags accumulated."""
    return ((fcr31 & ~CAUSE_MASK) | (exc << 12) | (exc << 2)) & 0xFFFFFFFF


@njit(cache=True)
def arith(op, a32, b32, a_bits, b_bits, fcr31):
    """add.s/sub.s/mul.s/div.s/sqrt.s (op = OP_*): (result, new FCR31)."""
    rm = fcr31 & 3
    a64 = np.float64(a32)
    b64 = np.float64(b32)
    if op == OP_SUB:
        b64 = -b64
    err = 0.0
    if op == OP_ADD or op == OP_SUB:
        r64 = a64 + b64
        if r64 - r64 == 0.0:  # finite: TwoSum gives the exact rounding error of r64
            bv = r64 - a64
            err = (a64 - (r64 - bv)) + (b64 - bv)
    elif op == OP_MUL:
        r64 = a64 * b64  # exact: 24 x 24 bits
    elif op == OP_DIV:
        r64 = a64 / b64
    else:
        r64 = np.sqrt(a64)
    if rm == ROUND_NEAREST:  # native float32 arithmetic: correctly rounded, no double rounding
        if op == OP_ADD:
            r32 = a32 + b32
        elif op == OP_SUB:
            r32 = a32 - b32
        elif op == OP_MUL:
            r32 = a32 * b32
        elif op == OP_DIV:
            r32 = a32 / b32
        else:
            r32 = np.sqrt(a32)
    else:
        r32 = round_to_f32(r64, err, rm)
        if r64 == 0.0 and err == 0.0 and rm == ROUND_DOWN and (op == OP_ADD or op == OP_SUB):
            # IEEE: an exact zero sum is -0 when rounding down, unless both addends are +0
            b_pos = ((b_bits >> 31) == 0) == (op == OP_ADD)
            if not (a32 == 0.0 and b32 == 0.0 and (a_bits >> 31) == 0 and b_pos):
                r32 = np.float32(-0.0)

    if a32 != a32:
        # two NaNs in: fs's (quieted), the host's rule in operand order. Said outright: LLVM
        # may swap a commutative operation's operands, and the interpreter's and a compiled
        # region's copies of this function then gave different NaNs (the PSP's choice is unmeasured)
        r32 = a32 + a32
    exc = 0
    r = np.float64(r32)
    if r32 != r32:
        exc = EXC_V  # a NaN operand, or inf-inf, 0*inf, 0/0, inf/inf, sqrt(<0)
    elif op == OP_DIV and b64 == 0.0 and a64 - a64 == 0.0:
        exc = EXC_Z  # finite non-zero / 0 (0/0 is NaN, handled above)
    elif np.isinf(r32):
        if a64 - a64 == 0.0 and (op == OP_SQRT or b64 - b64 == 0.0):
            exc = EXC_O | EXC_I
    elif np.isinf(r64) or r64 != r64:
        exc = EXC_O | EXC_I  # finite result from a float64 overflow cannot happen; kept for safety
    else:
        if op == OP_ADD or op == OP_SUB:
            inexact = err != 0.0 or r != r64
        elif op == OP_MUL:
            inexact = r != r64
        elif op == OP_DIV:
            inexact = r * b64 != a64  # 24 x 24 bits: exact in float64
        else:
            inexact = r * r != a64
        if inexact:
            exc = EXC_I
            if abs(r64) < FLT_MIN:
                exc |= EXC_U
    if (fcr31 & FS_BIT) != 0 and r32 == r32 and r32 != 0.0 and abs(r32) < FLT_MIN:
        r32 = np.float32(-0.0) if r32 < 0.0 else np.float32(0.0)  # flush a denormal result
        exc |= EXC_U | EXC_I
    if exc != 0 or (fcr31 & CAUSE_MASK) != 0:
        fcr31 = with_exceptions(fcr31, exc)
    return r32, fcr31


@njit(cache=True)
def compare_flags(fcr31, cond, a_bits, b_bits):
    """FCR31 after a c.cond.s with a NaN operand: invalid (see the module note)."""
    return with_exceptions(fcr31, EXC_V)


@njit(cache=True, inline="always")
def float_to_word(x, mode):
    """round/trunc/ceil/floor.w.s and cvt.w.s: the Allegrex gives 0x7FFFFFFF for NaN and
    positive overflow (incl. +inf), 0x80000000 for negative overflow (pspautotests fpu)."""
    d = np.float64(x)
    if d != d:
        return 0x7FFFFFFF
    if mode == ROUND_NEAREST:
        r = np.rint(d)
    elif mode == ROUND_ZERO:
        r = np.trunc(d)
    elif mode == ROUND_UP:
        r = np.ceil(d)
    else:
        r = np.floor(d)
    if r >= 2147483648.0:
        return 0x7FFFFFFF
    if r < -2147483648.0:
        return 0x80000000
    return np.int64(r) & 0xFFFFFFFF
