"""Single-precision FPU against Unicorn where both follow IEEE 754: arithmetic, moves,
compares (all 16 conditions) with bc1t/bc1f, and float<->int conversions of in-range
values. FCR31 is cleared first (Unicorn would trap with the PSP's default enables).

Where the Allegrex differs and Unicorn cannot be the reference (tested in
test_cpu_fpu_known.py instead): float->int conversion of NaN/out-of-range values
(Allegrex: 0x7FFFFFFF, or 0x80000000 below INT_MIN; legacy MIPS gives 0x7FFFFFFF for
all) and the bit pattern of a generated NaN (compared here only as "is a NaN")."""

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allegrex.cpu.asm import enc
from tests.cpu.unicorn_ref import DATA, run_allegrex, run_unicorn

NREG = 8  # f0..f7 are loaded from DATA, worked on, and stored to DATA + 64
ARITH3 = ["add.s", "sub.s", "mul.s", "div.s"]
ARITH2 = ["sqrt.s", "abs.s", "neg.s", "mov.s"]
CONDS = ["c.f.s", "c.un.s", "c.eq.s", "c.ueq.s", "c.olt.s", "c.ult.s", "c.ole.s", "c.ule.s",
         "c.sf.s", "c.ngle.s", "c.seq.s", "c.ngl.s", "c.lt.s", "c.nge.s", "c.le.s", "c.ngt.s"]

freg = st.integers(0, NREG - 1)
floats = st.one_of(st.floats(width=32, allow_nan=False, min_value=-1e6, max_value=1e6),
                   st.floats(width=32, allow_nan=False),
                   st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, float("inf"), float("-inf")]))


@st.composite
def fpu_insn(draw):
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return [enc(draw(st.sampled_from(ARITH3)), fd=draw(freg), fs=draw(freg), ft=draw(freg))]
    if kind == 1:
        return [enc(draw(st.sampled_from(ARITH2)), fd=draw(freg), fs=draw(freg))]
    if kind == 2:  # compare, then record the condition in a GPR through a branch
        dest = draw(st.sampled_from(["s0", "s1", "s2", "s3"]))
        likely = draw(st.booleans())
        branch = draw(st.sampled_from(["bc1tl", "bc1fl"] if likely else ["bc1t", "bc1f"]))
        return [enc(draw(st.sampled_from(CONDS)), fs=draw(freg), ft=draw(freg)),
                enc(branch, imm=2),
                enc("addiu", rt=dest, rs=dest, imm=1),  # delay slot (annulled if likely & not taken)
                enc("addiu", rt=dest, rs=dest, imm=16)]
    # move through the integer side and back (mfc1/mtc1, cvt.s.w of an int), skipped when
    # the source is a NaN: NaN bit patterns are host-specific and must not leak into ints
    src, dst = draw(freg), draw(freg)
    return [enc("c.un.s", fs=src, ft=src), enc("bc1t", imm=5), 0,
            enc("mfc1", rt="t0", fs=src), enc("addiu", rt="t0", rs="t0", imm=draw(st.integers(-4, 4))),
            enc("mtc1", rt="t0", fs=dst), enc("cvt.s.w", fd=draw(freg), fs=dst)]


def _program(body, rounding_mode=0):
    words = [enc("addiu", rt="t9", rs="zero", imm=rounding_mode), enc("ctc1", rt="t9", rd=31)]
    words += [enc("lwc1", ft=i, rs="s7", imm=4 * i) for i in range(NREG)]
    words += [w for ins in body for w in ins]
    words += [enc("swc1", ft=i, rs="s7", imm=64 + 4 * i) for i in range(NREG)]
    return words


def _regs():
    regs = [0] * 34
    regs[23] = DATA
    return regs


def _same_floats(a: bytes, b: bytes):
    """Byte-equal, except that any NaN equals any NaN (NaN payloads are host-specific)."""
    fa = struct.unpack(f"<{len(a) // 4}I", a)
    fb = struct.unpack(f"<{len(b) // 4}I", b)
    for x, y in zip(fa, fb):
        x_nan = (x & 0x7F800000) == 0x7F800000 and (x & 0x7FFFFF)
        y_nan = (y & 0x7F800000) == 0x7F800000 and (y & 0x7FFFFF)
        if x != y and not (x_nan and y_nan):
            return False
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.lists(fpu_insn(), min_size=1, max_size=10), values=st.lists(floats, min_size=NREG, max_size=NREG),
       rounding_mode=st.sampled_from([0, 0, 1, 2, 3]))
def test_random_fpu_code_matches_unicorn(body, values, rounding_mode):
    """Also under the four FCR31 rounding modes, which the Allegrex honours for arithmetic
    (pspautotests fpu.expected: `mul.s ... CAST_1 = 18.386574` vs RINT_0 `18.386576`)."""
    data = struct.pack(f"<{NREG}f", *values) + bytes(1024 - 4 * NREG)
    words = _program(body, rounding_mode)
    want_regs, want_mem, _ = run_unicorn(words, _regs(), data)
    got_regs, got_mem, _ = run_allegrex(words, _regs(), data)
    assert got_regs[16:20] == want_regs[16:20]  # compare results recorded in s0..s3
    assert _same_floats(got_mem[:128], want_mem[:128])


CONVERSIONS = ["cvt.w.s", "round.w.s", "trunc.w.s", "ceil.w.s", "floor.w.s"]


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.one_of(st.floats(width=32, min_value=-2.0e9, max_value=2.0e9),
                                 st.sampled_from([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0])),
                       min_size=NREG, max_size=NREG),
       rm=st.integers(0, 3))
def test_in_range_float_to_int_conversions_match_unicorn(values, rm):
    """All four rounding modes of cvt.w.s and the fixed-mode conversions."""
    data = struct.pack(f"<{NREG}f", *values) + bytes(1024 - 4 * NREG)
    body = [[enc("addiu", rt="t1", rs="zero", imm=rm), enc("ctc1", rt="t1", rd=31)]]
    body += [[enc(CONVERSIONS[i % len(CONVERSIONS)], fd=i, fs=i)] for i in range(NREG)]
    words = _program(body)  # the body sets the rounding mode again before converting
    _, want_mem, _ = run_unicorn(words, _regs(), data)
    _, got_mem, _ = run_allegrex(words, _regs(), data)
    assert got_mem[64:64 + 4 * NREG] == want_mem[64:64 + 4 * NREG]
