"""`allegrex profile --annotate FUNC [--by-line]` on our SDK's saxpy kernels built with
-g and shipped stripped: per instruction and per source line, and both add up to the
function's row of the profile."""

import pytest

from allegrex.cli import main
from allegrex.timing.annotate import CAUSES, UnknownFunction, annotate, by_line, format_annotation, format_by_line
from tests.saxpy_app import build_saxpy, profile_saxpy, source_line

FUNCTIONS = ("saxpy_vfpu", "saxpy_vfpu2", "saxpy_c", "main", "memcpy")
N = 1024  # the program's vector length (psp/apps/saxpy/main.c)


@pytest.fixture(scope="module")
def saxpy(tmp_path_factory):
    return build_saxpy(tmp_path_factory.mktemp("annotate"))


@pytest.fixture(scope="module")
def profiled(saxpy):
    prof, report, _, _ = profile_saxpy(saxpy[0], symbols=saxpy[1])
    return prof, {r["function"]: r for r in report["functions"]}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_instruction_and_line_totals_are_the_functions_profile_row(profiled, name):
    prof, rows = profiled
    row = rows[name]
    ann = annotate(prof, name)
    for total in (ann["total"], _sum(by_line(ann))):
        assert total["cycles"] == row["cycles"] and total["count"] == row["instructions"]
        assert total["dcache_misses"] == row["dcache_misses"]
        assert {c: total[c] for c in CAUSES} == row["stall_causes"]
    assert sum(row["stall_causes"].values()) == row["stalls"]


def _sum(groups):
    return {k: sum(g[k] for g in groups) for k in groups[0] if k not in ("line", "addrs")}


def test_every_instructions_cycles_are_one_per_execution_plus_its_stalls(profiled):
    prof = profiled[0]
    for name in FUNCTIONS:
        for r in annotate(prof, name)["rows"]:
            assert r["cycles"] == r["count"] + sum(r[c] for c in CAUSES), (name, hex(r["addr"]))


def test_the_loops_run_as_often_as_the_vector_is_long(profiled):
    """saxpy_vfpu handles 4 floats per iteration, saxpy_vfpu2 8: their loop bodies run
    N/4 and N/8 times, the entry and exit once."""
    prof = profiled[0]
    for name, per in (("saxpy_vfpu", 4), ("saxpy_vfpu2", 8)):
        counts = [r["count"] for r in annotate(prof, name)["rows"]]
        assert counts[:4] == [1, 1, 1, 1] and counts[-2:] == [1, 1]
        assert set(counts[4:-2]) == {N // per}


def test_stalls_land_on_the_instruction_that_waits(profiled):
    """In saxpy_vfpu each step waits for the one before: vscl.q for its load (load-use),
    vadd.q for vscl.q and sv.q for vadd.q (VFPU latency); the taken bgtz pays the
    branch bubble."""
    rows = {r["text"].split()[0]: r for r in annotate(profiled[0], "saxpy_vfpu")["rows"]}
    assert rows["vscl.q"]["load-use"] > 0
    assert rows["vadd.q"]["vfpu"] > 0 and rows["sv.q"]["vfpu"] > 0
    assert rows["bgtz"]["branch"] > 0 and rows["lv.q"]["load-use"] == 0


def test_by_line_names_the_source_lines(profiled):
    prof = profiled[0]
    groups = by_line(annotate(prof, "saxpy_c"))
    body = source_line("saxpy.c", "y[i] += a * x[i];")
    lines = {g["line"].line: g for g in groups if g["line"] is not None}
    assert body in lines and lines[body]["count"] >= N  # at least one instruction per element
    text = format_by_line(annotate(prof, "saxpy_vfpu"))
    assert f"saxpy.S:{source_line('saxpy.S', 'vscl.q  C100, C100, S000')}" in text
    assert "vscl.q  C100, C100, S000         # a * x" in text and text.splitlines()[-1].startswith("total")


def test_the_command_prints_the_annotation(saxpy, capsys):
    eboot, elf = saxpy
    assert main(["profile", str(eboot), "--symbols", str(elf), "--quiet", "--annotate", "saxpy_vfpu2"]) == 0
    out = capsys.readouterr().out
    assert "saxpy_vfpu2 at 0x" in out and "vscl.q C110, C110, S000" in out


def test_an_unknown_function_is_one_line_with_the_close_names(saxpy, capsys):
    eboot, elf = saxpy
    assert main(["profile", str(eboot), "--symbols", str(elf), "--quiet", "--annotate", "saxpy_vfpu3"]) != 0
    err = capsys.readouterr().err
    assert "no function named 'saxpy_vfpu3' in" in err and "did you mean saxpy_vfpu, saxpy_vfpu2" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_stripped_program_without_its_symbols_cannot_be_annotated(saxpy, capsys):
    assert main(["profile", str(saxpy[0]), "--quiet", "--annotate", "saxpy_vfpu"]) != 0
    err = capsys.readouterr().err
    assert "has no symbols" in err and "--symbols FILE" in err and len(err.strip().splitlines()) == 1


def test_symbols_of_another_program_are_one_clear_error(saxpy, tmp_path, capsys):
    _, other = build_saxpy(tmp_path, reps=3)
    assert main(["profile", str(saxpy[0]), "--symbols", str(other), "--quiet"]) != 0
    err = capsys.readouterr().err
    assert "does not belong to" in err and len(err.strip().splitlines()) == 1


def test_unknown_function_from_python(profiled):
    with pytest.raises(UnknownFunction, match="did you mean"):
        annotate(profiled[0], "saxpy")
    assert format_annotation(annotate(profiled[0], "saxpy_c")).splitlines()[-1].startswith("total")
