"""FPU behaviour where the Allegrex has its own answer (real-PSP values from
pspautotests tests/cpu/fpu/fpu.expected and fcr.expected)."""

import struct

import pytest

from allegrex.cpu.asm import enc, gpr
from allegrex.cpu.state import FCR31
from tests.cpu.conftest import run_program

NAN, INF = float("nan"), float("inf")
INT_MAX, INT_MIN = 0x7FFFFFFF, 0x80000000


def f2b(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def b2f(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def fpu(machine, words, floats, fcr31=0):
    """Run `words` with $f0.. = floats and FCR31 = fcr31; returns the machine."""
    machine.cpu.fpr_bits[:len(floats)] = [f2b(x) for x in floats]
    machine.cpu.regs[FCR31] = fcr31
    run_program(machine, words)
    return machine


@pytest.mark.parametrize("value,expected", [(INF, INT_MAX), (-INF, INT_MIN), (NAN, INT_MAX), (-NAN, INT_MAX),
                                            (3e9, INT_MAX), (-3e9, INT_MIN)])
@pytest.mark.parametrize("name", ["round.w.s", "trunc.w.s", "ceil.w.s", "floor.w.s", "cvt.w.s"])
def test_conversion_of_nan_and_out_of_range(machine, name, value, expected):
    """(hw) inf and NaN rows of fpu.expected; +-3e9 follow the same rule (the hardware
    saturates like this for inf; finite out-of-range values are assumed to match)."""
    fpu(machine, [enc(name, fd=1, fs=0)], [value])
    assert machine.cpu.fpr_bits[1] == expected


@pytest.mark.parametrize("value,rint,cast,ceil,floor", [
    (0.5, 0, 0, 1, 0), (1.5, 2, 1, 2, 1), (2.5, 2, 2, 3, 2), (3.5, 4, 3, 4, 3),
    (-0.5, 0, 0, 0, -1), (-1.5, -2, -1, -1, -2), (-2.5, -2, -2, -2, -3)])
def test_cvt_w_s_follows_the_rounding_mode(machine, value, rint, cast, ceil, floor):
    """(hw) cvt.w.s rows of fpu.expected for RINT_0, CAST_1, CEIL_2, FLOOR_3."""
    got = []
    for rm in range(4):
        fpu(machine, [enc("cvt.w.s", fd=1, fs=0)], [value], fcr31=rm)
        got.append(struct.unpack("<i", struct.pack("<I", int(machine.cpu.fpr_bits[1])))[0])
    assert got == [rint, cast, ceil, floor]


def test_rounding_mode_applies_to_arithmetic(machine):
    """(hw) "Rounding modes with multiply" of fpu.expected."""
    got = []
    for rm in range(4):
        fpu(machine, [enc("mul.s", fd=2, fs=0, ft=1)], [0.2965576648712158203125, 62.0], fcr31=rm)
        got.append(f"{b2f(int(machine.cpu.fpr_bits[2])):.6f}")
    assert got == ["18.386576", "18.386574", "18.386576", "18.386574"]


CONDS = ["f", "un", "eq", "ueq", "olt", "ult", "ole", "ule", "sf", "ngle", "seq", "ngl", "lt", "nge", "le", "ngt"]


@pytest.mark.parametrize("a,b,expected", [
    (0.0, 0.0, "FFTTFFTTFFTTFFTT"), (NAN, 1.0, "FTFTFTFTFTFTFTFT"), (INF, 1.0, "FFFFFFFFFFFFFFFF"),
    (1.0, NAN, "FTFTFTFTFTFTFTFT")])
def test_all_sixteen_compare_conditions(machine, a, b, expected):
    """(hw) "Comparing" blocks of fpu.expected, read through bc1t."""
    got = ""
    for cond in CONDS:
        fpu(machine, [enc(f"c.{cond}.s", fs=0, ft=1), enc("bc1t", imm=2), enc("addiu", rt="v0", rs="zero", imm=0),
                      enc("addiu", rt="v0", rs="zero", imm=1)], [a, b])
        got += "F" if machine.cpu.regs[gpr("v0")] else "T"
    assert got == expected


def test_control_registers(machine):
    """(hw) fcr.expected: fcr0 reads 0x3351 and ignores writes; fcr31 keeps RM, flags,
    enables, cause, the condition bit and FS, and drops FO/FN/FCC1-7/unknown bits;
    other control registers read 0. A new thread starts with fcr31 = 0x00000e00."""
    from allegrex.cpu.state import CpuState
    assert CpuState().regs[FCR31] == 0x00000E00

    def cfc1_after_ctc1(value, reg):
        run_program(machine, [enc("lui", rt="t0", imm=value >> 16), enc("ori", rt="t0", rs="t0", imm=value & 0xFFFF),
                              enc("ctc1", rt="t0", rd=reg), enc("cfc1", rt="v0", rd=reg)])
        return int(machine.cpu.regs[gpr("v0")])

    assert cfc1_after_ctc1(0xDEADBEEF, 0) == 0x3351
    for written, read in [(0x3, 0x3), (0x7C, 0x7C), (0xF80, 0xF80), (0x1F000, 0x1F000), (0x01000000, 0x01000000),
                          (0x00400000, 0), (0x00200000, 0), (0x00800000, 0x00800000), (0xFE000000, 0),
                          (0x001C0000, 0)]:
        assert cfc1_after_ctc1(written, 31) == read
    assert cfc1_after_ctc1(0x12345678, 25) == 0


def test_moves_keep_nan_payloads_and_signs(machine):
    fpu(machine, [enc("mov.s", fd=1, fs=0), enc("neg.s", fd=2, fs=0), enc("abs.s", fd=3, fs=2),
                  enc("mfc1", rt="v0", fs=0)], [0.0])
    machine.cpu.fpr_bits[0] = 0x7F800123  # a signalling NaN: must pass through moves untouched
    run_program(machine, [enc("mov.s", fd=1, fs=0), enc("neg.s", fd=2, fs=0), enc("abs.s", fd=3, fs=2),
                          enc("mfc1", rt="v0", fs=0)])
    assert list(machine.cpu.fpr_bits[1:4]) == [0x7F800123, 0xFF800123, 0x7F800123]
    assert machine.cpu.regs[gpr("v0")] == 0x7F800123


@pytest.mark.parametrize("name", ["add.s", "sub.s", "mul.s", "div.s"])
def test_two_nan_operands_give_the_first_ones_nan_quieted(machine, name):
    """A fixed rule, as no recorded PSP output pins the payload down: fs's NaN (a signaling
    one quieted), so the interpreter and every compiled copy of the operation agree."""
    for fs, ft in ((0xFFC00001, 0x7FC00000), (0x7FC00000, 0xFFC00001), (0x7F800001, 0xFFC00002)):
        machine.cpu.fpr_bits[:2] = [fs, ft]
        run_program(machine, [enc(name, fd=2, fs=0, ft=1)])
        assert machine.cpu.fpr_bits[2] == fs | 0x00400000, (hex(fs), hex(ft))
