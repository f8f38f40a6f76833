"""Properties of the cycle model: determinism, cycle accounting, caches, the cache
instruction, memory regions, clock ratios, the timing switch."""

import pytest

from allegrex.cpu.asm import NOP, enc
from allegrex.timing import counters as C
from allegrex.timing import memstick_cycles, hle_call_cycles

DATA = 0x08900000


def loop(body, iters, tail=()):
    return ([enc("addiu", rt="a3", rs="zero", imm=iters)] + body + [enc("addi", rt="a3", rs="a3", imm=-1)]
            + list(tail) + [enc("bne", rs="a3", rt="zero", imm=-(len(body) + len(tail) + 2)), NOP, enc("break")])


def stream(iters=200, stride=64):
    """A load stream over 64 KiB (misses each line), then a dependent add."""
    body = [enc("lw", rt="t1", rs="s0", imm=0), enc("addu", rd="t2", rs="t2", rt="t1"),
            enc("addiu", rt="s0", rs="s0", imm=stride)]
    return loop(body, iters)


def at(reg, addr):
    def setup(m):
        m.cpu.regs[16] = addr
    return setup


def test_same_program_twice_gives_identical_counts(run):
    a = run(stream(), setup=at(16, DATA))
    b = run(stream(), setup=at(16, DATA))
    assert a.cycles == b.cycles and list(a.cpu.counters) == list(b.cpu.counters)


def test_every_cycle_is_accounted(run):
    m = run(stream(), setup=at(16, DATA))
    c = m.cpu.counters
    assert m.cycles == m.instructions + sum(int(c[k]) for k in C.STALLS) + int(c[C.OS_TICK_CYCLES])
    assert c[C.STALL_DCACHE] > 0 and c[C.STALL_LOAD_USE] > 0 and c[C.STALL_BRANCH] > 0


def test_timing_off_counts_one_cycle_per_instruction(run):
    m = run(stream(), setup=at(16, DATA), timing=False)
    assert m.cycles == m.instructions


def test_each_new_line_misses_once_and_reuse_hits(run):
    m = run(stream(iters=256, stride=16), setup=at(16, DATA))  # 4 loads per 64-byte line
    c = m.cpu.counters
    assert c[C.DCACHE_MISSES] == 64 and c[C.DCACHE_HITS] == 192


def test_scratchpad_and_uncached_views(run):
    scratch = run(stream(), setup=at(16, 0x00010000 - 0))
    assert scratch.cpu.counters[C.DCACHE_MISSES] == 0
    assert scratch.cpu.counters[C.SCRATCHPAD_ACCESSES] == 200
    cached = run(stream(iters=64, stride=4), setup=at(16, DATA))
    uncached = run(stream(iters=64, stride=4), setup=at(16, DATA | 0x40000000))
    assert uncached.cpu.counters[C.UNCACHED_ACCESSES] == 64
    assert uncached.cycles > 3 * cached.cycles  # every word goes to memory


def test_bus_clock_sets_the_miss_cost(run):
    """Same bus ratio (222/111, 333/166): the same cycles; a slower bus (333/111) costs more."""
    base = run(stream(), clock=(333, 166), setup=at(16, DATA)).cycles
    same_ratio = run(stream(), clock=(222, 111), setup=at(16, DATA))
    slow_bus = run(stream(), clock=(333, 111), setup=at(16, DATA)).cycles
    assert abs(same_ratio.cycles - base) <= 0.025 * base  # 333/166 is 2.006, and the OS tick share differs
    assert slow_bus > 1.3 * base


def test_cache_instruction_writeback_and_invalidate(run):
    """A dirty line written back and invalidated by `cache 0x1B` misses on the next load."""
    prog = [enc("sw", rt="t0", rs="s0", imm=0),
            enc("lw", rt="t1", rs="s0", imm=0),  # hit
            enc("cache", rs="s0", rt=0x1B, imm=0),  # hit writeback invalidate
            enc("lw", rt="t1", rs="s0", imm=0),  # miss again
            enc("break")]
    m = run(prog, setup=at(16, DATA))
    c = m.cpu.counters
    assert c[C.DCACHE_WRITEBACKS] == 1
    assert c[C.DCACHE_MISSES] == 2 and c[C.DCACHE_HITS] == 1


def test_cache_create_dirty_avoids_the_fill(run):
    prog = [enc("cache", rs="s0", rt=0x18, imm=0), enc("sw", rt="t0", rs="s0", imm=0), enc("break")]
    m = run(prog, setup=at(16, DATA))
    assert m.cpu.counters[C.DCACHE_MISSES] == 0 and m.cpu.counters[C.DCACHE_HITS] == 1


def test_clock_change_mid_run_is_followed_by_seconds(run):
    m = run(stream(), setup=at(16, DATA))
    t = m.timing
    cycles = m.cycles
    t.set_clock(222, 111, cycles)
    assert t.seconds(cycles + 222_000_000) - t.seconds(cycles) == pytest.approx(1.0)
    assert t.seconds(cycles) == pytest.approx(cycles / 333e6)
    assert "222/111" in t.clock_text()


def test_memstick_and_hle_costs():
    mb17 = memstick_cycles(17_000_000, 333)
    assert 2.1 < mb17 / 333e6 < 2.5  # 7-8 MB/s measured: reading a 17 MB model takes ~2.3 s
    assert memstick_cycles(0, 333) > 0  # a request has a fixed latency
    assert hle_call_cycles("syscall") > 0


def test_scepower_sets_the_timing_clock():
    from allegrex.hle import power
    from allegrex.hle.boot import new_kernel
    from allegrex.machine import Machine
    m = Machine("psp-2000")
    k = new_kernel(m)
    assert (m.timing.cpu_mhz, m.timing.bus_mhz) == (222, 111)  # the PSP boots at 222/111
    assert power.scePowerSetClockFrequency(k, 333, 333, 166) == 0
    assert (m.timing.cpu_mhz, m.timing.bus_mhz) == (333, 166)
    assert "333/166" in m.timing.clock_text()


def test_kernel_stores_leave_the_d_cache_as_the_same_stores_run_by_the_cpu(run):
    # the HLE's stack fill (a new thread's 0xFF) against a guest loop storing to each line
    size = 48 * 1024
    body = [enc("sw", rt="zero", rs="s0", imm=0), enc("addiu", rt="s0", rs="s0", imm=64)]
    cpu = run(loop(body, size // 64), setup=at(16, DATA)).timing.tm
    from allegrex.timing import Timing
    from allegrex.timing.layout import T_DC_TAG, T_IC_TAG
    kernel = Timing()
    kernel.kernel_stores(DATA, size)
    d_cache = slice(T_DC_TAG, T_IC_TAG)  # tags, dirty bits, LRU ways
    assert list(kernel.tm[d_cache]) == list(cpu[d_cache])
    assert kernel.tm[T_DC_TAG] == ((DATA + size - 16 * 1024) >> 6)  # the last 16 KiB stay


def _reference_wait(tm, t, operands, gpr, ctrl):
    """The VFPU wait's rule, written plainly: (the cycle the sources are ready, the stall
    counter charged, or None): the first source, in operand and cell order, then the GPR
    and the control register, to reach the latest ready cycle names the stall."""
    from allegrex.timing.layout import T_KIND, T_READY
    from allegrex.timing.classes import R_VPR
    from allegrex.timing.vfpu_classes import KIND_VEC, MAT_CELLS64, VEC_CELLS64
    ready, kind = t, C.STALL_VFPU
    sources = []
    for k, n, reg in operands:
        cells = VEC_CELLS64[n, reg, :n] if k == KIND_VEC else MAT_CELLS64[n, reg, :n * n] if k else []
        sources += [(tm[T_READY + R_VPR + c], tm[T_KIND + R_VPR + c]) for c in cells]
    if gpr >= 0:
        sources.append((tm[T_READY + gpr], tm[T_KIND + gpr]))
    if ctrl >= 0:
        sources.append((tm[T_READY + ctrl], C.STALL_VFPU))
    for r, k in sources:
        if r > ready:
            ready, kind = r, k
    return ready, (kind if ready > t else None)


@pytest.mark.parametrize("wait", ["vfpu_wait", "vfpu_wait_seldom"])
def test_a_vfpu_wait_charges_the_first_source_to_arrive_last(wait):
    """model.vfpu_wait (the interpreter's) and vfpu_wait_seldom (a compiled region's: the
    latest cycle first, the producer only when there is a wait) against the plain rule,
    on random scoreboards: ties, no wait, vectors, matrices, a GPR and a control register."""
    import numpy as np
    from allegrex.cpu.state import NCOUNTERS
    from allegrex.timing import Timing, model
    from allegrex.timing.classes import R_VCTRL
    from allegrex.timing.layout import T_KIND, T_READY
    rng = np.random.default_rng(7)
    for _ in range(3000):
        tm = Timing().tm.copy()
        tm[T_READY:T_KIND] = rng.integers(90, 110, T_KIND - T_READY)  # around t = 100: ties and waits
        tm[T_KIND:T_KIND + (T_KIND - T_READY)] = rng.choice([C.STALL_LOAD_USE, C.STALL_VFPU, C.STALL_FPU],
                                                           T_KIND - T_READY)
        operands = [(int(rng.integers(0, 3)), int(rng.integers(1, 5)), int(rng.integers(0, 128))) for _ in range(2)]
        gpr = int(rng.choice([-1, int(rng.integers(1, 32))]))
        ctrl = int(rng.choice([-1, R_VCTRL + int(rng.integers(0, 16))]))
        counters = np.zeros(NCOUNTERS, dtype=np.int64)
        (s_k, s_n, s_r), (t_k, t_n, t_r) = operands
        got = getattr(model, wait)(tm, counters, 100, s_k, s_n, s_r, t_k, t_n, t_r, gpr, ctrl)
        ready, kind = _reference_wait(tm, 100, operands, gpr, ctrl)
        assert got == ready
        expected = np.zeros(NCOUNTERS, dtype=np.int64)
        if kind is not None:
            expected[kind] = ready - 100
        assert (counters == expected).all(), (operands, gpr, ctrl)
