"""What the lab records per instruction: reads and writes by register name with their
values, prefixes as the operation sees them, memory, GPRs; JSON; the command line."""

import json
import struct

import pytest

from allegrex.cli import main
from vfpu import lab


def names(accesses):
    return [(a.kind, a.name) for a in accesses]


def test_reads_and_writes_by_name():
    trace = lab.run_snippet("vone.q C000\nvadd.q R100, C000, C000\nvdot.q S200, R100, C000")
    one, add, dot = trace.steps
    assert names(one.writes) == [("vpr", "C000")] and one.writes[0].values == [1.0] * 4
    assert names(add.reads) == [("vpr", "C000"), ("vpr", "C000")]
    assert add.writes[0].name == "R100" and [lab.cell_name(c) for c in add.writes[0].cells] == [
        "S100", "S110", "S120", "S130"]
    assert dot.writes[0].values == [8.0]
    assert trace.changed_cells == sorted({0, 1, 2, 3, 16, 20, 24, 28, 32})


def test_a_prefixed_source_shows_the_lanes_the_operation_sees():
    trace = lab.run_snippet("vone.q C000\nvpfxs [-w, |z|, 1/3, x]\nvadd.q C010, C000, C000")
    read = trace.steps[2].reads[0]
    assert read.note == "prefix [-w, |z|, 1/3, x]"
    assert read.values == [-1.0, 1.0, pytest.approx(1 / 3), 1.0]
    assert [lab.cell_name(c) for c in read.cells] == ["S003", "S002", "S000"]  # the constant reads no cell


def test_a_masked_destination_lane_is_not_written():
    trace = lab.run_snippet("vpfxd [, m, , m]\nvone.q C000")
    w = trace.steps[1].writes[0]
    assert [lab.cell_name(c) for c in w.cells] == ["S000", "S002"]
    assert trace.final_vpr_bits[1] == 0 and trace.final_vpr_bits[2] == 0x3F800000


def test_memory_and_gprs():
    trace = lab.run_snippet("la $a0, v\nlv.q C000, 0($a0)\nsv.s S002, 16($a0)\nlw $t0, 16($a0)\n"
                            ".data\nv: .float 1, 2, 3, 4\n.space 16", mem=[(0x08900000, [9.0])])
    load, store, lw = trace.steps[2:]
    assert ("mem", "0x08810000") in names(load.reads) and load.writes[0].values == [1.0, 2.0, 3.0, 4.0]
    assert store.writes == [lab.Access("mem", "0x08810010", [3.0])]
    assert lw.writes == [lab.Access("gpr", "$t0", [struct.unpack("<I", struct.pack("<f", 3.0))[0]])]


def test_integer_lanes_print_as_integers():
    trace = lab.run_snippet("vone.q C000\nvf2iz.q C010, C000, 4")
    assert trace.steps[1].writes[0].values == [16, 16, 16, 16]
    assert lab.fmt_value(16) == "16i" and lab.fmt_value(-0.0) == "-0"


def test_json_has_every_step(capsys):
    assert main(["vfpu", "--json", "-e", "vone.s S000; vadd.s S001, S000, S000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["instructions"] == 2 and data["total_cycles"] > 2 and data["timing_model"]
    assert data["steps"][1]["writes"][0] == {"kind": "vpr", "name": "S001", "values": [2.0], "cells": ["S001"],
                                             "note": ""}
    assert data["steps"][1]["timing"]["waited_for"] == "S000"
    assert data["final"]["S001"] == 2.0 and data["changed"] == ["S000", "S001"]


def test_text_output_marks_changed_cells(capsys):
    assert main(["vfpu", "--color", "never", "-e", "vone.s S321"]) == 0
    out = capsys.readouterr().out
    assert "M7" in out  # all 8 matrices by default
    row = next(line for line in out.splitlines() if line.startswith("r1") and "1*" in line)
    assert row.split()[-1] == "1*" or "1*" in row


def test_colour_on_request(capsys):
    assert main(["vfpu", "--color", "always", "--matrices", "used", "-e", "vone.s S000"]) == 0
    assert "\x1b[" in capsys.readouterr().out


def test_step_mode_walks_and_quits(monkeypatch, capsys):
    answers = iter(["", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["vfpu", "--step", "--color", "never", "-e", "vone.s S000; vone.s S001; vone.s S002"]) == 0
    out = capsys.readouterr().out
    assert "vone.s S001" in out and "vone.s S002" not in out


@pytest.mark.parametrize("argv, message", [
    (["vfpu"], "nothing to run"),
    (["vfpu", "/nonexistent/x.s"], "cannot read /nonexistent/x.s"),
    (["vfpu", "-e", "vadd.q C000"], "line 1: vadd.q C000"),
    (["vfpu", "-e", "nop", "--mem", "0x08900000"], "expected ADDR=v1,v2"),
    (["vfpu", "-e", "nop", "--mem", "0x08900002=1"], "multiple of 4"),
    (["vfpu", "-e", "nop", "--mem", "0x00000000=1"], "bad guest"),
    (["vfpu", "-e", "loop: b loop; nop"], "without reaching its end"),
    (["vfpu", "-e", "li $t0, 0x10; lw $t1, 0($t0)"], "load from a bad address"),
    (["vfpu", "-e", "# only a comment"], "no instructions"),
])
def test_bad_input_is_one_clear_line(argv, message, capsys, monkeypatch):
    monkeypatch.setattr(lab, "MAX_STEPS", 200)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("allegrex vfpu: error:") and message in err, err
    assert "Traceback" not in err


def test_html_is_self_contained(tmp_path):
    page = tmp_path / "run.html"
    assert main(["vfpu", "--html", str(page), "-e", "vone.q C000; vadd.q C010, C000, C000"]) == 0
    text = page.read_text()
    assert "<script" in text and "<style>" in text
    for banned in ("http://", "https://", " src=", "<link", "@import", "url("):
        assert banned not in text


def test_every_operand_kind_is_named():
    """Integer, FPU, HI/LO, byte and halfword memory, FPU branch, COP2 moves, control
    registers, immediates, vrot, partial quad loads/stores, random, matrices."""
    from pathlib import Path
    trace = lab.run_snippet((Path(__file__).parent / "every_operand_kind.s").read_text(), warm=True)
    by_text = {s.text.split()[0]: s for s in trace.steps}
    assert by_text["mult"].writes == [lab.Access("hilo", "hi", [0xFFFFFFFF]), lab.Access("hilo", "lo", [0xFFFFFFEB])]
    assert by_text["lb"].reads[-1].values == [0x00] and by_text["sb"].writes[-1].values == [7]
    assert by_text["sh"].writes[-1] == lab.Access("mem", "0x08810022", [0xFFFD])
    assert "nop" in [s.text for s in trace.steps] and len([s for s in trace.steps if s.text == "nop"]) == 1  # bc1t taken
    assert by_text["mtv"].writes[0].name == "S000" and by_text["mfv"].writes[0].name == "$t5"
    assert [a.name for a in by_text["vmtvc"].writes] == ["VFPU_CC"]
    assert by_text["vrndf1.q"].writes[-1].name == "VFPU_RCX0"
    assert by_text["vhtfm4.q"].writes[0].values[-1] == 1.0
