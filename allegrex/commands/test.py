"""`allegrex test DIR [GLOB...]`: run conformance programs and compare their output with
the real-hardware `.expected` files next to them (the pspautotests layout), printing a
pass/fail table with the first differing line of each failure. Programs that also have an
`.expected.bmp` (a screenshot taken on a PSP where the program asks for one) get their
frame buffer at that point compared pixel by pixel: the table shows the share of
identical pixels and the largest difference of any colour channel.

Each program runs in a fresh temporary memory stick (its folder copied to
ms0:/PSP/GAME/<name>/, a scratch host0:/), so the checkout is never written to.
"""

import fnmatch
import io
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass

from allegrex.errors import AllegrexError
from allegrex.hle.kernel import RunOptions

DEFAULT_MAX_SECONDS = 20.0  # simulated; pspautotests programs finish in well under that
DEFAULT_TIMEOUT = 120.0  # wall-clock, per program


@dataclass
class Result:
    name: str
    status: str  # pass, fail, error
    detail: str = ""
    seconds: float = 0.0
    image: str = ""  # the screenshot comparison, when there is an .expected.bmp


@dataclass
class ImageMatch:
    """How a captured frame compares with a recorded one (512 x 272, RGB)."""
    identical: float  # share of pixels with every channel equal
    max_difference: int  # largest difference of one channel anywhere

    def __str__(self) -> str:
        return f"{100 * self.identical:.2f}% max {self.max_difference}"


def compare_image(rgba, bmp_path: str) -> ImageMatch | None:
    """Compare a captured RGBA frame with a recorded screenshot; None if nothing was captured."""
    import numpy as np
    from PIL import Image
    if rgba is None:
        return None
    want = np.asarray(Image.open(bmp_path).convert("RGB"), dtype=np.int16)
    got = np.zeros_like(want)
    h, w = min(want.shape[0], rgba.shape[0]), min(want.shape[1], rgba.shape[1])
    got[:h, :w] = rgba[:h, :w, :3]
    diff = np.abs(got - want)
    return ImageMatch(float((diff.max(axis=2) == 0).mean()), int(diff.max()))


def add_parser(subparsers):
    p = subparsers.add_parser("test", help="run pspautotests-style programs against their .expected output",
                              description="Run every .prx that has a .expected file and print a pass/fail table.")
    p.add_argument("--suite", choices=("pspautotests",), default="pspautotests", help="test layout (default)")
    p.add_argument("path", help="a folder (searched recursively) or a single .prx")
    p.add_argument("globs", nargs="*", help="only tests whose path (relative to PATH) matches one of these")
    p.add_argument("--model", default="psp-2000")
    p.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    p.add_argument("--verbose", "-v", action="store_true", help="show the guest's stderr")
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


def run_one(prx: str, model="psp-2000", max_seconds=DEFAULT_MAX_SECONDS, timeout=DEFAULT_TIMEOUT,
            stderr=None) -> tuple[str, object]:
    """Run one test program in a scratch memory stick; returns (stdout text, Stop)."""
    text, stop, _screenshot = run_program(prx, model, max_seconds, timeout, stderr)
    return text, stop


def run_program(prx: str, model="psp-2000", max_seconds=DEFAULT_MAX_SECONDS, timeout=DEFAULT_TIMEOUT,
                stderr=None):
    """Run one test program in a scratch memory stick; returns (stdout text, Stop, the
    RGBA frame the program asked to be captured or None)."""
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
        options = RunOptions(ms0=ms0, host0=host0, program_path=os.path.join(game, os.path.basename(prx)),
                             stdout=out, stderr=err)
        _, kernel = load_program(options.program_path, model, options)
        stop = kernel.run(max_seconds=max_seconds, timeout=timeout)
    return out.getvalue(), stop, kernel.display.screenshot


def run_tests(tests, root, model, max_seconds, timeout, verbose=False, stream=sys.stdout) -> list[Result]:
    results = []
    for prx in tests:
        name = os.path.relpath(prx, root)[:-4] if os.path.isdir(root) else os.path.basename(prx)[:-4]
        start = time.monotonic()
        try:
            got, stop, screenshot = run_program(prx, model, max_seconds, timeout, sys.stderr if verbose else None)
        except AllegrexError as exc:
            results.append(Result(name, "error", str(exc).splitlines()[0], time.monotonic() - start))
            print(f"  {results[-1].status:5s} {name}", file=stream, flush=True)
            continue
        with open(prx[:-4] + ".expected", encoding="latin-1") as f:
            want = normalise(f.read())
        lines = normalise(got)
        elapsed = time.monotonic() - start
        image = ""
        if os.path.exists(prx[:-4] + ".expected.bmp"):
            match = compare_image(screenshot, prx[:-4] + ".expected.bmp")
            image = str(match) if match else "no screenshot"
        if lines == want:
            results.append(Result(name, "pass", "", elapsed, image))
        else:
            detail = first_difference(lines, want)
            if stop.kind not in ("exit", "threads-ended"):
                detail += f" [{stop.kind}: {stop.message.splitlines()[0]}]"
            results.append(Result(name, "fail", detail, elapsed, image))
        print(f"  {results[-1].status:5s} {name}", file=stream, flush=True)
    return results


def print_table(results, stream=sys.stdout) -> None:
    width = max((len(r.name) for r in results), default=4)
    if any(r.image for r in results):
        print(f"\n{'test':{width}s}  result  seconds  {'screenshot':20s}  first difference", file=stream)
        for r in results:
            print(f"{r.name:{width}s}  {r.status:6s}  {r.seconds:7.1f}  {r.image:20s}  {r.detail}", file=stream)
    else:
        print(f"\n{'test':{width}s}  result  seconds  first difference", file=stream)
        for r in results:
            print(f"{r.name:{width}s}  {r.status:6s}  {r.seconds:7.1f}  {r.detail}", file=stream)
    passed = sum(r.status == "pass" for r in results)
    print(f"\n{passed}/{len(results)} passed", file=stream)


def run(args) -> int:
    tests = find_tests(args.path, args.globs)
    if not tests:
        raise AllegrexError(f"no .prx with a .expected file under {args.path}")
    results = run_tests(tests, args.path, args.model, args.max_seconds, args.timeout, args.verbose)
    print_table(results)
    return 0 if all(r.status == "pass" for r in results) else 1
