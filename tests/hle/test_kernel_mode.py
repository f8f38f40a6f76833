"""Kernel-mode (1.50-era) homebrew: a kernel module's imports from kernel libraries answer
as their user-mode counterparts (ThreadManForKernel, sceCtrl_driver, LoadCoreForKernel's
cache call, SysclibForKernel on guest memory, KUBridge); a function with no counterpart
stops the run with a message naming its library and function."""

import io
from pathlib import Path


from allegrex.hle import codes, registry
from allegrex.hle.kernel import RunOptions
from allegrex.hle.kernel_libraries import KERNEL_TWINS, SAME_AS
from helpers import call, make_kernel

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "psp" / "apps" / "kernel_mode"
BUF = 0x08A00000


def test_a_kernel_mode_program_runs_on_the_kernel_libraries_until_a_call_with_no_counterpart(tmp_path):
    import allegrex.sdk as sdk
    from allegrex.commands.run import load_program
    program = sdk.build([APP / "main.c"], tmp_path / "EBOOT.PBP", imports=APP / "imports.txt")
    out, err = io.StringIO(), io.StringIO()
    _, kernel = load_program(str(program), "psp-2000", RunOptions(program_path=str(program), stdout=out, stderr=err))
    assert kernel.kernel_mode  # module attribute 0x1000: the machine runs in kernel mode
    stop = kernel.run(max_seconds=10)
    assert out.getvalue() == ("thread: created\nstart: 0\nuser thread: hello\nend: 7\nsampling cycle: 0\n"
                              "sysclib: 8 kernel\nkseg0: 150\nmodel: 1\n")
    assert stop.kind == "unknown-import"
    assert "SystemCtrlForUser" in stop.message and "sctrlHENGetVersion" in stop.message
    assert "SystemCtrlForUser 0x1090A2E1 (sctrlHENGetVersion)" in err.getvalue()  # listed at load


USER_STORE_TO_KSEG0 = r"""
#include <stdio.h>
#include <pspsdk.h>
PSP_MODULE_INFO("UserHello", PSP_MODULE_USER, 1, 0);
int main(void)
{
    static volatile unsigned int word;
    printf("user\n");
    *(volatile unsigned int *)(0x80000000u | (unsigned int)&word) = 0x150;
    printf("not reached\n");
    return 0;
}
"""


def test_a_user_mode_program_faults_where_the_kernel_mode_one_stores(tmp_path):
    """The kernel-mode app's kseg0 store, from a user module: a PSP raises a bus error."""
    from allegrex import sdk
    from allegrex.commands.run import load_program
    (tmp_path / "main.c").write_text(USER_STORE_TO_KSEG0)
    program = sdk.build([tmp_path / "main.c"], tmp_path / "EBOOT.PBP")
    out = io.StringIO()
    _, kernel = load_program(str(program), "psp-2000", RunOptions(program_path=str(program), stdout=out,
                                                                  stderr=io.StringIO()))
    assert not kernel.kernel_mode
    stop = kernel.run(max_seconds=10)
    assert out.getvalue() == "user\n"
    assert stop.kind == "fault" and "kernel memory: user-mode code may not touch it" in stop.message


def test_each_kernel_twin_answers_every_function_of_its_user_library_by_name():
    registry.load_all()
    for kernel_library, user_library in KERNEL_TWINS.items():
        for (library, name), user in list(registry.BY_NAME.items()):
            if library == user_library:
                entry = registry.lookup(kernel_library, registry.default_nid(kernel_library, name))
                assert entry is not None and entry.func is user.func, (kernel_library, name)


def test_single_kernel_functions_answer_as_their_user_counterparts():
    """SAME_AS: e.g. InterruptManagerForKernel's sceKernelCpuSuspendIntr is Kernel_Library's
    (a kernel-mode GU sample, psp-graphics-utility-notes, brackets its list with them)."""
    registry.load_all()
    for (library, name), (user_library, user_name) in SAME_AS.items():
        entry = registry.lookup(library, registry.default_nid(library, name))
        assert entry is not None and entry.func is registry.BY_NAME[(user_library, user_name)].func, name
    k = make_kernel()
    state = call(k, "InterruptManagerForKernel", "sceKernelCpuSuspendIntr")
    assert call(k, "Kernel_Library", "sceKernelIsCpuIntrEnable") == 0
    call(k, "InterruptManagerForKernel", "sceKernelCpuResumeIntr", state)
    assert call(k, "Kernel_Library", "sceKernelIsCpuIntrEnable") == 1


def test_default_exception_handlers_chain_as_the_firmware_chains_them():
    """uOFW exceptionman: a handler block {next, reserved, code} is put in front of the
    previous default (its next word: the previous one's code, block + 8); a block already
    chained is refused (0x80020034), releasing one that is not chained too (0x80020033)."""
    em = "ExceptionManagerForKernel"
    k = make_kernel()
    first, second = BUF, BUF + 0x40
    assert call(k, em, "sceKernelGetActiveDefaultExceptionHandler") == 0  # the firmware's own
    assert call(k, em, "sceKernelRegisterDefaultExceptionHandler", first) == 0
    assert call(k, em, "sceKernelRegisterDefaultExceptionHandler", first) == codes.signed(0x80020034)
    assert call(k, em, "sceKernelRegisterDefaultExceptionHandler", second) == 0
    assert k.memory.read_u32(second) == first + 8
    assert call(k, em, "sceKernelGetActiveDefaultExceptionHandler") == second + 8
    assert call(k, em, "sceKernelReleaseDefaultExceptionHandler", first) == 0
    assert k.memory.read_u32(second) == 0 and k.memory.read_u32(first) == 0  # second now follows the firmware's
    assert call(k, em, "sceKernelReleaseDefaultExceptionHandler", first) == codes.signed(0x80020033)
    assert call(k, em, "sceKernelGetActiveDefaultExceptionHandler") == second + 8


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
