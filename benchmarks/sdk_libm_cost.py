"""Cycles and instructions per call of the SDK's libm functions on the simulated PSP.

    PYTHONPATH=.:tests/sdk python benchmarks/sdk_libm_cost.py

Builds psp/apps/exercise/libm_cost.c twice per function (100 and 1100 calls), runs both
on the CPU (tests/sdk/psp_harness.py) and prints the per-call difference (the loop's
own add and multiply included)."""

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "sdk")]

from allegrex.sdk import build  # noqa: E402
from psp_harness import run_program  # noqa: E402

FUNCTIONS = ["expf", "logf", "sqrtf", "sinf", "cosf", "tanhf", "floorf", "roundf", "fabsf"]
POW = "powf_10000"  # powf(10000, x): the llama2 rotary-embedding call


def cost(fn, out):
    define = "FN(v)=powf(10000.0f,v)" if fn == POW else f"FN={fn}"
    runs = []
    for calls in (100, 1100):
        elf = build([ROOT / "psp/apps/exercise/libm_cost.c"], out / f"{fn}{calls}.elf", elf=True,
                    defines=[define, f"CALLS={calls}"])
        runs.append(run_program(elf))
    return [(b - a) / 1000 for a, b in ((runs[0].cycles, runs[1].cycles), (runs[0].instructions, runs[1].instructions))]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'function':12} {'cycles/call':>12} {'instr/call':>11}")
        for fn in FUNCTIONS + [POW]:
            cycles, instructions = cost(fn, Path(tmp))
            print(f"{fn:12} {cycles:12.1f} {instructions:11.1f}")


if __name__ == "__main__":
    main()
