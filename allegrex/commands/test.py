"""`allegrex test DIR [GLOB...]`: run conformance programs and compare their output with
the real-hardware `.expected` files next to them (the pspautotests layout), printing a
pass/fail table with the first differing line of each failure.

Each program runs in a fresh temporary memory stick (its folder copied to
ms0:/PSP/GAME/<name>/, a scratch host0:/), so the checkout is never written to.
"""

import fnmatch
import io
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass

from allegrex.errors import AllegrexError
from allegrex.hle.kernel import RunOptions
from allegrex.jobs import Engine, add_arguments, engine_from_args, run_jobs
from allegrex.limits import add_time_limits

DEFAULT_MAX_SECONDS = 20.0  # simulated; pspautotests programs finish in well under that
DEFAULT_TIMEOUT = 120.0  # wall-clock, per program
DEFAULT_MODEL = "psp-2000"


@dataclass
class Result:
    name: str
    status: str  # pass, fail, error, crash (an allegrex bug or a dead worker)
    detail: str = ""
    seconds: float = 0.0  # wall-clock
    cycles: int = 0  # simulated, at the program's end: the same whichever engine ran it


def add_parser(subparsers):
    p = subparsers.add_parser("test", help="run pspautotests-style programs against their .expected output",
                              description="Run every .prx that has a .expected file and print a pass/fail table.")
    p.add_argument("--suite", choices=("pspautotests",), default="pspautotests", help="test layout (default)")
    p.add_argument("path", help="a folder (searched recursively) or a single .prx")
    p.add_argument("globs", nargs="*", help="only tests whose path (relative to PATH) matches one of these")
    p.add_argument("--model", default=DEFAULT_MODEL)
    add_time_limits(p, DEFAULT_MAX_SECONDS, DEFAULT_TIMEOUT, timeout_counts="per program, loading included")
    p.add_argument("--verbose", "-v", action="store_true", help="show the guest's stderr")
    add_arguments(p)
    return p


def find_tests(path: str, globs=()) -> list[str]:
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise AllegrexError(f"{path}: no such file or folder")
    found = []
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".prx"):
                continue
            prx = os.path.join(folder, name)
            if not os.path.exists(prx[:-4] + ".expected"):
                continue
            rel = os.path.relpath(prx, path)
            if globs and not any(_matches(rel, g) for g in globs):
                continue
            found.append(prx)
    return found


def _matches(rel: str, pattern: str) -> bool:
    """A glob on the path (with or without .prx), or a folder prefix such as 'threads/lwmutex'."""
    rel = rel.replace(os.sep, "/")
    folder = pattern.rstrip("/") + "/"
    return fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel[:-4], pattern) or rel.startswith(folder)


def normalise(text: str) -> list[str]:
    """Lines compared as pspautotests' runners do: CRLF = LF, trailing blank space ignored."""
    return [line.rstrip() for line in text.replace("\r\n", "\n").rstrip().split("\n")]


def first_difference(got: list[str], want: list[str]) -> str:
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return f"line {i + 1}: expected {w!r}, got {g!r}"
    if len(got) < len(want):
        return f"line {len(got) + 1}: expected {want[len(got)]!r}, output ended"
    return f"line {len(want) + 1}: unexpected extra output {got[len(want)]!r}"


def run_one(prx: str, model=DEFAULT_MODEL, max_seconds=DEFAULT_MAX_SECONDS, timeout=DEFAULT_TIMEOUT,
            stderr=None, with_cycles=False) -> tuple:
    """Run one test program in a scratch memory stick; returns (stdout text, Stop), and
    the simulated cycle count at the end when with_cycles."""
    from allegrex.commands.run import load_program
    out = io.StringIO()
    err = stderr if stderr is not None else io.StringIO()
    with tempfile.TemporaryDirectory(prefix="allegrex-test-") as scratch:
        ms0 = os.path.join(scratch, "ms0")
        name = os.path.splitext(os.path.basename(prx))[0]
        game = os.path.join(ms0, "PSP", "GAME", name)
        shutil.copytree(os.path.dirname(os.path.abspath(prx)), game,
                        ignore=shutil.ignore_patterns("*.expected", "*.c", "*.cpp", "*.S", "*.h"))
        for folder in ("SAVEDATA", "COMMON"):  # the rest of a formatted memory stick's PSP folder
            os.makedirs(os.path.join(ms0, "PSP", folder))
        host0 = os.path.join(scratch, "host0")
        os.makedirs(host0)
        # the harness channel is the output compared; the program's own stdout writes went to
        # the recording PSP's console, not into the .expected file: shown with the guest's stderr
        options = RunOptions(ms0=ms0, host0=host0, program_path=os.path.join(game, os.path.basename(prx)),
                             stdout=err, stderr=err, harness_output=out)
        loading = time.monotonic()  # the timeout counts loading the program too
        _, kernel = load_program(options.program_path, model, options)
        stop = kernel.run(max_seconds=max_seconds, timeout=timeout, started=loading)
    if with_cycles:
        return out.getvalue(), stop, kernel.clock.cycles
    return out.getvalue(), stop


@dataclass(frozen=True)
class CheckJob:
    """One program to run and compare: a picklable description for allegrex.jobs."""
    prx: str
    name: str
    model: str = DEFAULT_MODEL
    max_seconds: float = DEFAULT_MAX_SECONDS
    timeout: float = DEFAULT_TIMEOUT
    verbose: bool = False


def check_program(job: CheckJob) -> Result:
    """Run one program and compare its output with its .expected file."""
    if not os.path.isfile(job.prx):  # on a cluster, every worker needs the same paths
        return Result(job.name, "error", f"{job.prx}: not found on host {platform.node()}")
    start = time.monotonic()
    try:
        got, stop, cycles = run_one(job.prx, job.model, job.max_seconds, job.timeout,
                                    sys.stderr if job.verbose else None, with_cycles=True)
    except AllegrexError as exc:
        return Result(job.name, "error", str(exc).splitlines()[0], time.monotonic() - start)
    with open(job.prx[:-4] + ".expected", encoding="latin-1") as f:
        want = normalise(f.read())
    lines = normalise(got)
    elapsed = time.monotonic() - start
    if lines == want:
        return Result(job.name, "pass", "", elapsed, cycles)
    detail = first_difference(lines, want)
    if stop.kind not in ("exit", "threads-ended"):
        detail += f" [{stop.kind}: {stop.message.splitlines()[0]}]"
    return Result(job.name, "fail", detail, elapsed, cycles)


def check_jobs(tests, root, model=DEFAULT_MODEL, max_seconds=DEFAULT_MAX_SECONDS, timeout=DEFAULT_TIMEOUT,
               verbose=False) -> list[CheckJob]:
    def name(prx):
        return os.path.relpath(prx, root)[:-4] if os.path.isdir(root) else os.path.basename(prx)[:-4]
    return [CheckJob(os.path.abspath(prx), name(prx), model, max_seconds, timeout, verbose) for prx in tests]


def run_tests(tests, root, model=DEFAULT_MODEL, max_seconds=DEFAULT_MAX_SECONDS, timeout=DEFAULT_TIMEOUT,
              verbose=False, stream=None, engine=Engine()) -> list[Result]:
    """Every test on `engine`; a line per test as it finishes, the results in the tests' order."""
    stream = stream or sys.stdout  # looked up now: callers (and tests) may have replaced it
    jobs = check_jobs(tests, root, model, max_seconds, timeout, verbose)
    results: list[Result | None] = [None] * len(jobs)
    done = 0

    def progress(i: int, outcome) -> None:
        nonlocal done
        done += 1
        results[i] = outcome.value if outcome.ok else Result(jobs[i].name, "crash", outcome.failure)
        count = f" ({done}/{len(jobs)})" if engine.dask or engine.workers > 1 else ""
        print(f"  {results[i].status:5s} {jobs[i].name}{count}", file=stream, flush=True)

    run_jobs(check_program, jobs, engine, on_done=progress)
    return results


def print_table(results, stream=None) -> None:
    stream = stream or sys.stdout
    width = max((len(r.name) for r in results), default=4)
    print(f"\n{'test':{width}s}  result       cycles  seconds  first difference", file=stream)
    for r in results:
        print(f"{r.name:{width}s}  {r.status:6s}  {r.cycles:11d}  {r.seconds:7.1f}  {r.detail}", file=stream)
    passed = sum(r.status == "pass" for r in results)
    print(f"\n{passed}/{len(results)} passed", file=stream)


def run(args) -> int:
    tests = find_tests(args.path, args.globs)
    if not tests:
        raise AllegrexError(f"no .prx with a .expected file under {args.path}")
    results = run_tests(tests, args.path, args.model, args.max_seconds, args.timeout, args.verbose,
                        engine=engine_from_args(args))
    print_table(results)
    return 0 if all(r.status == "pass" for r in results) else 1
