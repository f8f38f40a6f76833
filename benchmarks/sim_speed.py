"""Simulated MIPS of the allegrex run loop vs Unicorn on the same machine code.

    PYTHONPATH=. python benchmarks/sim_speed.py [--elements N] [--repeat R] [--best K]

Five hand-assembled kernels: an int8 dot product (lb/lb/mult/mflo/addu), a float
multiply-accumulate loop (lwc1/lwc1/mul.s/add.s), a VFPU loop (lv.q/vadd.q/vdot.q/
vc2i.s/vi2f.q, 7 of its 10 words VFPU), a VFPU math loop (vmath: vabs/vmax/vdiv/vsat1/
vf2in/vmin/vsgn, what quantizing and clamping code does, 10 of its 12 words VFPU) and a
dot-product loop (vdot: two lv.q and eight vdot.q, what a matmul's inner loop does most),
and the inner step of the llama2 VFPU build's q80 matmul (q80mm: psp/apps/llama2/
matmul_vfpu.S's 67-word loop, 16 int8 weights of four rows against 16 activations: lv.q,
vc2i.s, vi2f.q, vdot.q, vadd.q; its rows and activations interleaved in 128-byte items).
`--kinds` picks some of them. Measured:
  - cold: a fresh process with an empty numba cache (compile included; the run loop is
    the same for both kernels, so once),
  - warm: a fresh process with the numba cache filled (load + run), per kernel,
  - steady: the run loop alone, already compiled (MIPS = simulated instructions / s),
    with the cycle model on (the default) and off, interpreted and as a compiled region
    (allegrex.cpu.jit: the loop compiled to machine code once; its compile time is shown),
and Unicorn (MIPS32 LE, QEMU TCG JIT) runs the identical words in the same process (not
the VFPU loop: Unicorn has no VFPU; its results are compared between our four runs).

    PYTHONPATH=. python benchmarks/sim_speed.py --llama [--tokens 64]

adds the wall time of the full llama2 stories15M q80 scalar run (64 positions) against
the 42.6 s the real PSP-2000 takes: through allegrex.bench.llama (timing model and
profiler on), then as `allegrex llama run` (profiler off) twice, the first run
compiling the hot loops and the second loading them from the cache.
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODE = 0x08804000
A = 0x08900000
B = 0x08A00000
KINDS = ("int8", "float", "vfpu", "vmath", "vdot", "q80mm")
VFPU_KINDS = ("vfpu", "vmath", "vdot", "q80mm")  # no Unicorn run: it has no VFPU


def kernel(kind, elements, repeat):
    """Machine code: `repeat` passes over `elements` items; ends with `break`.
    s0 = passes left; a0/a1 = the two arrays; v0 (int) or $f3 (float) accumulates."""
    from allegrex.cpu.asm import enc
    setup = [enc("lui", rt="s0", imm=repeat >> 16), enc("ori", rt="s0", rs="s0", imm=repeat & 0xFFFF)]
    outer = [enc("lui", rt="a0", imm=A >> 16), enc("lui", rt="a1", imm=B >> 16),
             enc("lui", rt="a2", imm=elements >> 16), enc("ori", rt="a2", rs="a2", imm=elements & 0xFFFF)]
    if kind == "q80mm":  # t0-t3 the four rows' weights, t4 the activations of an item
        outer += [enc("addiu", rt=f"t{k}", rs="a0", imm=16 * k) for k in range(5)]
    if kind == "vfpu":
        body, tail = vfpu_body()
    elif kind == "q80mm":
        body, tail = q80mm_body()
    elif kind == "vmath":
        body, tail = vmath_body()
    elif kind == "vdot":
        body, tail = vdot_body()
    elif kind == "int8":
        body = [enc("lb", rt="t0", rs="a0"), enc("lb", rt="t1", rs="a1"),
                enc("addiu", rt="a0", rs="a0", imm=1), enc("addiu", rt="a1", rs="a1", imm=1),
                enc("mult", rs="t0", rt="t1"), enc("mflo", rd="t2"),
                enc("addiu", rt="a2", rs="a2", imm=-1)]
        tail = [enc("addu", rd="v0", rs="v0", rt="t2")]
    else:
        body = [enc("lwc1", ft=0, rs="a0"), enc("lwc1", ft=1, rs="a1"),
                enc("addiu", rt="a0", rs="a0", imm=4), enc("addiu", rt="a1", rs="a1", imm=4),
                enc("mul.s", fd=2, fs=0, ft=1), enc("addiu", rt="a2", rs="a2", imm=-1)]
        tail = [enc("add.s", fd=3, fs=3, ft=2)]
    inner = body + [enc("bne", rs="a2", rt="zero", imm=-(len(body) + 1))] + tail
    close = [enc("addiu", rt="s0", rs="s0", imm=-1)]
    loop_len = len(outer) + len(inner) + len(close)
    close += [enc("bne", rs="s0", rt="zero", imm=-(loop_len + 1)), 0, enc("break")]
    words = [enc("ctc1", rt="zero", rd=31)] + setup + outer + inner + close
    return words


def vfpu_body():
    """The VFPU kernel's inner loop over 32-byte items at a0: two quad loads, vadd.q,
    vdot.q, vc2i.s, vi2f.q and two vadd.q accumulations into C200 (7 of 10 words VFPU)."""
    from allegrex.cpu.asm import enc
    from vfpu.asm import assemble
    body = [assemble(t) for t in ("lv.q C000, 0(a0)", "lv.q C010, 16(a0)", "vadd.q C020, C000, C010",
                                  "vdot.q S030, C000, C010", "vc2i.s C100, S000", "vi2f.q C110, C100, 0",
                                  "vadd.q C200, C200, C020")]
    body += [enc("addiu", rt="a0", rs="a0", imm=32), enc("addiu", rt="a2", rs="a2", imm=-1)]
    return body, [assemble("vadd.q C200, C200, C110")]


def vmath_body():
    """The VFPU math kernel's inner loop over 32-byte items at a0: two quad loads, then
    vabs/vmax/vdiv/vsat1/vf2in/vmin/vsgn.q and a vadd.q accumulation into C200."""
    from allegrex.cpu.asm import enc
    from vfpu.asm import assemble
    body = [assemble(t) for t in ("lv.q C000, 0(a0)", "lv.q C010, 16(a0)", "vabs.q C020, C000",
                                  "vmax.q C030, C020, C010", "vdiv.q C100, C000, C030", "vsat1.q C110, C100",
                                  "vf2in.q C120, C110, 7", "vmin.q C130, C000, C010", "vsgn.q C210, C130",
                                  "vadd.q C200, C200, C210")]
    body += [enc("addiu", rt="a0", rs="a0", imm=32), enc("addiu", rt="a2", rs="a2", imm=-1)]
    return body, [assemble("vocp.q C230, C110")]


def vdot_body():
    """The dot-product kernel's inner loop over 32-byte items at a0: two quad loads (C000,
    C010), eight vdot.q of their columns and rows (all distinct, so no two compute the same
    sum) into C100 and C110, and a vadd.q accumulating C100 into C200."""
    from allegrex.cpu.asm import enc
    from vfpu.asm import assemble
    dots = ["S100, C000, R000", "S101, C010, R001", "S102, C000, R002", "S103, C010, R003",
            "S110, R000, R001", "S111, R002, R003", "S112, C000, R003", "S113, C010, R002"]
    body = [assemble(t) for t in ["lv.q C000, 0(a0)", "lv.q C010, 16(a0)"] + [f"vdot.q {d}" for d in dots]]
    body += [enc("addiu", rt="a0", rs="a0", imm=32), enc("addiu", rt="a2", rs="a2", imm=-1)]
    return body, [assemble("vadd.q C200, C200, C100")]


def q80mm_body():
    """The llama2 VFPU build's q80 matmul inner step (psp/apps/llama2/matmul_vfpu.S, its
    register plan): four rows' 16 int8 weights (t0-t3) and 16 activations (t4) loaded,
    the weights turned into floats (vc2i.s, vi2f.q by 2^-24), 16 vdot.q and the four group
    sums' vadd.q (the last in the branch's delay slot). Pointers step over 128-byte items
    (the kernel's own step over separate rows: 16 and 64 bytes)."""
    from allegrex.cpu.asm import enc
    from vfpu.asm import assemble
    loads = [f"lv.q C1{r}0, 0(t{r})" for r in range(4)] + [f"lv.q C0{k}0, {16 * k}(t4)" for k in range(4)]

    def c2i(rows):  # row r's four weight words into M2 (first row) or M4 (second)
        return [f"vc2i.s C{m}{k}0, S1{r}{k}" for m, r in zip((2, 4), rows) for k in range(4)]

    i2f = [f"vi2f.q C{m}{k}0, C{m}{k}0, 24" for m in (2, 4) for k in range(4)]

    def dots(rows):
        return [f"vdot.q S3{k}{r}, C{m}{k}0, C0{k}0" for m, r in zip((2, 4), rows) for k in range(4)]

    text = loads + c2i((0, 1)) + i2f + dots((0,))[:4] + c2i((2,))[:4] + dots((0, 1))[4:] + c2i((2, 3))[4:]
    text += i2f + dots((2, 3))
    body = [assemble(t) for t in text]
    body += [enc("addiu", rt=f"t{k}", rs=f"t{k}", imm=128) for k in range(5)] + [enc("addiu", rt="a2", rs="a2", imm=-1)]
    body += [assemble(f"vadd.q C5{k}0, C5{k}0, C3{k}0") for k in range(3)]
    return body, [assemble("vadd.q C530, C530, C330")]


def data(kind, elements):
    import numpy as np
    rng = np.random.default_rng(1)
    if kind == "q80mm":  # an item: four rows' 16 int8 weights, 16 activations (integers as floats)
        weights = rng.integers(-128, 128, (elements, 64), dtype=np.int8).view(np.uint8)
        x = rng.integers(-127, 128, (elements, 16)).astype(np.float32).view(np.uint8)
        return np.concatenate([weights, x], axis=1).tobytes(), b""
    if kind in VFPU_KINDS:  # 8 floats per item; the second array is unused
        return rng.standard_normal(8 * elements).astype(np.float32).tobytes(), b""
    if kind == "int8":
        a = rng.integers(-128, 128, elements, dtype=np.int8)
        b = rng.integers(-128, 128, elements, dtype=np.int8)
    else:
        a = rng.standard_normal(elements).astype(np.float32)
        b = rng.standard_normal(elements).astype(np.float32)
    return a.tobytes(), b.tobytes()


def run_allegrex(kind, elements, repeat, timing=True, jit=False):
    """(instructions, seconds in the run loop, result) for one full run; jit: hot loops run
    as compiled regions (compiled on the first hot branch; see compile_seconds)."""
    from allegrex.cpu.jit import Jit
    from allegrex.machine import Machine
    m = Machine("psp-2000", timing=timing)
    m.jit = Jit(m._read_word, threshold=1000 if jit else 0, compile_after=0)
    words = kernel(kind, elements, repeat)
    a, b = data(kind, elements)
    m.load_raw(A, a)
    m.load_raw(B, b)
    m.load_raw(CODE, struct.pack(f"<{len(words)}I", *words), entry=CODE)
    t = time.perf_counter()
    ev = m.run(max_instructions=10**12)
    dt = time.perf_counter() - t
    assert ev.kind == "break", ev
    assert not jit or m.jit.instructions > 0.95 * m.instructions, "the loop did not run compiled"
    if kind in VFPU_KINDS:  # every VFPU register's bits
        result = hash(m.cpu.vpr_bits.tobytes())
    else:
        result = int(m.cpu.regs[2]) if kind == "int8" else float(m.cpu.fpr[3])
    return m.instructions, dt, result


def compile_seconds(kind, elements):
    """Wall seconds to compile the kernel's region (a fresh one: unseen code words)."""
    from allegrex.cpu.jit import store
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        real = store._folder
        store._folder = lambda: Path(folder)  # an empty region cache: compile, do not load
        try:
            run_allegrex(kind, elements, 1, jit=True)
        finally:
            store._folder = real
    return time.perf_counter() - t


def run_unicorn(kind, elements, repeat):
    import unicorn
    from unicorn import mips_const as M
    words = kernel(kind, elements, repeat)
    a, b = data(kind, elements)
    uc = unicorn.Uc(unicorn.UC_ARCH_MIPS, unicorn.UC_MODE_MIPS32 | unicorn.UC_MODE_LITTLE_ENDIAN)
    uc.mem_map(0x08800000, 0x400000)
    uc.mem_write(A, a)
    uc.mem_write(B, b)
    code = struct.pack(f"<{len(words)}I", *words)
    uc.mem_write(CODE, code)
    t = time.perf_counter()
    uc.emu_start(CODE, CODE + 4 * (len(words) - 1))  # stop at the break
    dt = time.perf_counter() - t
    if kind == "int8":
        result = uc.reg_read(M.UC_MIPS_REG_V0) & 0xFFFFFFFF
    else:
        result = struct.unpack("<f", struct.pack("<I", uc.reg_read(M.UC_MIPS_REG_F3) & 0xFFFFFFFF))[0]
    return dt, result


def child(kind, elements, repeat):
    """One fresh process: time from start to finished run (imports + compile/load + run)."""
    t0 = time.perf_counter()
    n, dt, result = run_allegrex(kind, elements, repeat)
    print(json.dumps({"total": time.perf_counter() - t0, "loop": dt, "instructions": n}))


def fresh_process(kind, elements, repeat, cache_dir=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, __file__, "--child", kind, "--elements", str(elements),
                          "--repeat", str(repeat)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def llama_scalar_wall(tokens=64):
    """The full scalar llama2 run in the simulator: wall seconds vs the real PSP's."""
    sys.path.insert(0, str(ROOT))
    from allegrex.bench import published
    from allegrex.bench.llama import bench_llama
    t = time.perf_counter()
    run = bench_llama("stories15M", ("scalar",), tokens, show_progress=True)["kernels"][0]
    wall = time.perf_counter() - t
    real = published.REAL_SCALAR_SECONDS * tokens / published.REAL_SCALAR_TOKENS
    print(f"llama2 stories15M q80 scalar, {tokens} positions: simulated {run.get('seconds', 0):.1f} s of PSP time "
          f"({run.get('tok_per_s', 0):.2f} tok/s) in {wall:.1f} s of wall time (run loop {run['wall_seconds']:.1f} s, "
          f"{run['instructions_simulated'] / run['wall_seconds'] / 1e6:.1f} MIPS); the real PSP-2000 takes "
          f"{real:.1f} s: {'faster' if wall < real else 'slower'} than the handheld by {max(wall, real) / min(wall, real):.2f}x")
    # The same run as a user runs it (`allegrex llama run`: timing on, profiler off), twice:
    # the first may compile its hot loops, the second loads them from the disk cache.
    from allegrex.bench.models import bundled_model
    model, tokenizer = bundled_model("stories15M")
    cmd = [sys.executable, "-m", "allegrex", "llama", "run", "--model", str(model), "--tokenizer", str(tokenizer),
           "--steps", str(tokens), "--kernel", "scalar", "--prompt", "", "--clock", "333"]
    for attempt in ("first", "second"):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        wall = time.perf_counter() - t
        print(f"`allegrex llama run` (profiler off), {attempt} run: {wall:.1f} s of wall time for the {tokens} positions "
              f"vs {real:.1f} s on the real PSP-2000 ({'faster' if wall < real else 'slower'} by "
              f"{max(wall, real) / min(wall, real):.2f}x)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--elements", type=int, default=65536)
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--child", choices=KINDS)
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"the kernels, comma-separated (default {','.join(KINDS)})")
    parser.add_argument("--best", type=int, default=1,
                        help="run each measured loop this many times and keep the fastest (a noisy host)")
    parser.add_argument("--llama", action="store_true", help="also time the full 64-position llama2 scalar run")
    parser.add_argument("--tokens", type=int, default=64, help="positions of the --llama run")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: each of {', '.join(KINDS)}")
    if args.child:
        child(args.child, args.elements, args.repeat)
        return
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as empty_cache:
        cold = fresh_process("int8", args.elements, 1, cache_dir=empty_cache)
    print(f"cold start (fresh process, empty numba cache, compile + 1 int8 pass): {cold['total']:.1f} s")
    print(f"{'':<7} {'':>11} {'':>7} {'interpreter MIPS':>19} {'compiled MIPS':>17} {'':>9} "
          f"{'':>8} {'':>9}")
    print(f"{'kernel':<7} {'instr':>11} {'warm s':>7} {'timed':>9} {'untimed':>9} {'timed':>8} {'untimed':>8} "
          f"{'compile s':>9} {'unicorn':>8} {'timed/unicorn':>13}  results agree")
    for kind in kinds:
        fresh_process(kind, args.elements, 1)  # make sure the default cache is filled
        warm = fresh_process(kind, args.elements, 1)
        def fastest(**mode):  # the quickest of --best runs: (instructions, seconds, result)
            return min((run_allegrex(kind, args.elements, args.repeat, **mode) for _ in range(args.best)),
                       key=lambda run: run[1])
        n, dt, ours = fastest()
        n2, dt2, ours2 = fastest(timing=False)
        compile_s = compile_seconds(kind, args.elements)
        run_allegrex(kind, args.elements, 1, jit=True, timing=False)  # compile the untimed region
        n3, dt3, ours3 = fastest(jit=True)
        n4, dt4, ours4 = fastest(jit=True, timing=False)
        agree = ours == ours2 == ours3 == ours4
        unicorn_mips = ratio = "-"
        if kind not in VFPU_KINDS:
            udt, theirs = run_unicorn(kind, args.elements, args.repeat)
            agree = agree and ours == theirs
            unicorn_mips, ratio = f"{n / udt / 1e6:.1f}", f"{udt / dt3:.2f}"
        print(f"{kind:<7} {n:>11,} {warm['total']:>7.2f} {n / dt / 1e6:>9.1f} {n2 / dt2 / 1e6:>9.1f} "
              f"{n3 / dt3 / 1e6:>8.1f} {n4 / dt4 / 1e6:>8.1f} {compile_s:>9.1f} {unicorn_mips:>8} "
              f"{ratio:>13}  {agree}")
    print("warm: seconds for a fresh process to import, load the cached run loop and run one pass "
          f"({args.elements} elements); MIPS: {args.repeat} passes, the fastest of {args.best} runs, run loop only; timed = with the "
          "cycle model (allegrex.timing), untimed = Machine(timing=False); compiled = the loop as a "
          "compiled region (allegrex.cpu.jit), whose compile time is shown apart; timed/unicorn: "
          "compiled and timed against Unicorn.")
    if args.llama:
        llama_scalar_wall(args.tokens)


if __name__ == "__main__":
    main()
