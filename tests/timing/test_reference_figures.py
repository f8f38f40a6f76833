"""The simulated figures of the hardware reference, pinned within 5% of the measured
value (the benchmark's target is the same; the tests use short loops: 1/32 of the
reference's iterations, 1/16 for memory: enough for the per-iteration figure to settle)."""

import pytest

from allegrex.timing import fidelity, reference

MEASURED = reference.figures()
TOLERANCE = 0.05

NO_VFPU = ["bvt", "bvf", "bvtl", "bvfl", "j", "jr", "beq",
           "add.s throughput", "add.s latency", "mul.s throughput", "mul.s latency",
           "div.s throughput", "div.s latency", "sqrt.s throughput", "sqrt.s latency",
           "mult throughput", "mult latency", "div throughput", "div latency"]
MEMORY = [f"mem {kind} {kib} KiB" for kind in ("seq latency", "random latency", "lw throughput")
          for kib in (8, 16, 32, 256, 4096)]
VFPU = ["vcmp->bvt", "vadd.q throughput", "vadd.q latency", "vdot.q throughput", "vdiv.t latency",
        "vmmul.q throughput", "vmmul.q latency", "vzero.p latency", "vrot.q latency", "vsin.t throughput",
        "vcmp.q latency", "vocp.t throughput", "vocp.t latency", "vocp.s latency", "vidt.q latency",
        "mem lv.q throughput 16 KiB", "mem lv.q throughput 4096 KiB"]


def check(name, iters):
    simulated = fidelity.run_figure(name, iters)
    assert simulated == pytest.approx(MEASURED[name], rel=TOLERANCE), f"{name}: simulated {simulated:.3f}"


@pytest.mark.parametrize("name", NO_VFPU)
def test_integer_fpu_and_branch_figures(name):
    check(name, fidelity.INST_ITERS // 32)


@pytest.mark.parametrize("name", MEMORY)
def test_memory_figures(name):
    check(name, fidelity.MEM_ITERS // 16)


@pytest.mark.parametrize("name", VFPU)
def test_vfpu_figures(name):
    check(name, fidelity.MEM_ITERS // 16 if name.startswith("mem ") else fidelity.INST_ITERS // 32)


def test_every_reference_figure_has_a_simulation():
    """The harness knows how to produce every figure (names as the reference prints them)."""
    assert fidelity.FIGURES == list(MEASURED)
    assert len(MEASURED) > 500
