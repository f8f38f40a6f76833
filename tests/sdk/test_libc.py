"""libc conversions and algorithms (psp/apps/exercise/libc_checks.c) against Python,
on the host build; the PSP build run on the CPU prints the same text."""

import ast
import re
import struct
import subprocess

import numpy as np
import pytest

from allegrex.sdk import build, build_host
from psp_harness import run_program
from sdk_paths import APPS

PROGRAM = APPS / "exercise" / "libc_checks.c"
NUMBERS = APPS / "exercise" / "libc_numbers.h"
DECIMAL = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)
INTEGER = re.compile(r"\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)")


def numbers():
    text = re.sub(r"/\*.*?\*/", "", NUMBERS.read_text(), flags=re.S)
    return list(ast.literal_eval("(" + text + ")"))


def reference_strtod(s):
    m = DECIMAL.match(s)
    if not m:
        return 0.0, 0
    token = m.group(0).strip().lower().replace("infinity", "inf")
    return float(token), m.end()


def reference_strtoll(s):
    m = INTEGER.match(s)
    if not m:
        return 0, 0
    digits = m.group(2)
    value = int(digits, 16) if digits[:2].lower() == "0x" else int(digits, 8) if digits.startswith("0") else int(digits)
    value = -value if m.group(1) == "-" else value
    if value > 2**63 - 1:
        return 2**63 - 1, 1
    if value < -2**63:
        return -2**63, 1
    return value, 0


def ordered_bits(x):
    """The double's bits as an integer that counts ulps across the whole line."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits if bits >= 0 else -(bits & (2**63 - 1))


def lcg_values():
    state, values = 99, []
    for _ in range(500):
        state = (state * 1103515245 + 12345) & 0xFFFFFFFF
        values.append((state >> 16) % 1000 - 500)
    return values


@pytest.fixture(scope="module")
def host_lines(out_dir):
    exe = build_host([PROGRAM], out_dir / "libc_checks")
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=30, check=True).stdout.splitlines()


def test_strtod_and_strtoll(host_lines):
    inputs = numbers()
    assert len(inputs) > 40
    for s, line in zip(inputs, host_lines):
        _, bits, used, _, ll, erange = line.split()
        got = struct.unpack("<d", bytes.fromhex(bits)[::-1])[0]
        want, want_used = reference_strtod(s)
        assert int(used) == want_used, f"strtod({s!r}) stopped at {used}"
        if want != want:
            assert got != got
        else:   # correctly rounded: the same double as Python's float()
            assert ordered_bits(got) == ordered_bits(want), f"strtod({s!r}) = {got!r}, not {want!r}"
        assert (int(ll), int(erange)) == reference_strtoll(s), f"strtoll({s!r})"


def test_qsort_bsearch_and_strings(host_lines):
    rest = host_lines[len(numbers()):]
    values = sorted(lcg_values())
    assert rest[0] == "qsort " + " ".join(map(str, values))
    found = sum(1 for key in range(-520, 521) if key in set(values))
    assert rest[1] == f"bsearch {found} {1041 - found}"
    assert rest[2] == "strings 17 1 0 PSP world! orld! world! 0"
    assert rest[3] == "tokens a b c"
    assert rest[4] == "atoi -123 0 16"


def nan_as_word(line):
    """NaN encodings differ by target (MIPS II uses the legacy quiet-NaN bit), so any
    NaN compares as the word nan."""
    return re.sub(r"\b[7f]ff(?!0{13})[0-9a-f]{13}\b", "nan", line)


def test_psp_build_prints_the_same(out_dir, host_lines):
    elf = build([PROGRAM], out_dir / "libc_checks.elf", elf=True)
    psp = run_program(elf).stdout.splitlines()
    assert [nan_as_word(line) for line in psp] == [nan_as_word(line) for line in host_lines]


def random_decimal_strings(seed, count):
    """Shortest reprs of random doubles, exact midpoints between neighbouring doubles
    (the hardest ties), and random digit strings with random exponents."""
    from decimal import Decimal, localcontext

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        bits = int(rng.integers(0, 0x7FF0000000000000, dtype=np.int64))
        x = struct.unpack("<d", struct.pack("<q", bits))[0]
        kind = rng.integers(0, 3)
        if kind == 0:
            out.append(repr(x))
        elif kind == 1:
            nxt = struct.unpack("<d", struct.pack("<q", bits + 1))[0]
            with localcontext() as ctx:
                ctx.prec = 1200   # exact: the midpoint has at most ~770 significant digits
                out.append(format((Decimal(x) + Decimal(nxt)) / 2, "e"))
        else:
            digits = "".join(str(d) for d in rng.integers(0, 10, int(rng.integers(1, 40))))
            out.append(f"{digits}e{int(rng.integers(-345, 310))}")
    return out


def test_strtod_is_correctly_rounded_on_random_input(tmp_path):
    strings = random_decimal_strings(seed=3, count=600)
    (tmp_path / "libc_numbers_extra.h").write_text("".join(f'"{s}",\n' for s in strings))
    exe = build_host([PROGRAM], tmp_path / "libc_checks_extra", include_dirs=[tmp_path], defines=["EXTRA_NUMBERS"])
    lines = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    for s, line in zip(strings, lines[len(numbers()):]):
        got = struct.unpack("<d", bytes.fromhex(line.split()[1])[::-1])[0]
        assert got == float(s), f"strtod({s!r}) = {got!r}, not {float(s)!r}"
