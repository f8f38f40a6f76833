"""The VFPU matmul kernels of the llama2 port, run alone on the simulated CPU.

q80: the VFPU sums int8 x int8 products as floats; every partial sum is an integer below
2^24, so the result must equal the scalar kernel (runq.c's arithmetic) bit for bit.
fp32: the VFPU adds in another order, so it agrees to rounding only."""

import numpy as np
import pytest

vfpu_exec = pytest.importorskip("vfpu.exec", reason="the VFPU has not landed on this branch")

from allegrex.llama import kernel_lab  # noqa: E402


def random_q80(rng, d, n, gs):
    wq = rng.integers(-127, 128, size=(d, n)).astype(np.int8)
    ws = (rng.random(d * n // gs) * 0.01 + 1e-4).astype(np.float32)
    xq = rng.integers(-127, 128, size=n).astype(np.int8)
    xs = (rng.random(n // gs) * 0.1 + 1e-3).astype(np.float32)
    return wq, ws, xq, xs


@pytest.mark.parametrize("d,n,gs,step", [(8, 64, 16, 16), (8, 128, 64, 16), (8, 128, 64, 32), (12, 172, 4, 4),
                                         (4, 96, 32, 4), (4, 288, 32, 32), (8, 192, 96, 32)])
def test_q80_kernels_equal_the_scalar_kernel_bit_for_bit(d, n, gs, step):
    rng = np.random.default_rng(d * 1000 + n + gs)
    wq, ws, xq, xs = random_q80(rng, d, n, gs)
    run = kernel_lab.run_q80(wq, ws, xq.astype(np.float32), xs, gs, step=step)
    assert np.array_equal(run.out, kernel_lab.scalar_q80(wq, ws, xq, xs, gs))


def test_q80_extremes_stay_exact():
    # every product at +-127*127: the largest group sums the kernel must still add exactly
    d, n, gs = 4, 256, 256
    wq = np.full((d, n), -127, dtype=np.int8)
    wq[1] = 127
    xq = np.full(n, 127, dtype=np.int8)
    ws, xs = np.ones(d * n // gs, np.float32), np.ones(n // gs, np.float32)
    run = kernel_lab.run_q80(wq, ws, xq.astype(np.float32), xs, gs)
    assert run.out.tolist() == [-127 * 127 * 256, 127 * 127 * 256, -127 * 127 * 256, -127 * 127 * 256]


def test_fp32_kernel_agrees_to_rounding():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((12, 172)).astype(np.float32)
    x = rng.standard_normal(172).astype(np.float32)
    run = kernel_lab.run_fp32(w, x)
    ref = (w.astype(np.float64) @ x.astype(np.float64))
    assert np.max(np.abs(run.out - ref)) < 1e-5 * np.sqrt(172) * np.abs(ref).max()


def test_wide_q80_kernel_costs_about_one_instruction_per_weight():
    rng = np.random.default_rng(9)
    wq, ws, xq, xs = random_q80(rng, 32, 256, 64)
    per_weight = {step: kernel_lab.run_q80(wq, ws, xq.astype(np.float32), xs, 64, step=step).instructions / wq.size
                  for step in (16, 32)}
    # per 16 weights of a row: one quad load, 4 vc2i.s + 4 vi2f.q + 4 vdot.q, plus sums and loop overhead
    assert 0.9 < per_weight[32] < per_weight[16] < 1.2, per_weight
