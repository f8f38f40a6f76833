"""`allegrex profile FILE [run options] [--top N] [--json F] [--region GLOB]`: run a PSP
program like `allegrex run` and report where its cycles went: cycles, instructions,
CPI, the stall breakdown, cache hits/misses and a per-function table (self cycles,
share, instructions, stalls, D-cache misses) whose rows add up to the total."""

import argparse
import json
import sys

from allegrex.errors import AllegrexError
from allegrex.limits import count


class _Collect:
    """Stands in for argparse subparsers so `allegrex run`'s own option list can be
    reused as a parent parser (one definition of the run options)."""

    def add_parser(self, name, help=None, **kw):  # noqa: A002 (argparse's name)
        self.parser = argparse.ArgumentParser(add_help=False, **kw)
        return self.parser


def _run_command():
    try:
        from allegrex.commands import run as run_command
        return run_command
    except ImportError:
        return None


def add_parser(subparsers):
    run_command = _run_command()
    parents = []
    if run_command is not None:
        collect = _Collect()
        run_command.add_parser(collect)
        parents = [collect.parser]
    p = subparsers.add_parser("profile", parents=parents, conflict_handler="resolve",
                              help="run a PSP program and show where its cycles go",
                              description=__doc__.splitlines()[0])
    if run_command is None:
        p.add_argument("file", help="EBOOT.PBP, .prx or .elf")
    p.add_argument("--top", type=count, default=20, metavar="N", help="functions to list (default 20)")
    p.add_argument("--json", metavar="F", help="write the profile as JSON")
    p.add_argument("--region", action="append", default=[], metavar="GLOB",
                   help="also report the functions matching GLOB summed (e.g. 'matmul*')")
    return p


def run(args) -> int:
    run_command = _run_command()
    if run_command is None:
        raise AllegrexError("allegrex profile needs the HLE run machinery (allegrex run), "
                            "which this checkout lacks")
    from allegrex.timing.profile import Profile, format_report, region
    options = run_command.options_from_args(args)
    machine, kernel = run_command.load_program(args.file, args.model, options)
    prof = Profile.start(machine, kernel.image)
    stop = kernel.run(max_seconds=args.max_seconds, timeout=args.timeout, started=args.started)
    report = prof.report(hle_cycles=kernel.hle_cycles, idle_cycles=kernel.idle_cycles,
                         memstick_cycles=kernel.memstick_cycles)
    report["program"] = args.file
    report["exit"] = getattr(stop, "message", str(stop))
    report["regions"] = [region(report, g) for g in args.region]
    out = sys.stdout
    print(format_report(report, args.top), file=out)
    for r in report["regions"]:
        print(f"region {r['region']}: {r['cycles']:,} cycles ({100 * r['share']:.2f}%), "
              f"{r['instructions']:,} instructions, CPI {r['cpi']:.3f}, {r['dcache_misses']:,} D-cache misses "
              f"[{', '.join(r['functions']) or 'no function matched'}]", file=out)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    return int(getattr(stop, "exit_code", 0) or 0)
