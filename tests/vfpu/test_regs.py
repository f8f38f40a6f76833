"""Register naming: which cells each name covers, and field <-> name both ways."""

import pytest

from vfpu import regs


def s(m, c, r):
    return regs.vpr_index(m, c, r)


@pytest.mark.parametrize("name,size,cells", [
    ("S123", 1, [s(1, 2, 3)]),
    ("C010", 4, [s(0, 1, r) for r in range(4)]),
    ("C012", 2, [s(0, 1, 2), s(0, 1, 3)]),
    ("C011", 3, [s(0, 1, 1), s(0, 1, 2), s(0, 1, 3)]),
    ("R102", 4, [s(1, c, 2) for c in range(4)]),
    ("R120", 2, [s(1, 2, 0), s(1, 3, 0)]),
    ("R713", 3, [s(7, 1, 3), s(7, 2, 3), s(7, 3, 3)]),
    # matrices: vector by vector; M's vectors are columns, E's are rows of the same cells
    ("M100", "m4", [s(1, c, r) for c in range(4) for r in range(4)]),
    ("E100", "m4", [s(1, c, r) for r in range(4) for c in range(4)]),
    ("M022", "m2", [s(0, 2, 2), s(0, 2, 3), s(0, 3, 2), s(0, 3, 3)]),
    ("E022", "m2", [s(0, 2, 2), s(0, 3, 2), s(0, 2, 3), s(0, 3, 3)]),
    ("M011", "m3", [s(0, c, r) for c in (1, 2, 3) for r in (1, 2, 3)]),
    ("E011", "m3", [s(0, c, r) for r in (1, 2, 3) for c in (1, 2, 3)]),
])
def test_name_covers_cells(name, size, cells):
    assert regs.cells(regs.parse(name, size), size) == cells


def test_single_field_layout_matches_the_manual():
    # S<m><c><r>: column in bits 0-1, matrix in 2-4, row in 5-6 (S010 = 1, S001 = 32).
    assert regs.parse("S010", 1) == 1
    assert regs.parse("S100", 1) == 4
    assert regs.parse("S001", 1) == 32
    assert regs.parse("R000", 4) == 32 and regs.parse("C000", 4) == 0
    assert regs.parse("C002", 2) == 64 and regs.parse("R020", 2) == 96
    assert regs.parse("C001", 3) == 64 and regs.parse("R010", 3) == 96


@pytest.mark.parametrize("size", [1, 2, 3, 4, "m2", "m3", "m4"])
def test_every_field_round_trips_through_its_name(size):
    for field in regs.valid_fields(size):
        assert regs.parse(regs.name(field, size), size) == field


def test_old_toolchain_size_suffix_and_case_are_accepted():
    assert regs.parse("c010.q", 4) == regs.parse("C010", 4)


@pytest.mark.parametrize("text,size", [("C001", 2), ("R011", 2), ("C010", "m2"), ("M010", 4),
                                       ("S800", 1), ("X000", 1), ("M011", "m4")])
def test_names_that_do_not_exist_for_a_size_are_rejected(text, size):
    with pytest.raises(regs.VfpuRegisterError):
        regs.parse(text, size)


def test_swizzle_lanes_past_the_size_continue_along_the_line():
    pair = regs.parse("C012", 2)  # rows 2, 3 of column 1 -> then rows 0, 1
    assert list(regs.VEC_CELLS[2, pair]) == [s(0, 1, 2), s(0, 1, 3), s(0, 1, 0), s(0, 1, 1)]
    row = regs.parse("R310", 3)
    assert list(regs.VEC_CELLS[3, row]) == [s(3, 1, 0), s(3, 2, 0), s(3, 3, 0), s(3, 0, 0)]


def test_control_register_names():
    assert regs.control_index("$131") == 131
    assert regs.control_index("VFPU_CC") == 131
    assert regs.control_index("rcx7") == 143
    with pytest.raises(regs.VfpuRegisterError):
        regs.control_index("$127")
