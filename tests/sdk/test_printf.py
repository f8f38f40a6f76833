"""printf: the SDK's formatter against Python's % formatting (correctly rounded), on a
host build of psp/apps/exercise/printf_formats.c (the same libc C as on the PSP)."""

import subprocess

from allegrex.sdk import build_host
from sdk_paths import APPS
from printf_cases import random_cases, read_cases

PROGRAM = APPS / "exercise" / "printf_formats.c"
CASES = APPS / "exercise" / "printf_cases.h"


def run_host(out_dir, name, **options):
    exe = build_host([PROGRAM], out_dir / name, **options)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_table_of_formats_matches_python(out_dir):
    cases = read_cases(CASES)
    assert len(cases) > 100
    lines = run_host(out_dir, "printf_formats")
    for (fmt, expected), got in zip(cases, lines):
        assert got == expected, f"printf({fmt!r})"
    assert lines[len(cases):] == ["[snprintf 14 truncat]", "[0x8804000]"]


def test_random_doubles_match_python(tmp_path, out_dir):
    header, expected = random_cases(seed=7, count=400)
    (tmp_path / "printf_cases_extra.h").write_text(header)
    lines = run_host(out_dir, "printf_random", include_dirs=[tmp_path], defines=["PRINTF_EXTRA_CASES"])
    fixed = len(read_cases(CASES))
    for (fmt, want), got in zip(expected, lines[fixed:]):
        assert got == want, f"printf({fmt!r})"
    assert len(lines) == fixed + len(expected) + 2
