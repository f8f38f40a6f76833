"""Limits a run takes (simulated seconds, wall-clock seconds, counts): the one rule for what
is a valid value, as argparse types for the commands and a check for library callers."""

import argparse
import math

from allegrex.errors import AllegrexError


class LimitError(AllegrexError):
    """A limit that is not a positive, finite number."""


def check_seconds(value: float, name: str) -> float:
    """`value` if it is a positive, finite number of seconds; else a LimitError naming `name`."""
    if not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise LimitError(f"{name} {value!r}: give a positive, finite number of seconds")
    return value


def seconds(text: str) -> float:
    """argparse type: a positive, finite number of seconds (not nan, inf, 0 or negative)."""
    try:
        return check_seconds(float(text), "")
    except (ValueError, LimitError):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive, finite number of seconds") from None


def count(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def add_time_limits(parser, max_seconds: float | None = None, timeout: float | None = None,
                    timeout_counts: str = "the whole command: loading counts") -> None:
    """--max-seconds (simulated) and --timeout (wall clock, over what timeout_counts says)."""
    parser.add_argument("--max-seconds", metavar="S", type=seconds, default=max_seconds,
                        help="stop after S simulated seconds" + (f" (default {max_seconds:g})" if max_seconds else ""))
    parser.add_argument("--timeout", metavar="S", type=seconds, default=timeout,
                        help=f"stop after S wall-clock seconds ({timeout_counts})"
                             + (f" (default {timeout:g})" if timeout else ""))
