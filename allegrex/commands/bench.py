"""`allegrex bench llama`: scalar vs VFPU llama2 tok/s on a simulated PSP, the memory
budget, the bandwidth roofline and the published figures; --sweep over model sizes."""

import json
import sys

from allegrex.errors import AllegrexError

# Positions the default run simulates: enough for a steady per-token cost, few enough that
# the default bench finishes in minutes at the simulator's present speed.
DEFAULT_TOKENS = 8


def add_parser(subparsers):
    p = subparsers.add_parser("bench", help="benchmarks on the simulated PSP (llama: tok/s per kernel)")
    sub = p.add_subparsers(dest="bench_command", metavar="BENCHMARK")
    sub.required = True
    b = sub.add_parser("llama", help="the llama2 port: scalar vs VFPU tok/s, memory, roofline (--sweep: model sizes)")
    b.add_argument("--shape", default="stories15M", help="model shape of the bundled random model")
    b.add_argument("--format", default="q80", choices=("q80", "q40"), help="weight format of the bundled model")
    b.add_argument("--kv", default="fp32", choices=("fp32", "int8"), help="KV cache: fp32, or int8 with a scale per head")
    b.add_argument("--cache", default="prefix", choices=("prefix", "striped"),
                   help="which weights stay in RAM when not all fit (see allegrex llama run --cache)")
    b.add_argument("--cache-kb", type=int, help="keep at most this much of the weights in RAM")
    b.add_argument("--kernels", help="comma-separated: scalar, scalar-madd, vfpu (default scalar,vfpu; "
                   "with --sweep all three)")
    b.add_argument("--tokens", type=int, help=f"positions to run (default {DEFAULT_TOKENS}: the cost per "
                   "position is steady, so tok/s projects from a few; 64 is the published run; 2 with --sweep)")
    b.add_argument("--prompt", default=None, help="prompt (default empty: BOS only, every position generates)")
    b.add_argument("--model", default="psp-2000", choices=("psp-1000", "psp-2000", "psp-3000"))
    b.add_argument("--clock", type=int, default=333, help="CPU MHz (222, 266, 333)")
    b.add_argument("--json", metavar="F", help="write the report as JSON")
    b.add_argument("--plot", metavar="F.png", help="draw tok/s per kernel and the cycle breakdown")
    b.add_argument("--sweep", action="store_true", help="stories15M/42M/110M and a 90M shape on psp-1000/2000/3000, "
                   "q80/q40, each kernel, fp32/int8 KV cache: what fits, tok/s, the fastest configuration")
    b.add_argument("--shapes", help="with --sweep: comma-separated shapes (default stories15M,stories42M,"
                   "stories90M,stories110M)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def run(args) -> int:
    from allegrex.bench.llama import DEFAULT_KERNELS, DEFAULT_PROMPT, KERNELS, SWEEP_TOKENS, bench_llama
    from allegrex.bench.report import format_report
    from allegrex.bench.sweep import SWEEP_SHAPES, sweep_llama
    kernels = tuple(k.strip() for k in args.kernels.split(",") if k.strip()) if args.kernels is not None else None
    if args.sweep:
        shapes = tuple(v.strip() for v in args.shapes.split(",") if v.strip()) if args.shapes else SWEEP_SHAPES
        report = sweep_llama(KERNELS if kernels is None else kernels, SWEEP_TOKENS if args.tokens is None else args.tokens,
                             args.clock, shapes=shapes, show_progress=not args.quiet)
    else:
        prompt = DEFAULT_PROMPT if args.prompt is None else args.prompt
        report = bench_llama(args.shape, DEFAULT_KERNELS if kernels is None else kernels,
                             DEFAULT_TOKENS if args.tokens is None else args.tokens, prompt, args.model, args.clock,
                             show_progress=not args.quiet, fmt=args.format,
                             extra={"kv": args.kv, "cache": args.cache, **({"cache_kb": args.cache_kb} if args.cache_kb else {})})
    print(format_report(report))
    sys.stdout.flush()
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
        except OSError as exc:
            raise AllegrexError(f"cannot write {args.json}: {exc.strerror}") from None
    if args.plot:
        from allegrex.bench.plot import plot_report, plot_sweep
        (plot_sweep if args.sweep else plot_report)(report, args.plot)
    ok = all(k.get("ok") for k in report.get("kernels", [])) if not args.sweep else True
    return 0 if ok else 1
