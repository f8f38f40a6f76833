"""Wall cost of a system call round trip (guest `jal stub` -> numba run loop exits ->
HLE dispatch in Python -> back into the run loop) for the calls games make most.

    PYTHONPATH=. python benchmarks/hle_speed.py [--calls N] [--repeat R] [--profile KIND]

The guest is psp/apps/hle_speed built with our SDK: per kind a marker line, then a loop
of N calls (vblank waits and blocking ctrl reads N/8: each waits for a frame). The host
reads the process CPU time (time.process_time) at each marker, so a kind's cost is the
time between its marker and the next, over its calls; the figure is the median over
`--repeat` runs after one warm-up run (which loads the numba caches and compiles the
program's hot loops). Kernel.run runs as `allegrex run` drives it (with its progress
callback, no timeout). `loop` calls an empty function of the program's own: the guest
loop without a system call, subtracted in the `net` column. The io-read loop also seeks
back to the file's start once every 256 reads.

Then one instrumented run splits each kind's time between the numba run loop
(Machine.advance: entering and leaving the compiled loop plus the few guest instructions),
the HLE dispatch (Kernel.on_syscall: arguments, the library function, the result,
rescheduling) and the rest of Kernel.run's loop (timers, the idle skip to the next
vblank), measures the bare entry/exit of the run loop (Machine.step with a budget of
one instruction), and prints cProfile's top functions for one kind (--profile).
Process CPU time, not wall time: the machine is shared (the CPU figures varied by a few
% between runs here, the wall figures by far more).

Last, the share of system calls in whole programs: benchmarks/realtime.py's game-loop and
gu-cube (GU programs, 5 simulated seconds each), run once to warm up and once measured:
their calls answered in the run loop and by Python, the CPU time inside Kernel.on_syscall
(the calls' own work included: the GE draws inside sceGeListUpdateStallAddr) and the
round trips' share (calls answered by Python times the `noop` kind's cost per call).
`--no-programs` skips it.
"""

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "psp" / "apps" / "hle_speed" / "main.c"
KINDS = ("loop", "noop", "time", "ctrl-peek", "ctrl-read", "vblank", "ge-enqueue", "ge-stall", "io-read")
WHAT = {"loop": "no call: the guest loop alone",
        "noop": "sceGeEdramGetAddr (Python answers, does nothing: every such call's floor)",
        "time": "sceKernelGetSystemTimeLow (answered in the run loop)",
        "ctrl-peek": "sceCtrlPeekBufferPositive (answered in the run loop)",
        "ctrl-read": "sceCtrlReadBufferPositive (waits a frame, in the run loop when alone)",
        "vblank": "sceDisplayWaitVblankStart (waits a frame, in the run loop when alone)", "ge-enqueue": "sceGeListEnQueue (the list already queued)",
        "ge-stall": "sceGeListUpdateStallAddr (an unknown list id)", "io-read": "sceIoRead, 16 bytes of a 4 KiB file"}


class Markers:
    """The guest's stdout: at each "kind NAME N" line, the clocks and the cycle count."""

    def __init__(self, kernel_ref, on_marker=None):
        self.kernel_ref, self.on_marker = kernel_ref, on_marker
        self.marks, self.text = [], []

    def write(self, s: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        self.text.append(s)
        if s.startswith("kind "):
            _, kind, n = s.split()
            self.marks.append((kind, int(n), cpu, wall, self.kernel_ref[0].clock.cycles))
            if self.on_marker:
                self.on_marker(kind)

    def flush(self) -> None:
        pass

    def per_call(self) -> dict:
        """kind -> (CPU us, wall us, simulated cycles) per call."""
        out = {}
        for (kind, n, cpu, wall, cyc), (_, _, cpu2, wall2, cyc2) in zip(self.marks, self.marks[1:]):
            out[kind] = ((cpu2 - cpu) * 1e6 / n, (wall2 - wall) * 1e6 / n, (cyc2 - cyc) / n)
        return out


def build(calls: int, folder: Path) -> Path:
    from allegrex.sdk import build as sdk_build
    game = folder / "ms0" / "PSP" / "GAME" / "hle_speed"
    game.mkdir(parents=True)
    (game / "data.bin").write_bytes(bytes(range(256)) * 16)
    return sdk_build([APP], game / "EBOOT.PBP", defines=[f"CALLS={calls}"])


def load(eboot: Path, on_marker=None):
    from allegrex.commands.run import load_program
    from allegrex.hle.kernel import RunOptions
    ref = [None]
    out = Markers(ref, on_marker)
    options = RunOptions(ms0=str(eboot.parents[3]), program_path=str(eboot), stdout=out, stderr=io.StringIO())
    machine, kernel = load_program(str(eboot), "psp-2000", options)
    ref[0] = kernel
    return machine, kernel, out


def run_once(eboot: Path, on_marker=None, instrument=None):
    from allegrex.commands.run import Progress
    machine, kernel, out = load(eboot, on_marker)
    if instrument:
        instrument(machine, kernel, out)
    stop = kernel.run(max_seconds=600, progress=Progress(io.StringIO()))  # as `allegrex run` drives it
    if stop.kind not in ("exit", "threads-ended") or not out.marks or out.marks[-1][0] != "done":
        sys.exit(f"the benchmark program did not finish: {stop.kind}: {stop.message}\n{''.join(out.text)}")
    return machine, kernel, out


def breakdown(eboot: Path) -> dict:
    """kind -> seconds in Machine.step, in Kernel.on_syscall, and in all (CPU)."""
    spent = {}
    state = {"kind": None}

    def instrument(machine, kernel, out):
        def timed(name, fn):
            def wrapper(*a, **k):
                t = time.process_time()
                try:
                    return fn(*a, **k)
                finally:
                    row = spent.setdefault(state["kind"], {"step": 0.0, "dispatch": 0.0})
                    row[name] += time.process_time() - t
            return wrapper
        machine.advance = timed("step", machine.advance)
        kernel.on_syscall = timed("dispatch", kernel.on_syscall)

    marks = []
    _, _, out = run_once(eboot, on_marker=lambda k: (state.update(kind=k), marks.append((k, time.process_time()))),
                         instrument=instrument)
    for (kind, t), (_, t2) in zip(marks, marks[1:]):
        spent.setdefault(kind, {"step": 0.0, "dispatch": 0.0})["all"] = t2 - t
    return spent


def bare_step_us(eboot: Path, n: int = 20000) -> tuple[float, float, float]:
    """CPU us of one Machine.step that runs a single guest instruction, of the bare call
    into the run loop's compiled entry point inside it (the ~26 arguments Machine.step
    passes), and of the same call through numba's dispatcher (which resolves the argument
    types on every call): entering and leaving compiled code, without any HLE."""
    from allegrex.cpu import scalar_loop, vfpu_loop
    machine, _, _ = load(eboot)
    from allegrex.machine import NO_CYCLE_LIMIT
    machine.step(1)  # looks the entry point up
    entry, args = machine._run_loop, machine._call_args(1, NO_CYCLE_LIMIT)  # what step(1) passes it
    for _ in range(100):
        machine.step(1)
    t = time.process_time()
    for _ in range(n):
        machine.step(1)
    step = (time.process_time() - t) * 1e6 / n
    timed = []
    for fn in (entry, vfpu_loop.run if machine.vfpu_loop else scalar_loop.run):
        t = time.process_time()
        for _ in range(n):
            fn(*args)  # a budget of one instruction each time
        timed.append((time.process_time() - t) * 1e6 / n)
    return step, *timed


def profile(eboot: Path, kind: str, top: int) -> str:
    prof = cProfile.Profile()

    def on_marker(k):
        if k == kind:
            prof.enable()
        else:
            prof.disable()

    run_once(eboot, on_marker=on_marker)
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
    return text.getvalue()


def program_shares(folder: Path, noop_us: float, names=("game-loop", "gu-cube")) -> list[str]:
    """Per program: its calls (answered in the run loop / by Python), the CPU time inside
    Kernel.on_syscall, and the round trips' share at `noop_us` per Python-answered call."""
    import realtime
    from allegrex.hle import pure
    lines = []
    for program in realtime.programs(folder, names):
        realtime.run_once(program)  # warm-up: its hot loops compiled and cached
        seen, inside = [], [0.0]

        def instrument(kernel):
            seen.append(kernel)
            on_syscall = kernel.on_syscall

            def timed(code, from_loop=False):
                t = time.process_time()
                try:
                    return on_syscall(code, from_loop)
                finally:
                    inside[0] += time.process_time() - t
            kernel.on_syscall = timed

        run = realtime.run_once(program, instrument=instrument)
        kernel = seen[0]
        calls = sum(kernel.calls_made().values())
        in_loop = int(kernel.syscall_table[pure.ANSWERS])
        by_python = calls - in_loop
        lines.append(f"  {program.name:10s} {run['simulated_s']:.2f} simulated s in {run['cpu_s']:.2f} CPU s: "
                     f"{calls} calls ({in_loop} in the run loop, {by_python} by Python); inside on_syscall "
                     f"{100 * inside[0] / run['cpu_s']:.1f}% of the CPU time, the round trips "
                     f"~{100 * by_python * noop_us * 1e-6 / run['cpu_s']:.1f}%")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=4000, help="calls per kind (default 4000)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", default="time", choices=KINDS, help="the kind cProfile looks at (default time)")
    ap.add_argument("--top", type=int, default=14, help="cProfile rows")
    ap.add_argument("--no-programs", dest="programs", action="store_false",
                    help="skip the system calls' share of whole programs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hle-speed-") as tmp:
        eboot = build(args.calls, Path(tmp))
        run_once(eboot)  # warm-up: numba caches, compiled regions
        runs = [run_once(eboot)[2].per_call() for _ in range(args.repeat)]
        cpu = {k: statistics.median(r[k][0] for r in runs) for k in KINDS}
        wall = {k: statistics.median(r[k][1] for r in runs) for k in KINDS}
        cycles = runs[0]
        print(f"system call round trips, {args.calls} calls per kind (frame waits {args.calls // 8}), "
              f"median of {args.repeat} runs, process CPU time\n")
        print(f"{'kind':11s} {'us/call':>8s} {'net':>7s} {'wall us':>8s} {'sim cycles':>11s}  call")
        for k in KINDS:
            net = "" if k == "loop" else f"{cpu[k] - cpu['loop']:7.2f}"
            print(f"{k:11s} {cpu[k]:8.2f} {net:>7s} {wall[k]:8.2f} {cycles[k][2]:11.0f}  {WHAT[k]}")

        spent = breakdown(eboot)
        calls = {k: n for k, n, *_ in run_once(eboot)[2].marks}
        print("\nwhere each kind's CPU time goes, us per call (one instrumented run: the timers add a little)")
        print(f"{'kind':11s} {'run loop':>14s} {'HLE dispatch':>14s} {'rest of Kernel.run':>19s}")
        for k in KINDS:
            s = spent[k]
            parts = (s["step"], s["dispatch"], s["all"] - s["step"] - s["dispatch"])
            print(f"{k:11s}" + "".join(f" {p * 1e6 / calls[k]:7.2f} ({100 * p / s['all']:3.0f}%)" for p in parts))
        step, call, dispatched = bare_step_us(eboot)
        print(f"\nbare run-loop entry/exit: Machine.step running one instruction {step:.2f} us, of which the "
              f"call into the compiled loop (its entry point, ~26 arguments) {call:.2f} us "
              f"(through numba's dispatcher: {dispatched:.2f} us)")
        print(f"\ncProfile of the '{args.profile}' kind ({WHAT[args.profile]}), by own time:")
        print(profile(eboot, args.profile, args.top))
        if args.programs:
            print("system calls in whole programs (benchmarks/realtime.py's GU programs, one measured run each):")
            for line in program_shares(Path(tmp), cpu["noop"]):
                print(line)


if __name__ == "__main__":
    main()
