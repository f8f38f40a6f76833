"""What numba charges for a call site alone: the floor under a compiled region's compile time.

    PYTHONPATH=. python benchmarks/numba_floor.py [--sites 25,50,100,150] [--args 1,10,20]

A region is numba source with a call per step (jit.codegen). This compiles functions that
hold nothing but N calls of one trivial, already compiled function, each with A int64
operands (module globals, as a region's `i64_*` constants), and fits the CPU seconds as a
cost per function plus a cost per call site: numba's front end (bytecode, typing, lowering)
and LLVM on the smallest code a call can be, without the work a region's steps add once
inlined. For each A it prints what the llama2 VFPU build's matmul region (~1,550 call sites
in 17 functions: its 16 pieces and its own) would cost at that rate: the least a region
text with one call per step, every call of A operands, could take to compile.
"""

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

MATMUL_CALL_SITES = 1550  # the llama2 VFPU matmul region's text (region_compile.py's region), 2026-12-06
MATMUL_FUNCTIONS = 17  # its 16 pieces and its own function


@njit
def step(a, t, *operands):
    """The callee: one store and a sum, so no call can be dropped."""
    a[0] += t
    return t + len(operands)


def module_text(sites: int, operands: int) -> str:
    lines = ["import numpy as np", "from numba import njit", ""]
    lines += [f"i64_{v} = np.int64({v})" for v in range(13)]
    lines += ["", "", "@njit", "def calls(step, a, t):"]
    for k in range(sites):
        args = ", ".join(f"i64_{(k * 7 + i) % 13}" for i in range(operands))
        lines.append(f"    t = step(a, t, {args})")
    return "\n".join(lines + ["    return t", ""])


def seconds_to_compile(folder: Path, sites: int, operands: int) -> float:
    """CPU seconds numba takes to compile a function of `sites` calls with `operands` operands."""
    path = folder / f"calls_{sites}_{operands}.py"
    path.write_text(module_text(sites, operands))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    a = np.zeros(1, np.int64)
    step(a, 0, *[np.int64(0)] * operands)  # the callee compiled beforehand, as a region's helpers are
    start = time.process_time()
    module.calls(step, a, 0)
    return time.process_time() - start


def counts(text: str) -> list[int]:
    """A comma-separated list of positive counts (an option's value)."""
    try:
        values = [int(n) for n in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of positive counts")
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=counts, default="25,50,100,150",
                        help="call sites per function, two sizes or more (a region's piece: ~45-115)")
    parser.add_argument("--args", type=counts, default="1,10,20", help="operands per call (a VFPU timing step: 22)")
    args = parser.parse_args()
    sites = args.sites
    if len(set(sites)) < 2:
        parser.error("--sites needs two sizes or more (the cost is fitted as a line)")
    with tempfile.TemporaryDirectory() as tmp:
        seconds_to_compile(Path(tmp), 10, 1)  # untimed: numba's first compile in a process pays for more
        for operands in args.args:
            times = [seconds_to_compile(Path(tmp), n, operands) for n in sites]
            per_site, fixed = np.polyfit(sites, times, 1)  # seconds = fixed + per_site * sites
            shown = ", ".join(f"{n} sites {t:.2f} s" for n, t in zip(sites, times))
            floor = MATMUL_FUNCTIONS * fixed + MATMUL_CALL_SITES * per_site
            print(f"{operands:2d} operands: {shown}: {per_site * 1e3:.1f} ms a site + {fixed:.2f} s a function; "
                  f"the matmul region's {MATMUL_CALL_SITES} sites in {MATMUL_FUNCTIONS} functions: {floor:.1f} s CPU",
                  flush=True)


if __name__ == "__main__":
    main()
