"""The `allegrex` command line: one subcommand per module in allegrex.commands."""

import argparse
import importlib
import pkgutil
import sys
import time

import allegrex.commands
from allegrex.errors import AllegrexError

def command_modules() -> list[str]:
    """Every module in allegrex.commands is a subcommand: add_parser(subparsers), run(args) -> int."""
    return sorted(m.name for m in pkgutil.iter_modules(allegrex.commands.__path__) if not m.name.startswith("_"))

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="allegrex",
        description="Simulate the PSP's Allegrex CPU and VFPU: run PSP programs, count cycles.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in command_modules():
        module = importlib.import_module(f"allegrex.commands.{name}")
        sub = module.add_parser(subparsers)
        sub.set_defaults(_run=module.run)
    return parser

def main(argv=None) -> int:
    started = time.monotonic()  # wall-clock limits (--timeout) count the whole command
    args = build_parser().parse_args(argv)
    args.started = started
    try:
        return args._run(args) or 0
    except AllegrexError as exc:
        print(f"allegrex {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); not an error worth a traceback.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print(f"allegrex {args.command}: interrupted", file=sys.stderr)
        return 130

if __name__ == "__main__":
    sys.exit(main())
