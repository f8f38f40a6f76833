"""Every figure of the hardware timing reference, measured again in the simulator with
the reference's own method; prints figure, measured, simulated, error %.

    PYTHONPATH=. python benchmarks/timing_fidelity.py [--full] [--match REGEX] [--json F]
    PYTHONPATH=. python benchmarks/timing_fidelity.py --eboot     # the PSP program instead

By default the loops run 1/8 of the reference's iteration counts (2048 and 8192: the
per-iteration figures are settled long before); --full uses 16384 and 65536 as the
hardware test did. The loops are hand-assembled from the decode tables
(allegrex/timing/fidelity.py); --eboot instead builds psp/apps/microbench (the same
loops as a PSP program, with the SDK) and runs it with `allegrex run`, parsing the
"<figure>: <value>" lines it prints.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from allegrex.timing import fidelity, reference  # noqa: E402


ROOT = Path(__file__).resolve().parent.parent


def eboot_figures(scale):
    """{figure: value} printed by psp/apps/microbench run in the simulator."""
    app = ROOT / "psp" / "apps" / "microbench"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        pbp = os.path.join(tmp, "microbench.pbp")
        subprocess.run([sys.executable, str(app / "gen_bench.py"), tmp], env=env, check=True)
        shutil.copy(app / "main.c", tmp)  # beside the generated figures.h it includes
        subprocess.run([sys.executable, "-m", "allegrex", "cc", "-O2", f"-DITER_DIV={scale}",
                        os.path.join(tmp, "main.c"), os.path.join(tmp, "bench.S"), "-o", pbp], env=env, check=True,
                       capture_output=True)
        out = subprocess.run([sys.executable, "-m", "allegrex", "run", "--quiet", pbp], env=env,
                             capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        name, sep, value = line.rpartition(": ")
        if sep and name:
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the reference's iteration counts")
    ap.add_argument("--match", default="", help="only figures whose name matches this regex")
    ap.add_argument("--json", help="write the rows to this file")
    ap.add_argument("--worst", type=int, default=5, help="list the N worst figures at the end")
    ap.add_argument("--eboot", action="store_true", help="run psp/apps/microbench with allegrex run")
    args = ap.parse_args(argv)
    measured = reference.figures()
    scale = 1 if args.full else 8
    t0 = time.time()
    printed = eboot_figures(scale) if args.eboot else None
    rows, unavailable = [], []
    print(f"{'figure':34s} {'measured':>9s} {'simulated':>9s} {'error %':>8s}")
    for name in fidelity.FIGURES:
        if args.match and not re.search(args.match, name):
            continue
        iters = (fidelity.MEM_ITERS if name.startswith("mem ") else fidelity.INST_ITERS) // scale
        try:
            if printed is not None:
                if name not in printed:
                    raise fidelity.Unavailable("the program did not print it")
                sim = printed[name]
            else:
                sim = fidelity.run_figure(name, iters)
        except fidelity.Unavailable as exc:
            unavailable.append(name)
            print(f"{name:34s} {measured[name]:9.2f} {'n/a':>9s}   ({exc})")
            continue
        err = 100.0 * (sim - measured[name]) / measured[name]
        rows.append({"figure": name, "measured": measured[name], "simulated": round(sim, 4),
                     "error_pct": round(err, 3)})
        print(f"{name:34s} {measured[name]:9.2f} {sim:9.2f} {err:+8.2f}", flush=True)
    if rows:
        worst = sorted(rows, key=lambda r: -abs(r["error_pct"]))
        within = sum(abs(r["error_pct"]) <= 5.0 for r in rows)
        print(f"\n{len(rows)} figures simulated, {within} within 5% "
              f"({len(unavailable)} unavailable), {time.time() - t0:.0f} s")
        print(f"worst {args.worst}:")
        for r in worst[:args.worst]:
            print(f"  {r['figure']:34s} {r['measured']:9.2f} {r['simulated']:9.2f} {r['error_pct']:+8.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "unavailable": unavailable}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
