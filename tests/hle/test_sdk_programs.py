"""The SDK's own programs run under the HLE exactly as their host builds run natively:
same stdout, same files on ms0:/, and the debug screen's pixels in the --screenshot PNG."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import allegrex.sdk as sdk

from allegrex.cli import main

ROOT = Path(__file__).resolve().parents[2]
APPS = ROOT / "psp" / "apps"
sys.path.insert(0, str(ROOT / "tests" / "sdk"))
from test_run import expected_screen  # noqa: E402  the SDK tests' own model of the console


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """name -> (PSP program, host executable or None), built once."""
    out = tmp_path_factory.mktemp("sdk-programs")
    progs = {"hello": (sdk.build([APPS / "hello" / "main.c"], out / "hello" / "EBOOT.PBP", title="Hello",
                                 large_memory=True), None)}
    for name in ("threads", "fileio", "heap", "screen_text"):
        source = [APPS / "exercise" / f"{name}.c"]
        host = None if name == "threads" else sdk.build_host(source, out / name / f"{name}.host")  # no host threads
        progs[name] = (sdk.build(source, out / name / f"{name}.elf", elf=True), host)
    return progs


def run(capsys, program, *options):
    code = main(["run", str(program), "--quiet", "--max-seconds", "20", *map(str, options)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def host_run(executable, cwd):
    done = subprocess.run([str(executable)], capture_output=True, text=True, timeout=60, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_hello_prints_writes_its_file_and_draws(built, capsys, tmp_path):
    ms0 = tmp_path / "ms0"
    ms0.mkdir()
    shot = tmp_path / "hello.png"
    code, out, err = run(capsys, built["hello"][0], "--ms0", ms0, "--screenshot", shot)
    assert code == 0, err
    assert out == "Hello, world!\nwrote ms0:/hello.txt\n"
    assert (ms0 / "hello.txt").read_text() == "Hello, file! 42 3.142\n"
    from PIL import Image
    px = np.asarray(Image.open(shot))
    assert px.shape == (272, 480, 3)
    assert (px[0:8].reshape(-1, 3) == [255, 255, 255]).any()  # white first line
    assert (px[8:16].reshape(-1, 3) == [0, 255, 0]).any()  # green second line
    assert not px[16:].any()  # nothing else drawn


def test_threads_hand_a_token_back_and_forth_like_the_host_build(built, capsys, tmp_path):
    code, out, err = run(capsys, built["threads"][0])
    assert code == 0, err
    # ping waits on a semaphore that starts at 1, pong on one at 0: they must alternate
    assert out == "threads ended with 100 101; order: 0 1 0 1 0 1 0 1 0 1\n"


def test_heap_stress_like_the_host_build(built, capsys, tmp_path):
    code, out, err = run(capsys, built["heap"][0])
    assert code == 0, err
    assert out == host_run(built["heap"][1], tmp_path) and "failures=0" in out


def test_file_round_trip_writes_the_same_bytes_as_the_host_build(built, capsys, tmp_path):
    psp_ms0, host_dir = tmp_path / "psp", tmp_path / "host"
    psp_ms0.mkdir()
    (host_dir / "ms0").mkdir(parents=True)
    code, out, err = run(capsys, built["fileio"][0], "--ms0", psp_ms0)
    assert code == 0, err
    assert out == host_run(built["fileio"][1], host_dir) == "fileio ok errors=0\n"
    assert (psp_ms0 / "fileio.bin").read_bytes() == (host_dir / "ms0" / "fileio.bin").read_bytes()
    assert sorted(p.name for p in psp_ms0.iterdir()) == sorted(p.name for p in (host_dir / "ms0").iterdir())


def test_debug_screen_pixels_in_the_screenshot(built, capsys, tmp_path):
    shot = tmp_path / "screen.png"
    code, out, err = run(capsys, built["screen_text"][0], "--screenshot", shot)
    assert code == 0, err
    text = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()\n"
    text += "".join(f"line {i}: x={i * i}\n" for i in range(36)) + "end"
    want = expected_screen(text, 0xFF00FFFF, 0xFF400000)  # ABGR words as the PSP stores them
    rgb = np.stack([want & 0xFF, (want >> 8) & 0xFF, (want >> 16) & 0xFF], axis=-1).astype(np.uint8)
    from PIL import Image
    assert np.array_equal(np.asarray(Image.open(shot)), rgb)
