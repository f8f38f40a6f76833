"""The dot-product unit (vfpu/dot.py): every sum of products rounds as a real PSP does.

Known values are real-PSP outputs (pspautotests tests/cpu/vfpu/vector.expected, kept here
as facts); a second, rational-arithmetic implementation of the documented rules checks
the integer kernel on random inputs; special values follow the hardware's rules."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from vfpu.dot import NAN_BITS, dot_bits

A = (-0.1, 1000, math.inf, 0)  # vector.c's fifth test vector, the one that needs rounding
# (instruction, s, t, what the PSP printed for lane 0 of the result)
RECORDED = [
    ("vdot.p", (1, 2), A, "1999.900024"),
    ("vdot.p", (-4, -5), A, "-4999.599609"),  # round to nearest would give -4999.600098
    ("vdot.p", A, (-4, -5), "-4999.599609"),
    ("vdot.p", (5, 6), A, "5999.500000"),
    ("vdot.p", A, A, "1000000.000000"),
    ("vhdp.p", (1, 2), A, "999.899963"),
    ("vhdp.p", (-1, -2), A, "1000.099976"),
    ("vhdp.p", (-4, -5), A, "1000.399963"),
    ("vhdp.p", A, A, "1000.009949"),
    ("vhdp.t", A, (1, 2, 3), "2002.900024"),
    ("vhdp.t", A, (-4, -5, 6), "-4993.599609"),  # round to nearest: -4993.600098
    ("vdet.p", (1, 2), A, "1000.199951"),
    ("vdet.p", (5, 6), A, "5000.599609"),
    ("vdet.p", A, (-4, -5), "4000.500000"),
    ("vdet.p", A, A, "0.000000"),
    ("vfad.p", A, (), "999.899963"),  # round to nearest: 999.900024
    ("vavg.p", A, (), "499.949982"),
    ("vavg.t", (5, 6, -7), (), "1.333333"),
    ("vdot.t", (5, 6, -7), A, "-inf"),
    ("vhdp.t", (1, 2, 3), A, "inf"),
]


def bits_of(values):
    return np.array(values, dtype=np.float32).view(np.uint32)


def dot(xs, ys):
    b = np.concatenate([bits_of(xs), bits_of(ys)])
    return int(dot_bits(b, 0, len(xs), len(xs)))


def as_float(word):
    return float(np.array([word], dtype=np.uint32).view(np.float32)[0])


@pytest.mark.parametrize("op,s,t,printed", RECORDED, ids=[f"{r[0]}-{i}" for i, r in enumerate(RECORDED)])
def test_sums_of_products_print_what_the_psp_printed(vf, op, s, t, printed):
    vf.write("C100", (list(s) + [0] * 4)[:4])
    vf.write("C200", (list(t) + [0] * 4)[:4])
    vf.run(f"{op} S000, C100, C200" if t else f"{op} S000, C100")
    assert "%f" % vf.read("S000", 1)[0] == printed


# ---------------------------------------------------------------- a second implementation

def exact(word):
    """The float32 `word` as an exact fraction (denormals as zero: the VFPU has none)."""
    e = (word >> 23) & 0xFF
    if e == 0:
        return Fraction(0)
    value = Fraction((word & 0x7FFFFF) | 0x800000) * Fraction(2) ** (e - 150)
    return -value if word >> 31 else value


def toward_zero(q, grid):
    return Fraction(math.trunc(q / grid)) * grid


def reference_dot(xs, ys):
    """The rules of vfpu/dot.py's docstring, in exact rational arithmetic: products rounded
    to odd on their own 2^(ex+ey-25) grid, truncated onto the largest one's grid, summed,
    truncated to 2^(ehi-23), then rounded to 24 significant bits (nearest, ties to even)."""
    terms, exps = [], []
    for x, y in zip(xs, ys):
        ex, ey = (x >> 23) & 0xFF, (y >> 23) & 0xFF
        if ex and ey:
            e = ex + ey - 254
            grid = Fraction(2) ** (e - 25)
            p = exact(x) * exact(y)
            q = toward_zero(p, grid)
            if q != p and (abs(q) / grid) % 2 == 0:  # round to odd
                q += grid if p > 0 else -grid
            terms.append(q)
            exps.append(e)
    if not terms:
        return 0
    ehi = max(exps)
    total = sum(toward_zero(q, Fraction(2) ** (ehi - 25)) for q in terms)
    total = toward_zero(total, Fraction(2) ** (ehi - 23))
    if total == 0:
        return 0
    sign, mag = (0x80000000 if total < 0 else 0), abs(total)
    e = math.floor(math.log2(mag))
    while mag >= Fraction(2) ** (e + 1):
        e += 1
    while mag < Fraction(2) ** e:
        e -= 1
    steps = mag / Fraction(2) ** (e - 23)  # in [2^23, 2^24)
    m = round(steps)  # Python's round on a Fraction: nearest, ties to even
    if m == 1 << 24:
        m, e = 1 << 23, e + 1
    if e < -126:
        return sign
    if e > 127:
        return sign | 0x7F800000
    return sign | ((e + 127) << 23) | (m & 0x7FFFFF)


def random_float_bits(rng):
    """Finite floats with nearby and distant exponents, so cancellation and alignment both show."""
    e = rng.choice([rng.randint(120, 134), rng.randint(100, 150), rng.randint(1, 254)])
    return (rng.getrandbits(1) << 31) | (e << 23) | rng.getrandbits(23)


def test_kernel_agrees_with_a_rational_implementation_of_the_rules():
    rng = random.Random(5)
    for _ in range(4000):
        n = rng.randint(1, 4)
        xs = [random_float_bits(rng) for _ in range(n)]
        ys = [random_float_bits(rng) for _ in range(n)]
        if rng.random() < 0.3:  # near-cancelling pair: x0*y0 ~ -x1*y1
            n = max(n, 2)
            xs, ys = (xs + [0, 0])[:n], (ys + [0, 0])[:n]
            xs[1], ys[1] = xs[0] ^ 0x80000000, ys[0] ^ rng.getrandbits(3)
        b = np.array(xs + ys, dtype=np.uint32)
        assert int(dot_bits(b, 0, n, n)) == reference_dot(xs, ys), (xs, ys)


# ---------------------------------------------------------------- special values

def test_nan_and_invalid_infinities_give_the_vfpu_nan():
    inf, nan = math.inf, math.nan
    assert dot([nan, 1], [1, 1]) == NAN_BITS
    assert dot([inf, 1], [0, 1]) == NAN_BITS  # inf * 0
    assert dot([inf, inf], [1, -1]) == NAN_BITS  # inf - inf
    assert dot([inf, 1e30], [-1, 1e30]) == 0xFF800000  # an infinite product wins over overflow
    assert dot([inf, inf], [2, 3]) == 0x7F800000


def test_range_ends_and_zeros():
    assert dot([3e38, 3e38], [2, 2]) == 0x7F800000  # overflow to +inf
    assert dot([-3e38], [4]) == 0xFF800000
    assert dot([1e-30], [1e-30]) == 0  # below the normal range: 0
    assert dot([-1e-30], [1e-30]) == 0x80000000  # ... keeping the sign
    assert dot([1.5, -1.5], [2, 2]) == 0  # exact cancellation is +0
    assert dot([-0.0], [5]) == 0
    assert dot([1e-40, 1], [1e10, 2]) == bits_of([2.0])[0]  # a denormal operand counts as 0


def test_truncation_not_rounding():
    # 1 + 2^-24 + 2^-24: IEEE additions round each step back to 1; the unit's 2 guard bits
    # keep both small terms and give 1 + 2^-23.
    assert as_float(dot([1, 2 ** -24, 2 ** -24], [1, 1, 1])) == 1 + 2 ** -23
    # 1 - 2^-24 is a float32, but the unit drops the guard bits truncating the magnitude
    # (2^25 - 2 units of 2^-25 -> 2^23 - 1 units of 2^-23): 1 - 2^-23.
    assert as_float(dot([1, -(2 ** -24)], [1, 1])) == 1 - 2 ** -23
