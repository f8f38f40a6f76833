"""SDK programs under the full simulator (`allegrex run`'s machinery: loader, CPU, HLE):
the runtime's real start-up path (main thread created by crt0), files on ms0:/, the
debug screen as displayed."""

import io

import numpy as np

from allegrex.commands.run import load_program
from allegrex.hle.kernel import RunOptions
from allegrex.sdk import build
from screen_model import expected_screen
from sdk_paths import APPS


def run(program, ms0=None, **build_options):
    out = io.StringIO()
    machine, kernel = load_program(str(program), "psp-2000", RunOptions(ms0=ms0 and str(ms0), stdout=out))
    stop = kernel.run(max_seconds=30)   # simulated seconds: a wall-clock limit would count numba compiling
    return stop, out.getvalue(), kernel


def test_hello_prints_writes_a_file_and_draws(out_dir, tmp_path):
    eboot = build([APPS / "hello" / "main.c"], out_dir / "hello_run" / "EBOOT.PBP")
    stop, text, kernel = run(eboot, ms0=tmp_path)
    assert stop.kind == "exit", stop.message
    assert text == "Hello, world!\nwrote ms0:/hello.txt\n"
    assert (tmp_path / "hello.txt").read_text() == "Hello, file! 42 3.142\n"
    shown = kernel.display.image()
    rgba = shown.astype(np.uint32)
    pixels = rgba[..., 0] | rgba[..., 1] << 8 | rgba[..., 2] << 16 | rgba[..., 3] << 24
    white = expected_screen("Hello from the allegrex SDK!\n", 0xFFFFFFFF, 0xFF000000)
    green = expected_screen("\n60 x 34 characters of 8x8 pixels\n", 0xFF00FF00, 0xFF000000)
    assert np.array_equal(pixels[:8], white[:8])
    assert np.array_equal(pixels[8:], green[8:])


def test_threads_take_turns_through_semaphores(out_dir):
    eboot = build([APPS / "exercise" / "threads.c"], out_dir / "threads_run" / "EBOOT.PBP")
    stop, text, _ = run(eboot)
    assert stop.kind == "exit", stop.message
    assert text == "threads ended with 100 101; order: 0 1 0 1 0 1 0 1 0 1\n"


def test_heap_from_the_kernel_allocator(out_dir):
    eboot = build([APPS / "exercise" / "heap.c"], out_dir / "heap_run" / "EBOOT.PBP")
    stop, text, _ = run(eboot)
    assert stop.kind == "exit", stop.message
    assert "failures=0 misaligned=0" in text and "whole=yes" in text


def test_vfpu_assembly_is_rewritten_assembled_and_run(out_dir):
    sources = [APPS / "exercise" / "vfpu_main.c", APPS / "exercise" / "vfpu_dot.S"]
    stop, text, _ = run(build(sources, out_dir / "vfpu_run" / "EBOOT.PBP"))
    assert stop.kind == "exit", stop.message
    assert text == "vfpu dot 5.500\n"   # 1*0.5 + 2*-1 + 3*2 + 4*0.25
