"""Register views cover the right cells for every naming form.

The expected cells are derived here from the naming rules as pspdev/vfpu-docs
(docs/introduction.md, "Register set") draws them, not from vfpu.regs:
- S<m><c><r> is the float of matrix m at column c, row r.
- C<m><c><r> (column) holds rows r, r+1, ... of column c; R<m><c><r> (row) holds columns
  c, c+1, ... of row r. Pairs start at 0 or 2, triples at 0 or 1, quads at 0.
- M<m><c><r> of side n is the block of columns c..c+n-1 and rows r..r+n-1, read column by
  column; E<m><c><r> is the same block read row by row. 2x2 blocks start at 0 or 2 on
  both axes, 3x3 at 0 or 1, 4x4 at 0.
Every name the rules allow must be explained with exactly those cells in that order, and
every other spelling must be refused."""

import itertools

import pytest

from vfpu.lab import LabError, explain, view_cells

SIZE_SUFFIX = {1: "s", 2: "p", 3: "t", 4: "q"}
STARTS = {1: (0, 1, 2, 3), 2: (0, 2), 3: (0, 1), 4: (0,)}


def single(m, c, r):
    return f"S{m}{c}{r}"


def expected_views():
    """{name with suffix: [cell names in element order]} for every documented name."""
    out = {}
    for m, c, r in itertools.product(range(8), range(4), range(4)):
        out[f"S{m}{c}{r}.s"] = [single(m, c, r)]
    for n in (2, 3, 4):
        sfx = SIZE_SUFFIX[n]
        for m, fixed, start in itertools.product(range(8), range(4), STARTS[n]):
            out[f"C{m}{fixed}{start}.{sfx}"] = [single(m, fixed, start + i) for i in range(n)]
            out[f"R{m}{start}{fixed}.{sfx}"] = [single(m, start + i, fixed) for i in range(n)]
        for m, c0, r0 in itertools.product(range(8), STARTS[n], STARTS[n]):
            out[f"M{m}{c0}{r0}.{sfx}"] = [single(m, c0 + v, r0 + e) for v in range(n) for e in range(n)]
            out[f"E{m}{c0}{r0}.{sfx}"] = [single(m, c0 + e, r0 + v) for v in range(n) for e in range(n)]
    return out


EXPECTED = expected_views()


def test_the_documented_counts():
    # vfpu-docs: pairs and triples have 128 addressing modes, quads 64; matrices 64, 64, 16.
    count = lambda letters, sfx: sum(1 for k in EXPECTED if k[0] in letters and k.endswith(sfx))  # noqa: E731
    assert count("CR", ".p") == 128 and count("CR", ".t") == 128 and count("CR", ".q") == 64
    assert count("ME", ".p") == 64 and count("ME", ".t") == 64 and count("ME", ".q") == 16
    assert count("S", ".s") == 128


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_documented_name_covers_its_cells(name):
    info = explain(name)
    assert info["cells"] == EXPECTED[name]
    assert info["size"] == int("_sptq".index(name[-1]))


def test_every_other_spelling_is_refused():
    for letter, m, c, r, sfx in itertools.product("SCRME", range(8), range(4), range(4), "sptq"):
        name = f"{letter}{m}{c}{r}.{sfx}"
        if name in EXPECTED:
            continue
        with pytest.raises(LabError):
            view_cells(name)


def test_no_suffix_means_single_or_quad():
    assert explain("S123")["cells"] == ["S123"]
    assert explain("C130")["cells"] == EXPECTED["C130.q"]
    assert explain("E200")["cells"] == EXPECTED["E200.q"]


@pytest.mark.parametrize("name, words", [
    ("C011.t", "column vector of 3 (triple): matrix 0, column 1, rows 1 to 3"),
    ("R102.p", "row vector of 2 (pair): matrix 1, row 2, columns 0 to 1"),
    ("E100.t", "transpose view of the 3x3 block in matrix 1"),
])
def test_explanations_say_it_in_words(name, words):
    assert words in explain(name)["text"]


def test_an_impossible_name_says_which_starts_exist():
    with pytest.raises(LabError, match="triple starts at row 0 or 1"):
        explain("C012.t")
    with pytest.raises(LabError, match="bad VFPU register name"):
        explain("Q000")


def test_the_picture_numbers_each_covered_cell(capsys):
    from allegrex.cli import main
    assert main(["vfpu", "--explain", "R021.p", "--color", "never"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines if line[:2] in ("r0", "r1", "r2", "r3")}
    assert rows == {"r0": [".", ".", ".", "."], "r1": [".", ".", "0", "1"],
                    "r2": [".", ".", ".", "."], "r3": [".", ".", ".", "."]}


def test_a_bad_name_on_the_command_line_is_one_clear_line(capsys):
    from allegrex.cli import main
    assert main(["vfpu", "--explain", "R031.p"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("allegrex vfpu: error: R031.p is not a register: a pair starts at")
    assert "Traceback" not in err
