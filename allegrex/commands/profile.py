"""`allegrex profile FILE [run options] [--top N] [--json F] [--region GLOB]`: run a PSP
program like `allegrex run` and report where its cycles went: cycles, instructions,
CPI, the stall breakdown, cache hits/misses and a per-function table (self cycles,
share, instructions, stalls, D-cache misses) whose rows add up to the total.

`--annotate FUNC` adds the function's instructions (or `--by-line` its source lines)
with executions, cycles, stall cycles by cause and D-cache misses; `--callgrind F` and
`--speedscope F` export the profile with its call graph (KCachegrind, speedscope);
`--symbols F` takes symbols and lines from the unstripped file of a stripped program."""

import argparse
import json
import sys

from allegrex.errors import AllegrexError
from allegrex.limits import count

DEFAULT_LOG_CALLS = 1_000_000  # speedscope events kept (24 bytes each)


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
    p.add_argument("--annotate", action="append", default=[], metavar="FUNC",
                   help="per instruction of FUNC: executions, cycles, stall cycles by cause, D-cache misses")
    p.add_argument("--by-line", action="store_true", help="with --annotate: per source line (needs DWARF: cc -g)")
    p.add_argument("--callgrind", metavar="F", help="write the profile and call graph in callgrind format")
    p.add_argument("--speedscope", metavar="F", help="write the call stacks over simulated time for speedscope")
    p.add_argument("--log-calls", type=count, default=DEFAULT_LOG_CALLS, metavar="N",
                   help=f"with --speedscope: calls and returns kept (default {DEFAULT_LOG_CALLS:,})")
    return p


def profile_run(machine, kernel, calls=False, log_entries=0, max_seconds=None, timeout=None, started=None):
    """Run a booted program (run.load_program) under the profiler: (Profile, report, Stop)."""
    from allegrex.timing.profile import Profile
    prof = Profile.start(machine, kernel.image, calls=calls, log_entries=log_entries)
    stop = kernel.run(max_seconds=max_seconds, timeout=timeout, started=started)
    report = prof.report(hle_cycles=kernel.hle_cycles, idle_cycles=kernel.idle_cycles)
    report["exit"] = getattr(stop, "message", str(stop))
    return prof, report, stop


def run(args) -> int:
    run_command = _run_command()
    if run_command is None:
        raise AllegrexError("allegrex profile needs the HLE run machinery (allegrex run), "
                            "which this checkout lacks")
    from allegrex.timing.annotate import annotate, find_function, format_annotation, format_by_line
    from allegrex.timing.profile import format_report, region
    options = run_command.options_from_args(args)
    machine, kernel = run_command.load_program(args.file, args.model, options, getattr(args, "symbols", None))
    for name in args.annotate:  # a wrong name fails before the run, not after it
        find_function(kernel.image, name)
    if args.by_line and not args.annotate:
        raise AllegrexError("--by-line goes with --annotate FUNC")
    if args.by_line and getattr(kernel.image, "lines", None) is None:
        raise AllegrexError(f"{args.file} has no source line table: build it with `allegrex cc -g` and give "
                            "the unstripped ELF with --symbols (or profile that ELF)")
    calls = bool(args.callgrind or args.speedscope)
    prof, report, stop = profile_run(machine, kernel, calls, args.log_calls if args.speedscope else 0,
                                     args.max_seconds, args.timeout, args.started)
    report["program"] = args.file
    report["regions"] = [region(report, g) for g in args.region]
    out = sys.stdout
    print(format_report(report, args.top), file=out)
    for r in report["regions"]:
        print(f"region {r['region']}: {r['cycles']:,} cycles ({100 * r['share']:.2f}%), "
              f"{r['instructions']:,} instructions, CPI {r['cpi']:.3f}, {r['dcache_misses']:,} D-cache misses "
              f"[{', '.join(r['functions']) or 'no function matched'}]", file=out)
    for name in args.annotate:
        ann = annotate(prof, name)
        print("", file=out)
        print(format_by_line(ann) if args.by_line else format_annotation(ann), file=out)
    if args.callgrind:
        from allegrex.timing.callgrind import write_callgrind
        write_callgrind(args.callgrind, prof, report, command=args.file)
    if args.speedscope:
        from allegrex.timing.speedscope import write_speedscope
        write_speedscope(args.speedscope, prof, name=args.file)
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
        except OSError as exc:
            raise AllegrexError(f"cannot write {args.json}: {exc.strerror}") from None
    return int(getattr(stop, "exit_code", 0) or 0)
