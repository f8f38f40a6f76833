"""SDK programs running on the project's CPU with the small OS of tests/sdk/psp_harness.py
(it records the registers of every OS call and keeps these tests independent of the
HLE): arguments in the PSP's registers, and output identical to the host build of the
same C. tests/sdk/test_hle_run.py runs programs under the full simulator."""

import subprocess

import numpy as np

from allegrex.sdk import build, build_host
from psp_harness import run_program
from screen_model import expected_screen
from sdk_paths import APPS


def both(out_dir, name, **run_options):
    """(PSP run result, host stdout) of psp/apps/exercise/<name>.c"""
    source = [APPS / "exercise" / f"{name}.c"]
    elf = build(source, out_dir / f"{name}.elf", elf=True)
    host = build_host(source, out_dir / f"{name}.host")
    host_out = subprocess.run([str(host)], capture_output=True, text=True, timeout=60, cwd=out_dir)
    assert host_out.returncode == 0, host_out.stdout + host_out.stderr
    return run_program(elf, **run_options), host_out.stdout


def calls_named(result, name):
    return [c[1:] for c in result.calls if c[0] == name]


def test_arguments_five_to_eight_arrive_in_t0_t3(out_dir):
    elf = build([APPS / "exercise" / "eabi_args.c"], out_dir / "eabi.elf", elf=True)
    result = run_program(elf, returns={"sceKernelCreateThread": 7, "sceKernelCreateSema": 9, "sceIoLseek": 5})
    (thread,) = calls_named(result, "sceKernelCreateThread")
    assert thread[2:6] == (0x11, 0x2000, 0x80004000, 0x12345678)   # a2, a3, t0, t1
    (sema,) = calls_named(result, "sceKernelCreateSema")
    assert sema[1:5] == (0x55, 3, 7, 0x0BADF00D)
    (lseek,) = calls_named(result, "sceIoLseek")
    assert (lseek[0], lseek[2], lseek[3], lseek[4]) == (9, 0x23456789, 0x1, 2)  # 64-bit pair in a2:a3, whence in t0
    assert result.stdout == "thread 7 sema 9 lseek 5\n"


def test_libm_is_bit_identical_to_the_host_build(out_dir):
    psp, host = both(out_dir, "libm_table")
    assert len(host.splitlines()) > 1000
    assert psp.stdout == host


def test_printf_output_is_identical_to_the_host_build(out_dir):
    psp, host = both(out_dir, "printf_formats")
    assert psp.stdout == host


def test_heap_stress_matches_the_host_build(out_dir):
    psp, host = both(out_dir, "heap")
    assert "failures=0 misaligned=0" in psp.stdout and "whole=yes" in psp.stdout
    assert psp.stdout == host


def test_file_round_trip(out_dir):
    (out_dir / "ms0").mkdir(exist_ok=True)
    psp, host = both(out_dir, "fileio")
    assert psp.stdout == host == "fileio ok errors=0\n"
    assert bytes(psp.files.files["ms0:/fileio.bin"]) == (out_dir / "ms0" / "fileio.bin").read_bytes()
    assert "ms0:/lines.txt" not in psp.files.files


def test_debug_screen_draws_wraps_and_scrolls(out_dir):
    elf = build([APPS / "exercise" / "screen_text.c"], out_dir / "screen.elf", elf=True)
    result = run_program(elf)
    (setbuf,) = calls_named(result, "sceDisplaySetFrameBuf")
    assert setbuf[:3] == (0x04000000, 512, 3)
    vram = np.frombuffer(result.machine.memory.read(0x04000000, 512 * 272 * 4), dtype=np.uint32).reshape(272, 512)
    text = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()\n"
    text += "".join(f"line {i}: x={i * i}\n" for i in range(36)) + "end"
    expected = expected_screen(text, 0xFF00FFFF, 0xFF400000)
    assert np.array_equal(vram[:, :480], expected)


def test_debug_screen_under_the_official_names_and_in_16_bits(out_dir):
    """pspDebugScreenInitEx in 565 converts colours to the buffer's format (each
    channel's top bits); SetOffset/SetXY move the text into another (32-bit) buffer."""
    elf = build([APPS / "exercise" / "debug_screen.c"], out_dir / "debug_screen.elf", elf=True)
    result = run_program(elf)
    (setbuf,) = calls_named(result, "sceDisplaySetFrameBuf")
    assert setbuf[:3] == (0x04000000, 512, 0)
    shown = np.frombuffer(result.machine.memory.read(0x04000000, 512 * 272 * 2), dtype=np.uint16).reshape(272, 512)
    fg, bg = 0xFF40C0FF, 0xFF800000
    rgb565 = {c: (c & 0xFF) >> 3 | ((c >> 8) & 0xFF) >> 2 << 5 | ((c >> 16) & 0xFF) >> 3 << 11 for c in (fg, bg)}
    text = np.vectorize(rgb565.get)(expected_screen("565: 42\nsecond line", fg, bg)[:16])
    text[:8, 8 * 7:] = text[8:, 8 * 11:] = 0   # cleared before the colours were set: transparent black
    assert np.array_equal(shown[:16, :480], text)
    other = np.frombuffer(result.machine.memory.read(0x04088000, 512 * 24 * 4), dtype=np.uint32).reshape(24, 512)
    assert np.array_equal(other[16:24, 24:24 + 8 * 6], expected_screen("\n\n   at 3,2", fg, bg)[16:24, 24:72])


def test_assembly_source_links_and_runs(out_dir):
    elf = build([APPS / "exercise" / "asm_main.c", APPS / "exercise" / "asm_sum.S"], out_dir / "asm.elf", elf=True)
    expected = sum(i * i - 50 for i in range(100))
    assert run_program(elf).stdout == f"sum={expected} empty=0\n"


def test_soft_float_doubles_match_the_host_fpu(out_dir):
    psp, host = both(out_dir, "softfloat")
    assert len(host.splitlines()) == 6 * 600 + 1   # and a hash of 10000 more divisions
    for mine, theirs in zip(psp.stdout.splitlines(), host.splitlines()):
        assert mine == theirs
