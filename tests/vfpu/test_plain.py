"""The prefix-free short path (vfpu/plain.py) against the full path (exec.execute_rest,
prefix machinery and vector_op): the same register bits and control registers for random
words of every row it takes, on operands full of denormals, NaNs, infinities and zeros,
with overlapping registers, and with prefixes pending (which must bypass it). The lane-wise
float operations share vfpu.ops.lane_value with the full path: for them this compares the
reading, flushing and writing around it; their values are real PSPs' in the pspautotests
cpu/vfpu programs (tests/vfpu/test_hardware_outputs.py)."""

import numpy as np
import pytest

from allegrex.cpu.state import CpuState
from allegrex.memory import Memory
from vfpu.exec import decode, execute, execute_rest, new_scratch
from vfpu.plain import LANE_OPS, F2I_OPS, MOVE_OPS, OP_VC2I, OP_VCMP, OP_VDOT, OP_VI2F, OP_VONE, OP_VZERO, PACK_OPS
from vfpu.table import ROW_MASK, ROW_MATCH, ROW_OP

PLAIN_ROWS = [r for r in range(len(ROW_OP))
              if ROW_OP[r] in (*LANE_OPS, *F2I_OPS, *MOVE_OPS, *PACK_OPS, OP_VCMP, OP_VDOT, OP_VI2F, OP_VC2I, OP_VZERO, OP_VONE)]
SPECIALS = np.array([0, 0x80000000, 1, 0x807FFFFF, 0x00400000, 0x7F800000, 0xFF800000, 0x7FC00000,
                     0xFFC00001, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0x00800000, 0x80800000], dtype=np.uint32)


def random_registers(rng):
    """128 lanes: a third specials, the rest random bits and small floats."""
    cells = rng.integers(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    small = rng.standard_normal(128).astype(np.float32).view(np.uint32)
    pick = rng.integers(0, 3, 128)
    cells[pick == 1] = small[pick == 1]
    cells[pick == 2] = SPECIALS[rng.integers(0, len(SPECIALS), int((pick == 2).sum()))]
    return cells


def run_both(word, bits, prefixes):
    """(vpr_bits, vctrl) after `word` through execute (short path first) and execute_rest."""
    out = []
    for full in (False, True):
        s, m = CpuState(), Memory("psp-2000")
        s.vpr_bits[:] = bits
        if prefixes is not None:
            s.vctrl[0], s.vctrl[1], s.vctrl[2] = prefixes
            s.vctrl[16:19] = 1
        event = np.zeros(8, dtype=np.int64)
        if full:
            scratch, terms = new_scratch()
            code = execute_rest(np.uint32(word), decode(np.uint32(word)), s.regs, s.vpr, s.vpr_bits, s.vctrl,
                                event, scratch, terms)
        else:
            code = execute(word, 0, s.regs, s.vpr, s.vpr_bits, s.vctrl, m.mem, m.mem32, m.memf32, m.ram_size, m.mapping, event)
        assert code == 0
        out.append((s.vpr_bits.copy(), s.vctrl.copy()))
    return out


@pytest.mark.parametrize("prefixes", [None, (0xE4, 0xE4, 0), (0x1B, 0xF00E4, 0x101)],
                         ids=["none", "identity-pending", "swizzle-neg-mask"])
def test_short_path_matches_full_path(prefixes):
    rng = np.random.default_rng(7)
    assert len(PLAIN_ROWS) >= 110  # 19 float ops and moves, 4 vf2i*, vi2f, vcmp x4 sizes; vscl/vdot x3, vc2i x2; vi2uc/vi2c x1, vi2us/vi2s x2
    for row in PLAIN_ROWS:
        for _ in range(40):
            free = int(rng.integers(0, 2**32)) & ~int(ROW_MASK[row]) & 0xFFFFFFFF
            if rng.random() < 0.3 and ROW_OP[row] != OP_VCMP:  # destination on a source: operands read first
                free = (free & ~0x7F) | ((free >> 8) & 0x7F)  # (vcmp has none: its low bits are the condition)
            word = int(ROW_MATCH[row]) | free
            (short_bits, short_ctrl), (full_bits, full_ctrl) = run_both(word, random_registers(rng), prefixes)
            assert np.array_equal(short_bits, full_bits), f"0x{word:08x}"
            assert np.array_equal(short_ctrl, full_ctrl), f"0x{word:08x}"


@pytest.mark.parametrize("name", ["vadd", "vsub", "vmul", "vscl", "vi2f", "vdot", "vc2i"])
def test_quad_ops_as_one_host_vector_match_the_full_path(name):
    """vfpu.lanes4 runs vadd/vsub/vmul/vscl/vi2f.q and vc2i on the four lanes at once, and the
    dot unit loads a column's four cells at once: the same bits as the full path, lane by
    lane, on many more operands than above (signed zeros, denormals both ways, NaNs of
    either sign as the first or second operand, infinities that cancel; rows and columns,
    the destination often on a source)."""
    from vfpu.table import OPS, find
    rng = np.random.default_rng(11)
    rows = [r for r in PLAIN_ROWS if ROW_OP[r] == OPS[name]]
    checked = 0
    while checked < 300:
        row = rows[int(rng.integers(0, len(rows)))]
        free = int(rng.integers(0, 2**32)) & ~int(ROW_MASK[row]) & 0xFFFFFFFF
        if rng.random() < 0.3:
            free = (free & ~0x7F) | ((free >> 8) & 0x7F)
        word = int(ROW_MATCH[row]) | free
        if find(word).size != 4 and name != "vc2i":  # (vc2i writes four lanes from either size)
            continue
        (short_bits, _), (full_bits, _) = run_both(word, random_registers(rng), None)
        assert np.array_equal(short_bits, full_bits), f"0x{word:08x}"
        checked += 1
