"""`allegrex bench llama`: scalar vs VFPU llama2 tok/s on a simulated PSP, the memory
budget, the bandwidth roofline and the published figures; --sweep over model sizes.
`allegrex bench kernel FILE FUNC ARG...`: cycles per call of one function of a PSP
program on given arguments and buffers (allegrex.bench.kernel), --compare for A/B."""

import json
import sys

from allegrex.errors import AllegrexError
from allegrex.jobs import add_arguments, engine_from_args

# Positions the default run simulates: enough for a steady per-token cost, few enough that
# the default bench finishes in minutes at the simulator's present speed.
DEFAULT_TOKENS = 8


def add_parser(subparsers):
    p = subparsers.add_parser("bench", help="benchmarks on the simulated PSP (llama: tok/s per kernel)")
    sub = p.add_subparsers(dest="bench_command", metavar="BENCHMARK")
    sub.required = True
    b = sub.add_parser("llama", help="the llama2 port: scalar vs VFPU tok/s, memory, roofline (--sweep: model sizes)")
    b.add_argument("--shape", default="stories15M", help="model shape of the bundled random q80 model")
    b.add_argument("--kernels", default="scalar,vfpu", help="comma-separated: scalar, vfpu")
    b.add_argument("--tokens", type=int, help=f"positions to run (default {DEFAULT_TOKENS}: the cost per "
                   "position is steady, so tok/s projects from a few; 64 is the published run; 2 with --sweep)")
    b.add_argument("--prompt", default=None, help="prompt (default empty: BOS only, every position generates)")
    b.add_argument("--model", default="psp-2000", choices=("psp-1000", "psp-2000", "psp-3000"))
    b.add_argument("--clock", type=int, default=333, help="CPU MHz (222, 266, 333)")
    b.add_argument("--json", metavar="F", help="write the report as JSON")
    b.add_argument("--plot", metavar="F.png", help="draw tok/s per kernel and the cycle breakdown")
    b.add_argument("--sweep", action="store_true", help="stories260K..110M on psp-1000 and psp-2000")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    add_arguments(b)
    k = sub.add_parser("kernel", help="time one function of a PSP program on given arguments (--compare: A/B)",
                       description="Call FUNC of a PSP program (EBOOT.PBP, PRX, ELF) with the arguments given, "
                                   "N times, and print cycles per call, CPI, stalls by cause and cache misses.")
    k.add_argument("file", help="EBOOT.PBP, .prx or .elf")
    k.add_argument("function", metavar="FUNC", help="the function to call (a symbol)")
    k.add_argument("args", nargs="*", metavar="ARG",
                   help="12, 0x40 (int); 2.5 (float); f32:1024[:rand|ramp|ones|zeros|1,2,..] a buffer "
                        "(types f32 f64 i8 u8 i16 u16 i32 u32); @x.npy")
    k.add_argument("-n", dest="calls", type=int, default=10, metavar="N", help="timed calls (default 10)")
    k.add_argument("--cold", action="store_true", help="empty I- and D-caches before each call (default: warm)")
    k.add_argument("--symbols", metavar="F", help="symbols from the unstripped ELF/PRX of a stripped program")
    k.add_argument("--compare", metavar="OTHER",
                   help="also time OTHER (a function of the same program, another build FILE, or FILE:FUNC) "
                        "and show both side by side with the speed-up")
    k.add_argument("--model", default="psp-2000", choices=("psp-1000", "psp-2000", "psp-3000"))
    k.add_argument("--clock", type=int, metavar="MHZ", help="CPU clock for the calls (bus at half); default: "
                   "what the program set before main (boot: 222)")
    k.add_argument("--abi", choices=("o32", "eabi32"), help="calling convention (default: from the ELF header)")
    k.add_argument("--no-os-tick", action="store_true",
                   help="leave out the OS's periodic interrupt work (ESTIMATE), so every call is timed alike")
    k.add_argument("--returns", choices=("int", "float"), help="print the return value (v0, or $f0)")
    k.add_argument("--outputs", metavar="DIR", help="save every buffer after the calls as DIR/argN.npy")
    k.add_argument("--json", metavar="F", help="write the result(s) as JSON")
    return p


def run(args) -> int:
    if args.bench_command == "kernel":
        return run_kernel(args)
    from allegrex.bench.llama import DEFAULT_PROMPT, SWEEP_TOKENS, bench_llama, sweep_llama
    from allegrex.bench.report import format_report
    kernels = tuple(k.strip() for k in args.kernels.split(",") if k.strip())
    if args.sweep:
        report = sweep_llama(kernels, SWEEP_TOKENS if args.tokens is None else args.tokens, args.clock,
                             show_progress=not args.quiet, engine=engine_from_args(args))
    else:
        prompt = DEFAULT_PROMPT if args.prompt is None else args.prompt
        report = bench_llama(args.shape, kernels, DEFAULT_TOKENS if args.tokens is None else args.tokens, prompt,
                             args.model, args.clock, show_progress=not args.quiet, engine=engine_from_args(args))
    print(format_report(report))
    sys.stdout.flush()
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(report, f, indent=1)
        except OSError as exc:
            raise AllegrexError(f"cannot write {args.json}: {exc.strerror}") from None
    if args.plot:
        from allegrex.bench.plot import plot_report
        plot_report(report, args.plot)
    ok = all(k.get("ok") for k in report.get("kernels", [])) if not args.sweep else True
    return 0 if ok else 1


def _other(args):
    """(file, function, symbols) of --compare OTHER."""
    import os
    other = args.compare
    path, _, func = other.rpartition(":")
    if path and os.path.isfile(path):
        return path, func, None
    if os.path.isfile(other):
        return other, args.function, None
    return args.file, other, args.symbols


def run_kernel(args) -> int:
    import os

    import numpy as np

    from allegrex.bench import kernel
    values = [kernel.parse_arg(text, i) for i, text in enumerate(args.args)]
    prog = kernel.Program(args.file, args.symbols, args.model, args.clock, args.abi, not args.no_os_tick)
    results = [prog.call(args.function, *values, n=args.calls, warm=not args.cold)]
    if args.compare:
        path, func, symbols = _other(args)
        other = prog if path == args.file else kernel.Program(path, symbols, args.model, args.clock, args.abi,
                                                              not args.no_os_tick)
        results.append(other.call(func, *values, n=args.calls, warm=not args.cold))
    parts = []
    for r in results:
        lines = [kernel.format_result(r, args.returns)]
        for i, out in enumerate(r.outputs):
            if out is not None:
                head = ", ".join(f"{v:.7g}" if out.dtype.kind == "f" else str(v) for v in out.ravel()[:4].tolist())
                lines.append(f"argument {i} after the calls: {out.dtype}[{out.size}] {head}"
                             f"{', ...' if out.size > 4 else ''}")
        parts.append("\n".join(lines))
    if len(results) == 2:
        parts.append(kernel.format_comparison(*results))
    print("\n\n".join(parts))
    if args.outputs:
        try:
            os.makedirs(args.outputs, exist_ok=True)
            for r in results[:1]:
                for i, out in enumerate(r.outputs):
                    if out is not None:
                        np.save(os.path.join(args.outputs, f"arg{i}.npy"), out)
        except OSError as exc:
            raise AllegrexError(f"cannot write to {args.outputs}: {exc.strerror}") from None
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump([r.summary() for r in results], f, indent=1)
        except OSError as exc:
            raise AllegrexError(f"cannot write {args.json}: {exc.strerror}") from None
    return 0
