"""Where a program's time goes: each compiled region's entries, instructions, CPU time and MIPS.

    PYTHONPATH=. python benchmarks/region_speed.py [--only NAME] [--repeat R] [--top N]

NAME is one of realtime.py's programs (default llama2-vfpu: the llama2 port's VFPU build),
built and warmed up as realtime.py does (one run compiling every hot loop it meets), then
run `--repeat` more times with every call into a compiled region timed (process CPU time
around the call, time.process_time_ns: the region's own work, its entry and exit included).
Printed per region (by its entry address, the busiest first): entries, instructions, CPU
seconds and MIPS per run, each as the range over the timed runs; then the rest of the
run (the interpreter, system calls and everything else Kernel.run does) the same way.
Every timed run must simulate the same cycles as the warm-up.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

from realtime import programs, run_once

from allegrex.cpu.state import INSTRUCTIONS
from allegrex.machine import Machine


class RegionClock:
    """Times every call into a compiled region while installed (it wraps the entry points
    Machine._region_entry hands out): entry pc -> [calls, CPU ns, instructions]."""

    def __init__(self):
        self.tally = {}

    def __enter__(self):
        self.original = original = Machine._region_entry
        clock = self

        def region_entry(machine, key, args):
            entry = original(machine, key, args)
            if entry is not None:
                entry = machine.jit.entry_points[key] = clock.timed(entry, key[0], machine.cpu.counters)
            return entry

        Machine._region_entry = region_entry
        return self

    def __exit__(self, *exc):
        Machine._region_entry = self.original

    def timed(self, entry, pc, counters):
        row = self.tally.setdefault(pc, [0, 0, 0])

        def call(*args):
            before, start = counters.item(INSTRUCTIONS), time.process_time_ns()
            code = entry(*args)
            row[1] += time.process_time_ns() - start
            row[0] += 1
            row[2] += counters.item(INSTRUCTIONS) - before
            return code

        return call


def timed_runs(program, repeat: int) -> tuple[dict, list]:
    """Warm up, then `repeat` timed runs: (the warm-up's figures, [(run figures, region tally)])."""
    first = run_once(program, compile_all=True)
    runs = []
    for _ in range(repeat):
        with RegionClock() as clock:
            r = run_once(program)
        if r["cycles"] != first["cycles"] or r["output"] != first["output"]:
            sys.exit(f"{program.name}: runs differ ({first['cycles']} vs {r['cycles']} cycles)")
        runs.append((r, clock.tally))
    return first, runs


def _span(values, fmt) -> str:
    lo, hi = min(values), max(values)
    return format(lo, fmt) if format(lo, fmt) == format(hi, fmt) else f"{format(lo, fmt)}-{format(hi, fmt)}"


def report(name: str, first: dict, runs: list, top: int) -> None:
    print(f"{name}: {first['instructions'] / 1e6:.2f} M instructions, {first['cycles']} cycles per run; "
          f"{len(runs)} timed runs (CPU s per run, ranges over the runs)\n")
    print(f"{'region at':>10s} {'entries':>11s} {'M instr.':>11s} {'CPU s':>13s} {'MIPS':>13s} {'share':>9s}")
    pcs = sorted(runs[0][1], key=lambda pc: -runs[0][1][pc][1])
    for pc in pcs[:top]:
        rows = [tally.get(pc, [0, 0, 0]) for _, tally in runs]
        cpu = [r[1] / 1e9 for r in rows]
        mips = [r[2] / max(r[1], 1) * 1e3 for r in rows]
        share = [r[1] / 1e9 / run["cpu_s"] * 100 for r, (run, _) in zip(rows, runs)]
        entries, instructions = _span([r[0] for r in rows], "d"), _span([r[2] / 1e6 for r in rows], ".2f")
        print(f"0x{pc:08x} {entries:>11s} {instructions:>11s} {_span(cpu, '.3f'):>13s} {_span(mips, '.1f'):>13s} "
              f"{_span(share, '.0f') + '%':>9s}")
    rest_cpu = [run["cpu_s"] - sum(r[1] for r in tally.values()) / 1e9 for run, tally in runs]
    rest_instr = [run["instructions"] - sum(r[2] for r in tally.values()) for run, tally in runs]
    mips = [i / c / 1e6 for i, c in zip(rest_instr, rest_cpu)]
    share = [c / run["cpu_s"] * 100 for c, (run, _) in zip(rest_cpu, runs)]
    instructions = _span([i / 1e6 for i in rest_instr], ".2f")
    print(f"{'the rest':>10s} {'':11s} {instructions:>11s} {_span(rest_cpu, '.3f'):>13s} {_span(mips, '.1f'):>13s} "
          f"{_span(share, '.0f') + '%':>9s}")
    total = [run["cpu_s"] for run, _ in runs]
    print(f"{'whole run':>10s} {'':11s} {first['instructions'] / 1e6:11.2f} {_span(total, '.3f'):>13s} "
          f"{_span([first['instructions'] / c / 1e6 for c in total], '.1f'):>13s}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="llama2-vfpu", help="one of realtime.py's programs")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top", type=int, default=10, help="regions to list")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="region-speed-") as tmp:
        for program in programs(Path(tmp), [args.only]):
            first, runs = timed_runs(program, args.repeat)
            report(program.name, first, runs, args.top)


if __name__ == "__main__":
    main()
