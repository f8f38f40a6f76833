"""Semantics of the VFPU vector operations, on a flat scratch buffer (numba kernels).

Layout of the scratch buffer `f` (float32[48]) and its uint32 view `b`:
source lanes at S=0, target lanes at T=16, result lanes at D=32 (matrices use 16 lanes).
The interpreter fills S and T (prefixes applied), calls `vector_op`, and writes D.

Numerics (facts from pspdev/vfpu-docs and real-hardware outputs):
- Arithmetic is float32 with round-to-nearest; denormal inputs count as zero and denormal
  results are flushed to zero (the VFPU has no subnormals). `flush` does both.
- Sums of products go through the dot-product unit (vfpu/dot.py, bit-exact); vasin
  through the hardware's piecewise quadratic (vfpu/asin.py).
- vrcp/vrsq/vsqrt/vsin/vcos/vexp2/vlog2: the hardware is an approximation whose low
  2-3.5 mantissa bits differ from exact (documented bounds: vrcp rel 6.3e-7, vrsq 7.3e-7,
  vsqrt 7.1e-7, vexp2 7.2e-7, vsin abs 4.8e-7, vcos 4.0e-7, vlog2 abs 3e-5).
  We compute the exact function rounded to float32 (<= 0.5 ulp), so our result differs
  from the hardware by at most the documented bound plus 0.5 ulp. The angle argument of
  vsin/vcos/vrot is reduced exactly (period 4), so integers give exact 0 and +-1.
- vrnd*: the hardware generator is undocumented. Ours: a xorshift32 over RCX0 (seeded by
  vrnds; a zero state is replaced by a fixed constant). Deterministic, not bit-exact.
"""

import math

import numpy as np
from numba import njit

from vfpu.asin import asin_bits
from vfpu.dot import AVG_WEIGHT_BITS, ONE_BITS, dot_bits
from vfpu.table import OPS

S, T, D = 0, 16, 32

# Operation numbers from the table (compile-time constants for numba).
for _name, _num in OPS.items():
    globals()["OP_" + _name.upper().replace(".", "_")] = _num

# vcst constants 1..19 as float32 bits (index 0 and 20-31 are undefined: we return 0).
CST_BITS = np.array([
    0, 0x7F7FFFFF, 0x3FB504F3, 0x3F3504F3, 0x3F906EBB, 0x3F22F983, 0x3EA2F983, 0x3F490FDB,
    0x3FC90FDB, 0x40490FDB, 0x402DF854, 0x3FB8AA3B, 0x3EDE5BD9, 0x3F317218, 0x40135D8E,
    0x40C90FDB, 0x3F060A92, 0x3E9A209B, 0x40549A78, 0x3F5DB3D7,
] + [0] * 12, dtype=np.uint32)
CST_NAMES = (
    None, "VFPU_HUGE", "VFPU_SQRT2", "VFPU_SQRT1_2", "VFPU_2_SQRTPI", "VFPU_2_PI", "VFPU_1_PI",
    "VFPU_PI_4", "VFPU_PI_2", "VFPU_PI", "VFPU_E", "VFPU_LOG2E", "VFPU_LOG10E", "VFPU_LN2",
    "VFPU_LN10", "VFPU_2PI", "VFPU_PI_6", "VFPU_LOG10TWO", "VFPU_LOG2TEN", "VFPU_SQRT3_2",
)

# Operations working on floats: their inputs and outputs go through `flush`.
_FLOAT_NAMES = (
    "vadd vsub vdiv vmul vdot vscl vhdp vcrs vdet vmin vmax vscmp vsge vslt vsat0 vsat1 vrcp "
    "vrsq vsin vcos vexp2 vlog2 vsqrt vasin vnrcp vnsin vrexp2 vsrt1 vsrt2 vsrt3 vsrt4 vbfy1 "
    "vbfy2 vocp vsocp vfad vavg vsgn vlgb vmmul vtfm2 vtfm3 vtfm4 vhtfm2 vhtfm3 vhtfm4 vmscl "
    "vcrsp vqmul vrot vf2in vf2iz vf2iu vf2id vcmp"
).split()
FLOAT_OP = np.zeros(len(OPS), dtype=np.bool_)
for _n in _FLOAT_NAMES:
    FLOAT_OP[OPS[_n]] = True

HALF_PI = math.pi / 2.0


@njit(cache=True, inline="always", error_model="numpy")
def flush(f, b, base, n):
    """Denormals to signed zero (the VFPU reads and writes no subnormals)."""
    for i in range(base, base + n):
        if (b[i] & np.uint32(0x7F800000)) == 0:
            b[i] &= np.uint32(0x80000000)


@njit(cache=True, error_model="numpy")
def sin_quarter(x):
    """sin(x * pi/2) with exact argument reduction; NaN for infinities and NaN."""
    if math.isinf(x) or math.isnan(x):
        return math.nan
    if x < 0.0 or (x == 0.0 and math.copysign(1.0, x) < 0.0):
        return -sin_quarter(-x)  # odd: real hardware gives sin(-2) = +0, sin(-4) = -0
    y = np.fmod(x, 4.0)
    k = math.floor(y + 0.5)
    f = (y - k) * HALF_PI
    q = int(k) & 3
    if q == 0:
        return math.sin(f)
    if q == 1:
        return math.cos(f)
    if q == 2:
        return -math.sin(f)
    return -math.cos(f)


@njit(cache=True, error_model="numpy")
def cos_quarter(x):
    """cos(x * pi/2), reduced like sin_quarter."""
    if math.isinf(x) or math.isnan(x):
        return math.nan
    y = np.fmod(math.fabs(x), 4.0)
    k = math.floor(y + 0.5)
    f = (y - k) * HALF_PI
    q = int(k) & 3
    if q == 0:
        return math.cos(f)
    if q == 1:
        return -math.sin(f)
    if q == 2:
        return -math.cos(f)
    return math.sin(f)


# vqmul: result lane i sums s[3-k] * t[QMUL_T_LANE[i, k]] * QMUL_SIGN[i, k] over k.
QMUL_T_LANE = np.array([[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1], [3, 2, 1, 0]], dtype=np.int64)
QMUL_SIGN = np.array([[1, -1, 1, 1], [1, 1, 1, -1], [1, 1, -1, 1], [1, -1, -1, -1]], dtype=np.int64)


@njit(cache=True, inline="always", error_model="numpy")
def stage(b, terms, k, s_lane, t_lane, sign):
    """Put the product sign * s[s_lane] * t[t_lane] in slot k of the dot unit's operand
    staging `terms` (uint32[8]: x operands 0-3, y operands 4-7)."""
    x = b[S + s_lane]
    terms[k] = x ^ np.uint32(0x80000000) if sign < 0 else x
    terms[4 + k] = b[T + t_lane]


@njit(cache=True, error_model="numpy")
def exp2_hw(x):
    if math.isnan(x):
        return x
    if x >= 128.0:
        return math.inf
    if x <= -127.0:
        return 0.0
    return 2.0 ** x


@njit(cache=True, error_model="numpy")
def log2_hw(x):
    if x == 0.0:
        return -math.inf
    if x < 0.0 or math.isnan(x):
        return math.nan
    if math.isinf(x):
        return math.inf
    return math.log2(x)


@njit(cache=True, error_model="numpy")
def rsq_hw(x):
    if x == 0.0:
        return math.copysign(math.inf, x)
    if x < 0.0 or math.isnan(x):
        return math.nan
    if math.isinf(x):
        return 0.0
    return 1.0 / math.sqrt(x)


@njit(cache=True, error_model="numpy")
def sqrt_hw(x):
    if x < 0.0 or math.isnan(x):
        return math.nan
    return math.sqrt(x)


@njit(cache=True, error_model="numpy")
def rcp_hw(x):
    if x == 0.0:
        return math.copysign(math.inf, x)
    return 1.0 / x


@njit(cache=True, error_model="numpy")
def fminf(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return a if a < b else b


@njit(cache=True, error_model="numpy")
def fmaxf(a, b):
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return a if a > b else b


@njit(cache=True, error_model="numpy")
def logb_hw(x):
    if x == 0.0:
        return -math.inf
    if math.isnan(x):
        return x
    if math.isinf(x):
        return math.inf
    return float(math.frexp(x)[1] - 1)


@njit(cache=True, error_model="numpy")
def half_to_bits(h):
    """float16 -> float32 bits (denormals to zero, NaN/Inf keep the mantissa)."""
    e = (h >> 10) & 0x1F
    m = h & 0x3FF
    sign = (h & 0x8000) << 16
    if e == 0:
        return sign
    if e == 31:
        return sign | (255 << 23) | m
    return sign | ((e + 112) << 23) | (m << 13)


@njit(cache=True, error_model="numpy")
def bits_to_half(x):
    """float32 bits -> float16 (truncating; vfpu-docs' description of vf2h)."""
    e = (x >> 23) & 0xFF
    m = x & 0x7FFFFF
    sign = (x >> 16) & 0x8000
    if e == 0:
        return sign
    if e == 255:
        return sign | (31 << 10) | (m & 0x3FF)
    if e <= 112:
        return sign
    if e >= 143:
        return sign | (31 << 10)
    return sign | ((e - 112) << 10) | (m >> 13)


@njit(cache=True, error_model="numpy")
def f2i(v, mode):
    """float -> int32 bits with rounding mode 0 nearest-even, 1 zero, 2 up, 3 down;
    saturating; NaN -> 0x7FFFFFFF."""
    if math.isnan(v):
        return np.int64(0x7FFFFFFF)
    if mode == 0:
        r = np.rint(v)
    elif mode == 1:
        r = math.trunc(v) if not math.isinf(v) else v
    elif mode == 2:
        r = math.ceil(v) if not math.isinf(v) else v
    else:
        r = math.floor(v) if not math.isinf(v) else v
    if r >= 2147483647.0:
        return np.int64(0x7FFFFFFF)
    if r <= -2147483648.0:
        return np.int64(0x80000000)
    return np.int64(r) & 0xFFFFFFFF


@njit(cache=True, error_model="numpy")
def next_random(vctrl):
    """xorshift32 over RCX0 (our documented stand-in for the undocumented generator)."""
    x = np.int64(vctrl[8])
    if x == 0:
        x = 0x3F800001
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    vctrl[8] = x
    return x


@njit(cache=True, error_model="numpy")
def compare(cond, a, b):
    if cond == 0:
        return False
    if cond == 1:
        return a == b
    if cond == 2:
        return a < b
    if cond == 3:
        return a <= b
    if cond == 4:
        return True
    if cond == 5:
        return a != b
    if cond == 6:
        return a >= b
    if cond == 7:
        return a > b
    if cond == 8:
        return a == 0.0
    if cond == 9:
        return math.isnan(a)
    if cond == 10:
        return math.isinf(a)
    if cond == 11:
        return math.isnan(a) or math.isinf(a)
    if cond == 12:
        return a != 0.0
    if cond == 13:
        return not math.isnan(a)
    if cond == 14:
        return not math.isinf(a)
    return not (math.isnan(a) or math.isinf(a))


@njit(cache=True, error_model="numpy")
def rot_lane(i, n, angle, imm):
    """Lane i of vrot: cos at lane imm&3, sin at lane (imm>>2)&3 (every other lane when
    both are the same), 0 elsewhere; bit 4 negates the sine."""
    cl = imm & 3
    sl = (imm >> 2) & 3
    s = sin_quarter(angle)
    c = cos_quarter(angle)
    if imm & 0x10:
        s = -s
    if i == cl:
        return c
    if cl == sl or i == sl:
        return s
    return 0.0


# The lane-wise float operations: result lane i from source lanes i alone (vscl: t is
# lane 0 of T for every lane; the one-source ones read s alone). vfpu/plain.py's short
# path computes them with the same lane_value.
UNARY_LANE_OPS = (OP_VSGN, OP_VOCP, OP_VSAT0, OP_VSAT1)
LANE_OPS = (OP_VADD, OP_VSUB, OP_VMUL, OP_VSCL, OP_VDIV, OP_VMIN, OP_VMAX,
            OP_VSGE, OP_VSLT, OP_VSCMP) + UNARY_LANE_OPS
PACK_OPS = (OP_VI2UC, OP_VI2C, OP_VI2US, OP_VI2S)  # integer lanes packed into bytes or halfwords (pack_word)


@njit(cache=True, inline="always", error_model="numpy")
def lane_value(op, s, t):
    """Result lane of lane-wise operation `op` (LANE_OPS) from source lanes s and t."""
    one, zero = np.float32(1.0), np.float32(0.0)
    if s != s and (op == OP_VADD or op == OP_VSUB or op == OP_VMUL or op == OP_VSCL or op == OP_VDIV):
        # two NaNs in: s's (quieted), the host's rule in operand order. Said outright:
        # LLVM may swap a commutative operation's operands, and compiled copies then differed
        return s + s
    if op == OP_VADD:
        return s + t
    if op == OP_VSUB:
        return s - t
    if op == OP_VMUL or op == OP_VSCL:
        return s * t
    if op == OP_VDIV:
        return s / t
    if op == OP_VMIN:
        return fminf(s, t)
    if op == OP_VMAX:
        return fmaxf(s, t)
    if op == OP_VSGE:
        return one if s >= t else zero
    if op == OP_VSLT:
        return one if s < t else zero
    if op == OP_VSCMP:
        return -one if s < t else (one if s > t else zero)
    if op == OP_VSGN:
        return -one if s < 0 else (one if s > 0 else zero)
    if op == OP_VOCP:
        return one - s
    if op == OP_VSAT0:
        return zero if s <= 0 else (one if s > 1 else s)
    return -one if s < -1 else (one if s > 1 else s)  # vsat1


@njit(cache=True, inline="always", error_model="numpy")
def moved_bits(op, x):
    """A vmov/vabs/vneg result lane from its source lane's bits x: the sign bit kept,
    cleared or flipped (no float op: NaNs and denormals keep their other bits)."""
    if op == OP_VABS:
        return x & np.uint32(0x7FFFFFFF)
    if op == OP_VNEG:
        return x ^ np.uint32(0x80000000)
    return x


@njit(cache=True, inline="always", error_model="numpy")
def compared_cc(ccr, n, hits):
    """The CC register `ccr` after a vcmp of size n whose lanes compared true in the bitmask
    `hits`: bits 0..n-1 those lanes, bit 4 any of them, bit 5 all; the other bits kept."""
    cc = np.int64(hits)
    if hits != 0:
        cc |= 16
    if hits == (1 << n) - 1:
        cc |= 32
    return (np.int64(ccr) & ~np.int64(((1 << n) - 1) | 0x30)) | cc


@njit(cache=True, inline="always", error_model="numpy")
def packed_lanes(op):
    """Source lanes a vi2uc/vi2c (4: bytes) or vi2us/vi2s (2: halfwords) word packs."""
    return 4 if op == OP_VI2UC or op == OP_VI2C else 2


@njit(cache=True, inline="always", error_model="numpy")
def pack_word(op, lanes, base, j):
    """Result word j of a vi2* packing (PACK_OPS) of the source lanes' bits lanes[base:]:
    each lane's top byte or halfword; the unsigned forms read a lane as a 31-bit fraction,
    a negative one as 0."""
    per = packed_lanes(op)
    width = 32 // per
    acc = np.int64(0)
    for k in range(per):
        x = np.int64(lanes[base + per * j + k])
        if op == OP_VI2UC or op == OP_VI2US:
            v = 0 if x & 0x80000000 else (x >> (31 - width)) & ((1 << width) - 1)
        else:
            v = x >> (32 - width)
        acc |= v << (width * k)
    return acc


@njit(cache=True, inline="always", error_model="numpy")
def vector_op(op, n, f, b, word, vctrl, terms):
    """Compute result lanes f[D:] of vector operation `op` with size n from S/T lanes.
    terms: uint32[8] operand staging of the dot-product unit (the caller's, so no
    allocation per instruction). Returns False when `op` is not a vector operation."""
    one = np.float32(1.0)
    zero = np.float32(0.0)
    if op in LANE_OPS:
        for i in range(n):
            f[D + i] = lane_value(op, f[S + i], f[T] if op == OP_VSCL else f[T + i])
            if (op == OP_VADD or op == OP_VSUB) and math.isnan(f[D + i]):
                b[D + i] &= np.uint32(0x7FFFFFFF)  # the adder's NaN is positive (prefixes.expected: -nan + x)
    elif op == OP_VSBN:
        x = np.int64(b[S])
        e = (x >> 23) & 0xFF
        if (x & 0x7FFFFFFF) == 0 or e == 0xFF:
            b[D] = x
        else:
            b[D] = (x & 0x807FFFFF) | (((np.int64(b[T]) + 127) & 0xFF) << 23)
    elif op == OP_VDOT:
        b[D] = dot_bits(b, S, T, n)
    elif op == OP_VHDP:
        b[S + n - 1] = ONE_BITS  # the last lane of rs counts as 1
        b[D] = dot_bits(b, S, T, n)
    elif op == OP_VCRS:
        f[D] = f[S + 1] * f[T + 2]
        f[D + 1] = f[S + 2] * f[T]
        f[D + 2] = f[S] * f[T + 1]
    elif op == OP_VDET:
        stage(b, terms, 0, 0, 1, 1)
        stage(b, terms, 1, 1, 0, -1)
        b[D] = dot_bits(terms, 0, 4, 2)
    elif op == OP_VCRSP:
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            stage(b, terms, 0, j, k, 1)
            stage(b, terms, 1, k, j, -1)
            b[D + i] = dot_bits(terms, 0, 4, 2)
    elif op == OP_VQMUL:
        for i in range(4):
            for k in range(4):
                stage(b, terms, k, 3 - k, QMUL_T_LANE[i, k], QMUL_SIGN[i, k])
            b[D + i] = dot_bits(terms, 0, 4, 4)
    elif op == OP_VMOV or op == OP_VABS or op == OP_VNEG:
        for i in range(n):
            b[D + i] = moved_bits(op, b[S + i])
    elif op == OP_VZERO:
        for i in range(n):
            f[D + i] = zero
    elif op == OP_VONE:
        for i in range(n):
            f[D + i] = one
    elif op == OP_VIDT:
        rd = word & 0x7F
        k = rd & (n - 1)  # the lane on the diagonal: register index within the matrix
        for i in range(n):
            f[D + i] = one if i == k else zero
    elif op == OP_VRCP or op == OP_VNRCP:
        for i in range(n):
            r = rcp_hw(float(f[S + i]))
            f[D + i] = np.float32(-r if op == OP_VNRCP else r)
    elif op == OP_VRSQ:
        for i in range(n):
            f[D + i] = np.float32(rsq_hw(float(f[S + i])))
    elif op == OP_VSIN or op == OP_VNSIN:
        for i in range(n):
            r = sin_quarter(float(f[S + i]))
            f[D + i] = np.float32(-r if op == OP_VNSIN else r)
    elif op == OP_VCOS:
        for i in range(n):
            f[D + i] = np.float32(cos_quarter(float(f[S + i])))
    elif op == OP_VEXP2:
        for i in range(n):
            f[D + i] = np.float32(exp2_hw(float(f[S + i])))
    elif op == OP_VREXP2:
        for i in range(n):
            f[D + i] = np.float32(exp2_hw(-float(f[S + i])))
    elif op == OP_VLOG2:
        for i in range(n):
            f[D + i] = np.float32(log2_hw(float(f[S + i])))
    elif op == OP_VSQRT:
        for i in range(n):
            f[D + i] = np.float32(sqrt_hw(float(f[S + i])))
    elif op == OP_VASIN:
        for i in range(n):
            b[D + i] = asin_bits(b[S + i])
    elif op == OP_VLGB:
        f[D] = np.float32(logb_hw(float(f[S])))
    elif op == OP_VSBZ:
        x = np.int64(b[S])
        if (x & 0x7F800000) == 0 or (x & 0x7FFFFFFF) > 0x7F800000:
            b[D] = x
        else:
            b[D] = (x & 0x807FFFFF) | 0x3F800000
    elif op == OP_VWBN:
        imm = np.int64((word >> 16) & 0xFF)
        x = np.int64(b[S])
        e = (x >> 23) & 0xFF
        m = (x & 0x007FFFFF) | 0x800000
        if e == 0 or e == 0xFF:
            b[D] = (x | (imm << 23)) & 0xFFFFFFFF
        else:
            if imm > e:
                m >>= (imm - e) & 0xF
            else:
                m <<= (e - imm) & 0xF
            b[D] = (x & 0x80000000) | (m & 0x7FFFFF) | (imm << 23)
    elif op == OP_VSRT1:
        a0, a1, a2, a3 = f[S], f[S + 1], f[S + 2], f[S + 3]
        f[D], f[D + 1], f[D + 2], f[D + 3] = fminf(a0, a1), fmaxf(a0, a1), fminf(a2, a3), fmaxf(a2, a3)
    elif op == OP_VSRT2:
        a0, a1, a2, a3 = f[S], f[S + 1], f[S + 2], f[S + 3]
        f[D], f[D + 1], f[D + 2], f[D + 3] = fminf(a0, a3), fminf(a1, a2), fmaxf(a1, a2), fmaxf(a0, a3)
    elif op == OP_VSRT3:
        a0, a1, a2, a3 = f[S], f[S + 1], f[S + 2], f[S + 3]
        f[D], f[D + 1], f[D + 2], f[D + 3] = fmaxf(a0, a1), fminf(a0, a1), fmaxf(a2, a3), fminf(a2, a3)
    elif op == OP_VSRT4:
        a0, a1, a2, a3 = f[S], f[S + 1], f[S + 2], f[S + 3]
        f[D], f[D + 1], f[D + 2], f[D + 3] = fmaxf(a0, a3), fmaxf(a1, a2), fminf(a1, a2), fminf(a0, a3)
    elif op == OP_VBFY1:
        for i in range(0, n, 2):
            a0, a1 = f[S + i], f[S + i + 1]
            f[D + i], f[D + i + 1] = a0 + a1, a0 - a1
    elif op == OP_VBFY2:
        a0, a1, a2, a3 = f[S], f[S + 1], f[S + 2], f[S + 3]
        f[D], f[D + 1], f[D + 2], f[D + 3] = a0 + a2, a1 + a3, a0 - a2, a1 - a3
    elif op == OP_VSOCP:
        for i in range(n):
            x = f[S + i]
            c = one - x
            f[D + 2 * i] = zero if c <= 0 else (one if c > 1 else c)
            f[D + 2 * i + 1] = zero if x <= 0 else (one if x > 1 else x)
    elif op == OP_VFAD or op == OP_VAVG:
        weight = AVG_WEIGHT_BITS[n] if op == OP_VAVG else ONE_BITS
        for i in range(n):
            b[T + i] = weight
        b[D] = dot_bits(b, S, T, n)
    elif op == OP_VI2F:
        scale = 2.0 ** -float((word >> 16) & 0x1F)
        for i in range(n):
            f[D + i] = np.float32(float(np.int32(b[S + i])) * scale)
    elif op == OP_VF2IN or op == OP_VF2IZ or op == OP_VF2IU or op == OP_VF2ID:
        mode = (word >> 21) & 3
        scale = 2.0 ** float((word >> 16) & 0x1F)
        for i in range(n):
            b[D + i] = f2i(float(f[S + i]) * scale, mode)
    elif op in PACK_OPS:
        for j in range(n // packed_lanes(op)):
            b[D + j] = pack_word(op, b, S, j)
    elif op == OP_VS2I or op == OP_VUS2I:
        for i in range(2 * n):
            h = (np.int64(b[S + i // 2]) >> (16 * (i % 2))) & 0xFFFF
            if op == OP_VS2I:
                b[D + i] = h << 16
            else:
                b[D + i] = (h << 15) & 0x7FFFFFFF
    elif op == OP_VC2I or op == OP_VUC2I:
        x = np.int64(b[S])
        for i in range(4):
            c = (x >> (8 * i)) & 0xFF
            if op == OP_VC2I:
                b[D + i] = c << 24
            else:
                b[D + i] = (c << 23) | (c << 15) | (c << 7) | (c >> 1)
    elif op == OP_VF2H:
        for j in range(n // 2):
            lo = bits_to_half(np.int64(b[S + 2 * j]))
            hi = bits_to_half(np.int64(b[S + 2 * j + 1]))
            b[D + j] = lo | (hi << 16)
    elif op == OP_VH2F:
        for i in range(2 * n):
            b[D + i] = half_to_bits((np.int64(b[S + i // 2]) >> (16 * (i % 2))) & 0xFFFF)
    elif op == OP_VT4444 or op == OP_VT5551 or op == OP_VT5650:
        for j in range(2):
            acc = np.int64(0)
            for k in range(2):
                x = np.int64(b[S + 2 * j + k])
                r, g, bl, a = x & 0xFF, (x >> 8) & 0xFF, (x >> 16) & 0xFF, (x >> 24) & 0xFF
                if op == OP_VT4444:
                    v = (r >> 4) | ((g >> 4) << 4) | ((bl >> 4) << 8) | ((a >> 4) << 12)
                elif op == OP_VT5551:
                    v = (r >> 3) | ((g >> 3) << 5) | ((bl >> 3) << 10) | ((a >> 7) << 15)
                else:
                    v = (r >> 3) | ((g >> 2) << 5) | ((bl >> 3) << 11)
                acc |= v << (16 * k)
            b[D + j] = acc
    elif op == OP_VCST:
        c = CST_BITS[(word >> 16) & 0x1F]
        for i in range(n):
            b[D + i] = c
    elif op == OP_VIIM:
        imm = np.int64(word & 0xFFFF)
        f[D] = np.float32(imm - 65536 if imm >= 32768 else imm)
    elif op == OP_VFIM:
        b[D] = half_to_bits(np.int64(word & 0xFFFF))
    elif op == OP_VRNDI or op == OP_VRNDF1 or op == OP_VRNDF2:
        for i in range(n):
            x = next_random(vctrl)
            if op == OP_VRNDI:
                b[D + i] = x
            elif op == OP_VRNDF1:
                b[D + i] = 0x3F800000 | (x >> 9)
            else:
                b[D + i] = 0x40000000 | (x >> 9)
    elif op == OP_VROT:
        imm = (word >> 16) & 0x1F
        angle = float(f[S])
        for i in range(n):
            f[D + i] = np.float32(rot_lane(i, n, angle, imm))
    else:
        return False
    return True
