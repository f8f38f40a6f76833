"""The reference's measurements, repeated in the simulator with the same method.

Each figure of docs/reference/allegrex-timing.md is produced by the loop the hardware
test ran (pspdev/vfpu-docs psp-tests/performance and gen-perf-tests.py), hand-assembled
here from the decode tables: `li $a3, N; 1: <256 timed instructions>; sub $a3, $a3, 1;
bnez $a3, 1b; nop`, timed at 333/166 MHz and converted the way the test does
(microseconds from the cycle count, times 333, divided by 256 x N).

    run_figure("vadd.q latency") -> simulated figure
    FIGURES: every figure name, in reference order

VFPU figures need the vfpu package (they are reported as unavailable without it).
"""

import numpy as np
from numba import njit

from allegrex.cpu.asm import NOP, code_bytes, enc
from allegrex.machine import Machine
from allegrex.timing import reference
from allegrex.timing.vfpu_classes import vfpu_word
from vfpu import table as VFPU_TABLE

CODE = 0x08804000
MEMBUF = 0x08900010  # 16-byte aligned but not 64: see docs/timing.md (the 16 KiB rows)
CPU_MHZ, BUS_MHZ = 333, 166
INST_ITERS = 16384  # the reference's iteration counts
MEM_ITERS = 65536
MEM_SIZES_KIB = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)

FIGURES = list(reference.figures())


class Unavailable(Exception):
    """A figure that cannot be measured (benchmarks/timing_fidelity.py: the program did not print it)."""


def timed_loop(body, iters, tail=None):
    """li a3, iters; 1: body; sub a3, a3, 1; [tail]; bnez a3, 1b; <slot>; break."""
    head = [enc("lui", rt="a3", imm=iters >> 16)] if iters >= 0x8000 else [enc("addiu", rt="a3", rs="zero", imm=iters)]
    tail = tail or ([], NOP)
    mid, slot = tail
    loop = body + [enc("addi", rt="a3", rs="a3", imm=-1)] + mid
    back = -(len(loop) + 1)
    return head + loop + [enc("bne", rs="a3", rt="zero", imm=back), slot, enc("break")]


def simulate(words, setup=None, timing_kwargs=None):
    """Run `words` at CODE on a fresh machine at 333/166 MHz; returns the machine."""
    m = Machine("psp-1000")
    m.timing.set_clock(CPU_MHZ, BUS_MHZ, 0)
    if setup:
        setup(m)
    m.load_raw(CODE, code_bytes(words), entry=CODE)
    ev = m.run()
    if ev.kind != "break":
        raise RuntimeError(f"microbenchmark stopped with {ev}")
    return m


def method_cycles(m):
    """What the test computes: elapsed microseconds (whole) x 333."""
    return (m.cycles * 1_000_000 // (m.timing.cpu_mhz * 1_000_000)) * 333


# ---------------------------------------------------------------- branches ----------
def _branch_unit(kind):
    if kind in ("bvt", "bvf", "bvtl", "bvfl"):
        return [enc(kind, imm=9)] + [NOP] * 9
    if kind == "beq":
        return [enc("beq", rs="zero", rt="zero", imm=9)] + [NOP] * 9
    if kind == "jr":
        return [enc("jr", rs="t0"), enc("addiu", rt="t0", rs="t0", imm=40)] + [NOP] * 8
    raise ValueError(kind)


def branch_figure(kind, iters):
    units = 256
    if kind == "j":
        body = []
        for u in range(units):
            here = CODE + 4 * (1 + 10 * u)
            body += [enc("j", target=here + 40)] + [NOP] * 9
        words = timed_loop(body, iters)
    elif kind == "jr":
        first = CODE + 4 * 4 + 40  # label 2 of the first unit (after li, la t1 (2 words), move t0)
        setup = [enc("lui", rt="t1", imm=first >> 16), enc("ori", rt="t1", rs="t1", imm=first & 0xFFFF)]
        body = [w for _ in range(units) for w in _branch_unit("jr")]
        loop = timed_loop(body, iters, ([], enc("addu", rd="t0", rs="t1", rt="zero")))
        words = [loop[0]] + setup + [enc("addu", rd="t0", rs="t1", rt="zero")] + loop[1:]
        # the loop branch offset is unchanged: it is relative and the body moved as a whole
    else:
        body = [w for _ in range(units) for w in _branch_unit(kind)]
        words = timed_loop(body, iters)
    cc = 0x3F if kind in ("bvt", "bvtl") else 0

    def setup_cc(m):
        from allegrex.cpu.state import VFPU_CC
        m.cpu.vctrl[VFPU_CC] = cc  # what the test's vzero.q + vcmp.q EQ/NE leave

    m = simulate(words, setup_cc)
    return method_cycles(m) / (256 * iters)


def vcmp_bvt_figure(iters):
    words = []
    body_start = 1
    for u in range(256):
        at = body_start + 3 * u + 1  # index of the bvt
        words_b = [vfpu_word("vcmp.q", s=0, t=0, imm=(5, 0)), enc("bvt", imm=(body_start - (at + 1)) & 0xFFFF), NOP]
        words += words_b
    m = simulate(timed_loop(words, iters), _vfpu_ones)
    return method_cycles(m) / (256 * iters) - 2


# ---------------------------------------------------------------- FPU / ALU ---------
def fpu_body(name, latency):
    body = []
    for _ in range(32):
        for i in range(8):
            fd = 3 + i if not (latency and i == 7) else (2 if name != "sqrt.s" else 1)
            if latency:
                fs_chain = 2 if i == 0 else 2 + i  # previous result: f2 (wraps), f3..f9
                if name == "sqrt.s":
                    src = 1 if i == 0 else 2 + i
                    body.append(enc(name, fd=fd, fs=src))
                else:
                    body.append(enc(name, fd=fd, fs=1, ft=fs_chain))
            elif name == "sqrt.s":
                body.append(enc(name, fd=fd, fs=1))
            else:
                body.append(enc(name, fd=fd, fs=1, ft=2))
    return body


def _fpu_ones(m):
    m.cpu.fpr[1] = 1.0
    m.cpu.fpr[2] = 1.0


def fpu_figure(name, latency, iters):
    m = simulate(timed_loop(fpu_body(name, latency), iters), _fpu_ones)
    return method_cycles(m) / (256 * iters)


def alu_figure(name, latency, iters):
    body = []
    for _ in range(32):
        if latency:
            for i in range(8):
                body += [enc(name, rs="t0", rt="t1"), enc("mflo", rd=10 + i)]
        else:
            body += [enc(name, rs="t0", rt="t1")] * 8

    def regs(m):
        m.cpu.regs[8], m.cpu.regs[9] = 0x1EADC0FE, 0xF00DF00D

    m = simulate(timed_loop(body, iters), regs)
    return method_cycles(m) / (256 * iters)


# ---------------------------------------------------------------- VFPU --------------
IMM_PLACES = {"cmp": (7, 0), "dsi5": (15, 16), "cst": (15, 16), "rot": (15, 16), "cmov": (3, 16),
              "wbn": (127, 16), "iim": (32767, 0), "fim": (32767, 0)}


def _vfpu_ones(m):
    m.cpu.vpr[:] = 1.0  # the test's vmone.q M000..M700
    from allegrex.cpu.state import VFPU_CC
    m.cpu.vctrl[VFPU_CC] = 0  # mtvc $0, $131


def vfpu_words(name):
    """The 8 throughput encodings and 8 (instruction, vabs.q) latency pairs of gen-perf-tests."""
    text = "vuc2i.s" if name == "vuc2ifs.s" else name
    row = VFPU_TABLE.BY_NAME[text]
    imm = IMM_PLACES.get(row.fmt)
    inputs = [k for k in ("s", "t") if getattr(row, k) is not None]
    tput, lat = [], []
    for i in range(8):
        regs = {k: 4 * ((i + 1 + n) % 8) for n, k in enumerate(inputs)}
        d = 4 * (i % 8) if row.d is not None else None
        w = vfpu_word(text, d=d, imm=imm, **regs)
        tput.append(w)
        lat.append((w, vfpu_word("vabs.q", d=4 * (i % 8), s=4 * (i % 8))))
    return tput, lat


def vfpu_figure(name, latency, iters):
    tput, lat = vfpu_words(name)
    if latency:
        body = [w for i in range(256) for w in lat[i % 8]]
    else:
        body = [tput[i % 8] for i in range(256)]
    m = simulate(timed_loop(body, iters), _vfpu_ones)
    fig = method_cycles(m) / (256 * iters)
    return fig - 1 if latency else fig


# ---------------------------------------------------------------- memory ------------
@njit(cache=True)
def _newlib_rand_perm(buf, n, base, state):
    """The test's randomisation: 3n swaps of two entries picked by rand24() & (n-1),
    rand() being newlib's 64-bit LCG (seed 1, shared across sizes: state[0])."""
    s = np.uint64(state[0])
    for _ in range(n * 3):
        # rand24() = rand() ^ (rand() << 8): the left call is evaluated first
        s = s * np.uint64(6364136223846793005) + np.uint64(1)
        a = np.int64((s >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
        s = s * np.uint64(6364136223846793005) + np.uint64(1)
        b = np.int64((s >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
        p1 = (a ^ (b << 8)) & (n - 1)
        s = s * np.uint64(6364136223846793005) + np.uint64(1)
        a = np.int64((s >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
        s = s * np.uint64(6364136223846793005) + np.uint64(1)
        b = np.int64((s >> np.uint64(32)) & np.uint64(0x7FFFFFFF))
        p2 = (a ^ (b << 8)) & (n - 1)
        t = buf[p1]
        buf[p1] = buf[p2]
        buf[p2] = t
    state[0] = np.int64(s)


class RandomLists:
    """The linked lists of the random latency runs, generated in the test's order (one
    rand() sequence through the sizes 8 KiB..4 MiB)."""

    def __init__(self):
        self.state = np.ones(1, dtype=np.int64)
        self.lists = {}
        for kib in MEM_SIZES_KIB:
            n = kib * 256
            buf = (MEMBUF + 4 * ((np.arange(n, dtype=np.int64) + 1) % n)).astype(np.int64)
            _newlib_rand_perm(buf, n, MEMBUF, self.state)
            self.lists[kib] = buf.astype(np.uint32)


_RANDOM = None


def _membuf_setup(kib, random):
    def setup(m):
        global _RANDOM
        n = kib * 256
        if random:
            if _RANDOM is None:
                _RANDOM = RandomLists()
            values = _RANDOM.lists[kib]
        else:
            values = (MEMBUF + 4 * ((np.arange(n, dtype=np.int64) + 1) % n)).astype(np.uint32)
        off = m.memory.offset(MEMBUF, 4)
        m.memory.mem32[off // 4: off // 4 + n] = values
        m.cpu.regs[16] = MEMBUF  # s0: bufptr (%0)
        m.cpu.regs[17] = MEMBUF + 4 * (n - 1)  # s1: bufptr_end (%1)
    return setup


def mem_latency_figure(kib, random, iters):
    body = [enc("lw", rt="s0", rs="s0", imm=0)] * 256
    m = simulate(timed_loop(body, iters), _membuf_setup(kib, random))
    return method_cycles(m) / (256 * iters)


def _stream_tail():
    mid = [enc("addiu", rt="s0", rs="s0", imm=1024), enc("sltu", rd="v0", rs="s0", rt="s1")]
    return mid, enc("movz", rd="s0", rs="t0", rt="v0")


def mem_throughput_figure(kib, vector, iters):
    if vector:
        body = [vfpu_word("lv.q", d=0) | ((off + k) & 0xFFFC) | (16 << 21)
                for off in range(0, 2048, 512) for k in range(0, 512, 16)]
        loads = 128
    else:
        body = [enc("lw", rt="v0", rs="s0", imm=off) for off in range(0, 1024, 4)]
        loads = 256
    setup = _membuf_setup(kib, False)

    def full_setup(m):
        setup(m)
        m.cpu.regs[8] = MEMBUF  # t0: the wrap-around pointer

    m = simulate(timed_loop(body, iters, _stream_tail()), full_setup)
    return method_cycles(m) / (loads * iters)


# ---------------------------------------------------------------- dispatch ----------
def run_figure(name, iters=None):
    """The simulated value of figure `name` (a key of FIGURES)."""
    if name in ("bvt", "bvf", "bvtl", "bvfl", "j", "jr", "beq"):
        return branch_figure(name, iters or INST_ITERS)
    if name == "vcmp->bvt":
        return vcmp_bvt_figure(iters or INST_ITERS)
    if name.startswith("mem "):
        parts = name.split()
        kib = int(parts[-2])
        it = iters or MEM_ITERS
        if parts[1] == "seq":
            return mem_latency_figure(kib, False, it)
        if parts[1] == "random":
            return mem_latency_figure(kib, True, it)
        return mem_throughput_figure(kib, parts[1] == "lv.q", it)
    inst, metric = name.rsplit(" ", 1)
    latency = metric == "latency"
    it = iters or INST_ITERS
    if inst in ("add.s", "mul.s", "div.s", "sqrt.s"):
        return fpu_figure(inst, latency, it)
    if inst in ("mult", "div"):
        return alu_figure(inst, latency, it)
    return vfpu_figure(inst, latency, it)
