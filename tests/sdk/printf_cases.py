"""Read psp/apps/exercise/printf_cases.h and compute what each case must print, using
Python's % formatting as the independent implementation."""

import re
import warnings

import numpy as np

CASE = re.compile(r'^CASE_(\w+)\((".*?"),\s*(.*)\)\s*$')
FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*(?:e[+-]?\d+)?|\d+e[+-]?\d+)")

# Where C and Python's % operator disagree, the C standard decides (C11 7.21.6.1).
C_RULES = {
    ("%.0d", 0): "",     # "the result of converting zero with an explicit precision of zero is no characters"
    ("%#x", 0): "0",     # the 0x prefix is only added to a nonzero value
}


def c_value(text: str):
    expr = re.sub(r"([0-9a-fA-F])(ULL|LL|u|U)\b", r"\1", text.strip())
    expr = re.sub(r"\(float\)\s*([\w.+\-]+)", r"f32(\1)", expr)
    expr = FLOAT_LITERAL.sub(r"D(\1)", expr)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = eval(expr, {"D": np.float64, "f32": lambda v: float(np.float32(v))})  # noqa: S307 - test data
    return float(value) if isinstance(value, np.floating) else value


def python_format(fmt: str, kind: str, args):
    plain = re.sub(r"(hh|h|ll|l|z)([diouxX])", r"\2", fmt)
    if kind == "I" and "hh" in fmt:
        args = (int(np.int8(np.int64(args[0]).astype(np.int8))),)
    elif kind == "I" and "h" in fmt:
        args = (int(np.int64(args[0]).astype(np.int16)),)
    key = (fmt, args[-1])
    if key in C_RULES:
        return C_RULES[key]
    try:
        return plain % args
    except TypeError:
        return plain % ()


def read_cases(path):
    """[(format, expected output)] in file order."""
    cases = []
    for line in path.read_text().splitlines():
        m = CASE.match(line.strip())
        if not m:
            continue
        kind, fmt_literal, rest = m.groups()
        fmt = eval(fmt_literal)  # noqa: S307 - a C string literal without escapes
        args = tuple(c_value(a) for a in rest.split(",")) if kind == "W" else (c_value(rest),)
        if kind == "S":
            args = (eval(rest),)  # noqa: S307
        cases.append((fmt, f"[{python_format(fmt, kind, args)}]"))
    return cases


def random_cases(seed: int, count: int):
    """Header text of random double cases and their expected lines."""
    rng = np.random.default_rng(seed)
    lines, expected = [], []
    for _ in range(count):
        value = float(rng.choice([-1, 1]) * 10.0 ** rng.uniform(-30, 30))
        if rng.random() < 0.2:
            value = float(np.round(value, int(rng.integers(0, 4))))  # ties and short decimals
        conv = rng.choice(["f", "e", "g", "E", "G"])
        prec = int(rng.integers(0, 18))
        width = int(rng.integers(0, 30))
        flags = rng.choice(["", "-", "+", " ", "0", "#"])
        fmt = f"%{flags}{width or ''}.{prec}{conv}"
        if conv == "f" and abs(value) > 1e22:
            value = value / 1e10
        lines.append(f'CASE_F("{fmt}", {value!r})')
        expected.append((fmt, f"[{fmt % value}]"))
    return "\n".join(lines) + "\n", expected
