"""`allegrex profile` on an SDK program: the per-function table plus the HLE/idle/OS rows
adds up to the total, the report states the clock, bad input is one clear line."""

import json
from pathlib import Path

import pytest

from allegrex.cli import main

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def hello(tmp_path_factory):
    from allegrex.sdk import build
    out = tmp_path_factory.mktemp("profile")
    return build([ROOT / "psp" / "apps" / "hello" / "main.c"], out / "EBOOT.PBP"), out


def test_profile_rows_add_up_to_the_total(hello, capsys, tmp_path):
    eboot, _ = hello
    report = tmp_path / "p.json"
    ms0 = tmp_path / "ms0"
    ms0.mkdir()
    assert main(["profile", str(eboot), "--ms0", str(ms0), "--top", "5", "--json", str(report),
                 "--region", "screen_*"]) == 0
    out = capsys.readouterr().out
    assert "CPI" in out and "self cycles" in out and "(HLE calls)" in out and "222/111 MHz" in out
    data = json.loads(report.read_text())
    rows = data["functions"]
    assert sum(r["cycles"] for r in rows) == data["cycles"]
    names = {r["function"] for r in rows}
    assert "main" in names and "screen_init" in names
    hle = next(r for r in rows if r["function"] == "(HLE calls)")
    assert hle["cycles"] == data["stalls"]["syscalls"] > 0
    region = data["regions"][0]
    assert region["cycles"] > 0 and all(f.startswith("screen_") for f in region["functions"])


def test_profile_of_a_missing_file_is_one_line(capsys):
    assert main(["profile", "/nonexistent/EBOOT.PBP"]) != 0
    err = capsys.readouterr().err
    assert "no such file" in err and "Traceback" not in err
