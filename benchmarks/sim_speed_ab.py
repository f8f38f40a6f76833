"""sim_speed's kernels in two checkouts side by side: process CPU seconds per mode.

    python benchmarks/sim_speed_ab.py BASE_CHECKOUT [--this CHECKOUT] [--rounds 3] [--elements 65536] [--repeat 60]
    python benchmarks/sim_speed_ab.py BASE_CHECKOUT --kinds vfpu --modes compiled:timed --rounds 12 --no-compile

For each kernel (`--kinds`, default int8 and float; any of sim_speed.py's) and mode
(interpreted/compiled x timed/untimed) a fresh process per checkout runs the kernel once to
warm up (compiling its region, which the region cache then keeps); then the two take turns,
on one core, each running `--repeat` passes timed with time.process_time around Machine.run
(the CPU time of the run alone), `--best` turns each, and the fastest of each side's counts.
No side measures while the other compiles, and both meet the same spells of load: this
host's slow spells last seconds and hit one core at a time (the same kernel swung 68 to 127
ns a pass from run to run, and measured 0.54-1.87x itself in runs made at the same moment on
the two cores; MEASURED 2026-12-07). Each ratio is this checkout's instructions per CPU
second over the base's (>1: faster); the rounds alternate which checkout takes the first
turn. The summary gives per mode the ratios' median and range, their geometric mean with two
standard errors either way (~95%: a change counts as faster only when it leaves 1 out) and
the rounds this checkout won. Run against itself, the VFPU loop gave 1.025 (0.99-1.06) in
8 rounds of 5 turns (`--kinds vfpu --modes compiled:timed --rounds 8 --repeat 20 --best 5
--no-compile`; MEASURED 2026-12-07). Also: each checkout's region compile time (CPU seconds, an
empty region cache) and whether both give the same instruction count, cycle count and result.
"""

import argparse
import hashlib
import importlib.util
import json
import math
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
MODES = (("interp", True), ("interp", False), ("compiled", True), ("compiled", False))


def _checkout_sim_speed(root):
    """The checkout's own sim_speed module (its kernels and data) with its root on sys.path."""
    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("sim_speed", Path(root) / "benchmarks" / "sim_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _machine(sim, kind, elements, repeat, timing, jit):
    from allegrex.cpu.jit import Jit
    from allegrex.machine import Machine
    m = Machine("psp-2000", timing=timing)
    m.jit = Jit(m._read_word, threshold=1000 if jit else 0, compile_after=0)
    words = sim.kernel(kind, elements, repeat)
    a, b = sim.data(kind, elements)
    m.load_raw(sim.A, a)
    m.load_raw(sim.B, b)
    m.load_raw(sim.CODE, struct.pack(f"<{len(words)}I", *words), entry=sim.CODE)
    return m


def _timed_run(sim, kind, elements, repeat, timing, jit):
    m = _machine(sim, kind, elements, repeat, timing, jit)
    t = time.process_time()
    ev = m.run(max_instructions=10**12)
    cpu = time.process_time() - t
    assert ev.kind == "break", ev
    assert not jit or m.jit.instructions > 0.95 * m.instructions, "the loop did not run compiled"
    if kind in sim.VFPU_KINDS:  # every VFPU register's bits
        result = hashlib.sha256(m.cpu.vpr_bits.tobytes()).hexdigest()[:16]
    else:
        result = int(m.cpu.regs[2]) if kind == "int8" else float(m.cpu.fpr[3])
    return dict(cpu=cpu, instructions=int(m.instructions), cycles=int(m.cycles), result=result)


def child(root, kind, mode, timing, elements, repeat, cpu):
    if cpu >= 0:
        os.sched_setaffinity(0, {cpu})
    sim = _checkout_sim_speed(root)
    jit = mode == "compiled"
    _timed_run(sim, kind, elements, 1, timing, jit)  # compiles (or loads) the loop and the region
    print("ready", flush=True)
    while sys.stdin.readline().strip() == "go":  # one run at a time, taking turns with the other checkout
        print(json.dumps(_timed_run(sim, kind, elements, repeat, timing, jit)), flush=True)


def compile_child(root, kind, timing, elements):
    """CPU seconds of a run of one pass that compiles its region into an empty cache,
    minus the same run loading nothing (interpreted): the region's compile time."""
    sim = _checkout_sim_speed(root)
    from allegrex.cpu.jit import store
    _timed_run(sim, kind, elements, 1, timing, False)  # the run loop compiled/loaded first
    with tempfile.TemporaryDirectory() as folder:
        store._folder = lambda: Path(folder)
        t = time.process_time()
        _timed_run(sim, kind, elements, 1, timing, True)
        print(json.dumps(dict(cpu=time.process_time() - t)))


def _spawn(root, args):
    return subprocess.Popen([sys.executable, __file__, "--child", str(root)] + [str(a) for a in args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=root)


def _pair(base, this, args, swap=False, best=1):
    """The two checkouts' figures (base's, this one's): their runs take turns, `best` each,
    on one core, and the fastest of each side's counts (the module docstring says why);
    swap: this checkout takes the first turn."""
    order = [this, base] if swap else [base, this]
    if args[0] == "compile":
        outs = [json.loads(_finish(_spawn(root, args)).strip().splitlines()[-1]) for root in order]
        return outs[::-1] if swap else outs
    core = min(os.sched_getaffinity(0))
    procs = [_spawn(root, args + [core]) for root in order]
    for p in procs:
        p.stdout.readline()  # "ready": warmed up (compiled), before any turn
    runs = [[], []]
    for _ in range(best):
        for k, p in enumerate(procs):
            p.stdin.write("go\n")
            p.stdin.flush()
            line = p.stdout.readline()
            if not line:
                raise SystemExit(f"child failed in {p.args}")
            runs[k].append(json.loads(line))
    outs = []
    for p, rs in zip(procs, runs):
        _finish(p, "done\n")
        outs.append(min(rs, key=lambda r: r["cpu"]))
    return outs[::-1] if swap else outs


def _finish(p, text=None) -> str:
    """The rest of a child's output, once it has ended well."""
    out, _ = p.communicate(text)
    if p.returncode:
        raise SystemExit(f"child failed in {p.args}")
    return out


def _interval(ratios) -> str:
    """The ratios' geometric mean (2x and 0.5x cancel) and two standard errors either way:
    a change is shown only when the interval leaves 1 out."""
    if len(ratios) < 2:
        return "-"
    logs = [math.log(r) for r in ratios]
    mean, spread = statistics.mean(logs), 2 * statistics.stdev(logs) / len(logs) ** 0.5
    return f"{math.exp(mean):.3f} ({math.exp(mean - spread):.2f}-{math.exp(mean + spread):.2f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path, help="the other checkout (e.g. a git worktree of an older commit)")
    parser.add_argument("--this", type=Path, default=HERE, help="the checkout measured against base (this one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--elements", type=int, default=65536)
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--best", type=int, default=3, help="runs per checkout a round, taking turns; the fastest counts")
    parser.add_argument("--kinds", default="int8,float")
    parser.add_argument("--modes", default="all", help="e.g. compiled:timed,interp:untimed (default: all four)")
    parser.add_argument("--no-compile", action="store_true", help="skip the region compile times")
    if sys.argv[1:2] == ["--child"]:  # one measuring process (see _spawn)
        root, *rest = sys.argv[2:]
        if rest[0] == "compile":
            compile_child(root, rest[1], rest[2] == "True", int(rest[3]))
        else:
            kind, mode, timing, elements, repeat, cpu = rest
            child(root, kind, mode, timing == "True", int(elements), int(repeat), int(cpu))
        return
    args = parser.parse_args()
    base, this = args.base.resolve(), args.this.resolve()
    kinds = args.kinds.split(",")
    from sim_speed import KINDS
    if not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: each one of {', '.join(KINDS)}")
    modes = [(m, t) for m, t in MODES if args.modes == "all" or f"{m}:{'timed' if t else 'untimed'}" in args.modes]
    ratios = {}
    for r in range(args.rounds):
        for kind in kinds:
            for mode, timing in modes:
                b, ours = _pair(base, this, [kind, mode, timing, args.elements, args.repeat], swap=r % 2 == 1,
                                best=args.best)
                ratio = (ours["instructions"] / ours["cpu"]) / (b["instructions"] / b["cpu"])
                same = all(b[k] == ours[k] for k in ("instructions", "cycles", "result"))
                ratios.setdefault((kind, mode, timing), []).append(ratio)
                print(f"round {r + 1} {kind:<5} {mode:<8} {'timed' if timing else 'untimed':<7} "
                      f"base {b['instructions'] / b['cpu'] / 1e6:7.1f} MIPS  this {ours['instructions'] / ours['cpu'] / 1e6:7.1f}"
                      f" MIPS  this/base {ratio:5.2f}  same instructions/cycles/result: {same}", flush=True)
    print(f"\n{'kernel':<6} {'mode':<8} {'model':<7} {'this/base median':>16}  range      ratio (~95%)     faster")
    for (kind, mode, timing), rs in ratios.items():
        print(f"{kind:<6} {mode:<8} {'timed' if timing else 'untimed':<7} {statistics.median(rs):>16.2f}  "
              f"{min(rs):.2f}-{max(rs):.2f}  {_interval(rs):<15}  {sum(r > 1 for r in rs)} of {len(rs)}")
    if not args.no_compile:
        for kind in kinds:
            for timing in (True, False):
                b, ours = _pair(base, this, ["compile", kind, timing, args.elements])
                print(f"region compile, {kind} {'timed' if timing else 'untimed'}: base {b['cpu']:.1f} s, "
                      f"this {ours['cpu']:.1f} s of CPU")


if __name__ == "__main__":
    main()
