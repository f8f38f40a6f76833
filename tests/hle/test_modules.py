"""sceKernelLoadModule places a PRX in user memory, relocated and linked, as the module
manager does; unloading gives the memory back."""

from allegrex.hle import codes
from allegrex.hle.kernel import RunOptions
from allegrex.hle.modules import Module
from helpers import call, make_kernel
from tests.loader import samples

MM = "ModuleMgrForUser"
PATH = 0x08A00000
JR_RA = 0x03E00008


def test_a_loaded_prx_is_relocated_to_its_block_and_its_imports_are_patched(tmp_path):
    (tmp_path / "mod.prx").write_bytes(samples.sample_prx())
    k = make_kernel(RunOptions(ms0=str(tmp_path)))
    free_before = k.sysmem.total_free()
    k.memory.write(PATH, b"ms0:/mod.prx\0")
    uid = call(k, MM, "sceKernelLoadModule", PATH, 0, 0)
    assert uid > 0 and k.threads.current.name == "main"  # after sleeping while the file was read
    base = k.get(uid, Module).block.addr
    assert k.memory.read_u32(base + samples.DATA_VADDR) == base + samples.T_PLAIN  # an R_MIPS_32 word
    stub = base + 0x340  # the first imported function's stub: now jr ra; syscall
    assert k.memory.read_u32(stub) == JR_RA and k.memory.read_u32(stub + 4) & 0x3F == 0x0C
    assert call(k, MM, "sceKernelUnloadModule", uid) == uid
    assert k.sysmem.total_free() == free_before


def test_missing_and_malformed_modules_are_refused(tmp_path):
    (tmp_path / "junk.prx").write_bytes(b"not an executable")
    k = make_kernel(RunOptions(ms0=str(tmp_path)))
    k.memory.write(PATH, b"ms0:/none.prx\0")
    assert call(k, MM, "sceKernelLoadModule", PATH, 0, 0) == codes.signed(codes.ERRNO_FILE_NOT_FOUND)
    k.memory.write(PATH, b"ms0:/junk.prx\0")
    assert call(k, MM, "sceKernelLoadModule", PATH, 0, 0) == codes.signed(0x8002012D)
    assert call(k, MM, "sceKernelUnloadModule", 0x1234) == codes.signed(0x8002012E)
