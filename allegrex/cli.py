"""The `allegrex` command line: one subcommand per module in allegrex.commands."""

import argparse
import importlib
import sys

from allegrex.errors import AllegrexError

# Each name is a module allegrex.commands.<name> with add_parser(subparsers) and run(args) -> int.
COMMANDS: list[str] = ["llama"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="allegrex",
        description="Simulate the PSP's Allegrex CPU and VFPU: run PSP programs, count cycles.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMANDS:
        module = importlib.import_module(f"allegrex.commands.{name}")
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args._run(args) or 0
    except AllegrexError as exc:
        print(f"allegrex {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"allegrex {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
