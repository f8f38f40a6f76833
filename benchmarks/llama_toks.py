"""The headline table: llama2 tok/s on a simulated PSP-2000 at 333 MHz, scalar vs VFPU,
beside the published figures and the bandwidth roofline.

    PYTHONPATH=. python benchmarks/llama_toks.py [--shape stories15M] [--tokens 64] [--json F]

Runs `allegrex bench llama` (allegrex.bench.llama) and prints one table; the targets of
issue 9 are checked and printed as met / not met (measurements, not tests).
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

VFPU_TARGET, VFPU_STRETCH = 15.0, 25.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", default="stories15M")
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--kernels", default="scalar,vfpu")
    parser.add_argument("--json", metavar="F")
    args = parser.parse_args()
    from allegrex.bench.llama import bench_llama
    t = time.perf_counter()
    report = bench_llama(args.shape, tuple(args.kernels.split(",")), args.tokens)
    wall = time.perf_counter() - t
    pub, roof = report["published"], report["roofline"]
    print(f"llama2 {args.shape} q80, {args.tokens} positions, simulated {report['psp_model']} at "
          f"{report['clock_mhz']} MHz\n")
    print(f"{'kernel':8s} {'tok/s':>8s} {'run s':>8s} {'TTFT s':>8s} {'Mcyc/tok':>9s} {'CPI':>6s} {'matmul':>7s} "
          f"{'roofline':>9s} {'published':>14s} {'wall s':>7s}")
    for k in report["kernels"]:
        if not k.get("ok"):
            print(f"{k['kernel']:8s} failed: {k.get('error')}")
            continue
        ref = (f"{pub['scalar']['tok_per_s']} measured" if k["kernel"] == "scalar"
               else "{:g}-{:g} guess".format(*pub["vfpu"]["tok_per_s_range"]))
        print(f"{k['kernel']:8s} {k['tok_per_s']:8.2f} {k['seconds']:8.2f} {k['ttft_seconds']:8.3f} "
              f"{k['cycles_per_token'] / 1e6:9.2f} {k['cpi']:6.2f} {100 * k['breakdown']['matmul']['share']:6.1f}% "
              f"{100 * k['roofline_share']:8.1f}% {ref:>14s} {k['wall_seconds']:7.1f}")
    print(f"\nroofline {roof['tok_per_s']:.1f} tok/s ({roof['weight_bytes_per_token'] / 1e6:.2f} MB/token at "
          f"{roof['bandwidth_bytes_per_s'] / 1e6:.0f} MB/s); bench wall time {wall:.0f} s")
    by = {k["kernel"]: k for k in report["kernels"] if k.get("ok")}
    if "vfpu" in by and args.shape == "stories15M":
        v = by["vfpu"]["tok_per_s"]
        print(f"target VFPU >= {VFPU_TARGET:g} tok/s: {'met' if v >= VFPU_TARGET else 'NOT met'} ({v:.2f}); "
              f"stretch {VFPU_STRETCH:g}: {'met' if v >= VFPU_STRETCH else 'not met'}")
    if "scalar" in by and args.shape == "stories15M":
        s = by["scalar"]["tok_per_s"]
        print(f"scalar projection {s:.2f} tok/s vs the real 1.5 tok/s: {100 * (s / 1.5 - 1):+.0f}%")
    print(f"target bench wall < 300 s: {'met' if wall < 300 else 'NOT met'} ({wall:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
