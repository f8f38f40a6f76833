"""Known values for the Allegrex-only instructions and the hardware's integer edge
cases. Values marked (hw) are real-PSP results from pspautotests cpu_alu.expected;
the others follow from the instruction definitions (documented in the docstrings)."""

import os
from pathlib import Path

import pytest

from allegrex.cpu.asm import enc, gpr
from allegrex.cpu.state import HI, LO
from tests.cpu.conftest import run_program

T0, T1, T2 = gpr("t0"), gpr("t1"), gpr("t2")
ARITHMETIC_VALUES = [0, 1, 2, 0x81, 0x7F, 0x8123, 0x7FFF, 0x7FFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE, 0x80000000]


def r_r(machine, name, x):
    """`name t2, t0` (rd, rt form for BSHFL ops; rd, rs for clz/clo) with t0 = x."""
    operand = {"rs": "t0"} if name in ("clz", "clo") else {"rt": "t0"}
    run_program(machine, [enc(name, rd="t2", **operand)], {T0: x})
    return int(machine.cpu.regs[T2])


def r_rr(machine, name, x, y):
    run_program(machine, [enc(name, rd="t2", rs="t0", rt="t1")], {T0: x, T1: y})
    return int(machine.cpu.regs[T2])


def hilo(machine, name, lo, hi, a, b):
    """mtlo/mthi then `name a, b` (madd & co.): the 64-bit HI:LO result."""
    run_program(machine, [enc("mtlo", rs="t0"), enc("mthi", rs="t1"), enc(name, rs="t2", rt="t3")],
                {T0: lo, T1: hi, T2: a, gpr("t3"): b})
    return (int(machine.cpu.regs[HI]) << 32) | int(machine.cpu.regs[LO])


# (hw) rows of cpu_alu.expected for the one-operand ops over ARITHMETIC_VALUES.
HW_R_R = {
    "seb": [0x0, 0x1, 0x2, 0xFFFFFF81, 0x7F, 0x23, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE, 0x0],
    "seh": [0x0, 0x1, 0x2, 0x81, 0x7F, 0xFFFF8123, 0x7FFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE, 0x0],
    "bitrev": [0x0, 0x80000000, 0x40000000, 0x81000000, 0xFE000000, 0xC4810000, 0xFFFE0000, 0xFFFFFFFE,
               0xFFFFFFFF, 0x7FFFFFFF, 0x1],
    "clo": [0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0x1F, 0x1],
    "clz": [0x20, 0x1F, 0x1E, 0x18, 0x19, 0x10, 0x11, 0x1, 0x0, 0x0, 0x0],
    "wsbh": [0x0, 0x100, 0x200, 0x8100, 0x7F00, 0x2381, 0xFF7F, 0xFF7FFFFF, 0xFFFFFFFF, 0xFFFFFEFF, 0x800000],
    "wsbw": [0x0, 0x1000000, 0x2000000, 0x81000000, 0x7F000000, 0x23810000, 0xFF7F0000, 0xFFFFFF7F,
             0xFFFFFFFF, 0xFEFFFFFF, 0x80],
}


@pytest.mark.parametrize("name", sorted(HW_R_R))
def test_one_operand_ops_match_hardware(machine, name):
    got = [r_r(machine, name, x) for x in ARITHMETIC_VALUES]
    assert got == HW_R_R[name]


def test_ext_and_ins_match_hardware(machine):
    # (hw) `ins rt, rs, 4, 13` and `ext rt, rs, 6, 17` with (rt, rs) inputs
    def ins(rt, rs, pos, size):
        run_program(machine, [enc("ins", rt="t0", rs="t1", sa=pos, rd=pos + size - 1)], {T0: rt, T1: rs})
        return int(machine.cpu.regs[T0])

    def ext(rs, pos, size):
        run_program(machine, [enc("ext", rt="t0", rs="t1", sa=pos, rd=size - 1)], {T1: rs})
        return int(machine.cpu.regs[T0])

    assert [ins(0xFFFFFFFF, 0, 4, 13), ins(0x12345678, 0xFEDCBA98, 4, 13), ins(0, 0xFFFFFFFF, 4, 13)] == \
        [0xFFFE000F, 0x1235A988, 0x0001FFF0]
    assert [ext(0x00000000, 6, 17), ext(0xFEDCBA98, 6, 17), ext(0xFFFFFFFF, 6, 17)] == \
        [0x00000000, 0x000172EA, 0x0001FFFF]
    # edges: a field at bit 0, a 1-bit field at bit 31, the whole word
    assert ext(0x80000001, 0, 1) == 1 and ext(0x80000001, 31, 1) == 1 and ext(0xDEADBEEF, 0, 32) == 0xDEADBEEF
    assert ins(0x00000000, 1, 31, 1) == 0x80000000
    assert ins(0xFFFFFFFF, 0, 0, 1) == 0xFFFFFFFE
    assert ins(0x12345678, 0xCAFEF00D, 0, 32) == 0xCAFEF00D


# (hw) test_madd etc.: mtlo a, mthi b, op c, d for the first 7 rows of cpu_alu.c's table.
MUL_ROWS = [(1, 2, 3, 4), (-1, -2, -3, -4), (0x80000000, 0x8FFFFFFF, 0x10000000, 0x42385722),
            (0x10000000, 0x1FFFFFFF, 0x70000000, 0x72233411), (0x12345678, 0x8FFFFFFF, 0x00033333, 0xFFFFFFFF),
            (0xFFFFFFFF, 0x00FFFFF0, 0x80000000, 0xFFFFFFFF), (0, 0, 0, 1)]
HW_MADD = {
    "madd": [8589934605, 18446744069414584331, 10674522264860360704, 5904050639243051008,
             10376293537471865669, 72057531760902143, 0],
    "maddu": [8589934605, 18446744039349813259, 10674522264860360704, 5904050639243051008,
              10377194256538346309, 9295429564320710655, 0],
    "msub": [8589934581, 18446744069414584307, 10078064813767917568, 17154379444840824832,
             10376293537472285099, 72057527465934847, 0],
    "msubu": [8589934581, 25769803763, 10078064813767917568, 17154379444840824832,
              10375392818405804459, 9295429568615677951, 0],
}


@pytest.mark.parametrize("name", sorted(HW_MADD))
def test_multiply_accumulate_matches_hardware(machine, name):
    got = [hilo(machine, name, a & 0xFFFFFFFF, b & 0xFFFFFFFF, c & 0xFFFFFFFF, d & 0xFFFFFFFF)
           for a, b, c, d in MUL_ROWS]
    assert got == HW_MADD[name]


def test_madd_carries_from_lo_into_hi(machine):
    assert hilo(machine, "maddu", 0xFFFFFFFF, 0, 1, 1) == 0x1_00000000
    assert hilo(machine, "madd", 0xFFFFFFFF, 0x7FFFFFFF, 1, 1) == 0x80000000_00000000
    assert hilo(machine, "msubu", 0, 1, 1, 1) == 0xFFFFFFFF


def test_rotate_right(machine):
    def rotr(x, sa):
        run_program(machine, [enc("rotr", rd="t2", rt="t0", sa=sa)], {T0: x})
        return int(machine.cpu.regs[T2])
    assert rotr(0x12345678, 0) == 0x12345678
    assert rotr(0x12345678, 4) == 0x81234567
    assert rotr(0x80000001, 31) == 0x00000003
    # rotrv takes the amount mod 32 from rs: (hw) rotrv rows of cpu_alu.expected
    assert _shift_v(machine, "rotrv", 0x8123, 1) == 0x80004091
    assert _shift_v(machine, "rotrv", 0x8123, 0x7FFFFFFF) == 0x00010246
    assert _shift_v(machine, "rotrv", 1, 0x80000000) == 1


def test_max_min_are_signed(machine):
    assert r_rr(machine, "max", 0xFFFFFFFF, 1) == 1
    assert r_rr(machine, "min", 0xFFFFFFFF, 1) == 0xFFFFFFFF
    assert r_rr(machine, "max", 0x80000000, 0x7FFFFFFF) == 0x7FFFFFFF
    assert r_rr(machine, "min", 0x80000000, 0x7FFFFFFF) == 0x80000000


def test_movz_movn(machine):
    assert r_rr(machine, "movz", 5, 0) == 5
    run_program(machine, [enc("movz", rd="t2", rs="t0", rt="t1")], {T0: 5, T1: 1, T2: 9})
    assert machine.cpu.regs[T2] == 9
    assert r_rr(machine, "movn", 5, 1) == 5


def divide(machine, name, a, b):
    run_program(machine, [enc(name, rs="t0", rt="t1")], {T0: a, T1: b})
    return int(machine.cpu.regs[LO]), int(machine.cpu.regs[HI])


def test_div_matches_hardware(machine):
    # (hw) test_div / test_divu rows of cpu_alu.expected: (lo, hi)
    assert divide(machine, "div", 1, 0xFFFFFFFF) == (0xFFFFFFFF, 0)
    assert divide(machine, "div", 0x80000000, 0xFFFFFFFE) == (0x40000000, 0)
    assert divide(machine, "div", 0x80000000, 0xC0000000) == (2, 0)
    assert divide(machine, "div", 100, 3) == (0x21, 1)
    assert divide(machine, "div", 17, 992234) == (0, 0x11)
    assert divide(machine, "divu", 0x80000000, 0xFFFFFFFF) == (0, 0x80000000)
    assert divide(machine, "divu", 1, 0xFFFFFFFF) == (0, 1)
    assert divide(machine, "divu", 100, 3) == (0x21, 1)
    assert divide(machine, "div", 0xFFFFFFF9, 2) == (0xFFFFFFFD, 0xFFFFFFFF)  # C truncation: -7/2


def test_div_by_zero_and_int_min_by_minus_one():
    """Not covered by the hardware tests; these follow PPSSPP's documented behaviour:
    div by 0 gives lo = -1 (rs >= 0) or 1 (rs < 0), hi = rs; divu by 0 gives
    lo = 0xFFFF (rs <= 0xFFFF) or 0xFFFFFFFF, hi = rs; INT_MIN / -1 gives lo = INT_MIN,
    hi = -1. None of them trap."""
    from allegrex.machine import Machine
    m = Machine("psp-1000")
    assert divide(m, "div", 5, 0) == (0xFFFFFFFF, 5)
    assert divide(m, "div", 0xFFFFFFFB, 0) == (1, 0xFFFFFFFB)
    assert divide(m, "divu", 5, 0) == (0xFFFF, 5)
    assert divide(m, "divu", 0x10000, 0) == (0xFFFFFFFF, 0x10000)
    assert divide(m, "div", 0x80000000, 0xFFFFFFFF) == (0x80000000, 0xFFFFFFFF)


def _expected_rows(path):
    rows = {}
    for line in path.read_text().splitlines():
        name, sep, values = line.partition(":")
        if sep and values.strip().startswith("0x"):
            rows[name.strip()] = [int(v, 16) for v in values.replace(",", " ").split()]
    return rows


@pytest.mark.parametrize("name", ["addu", "subu", "and", "or", "xor", "nor", "sllv", "srav", "rotrv",
                                  "slt", "sltu", "max", "min"])
def test_two_operand_rows_of_cpu_alu_expected(machine, pspautotests, name):
    """Every (x, y) pair of cpu_alu's value set against the real-hardware output."""
    rows = _expected_rows(pspautotests / "tests" / "cpu" / "cpu_alu" / "cpu_alu.expected")
    want = rows[name]
    got = [r_rr(machine, name, x, y) if name not in ("sllv", "srav", "rotrv")
           else _shift_v(machine, name, x, y) for x in ARITHMETIC_VALUES for y in ARITHMETIC_VALUES]
    assert got == want


def _shift_v(machine, name, x, y):
    """`sllv rd, rt, rs` reads the value from rt and the amount from rs (op_sllv(x, y) = x << y)."""
    run_program(machine, [enc(name, rd="t2", rt="t0", rs="t1")], {T0: x, T1: y})
    return int(machine.cpu.regs[T2])
