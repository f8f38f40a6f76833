"""Per-function profile rows add up to the total, and attribution lands where the code ran."""

from allegrex.cpu.asm import NOP, code_bytes, enc
from allegrex.machine import Machine
from allegrex.timing.profile import Marks, Profile, format_report, region
from tests.timing.conftest import CODE


def program():
    """main: calls `work` 100 times; work: 20 dependent multiplies."""
    work_at = CODE + 4 * 16
    main = [enc("addiu", rt="s1", rs="zero", imm=100),
            enc("jal", target=work_at), NOP,
            enc("addi", rt="s1", rs="s1", imm=-1),
            enc("bne", rs="s1", rt="zero", imm=-4), NOP,
            enc("break")]
    main += [NOP] * (16 - len(main))
    work = []
    for _ in range(20):
        work += [enc("mult", rs="t0", rt="t1"), enc("mflo", rd="t0")]
    work += [enc("jr", rs="ra"), NOP]
    symbols = [(CODE, 4 * 16, "main"), (work_at, 4 * len(work), "work")]
    return main + work, symbols


def test_rows_add_up_and_attribution():
    words, symbols = program()
    m = Machine("psp-1000")
    m.load_raw(CODE, code_bytes(words), entry=CODE)
    prof = Profile.start(m, base=CODE, size=4 * len(words), symbols=symbols)
    assert m.run().kind == "break"
    rep = prof.report()
    assert sum(r["cycles"] for r in rep["functions"]) == rep["cycles"] == m.cycles
    by = {r["function"]: r for r in rep["functions"]}
    assert by["work"]["instructions"] == 100 * 42
    assert by["main"]["instructions"] == 1 + 100 * 5 + 1
    assert by["work"]["cycles"] > 5 * by["main"]["cycles"]  # mult -> mflo dominates
    assert sum(r["instructions"] for r in rep["functions"]) == rep["instructions"]
    assert region(rep, "wo*")["cycles"] == by["work"]["cycles"]
    text = format_report(rep)
    assert "work" in text and "total" in text


def test_marks_bracket_a_span():
    words, _ = program()
    m = Machine("psp-1000")
    m.load_raw(CODE, code_bytes(words), entry=CODE)
    marks = Marks(m)
    marks.begin("all")
    m.run()
    span = marks.end("all")
    assert span["cycles"] == m.cycles and span["instructions"] == m.instructions
