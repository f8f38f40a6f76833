"""pspautotests tests/cpu/vfpu under `allegrex run`: output equal to the real PSP's
.expected. vector.prx differs only in lines this project documents as approximations
(vasin's hardware approximation, 1-ulp rounding of the dot-product adder model)."""

import pytest

PASSING = ["colors", "convert", "gum", "matrix", "prefixes", "vavg"]


def run(autotests, name):
    from allegrex.commands.test import normalise, run_one
    prx = autotests / f"{name}.prx"
    got, stop = run_one(str(prx), max_seconds=10, timeout=1200)
    want = normalise(prx.with_suffix(".expected").read_text(encoding="latin-1"))
    return normalise(got), want, stop


@pytest.mark.parametrize("name", PASSING)
def test_program_prints_what_the_psp_printed(autotests, name):
    got, want, stop = run(autotests, name)
    assert stop.kind == "exit"
    assert got == want


def test_vector_differs_only_in_documented_approximations(autotests):
    got, want, stop = run(autotests, "vector")
    assert stop.kind == "exit" and len(got) == len(want)
    diff = [(g, w) for g, w in zip(got, want) if g != w]
    for g, w in diff:
        op = w.split(":")[0]
        assert op.split("_")[0] in ("vasin", "vdot", "vhdp"), (g, w)
        pairs = zip(g.split(":")[1].split(","), w.split(":")[1].split(","))
        assert all(abs(float(a) - float(b)) <= 2e-6 * max(1.0, abs(float(b))) for a, b in pairs), (g, w)
    print(f"vector.prx: {len(want) - len(diff)}/{len(want)} lines identical")
    assert len(diff) <= 19
