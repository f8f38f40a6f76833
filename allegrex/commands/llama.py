"""`allegrex llama`: the llama2 port's tools: make random models, convert checkpoints,
run the port on the simulated PSP (or its host build with --host)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from allegrex.limits import add_time_limits, count
from allegrex.llama.checkpoint import read_checkpoint, write_legacy, write_q80
from allegrex.llama.errors import LlamaError
from allegrex.llama.shapes import SHAPES, make_model, shape_config

LIMIT_STOPS = ("max-seconds", "timeout")  # a run stopped by --max-seconds or --timeout exits 3, as `allegrex run`


def add_parser(subparsers):
    p = subparsers.add_parser("llama", help="llama2 model tools: make random models, convert checkpoints")
    sub = p.add_subparsers(dest="llama_command", metavar="ACTION")
    sub.required = True

    make = sub.add_parser("make", help="write a deterministic random checkpoint and tokenizer")
    make.add_argument("--shape", default="stories260K",
                      help=f"{', '.join(SHAPES)} or custom:dim,hidden,layers,heads,kv_heads,vocab,seq")
    make.add_argument("--q80", action="store_true", help="write the int8 q80 v2 format")
    make.add_argument("--seed", type=int, default=0)
    make.add_argument("directory", type=Path)

    conv = sub.add_parser("convert", help="rewrite a checkpoint as legacy fp32 or q80 v2")
    conv.add_argument("input", type=Path)
    conv.add_argument("output", type=Path)
    conv.add_argument("--q80", action="store_true", help="quantize to q80 (default: legacy fp32)")
    conv.add_argument("--group-size", type=int, default=64)

    run = sub.add_parser("run", help="run the llama2 EBOOT on the simulated PSP and print its text and tok/s")
    run.add_argument("--model", required=True, type=Path, help="checkpoint (legacy fp32 or q80 v2)")
    run.add_argument("--tokenizer", required=True, type=Path, help="tokenizer.bin")
    run.add_argument("--prompt", default="")
    run.add_argument("--kernel", choices=("scalar", "vfpu"), default="scalar")
    run.add_argument("--steps", type=count, default=64,
                     help="positions including the prompt (as llama2.c; at most --context are run)")
    run.add_argument("--temperature", type=float, default=0.0)
    run.add_argument("--topp", type=float, default=0.9)
    run.add_argument("--seed", type=int, default=42)
    run.add_argument("--context", type=count, default=256, help="KV cache length (at most the model's seq_len)")
    run.add_argument("--heap-kb", type=count, default=24 * 1024,
                     help="the model arena (default 24 MB, as the PSP-2000 port)")
    run.add_argument("--clock", type=int, choices=(222, 266, 333), default=333, help="CPU MHz the program sets")
    run.add_argument("--psp", choices=("psp-1000", "psp-2000", "psp-3000"), default="psp-2000", help="PSP model")
    run.add_argument("--workdir", type=Path, help="where the memory-stick folder goes (default: a temporary folder)")
    run.add_argument("--host", action="store_true", help="run the host reference build instead of the simulator")
    add_time_limits(run)
    return p


def run(args) -> int:
    if args.llama_command == "run":
        return _run_model(args)
    if args.llama_command == "make":
        config = shape_config(args.shape)
        model, tok = make_model(args.shape, args.directory, q80=args.q80, seed=args.seed)
        print(f"{args.shape}: {config.n_params():,} parameters -> {model} ({model.stat().st_size:,} bytes), {tok}")
        return 0
    ckpt = read_checkpoint(args.input)
    if args.q80:
        gs = write_q80(ckpt, args.output, args.group_size)
        print(f"wrote {args.output} (q80 v2, group size {gs})")
    else:
        write_legacy(ckpt, args.output)
        print(f"wrote {args.output} (legacy fp32)")
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
    from allegrex.llama.psp import check_model_files, run_psp

    check_model_files(args.model, args.tokenizer)
    settings = {"prompt": args.prompt, "steps": args.steps, "temperature": args.temperature, "topp": args.topp,
                "seed": args.seed, "kernel": args.kernel, "context": args.context, "heap_kb": args.heap_kb,
                "clock": args.clock}
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
