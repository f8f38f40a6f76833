"""A VFPU dot-product kernel written in .S with real mnemonics (psp/apps/vfpu_dot),
built by the SDK (vfpu.asm.rewrite_vfpu_lines turns the VFPU lines into .word) and run
under `allegrex run`: it must print numpy's answer."""

import io
import re
import struct
from pathlib import Path

import numpy as np
import pytest

APP = Path(__file__).resolve().parents[2] / "psp" / "apps" / "vfpu_dot"


def test_vfpu_dot_kernel_builds_runs_and_matches_numpy(tmp_path):
    from allegrex import sdk
    from allegrex.commands.test import run_one
    elf = sdk.build([APP / "main.c", APP / "dot.S"], tmp_path / "vfpu_dot.elf", elf=True)
    console = io.StringIO()  # the program prints to its own stdout, not the test harness's channel
    _, stop = run_one(str(elf), max_seconds=5, timeout=1200, stderr=console)
    out = console.getvalue()
    assert stop.kind == "exit", out
    m = re.search(r"dot=(\S+) bits=([0-9a-f]{8})", out)
    assert m, out
    i = np.arange(256)
    x = ((i * 37) % 101 - 50).astype(np.float32) / 16
    y = ((i * 53) % 89 - 44).astype(np.float32) / 32
    want = np.dot(x.astype(np.float64), y.astype(np.float64))  # exact: every term is a multiple of 2^-9
    got = struct.unpack("<f", bytes.fromhex(m.group(2))[::-1])[0]
    assert got == want and float(m.group(1)) == pytest.approx(want, abs=1e-6)
