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


# step 32 with group size 32 is vfpu_q80_group32 (one block of rows, one group per row,
# several blocks and groups); other step-32 shapes are vfpu_q80_rows32
@pytest.mark.parametrize("d,n,gs,step", [(8, 64, 16, 16), (8, 128, 64, 16), (8, 128, 64, 32), (12, 172, 4, 4),
                                         (4, 96, 32, 4), (4, 288, 32, 32), (12, 32, 32, 32), (8, 64, 32, 32),
                                         (20, 768, 32, 32),
                                         (8, 192, 96, 32)])
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


@pytest.mark.parametrize("d,n", [(8, 32), (16, 96), (24, 288), (40, 768)])
def test_blocked_q80_kernel_equals_the_scalar_kernel_bit_for_bit(d, n):
    rng = np.random.default_rng(d * 7 + n)
    wq, ws, xq, xs = random_q80(rng, d, n, 32)
    wq[0], xq[:32] = 127, 127                   # a group at the largest sum, +127*127*32
    wq[1, :32], wq[2] = -128, -127              # the int8 extreme and the largest negative sums
    ws[0], ws[1], xs[-1] = 1e30, 1e-30, 100.0   # huge and tiny scales (the VFPU flushes denormals: none here)
    run = kernel_lab.run_q80(wq, ws, xq.astype(np.float32), xs, 32, blocked=True)
    ref = kernel_lab.scalar_q80(wq, ws, xq, xs, 32)
    assert np.array_equal(run.out.view(np.uint32), ref.view(np.uint32))


def test_blocked_layout_puts_eight_rows_and_their_scales_in_one_record():
    wq = np.arange(16 * 64).reshape(16, 64).astype(np.int8)
    ws = np.arange(32, dtype=np.float32)        # row r, group g: scale 2r + g
    records = np.frombuffer(kernel_lab.block_q80(wq, ws, 32), np.uint8).reshape(-1, 288)
    assert len(records) == 4                    # 2 blocks x 2 groups
    block1_group1 = records[3]
    assert np.array_equal(block1_group1[:256].view(np.int8).reshape(8, 32), wq[8:16, 32:64])
    assert block1_group1[256:].view("<f4").tolist() == [2.0 * r + 1 for r in range(8, 16)]


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


def test_group32_kernel_is_the_one_picked_for_group_size_32():
    assert kernel_lab.q80_kernel_name(32, 32) == "vfpu_q80_group32"
    assert kernel_lab.q80_kernel_name(32, 64) == "vfpu_q80_rows32"


def test_group32_kernel_costs_about_1_1_instructions_per_weight():
    rng = np.random.default_rng(11)
    wq, ws, xq, xs = random_q80(rng, 64, 288, 32)
    run = kernel_lab.run_q80(wq, ws, xq.astype(np.float32), xs, 32)
    # per 128 weights (4 rows x 32): 96 conversions and dot products, 16 quad loads,
    # 10 sums and scalings, 5 scale loads, 10 pointer steps and the loop branch; plus
    # each block's set-up
    assert 1.08 < run.instructions / wq.size < 1.11, run.instructions / wq.size
    # VFPU waits only in the final drain (the last group's chain of dependent sums) and
    # for the quarter issue cycle of one vzero.q per block of four rows
    assert run.counters["vfpu"] < 40 and run.counters["vfpu-issue"] <= 64 // 4 // 4, run.counters


def test_blocked_group32_kernel_costs_0_95_instructions_per_weight():
    rng = np.random.default_rng(11)
    wq, ws, xq, xs = random_q80(rng, 64, 288, 32)
    run = kernel_lab.run_q80(wq, ws, xq.astype(np.float32), xs, 32, blocked=True)
    # per 256 weights (8 rows x 32): 192 conversions and dot products, 16 weight and 8
    # activation quad loads, 20 sums and scalings, 3 scale loads, 3 pointer steps and the
    # branch (vfpu_q80_group32: 281 for the same weights); plus each block's stores
    assert 0.94 < run.instructions / wq.size < 0.96, run.instructions / wq.size
    # VFPU waits only in the final drain (rows 4-7's chain of dependent sums) and for the
    # quarter issue cycle of two vzero.q per block of eight rows
    assert run.counters["vfpu"] < 40 and run.counters["vfpu-issue"] <= 2 * 64 // 8 // 4, run.counters


def random_q40(rng, d, n):
    q = rng.integers(-8, 8, size=(d, n)).astype(np.int8)
    h = (rng.random((d, n // 32)) * 0.01 + 1e-4).astype(np.float16)
    xq = rng.integers(-127, 128, size=n).astype(np.int8)
    xs = (rng.random(n // 32) * 0.1 + 1e-3).astype(np.float32)
    return q, h, xq, xs


@pytest.mark.parametrize("d,n", [(8, 32), (16, 96), (24, 288), (40, 768)])
def test_q40_kernel_equals_the_scalar_kernel_bit_for_bit(d, n):
    rng = np.random.default_rng(d * 11 + n)
    q, h, xq, xs = random_q40(rng, d, n)
    q[0], xq[:32] = -8, -127                    # a group at the largest sum, +8*127*32
    q[1, :16], q[1, 16:32], xq[32:64] = 7, -8, 127  # both nibbles at their extremes
    h[0, 0], h[1, 0], h[2, 0] = 6e4, 7e-5, 3e-5     # a large half; the smallest normal; a subnormal (read as 0)
    run = kernel_lab.run_q40(q, h, xq, xs)
    ref = kernel_lab.scalar_q40(q, h, xq, xs, 32)
    assert np.array_equal(run.out.view(np.uint32), ref.view(np.uint32))


def test_q40_kernel_costs_under_a_cycle_per_weight_of_instructions_and_no_vfpu_waits():
    rng = np.random.default_rng(12)
    q, h, xq, xs = random_q40(rng, 64, 288)
    run = kernel_lab.run_q40(q, h, xq, xs)
    # per 256 weights (8 rows x 32): 128 conversions (4 per word of 8 weights) and 64 dot
    # products (as many as q80's), 16 weight and 8 activation quad loads, 2 scale loads and
    # 2 vh2f, 14 sums and scalings, 4 pointer steps and the branch; plus each block's stores
    assert 0.96 < run.instructions / q.size < 0.99, run.instructions / q.size
    assert run.counters["vfpu"] < 0.05 * q.size, run.counters


@pytest.mark.parametrize("n,gs", [(288, 32), (768, 32), (256, 64), (64, 16)])
def test_vfpu_quantize_equals_quantize_act(n, gs):
    rng = np.random.default_rng(n + gs)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    x[:gs] = 0.0                      # an all-zero group: q = 0, scale 0
    x[gs:gs + 8] = [127.0, 2.5, -3.5, 0.49999997, -0.5, -0.0, 126.5, -1.5]  # scale 1: t = x, ties
    run, q, s = kernel_lab.run_quantize(x, gs)
    ref_q, ref_s = kernel_lab.quantize_reference(x, gs)
    assert q[gs:gs + 8].tolist() == [127, 3, -4, 0, -1, 0, 127, -2]  # roundf: halves away from zero
    assert np.array_equal(q, ref_q)
    assert np.array_equal(s.view(np.uint32), ref_s.view(np.uint32))
    assert np.array_equal(run.out.view(np.uint32), ref_q.astype(np.float32).view(np.uint32))  # qf: +0, never -0


@pytest.mark.parametrize("case", ["random", "ties", "first", "last", "tail", "rising"])
def test_vfpu_argmax_gives_the_first_index_of_the_largest_value(case):
    rng = np.random.default_rng(len(case))
    p = rng.standard_normal(32000 if case != "tail" else 1000).astype(np.float32)
    if case == "ties":      # the largest value three times, in different chunks
        p[[700, 701, 20000]] = 9.0
    elif case == "first":
        p[0] = 9.0
    elif case == "last":
        p[-1] = 9.0
    elif case == "tail":    # 1000 = 15 chunks of 64 + 40 values the C loop checks
        p[990] = 9.0
    elif case == "rising":  # a new best in every chunk
        p = np.arange(32000, dtype=np.float32)
    run, best = kernel_lab.run_argmax(p)
    assert best == int(np.argmax(p))  # numpy: the first occurrence, as argmax_scalar


@pytest.mark.parametrize("scale", [0.01, 1.0, 4.0, 30.0])
def test_vfpu_swiglu_equals_the_c_bit_for_bit(scale):
    rng = np.random.default_rng(int(scale * 100))
    hb = np.clip(rng.standard_normal(768) * scale, -80, 80).astype(np.float32)
    hb2 = (rng.standard_normal(768) * 2).astype(np.float32)
    hb[:4] = [80.0, -80.0, 1e-30, -1e-30]           # the edges it still takes
    hb2[:4] = [1.0, 3e36, 1.0, 1.0]
    run, quads = kernel_lab.run_swiglu(hb, hb2)
    assert quads == 192
    if scale == 1.0:    # two quads per step: the correctly rounded vdiv (56 cycles a quad) is most of it
        assert run.cycles / hb.size < 55, run.cycles / hb.size
    assert np.array_equal(run.out.view(np.uint32), kernel_lab.swiglu_reference(hb, hb2).view(np.uint32))


@pytest.mark.parametrize("hb_value,hb2_value", [(80.5, 1.0), (-100.0, 1.0), (np.nan, 1.0), (np.inf, 1.0),
                                                (1e-39, 1.0), (0.0, 1.0), (0.5, 0.0), (0.5, 1e-40), (-79.0, 1e-6),
                                                (3.0, np.inf), (3.0, 3e38)])
@pytest.mark.parametrize("quad", [2, 3])          # the first or the second quad of a step
def test_vfpu_swiglu_leaves_to_the_c_what_it_cannot_give_exactly(hb_value, hb2_value, quad):
    # too large for its range check, denormal or non-finite input, zero / denormal / overflowing result
    rng = np.random.default_rng(1)
    hb = rng.standard_normal(24).astype(np.float32)
    hb2 = rng.standard_normal(24).astype(np.float32)
    hb[4 * quad + 1], hb2[4 * quad + 1] = hb_value, hb2_value
    run, quads = kernel_lab.run_swiglu(hb, hb2)
    assert quads == quad
    done = 4 * quad
    ref = kernel_lab.swiglu_reference(hb, hb2)
    assert np.array_equal(run.out[:done].view(np.uint32), ref[:done].view(np.uint32))
    assert np.array_equal(run.out[done:].view(np.uint32), hb[done:].view(np.uint32))   # left as they were


def test_vfpu_swiglu_leaves_an_odd_last_quad_to_the_c():
    hb, hb2 = np.linspace(-3, 3, 20, dtype=np.float32), np.ones(20, np.float32)
    run, quads = kernel_lab.run_swiglu(hb, hb2)
    assert quads == 4 and np.array_equal(run.out[16:], hb[16:])
    assert np.array_equal(run.out[:16].view(np.uint32), kernel_lab.swiglu_reference(hb, hb2)[:16].view(np.uint32))


def test_expf_reference_is_a_float_exp():
    x = np.linspace(-87, 88, 20001, dtype=np.float32)
    rel = np.abs(kernel_lab.expf_reference(x).astype(np.float64) / np.exp(x.astype(np.float64)) - 1)
    assert rel.max() < 3e-7                         # within ~2.5 ulp of float32


def test_swiglu_constants_are_the_sdk_expf_constants():
    import re

    source = (kernel_lab.APP_DIR / "kernels_vfpu.c").read_text()
    block = re.search(r"SwigluArgs a = \{0, 0, 0, 0, \{(.*?)\}\};", source, re.S).group(1)
    limits = {"FLT_MIN": np.finfo(np.float32).tiny, "FLT_MAX": np.finfo(np.float32).max}
    values = [limits.get(v.strip(), None) or float(v.strip().rstrip("f")) for v in block.split(",")]
    assert np.array_equal(np.array(values, np.float32), kernel_lab.swiglu_constants())
