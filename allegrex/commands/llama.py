"""`allegrex llama`: the llama2 port's tools: make random models, convert checkpoints,
run the port on the simulated PSP (or its host build with --host)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from allegrex.limits import add_time_limits, count
from allegrex.llama.checkpoint import read_checkpoint
from allegrex.llama.errors import LlamaError
from allegrex.llama.shapes import SHAPES, WRITERS, make_model, shape_config

LIMIT_STOPS = ("max-seconds", "timeout")  # a run stopped by --max-seconds or --timeout exits 3, as `allegrex run`


def add_parser(subparsers):
    p = subparsers.add_parser("llama", help="llama2 model tools: make random models, convert checkpoints")
    sub = p.add_subparsers(dest="llama_command", metavar="ACTION")
    sub.required = True

    make = sub.add_parser("make", help="write a deterministic random checkpoint and tokenizer")
    make.add_argument("--shape", default="stories260K",
                      help=f"{', '.join(SHAPES)} or custom:dim,hidden,layers,heads,kv_heads,vocab,seq")
    _format_options(make)
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("directory", type=Path)

    conv = sub.add_parser("convert", help="rewrite a checkpoint as legacy fp32, q80 v2 or q40")
    conv.add_argument("input", type=Path)
    conv.add_argument("output", type=Path)
    _format_options(conv)
    conv.add_argument("--group-size", type=int, help="largest group size (q80: 64, q40: 32; halved until it "
                      "divides dim and hidden_dim)")

    run = sub.add_parser("run", help="run the llama2 EBOOT on the simulated PSP and print its text and tok/s")
    run.add_argument("--model", required=True, type=Path, help="checkpoint (legacy fp32 or q80 v2)")
    run.add_argument("--tokenizer", required=True, type=Path, help="tokenizer.bin")
    run.add_argument("--prompt", default="")
    run.add_argument("--kernel", choices=("scalar", "scalar-madd", "vfpu"), default="scalar",
                     help="scalar (the C as zig's clang compiles it), scalar-madd (q80 with madd, as psp-gcc "
                     "compiles it), vfpu")
    run.add_argument("--steps", type=count, default=64,
                     help="positions including the prompt (as llama2.c; at most --context are run)")
    run.add_argument("--temperature", type=float, default=0.0)
    run.add_argument("--topp", type=float, default=0.9)
    run.add_argument("--seed", type=int, default=42)
    run.add_argument("--context", type=count, default=256, help="KV cache length (at most the model's seq_len)")
    run.add_argument("--heap-kb", type=count, help="the heap block (default: all the user partition gives)")
    run.add_argument("--no-volatile", action="store_true", help="do not use the 4 MB volatile partition for weights")
    run.add_argument("--kv", choices=("fp32", "int8"), default="fp32", help="KV cache: fp32, or int8 with a scale "
                     "per head and position")
    run.add_argument("--cache-kb", type=count, help="keep at most this much of the weights in RAM, read the rest "
                     "from the memory stick each token (default: as much as fits)")
    run.add_argument("--cache", choices=("prefix", "striped"), default="prefix",
                     help="what stays in RAM when not all does: whole matrices in the order they are used "
                     "(prefix), or the same share of every matrix (striped)")
    run.add_argument("--clock", type=int, choices=(222, 266, 333), default=333, help="CPU MHz the program sets")
    run.add_argument("--psp", choices=("psp-1000", "psp-2000", "psp-3000"), default="psp-2000", help="PSP model")
    run.add_argument("--workdir", type=Path, help="where the memory-stick folder goes (default: a temporary folder)")
    run.add_argument("--host", action="store_true", help="run the host reference build instead of the simulator")
    add_time_limits(run)
    return p


def _format_options(parser) -> None:
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--q80", dest="fmt", action="store_const", const="q80", help="int8, llama2.c's q80 v2")
    fmt.add_argument("--q40", dest="fmt", action="store_const", const="q40",
                     help="4-bit, one fp16 scale per group of 32 (docs/llama2.md)")
    parser.set_defaults(fmt="fp32")


def run(args) -> int:
    if args.llama_command == "run":
        return _run_model(args)
    if args.llama_command == "make":
        config = shape_config(args.shape)
        model, tok = make_model(args.shape, args.directory, args.fmt, seed=args.seed)
        print(f"{args.shape}: {config.n_params():,} parameters -> {model} ({model.stat().st_size:,} bytes), {tok}")
        return 0
    if args.group_size is not None and args.group_size < 1:
        raise LlamaError(f"--group-size must be positive, got {args.group_size}")
    ckpt = read_checkpoint(args.input)
    if args.fmt == "fp32":
        WRITERS["fp32"](ckpt, args.output)
        print(f"wrote {args.output} (legacy fp32)")
    else:
        gs = WRITERS[args.fmt](ckpt, args.output, *([args.group_size] if args.group_size else []))
        print(f"wrote {args.output} ({'q80 v2' if args.fmt == 'q80' else 'q40'}, group size {gs})")
    return 0


def _run_host(args, workdir, settings) -> int:
    from allegrex.llama.host import run_host
    if args.max_seconds is not None:
        raise LlamaError("--max-seconds counts simulated time, which the host build (--host) does not have")
    try:
        result = run_host(workdir, {**settings, "model": args.model.resolve(), "tokenizer": args.tokenizer.resolve()},
                          **({"timeout": args.timeout} if args.timeout else {}))
    except subprocess.TimeoutExpired:
        print(f"allegrex llama run: stopped at the --timeout limit ({args.timeout:g} wall-clock s)", file=sys.stderr)
        return 3
    sys.stdout.write(result.stdout)
    return result.returncode


def _run_model(args) -> int:
    from allegrex.llama.psp import check_cache_budget, check_model_files, run_psp

    check_model_files(args.model, args.tokenizer)
    check_cache_budget(args.cache_kb, args.psp)
    settings = {"prompt": args.prompt, "steps": args.steps, "temperature": args.temperature, "topp": args.topp,
                "seed": args.seed, "kernel": args.kernel, "context": args.context, "clock": args.clock,
                "kv": args.kv, "cache": args.cache, "volatile": 0 if args.no_volatile else 1}
    for key, value in (("heap_kb", args.heap_kb), ("cache_kb", args.cache_kb)):
        if value is not None:
            settings[key] = value
    with tempfile.TemporaryDirectory(prefix="allegrex-llama-") as tmp:
        workdir = args.workdir or Path(tmp)
        if args.host:
            return _run_host(args, workdir, settings)
        result = run_psp(workdir, settings, args.model, args.tokenizer, psp_model=args.psp,
                         max_seconds=args.max_seconds, timeout=args.timeout, started=args.started)
    sys.stdout.flush()
    s, r = result.stats, result.report
    if result.exit_kind not in ("exit", "threads-ended"):
        print(f"allegrex llama run: {result.exit_message}", file=sys.stderr)
        return 3 if result.exit_kind in LIMIT_STOPS else 1
    if s:
        print(f"simulated {args.psp} at {args.clock} MHz: {s.get('tokens')} tokens in {float(s['seconds']):.2f} s "
              f"({float(s['tok_per_s']):.2f} tok/s), first token after {float(s['ttft_seconds']):.2f} s; "
              f"{r.get('cycles', 0):,} cycles, {r.get('instructions', 0):,} instructions")
    return 0 if s else 1
