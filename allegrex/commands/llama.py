"""`allegrex llama`: model tools for the llama2 port (make, convert; run once the PSP build lands)."""

from __future__ import annotations

from pathlib import Path

from allegrex.llama.checkpoint import read_checkpoint, write_legacy, write_q80
from allegrex.llama.shapes import SHAPES, make_model, shape_config


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
    return p


def run(args) -> int:
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
