"""The module manager as the PSP's firmware runs it (facts: uOFW's modulemgr/loadcore):
sceKernelLoadModule places and relocates a PRX; sceKernelStartModule registers its
libraries, links imports (also earlier ones waiting for them) and runs module_start with
the caller's argument in a thread of its own; its answer decides whether the module
stays; stopping runs module_stop; unloading gives the memory back."""

from pathlib import Path

import pytest

from allegrex.hle import codes
from allegrex.hle.kernel import RunOptions
from allegrex.hle.linker import LIBRARY_IS_NOT_LINKED, jump_word
from allegrex.hle.modules import Module
from allegrex.hle.threads import _thread_returned
from helpers import call, make_kernel
from tests.loader import samples

MM = "ModuleMgrForUser"
PATH = 0x08A00000
JR_RA = 0x03E00008
ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "psp" / "apps" / "modules"


def _load_sample(tmp_path):
    (tmp_path / "mod.prx").write_bytes(samples.sample_prx())
    k = make_kernel(RunOptions(ms0=str(tmp_path)))
    k.memory.write(PATH, b"ms0:/mod.prx\0")
    return k


def _return_from_module_start(k, value):
    """The start thread (now running: the caller waits) returns `value`."""
    assert k.threads.current.name == "SceModmgrStart"
    k.cpu.regs[2] = value
    _thread_returned(k)
    k.threads.reschedule()


def test_a_prx_is_relocated_at_load_and_linked_when_it_starts(tmp_path):
    k = _load_sample(tmp_path)
    free_before = k.sysmem.total_free()
    uid = call(k, MM, "sceKernelLoadModule", PATH, 0, 0)
    assert uid > 0 and k.threads.current.name == "main"  # after sleeping while the file was read
    base = k.get(uid, Module).block.addr
    assert k.memory.read_u32(base + samples.DATA_VADDR) == base + samples.T_PLAIN  # an R_MIPS_32 word
    io_stub, own_stub = base + 0x340, base + 0x350  # sceIoOpen's stub; MyVarLib's (a user library)
    assert k.memory.read_u32(io_stub + 4) == 0  # still the toolchain's `jr ra; nop` until started
    main = k.threads.current
    assert call(k, MM, "sceKernelStartModule", uid, 0, 0, 0, 0) == 0 and main.wait.kind == "module"
    assert k.memory.read_u32(io_stub) == JR_RA and k.memory.read_u32(io_stub + 4) & 0x3F == 0x0C
    _return_from_module_start(k, 0)
    assert k.threads.current is main and int(k.cpu.regs[2]) == uid  # resident: the call returns its id
    assert "MyLib" in k.linker.libraries  # its library is registered for later imports
    assert k.memory.read_u32(own_stub) == JR_RA  # MyVarLib: no module exports it, so not linked
    k.cpu.regs[31] = base  # only code inside a module may stop one (here the module's own)
    assert call(k, MM, "sceKernelStopModule", uid, 0, 0, 0, 0) == 0  # no module_stop: stopped at once
    assert "MyLib" not in k.linker.libraries
    assert call(k, MM, "sceKernelUnloadModule", uid) == uid
    assert k.sysmem.total_free() == free_before


def test_a_module_that_does_not_stay_is_unloaded_when_module_start_returns(tmp_path):
    k = _load_sample(tmp_path)
    uid = call(k, MM, "sceKernelLoadModule", PATH, 0, 0)
    status = PATH + 0x100
    call(k, MM, "sceKernelStartModule", uid, 0, 0, status, 0)
    _return_from_module_start(k, 1)  # SCE_KERNEL_NO_RESIDENT
    assert int(k.cpu.regs[2]) == 0 and k.memory.read_u32(status) == 1
    assert k.get(uid, Module) is None


def test_missing_and_malformed_modules_and_bad_ids_get_the_firmware_errors(tmp_path):
    (tmp_path / "junk.prx").write_bytes(b"not an executable")
    k = make_kernel(RunOptions(ms0=str(tmp_path)))
    k.memory.write(PATH, b"ms0:/none.prx\0")
    assert call(k, MM, "sceKernelLoadModule", PATH, 0, 0) == codes.signed(codes.ERRNO_FILE_NOT_FOUND)
    k.memory.write(PATH, b"ms0:/junk.prx\0")
    assert call(k, MM, "sceKernelLoadModule", PATH, 0, 0) == codes.signed(0x8002012D)
    for name, args in (("sceKernelUnloadModule", (0x1234,)), ("sceKernelStartModule", (0x1234, 0, 0, 0, 0)),
                       ("sceKernelQueryModuleInfo", (0x1234, PATH))):
        assert call(k, MM, name, *args) == codes.signed(0x8002012E), name


def test_a_stub_left_unlinked_answers_library_is_not_linked():
    k = make_kernel()
    from types import SimpleNamespace
    lib = SimpleNamespace(name="HomebrewLib", functions=[SimpleNamespace(nid=0x11223344, name=None,
                                                                         stub_addr=0x08900800)], variables=[])
    k.install_imports([lib])
    code = int(k.memory.read_u32(0x08900804)) >> 6
    k.on_syscall(code)
    assert k.stop is None and int(k.cpu.regs[2]) == LIBRARY_IS_NOT_LINKED
    exports = [SimpleNamespace(name="HomebrewLib", functions=[SimpleNamespace(nid=0x11223344, addr=0x08901000)])]
    k.linker.register(object(), exports)  # a module exporting it starts: the waiting stub is linked
    assert k.memory.read_u32(0x08900800) == jump_word(0x08901000)


def test_a_firmware_library_stub_naming_another_librarys_nid_is_left_not_linked():
    """An import entry that declares more functions than it owns runs into NIDs of other
    libraries (cannonball-psp's ThreadManForUser entry ends in sceIoWrite and sceIoLseek):
    LoadCore finds no such export in the library and leaves the stub not linked (uOFW
    loadcore aLinkClient), so the call answers LIBRARY_IS_NOT_LINKED. A NID no library
    names may be one allegrex lacks: that stays an unknown import."""
    from types import SimpleNamespace
    k = make_kernel()
    write, unknown = 0x42EC03AC, 0x11223344  # IoFileMgrForUser's sceIoWrite; in no table
    functions = [SimpleNamespace(nid=nid, name=None, stub_addr=0x08900800 + 8 * i)
                 for i, nid in enumerate((write, unknown))]
    k.install_imports([SimpleNamespace(name="ThreadManForUser", functions=functions, variables=[])])
    assert [u.nid for u in k.unknown_imports] == [unknown]
    k.on_syscall(int(k.memory.read_u32(0x08900804)) >> 6)
    assert k.stop is None and int(k.cpu.regs[2]) == LIBRARY_IS_NOT_LINKED


# ---------------------------------------------------------------- programs built with the SDK
EXPECTED = """\
load: id
call before start: 8002013a
start: its id, status 0
module_start saw 17 bytes: Resident, please
greeter_add(2, 3) = 5
start again: 80020001
query: 00000000 name Greeter version 1.2 attribute 0000
id by address of greeter_add's code: its id
unload while started: 80020138
stop refused: its id, status 1
stop: 00000000, status 0
stop again: 80020135
call after stop: 8002013a
unload: its id
unload again: 8002012e
not resident: 00000000, status 1, query 8002012e
failing start: fffffff9, status -7, unload 8002012e
bad ids: start 8002012e stop 8002012e query 8002012e
not a module: 8002012d
no such file: 80010002
"""


@pytest.fixture(scope="module")
def module_program(tmp_path_factory):
    import allegrex.sdk as sdk
    folder = tmp_path_factory.mktemp("modules")
    sdk.build([APP / "greeter.c"], folder / "greeter.prx", prx=True, exports=APP / "greeter.exp")
    (folder / "main.c").write_text("a text file, not a module")
    return sdk.build([APP / "main.c"], folder / "EBOOT.PBP", imports=APP / "imports.txt")


def test_a_program_loads_starts_calls_stops_and_unloads_a_module_it_built(module_program, capsys):
    """module_start sees the argument block the program passed; the program calls the
    module's exports once it started (before, and after it stopped, the stubs answer
    LIBRARY_IS_NOT_LINKED); module_start's and module_stop's answers decide as on a PSP."""
    from allegrex.cli import main
    code = main(["run", str(module_program), "--quiet", "--max-seconds", "20"])
    assert capsys.readouterr().out == EXPECTED
    assert code == 0


def test_overlapping_import_entries_are_linked_in_table_order():
    """Booting a program whose first import entry runs into the next one's stubs: each
    stub calls the later entry's function and nothing is reported missing."""
    import io
    import loader
    from allegrex.hle import registry
    from allegrex.hle.boot import boot
    from allegrex.hle.kernel import SYSCALL_BASE
    from helpers import BareMachine
    err = io.StringIO()
    k = boot(BareMachine(), loader.load(samples.overlapping_imports_elf()), RunOptions(stderr=err))
    assert k.unknown_imports == [] and "not implemented" not in err.getvalue()
    for stub, name in ((0x089000C0, "sceCtrlReadBufferPositive"), (0x089000C8, "sceDisplaySetMode"),
                       (0x089000D0, "sceDisplayWaitVblankStart")):
        code = (k.memory.read_u32(stub + 4) >> 6) - SYSCALL_BASE
        assert k.syscalls[code] is registry.BY_NAME[("sceCtrl" if "Ctrl" in name else "sceDisplay", name)], name
