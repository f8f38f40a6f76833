"""Kernel-mode (1.50-era) homebrew: a kernel module's imports from kernel libraries answer
as their user-mode counterparts (ThreadManForKernel, sceCtrl_driver, LoadCoreForKernel's
cache call, SysclibForKernel on guest memory, KUBridge); a function with no counterpart
stops the run with a message naming its library and function."""

import io
from pathlib import Path

import pytest

from allegrex.hle import registry
from allegrex.hle.kernel import RunOptions
from allegrex.hle.kernel_libraries import KERNEL_TWINS
from helpers import call, make_kernel

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "psp" / "apps" / "kernel_mode"
BUF = 0x08A00000


def test_a_kernel_mode_program_runs_on_the_kernel_libraries_until_a_call_with_no_counterpart(tmp_path):
    sdk = pytest.importorskip("allegrex.sdk", reason="needs the SDK")
    pytest.importorskip("allegrex.machine", reason="needs the CPU")
    from allegrex.commands.run import load_program
    program = sdk.build([APP / "main.c"], tmp_path / "EBOOT.PBP", imports=APP / "imports.txt")
    out, err = io.StringIO(), io.StringIO()
    _, kernel = load_program(str(program), "psp-2000", RunOptions(program_path=str(program), stdout=out, stderr=err))
    assert kernel.kernel_mode  # module attribute 0x1000
    stop = kernel.run(max_seconds=10)
    assert out.getvalue() == ("thread: created\nstart: 0\nuser thread: hello\nend: 7\nsampling cycle: 0\n"
                              "sysclib: 8 kernel\nmodel: 1\n")
    assert stop.kind == "unknown-import"
    assert "SystemCtrlForUser" in stop.message and "sctrlHENGetVersion" in stop.message
    assert "SystemCtrlForUser 0x1090A2E1 (sctrlHENGetVersion)" in err.getvalue()  # listed at load


def test_each_kernel_twin_answers_every_function_of_its_user_library_by_name():
    registry.load_all()
    for kernel_library, user_library in KERNEL_TWINS.items():
        for (library, name), user in list(registry.BY_NAME.items()):
            if library == user_library:
                entry = registry.lookup(kernel_library, registry.default_nid(kernel_library, name))
                assert entry is not None and entry.func is user.func, (kernel_library, name)


def test_sysclib_string_functions_follow_c():
    k = make_kernel()
    k.memory.write(BUF, b"abc\0abd\0")
    assert call(k, "SysclibForKernel", "strcmp", BUF, BUF + 4) < 0
    assert call(k, "SysclibForKernel", "strncmp", BUF, BUF + 4, 2) == 0
    assert call(k, "SysclibForKernel", "strchr", BUF, ord("c")) == BUF + 2
    assert call(k, "SysclibForKernel", "strchr", BUF, 0) == BUF + 3  # the terminator is found
    assert call(k, "SysclibForKernel", "strncpy", BUF + 16, BUF, 6) == BUF + 16
    assert k.memory.read(BUF + 16, 6) == b"abc\0\0\0"  # padded with NULs
    assert call(k, "SysclibForKernel", "memmove", BUF + 1, BUF, 3) == BUF + 1
    assert k.memory.read(BUF, 4) == b"aabc"  # an overlapping move keeps the source bytes
