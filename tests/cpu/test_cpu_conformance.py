"""Issue 4's acceptance programs from hrydgard/pspautotests (real-PSP .expected output),
run through `allegrex test`'s runner. Needs $PSPAUTOTESTS (skips without it)."""

import pytest

from allegrex.commands.test import first_difference, normalise, run_one

PROGRAMS = ["cpu_alu/cpu_alu", "cpu_alu/cpu_branch", "cpu_alu/cpu_branch2", "fpu/fpu", "fpu/fcr", "lsu/lsu"]


@pytest.mark.parametrize("name", PROGRAMS)
def test_cpu_program_prints_what_the_psp_printed(pspautotests, name):
    prx = pspautotests / "tests" / "cpu" / f"{name}.prx"
    got, stop = run_one(str(prx), max_seconds=10, timeout=120)
    want = normalise(prx.with_suffix(".expected").read_text(encoding="latin-1"))
    lines = normalise(got)
    assert lines == want, f"{first_difference(lines, want)} (stop: {stop.kind})"
    assert stop.kind == "exit"
