"""What `allegrex.sdk.build` emits: an EBOOT the loader reads like an official one
(module info, imports by name, stubs, NIDs, PARAM.SFO), made only of instructions the
Allegrex implements."""

import struct

import capstone
import pytest
from elftools.elf.elffile import ELFFile

import loader
from allegrex.cpu import decode
from allegrex.cpu.disasm import disassemble
from loader.nids import nid_for_name
from loader.pbp import read_pbp
from loader.sfo import read_sfo

# NIDs as documented for the PSP's user libraries (pspsdk import tables, PSP docs).
DOCUMENTED_NIDS = {
    "sceKernelExitGame": 0x05572A5F, "sceKernelCreateThread": 0x446D8DE6, "sceKernelStartThread": 0xF475845D,
    "sceIoOpen": 0x109F50BC, "sceIoWrite": 0x42EC03AC, "sceIoRead": 0x6A638D83, "sceIoClose": 0x810C4BC3,
    "sceIoLseek": 0x27EB27B8, "sceKernelStdout": 0xA6BAB2E9, "sceKernelAllocPartitionMemory": 0x237DBD4F,
    "sceKernelGetBlockHeadAddr": 0x9D9A5BA1, "sceKernelMaxFreeMemSize": 0xA291F107,
    "sceDisplaySetFrameBuf": 0x289D82FE, "sceDisplaySetMode": 0x0E20F177,
}
JR_RA, NOP = 0x03E00008, 0x00000000


def sections(elf_path):
    with open(elf_path, "rb") as f:
        elf = ELFFile(f)
        return {s.name: (s["sh_addr"], s.data() if s["sh_type"] != "SHT_NOBITS" else b"", s["sh_flags"])
                for s in elf.iter_sections() if s.name}


def symbols(elf_path):
    with open(elf_path, "rb") as f:
        return {s.name: s["st_value"] for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols() if s.name}


def test_eboot_has_title_memsize_and_module(hello_eboot):
    parts = read_pbp(hello_eboot.read_bytes())
    sfo = read_sfo(parts["PARAM.SFO"])
    assert sfo["TITLE"] == "Hello SDK"
    assert sfo["MEMSIZE"] == 1
    assert sfo["CATEGORY"] == "MG" and sfo["BOOTABLE"] == 1
    image = loader.load(str(hello_eboot))
    assert image.module_info.name == "hello"
    assert image.sfo["TITLE"] == "Hello SDK"
    assert image.entry == image.symbol_named("_start").addr


def test_elf_is_static_at_user_memory_base(hello_elf):
    image = loader.load(str(hello_elf))
    assert image.kind == "elf"
    assert image.base == 0x08804000
    assert image.gp == symbols(hello_elf)["_gp"]


def test_module_info_points_at_the_import_table(hello_elf):
    secs = sections(hello_elf)
    info = secs[".rodata.sceModuleInfo"][1]
    attr, minor, major, name, gp, ent_top, ent_end, stub_top, stub_end = struct.unpack("<HBB28s5I", info[:52])
    stub_addr, stub_data, _ = secs[".lib.stub"]
    assert (attr, major, minor) == (0, 1, 0)
    assert name.rstrip(b"\0") == b"hello"
    assert (stub_top, stub_end) == (stub_addr, stub_addr + len(stub_data))
    assert ent_top == ent_end
    assert gp == symbols(hello_elf)["_gp"]


def test_import_entries_stubs_and_nids(hello_elf):
    secs = sections(hello_elf)
    stub_addr, table, _ = secs[".lib.stub"]
    text_addr, stub_text, _ = secs[".sceStub.text"]
    nid_addr, nid_data, _ = secs[".rodata.sceNid"]
    image = loader.load(str(hello_elf))
    by_library = {lib.name: lib for lib in image.imports}
    assert len(table) == 20 * len(image.imports)
    for offset in range(0, len(table), 20):
        name_ptr, version, attr, entry_len, var_count, func_count, nids_ptr, stubs_ptr = struct.unpack_from(
            "<IHHBBHII", table, offset)
        assert entry_len == 5 and var_count == 0
        lib = next(l for l in image.imports if l.functions[0].stub_addr == stubs_ptr)
        assert func_count == len(lib.functions) and (version, attr) == (lib.version, lib.attributes)
        for i, fn in enumerate(lib.functions):
            assert fn.stub_addr == stubs_ptr + 8 * i
            nid = struct.unpack_from("<I", nid_data, nids_ptr - nid_addr + 4 * i)[0]
            assert nid == fn.nid == nid_for_name(fn.name)
            assert DOCUMENTED_NIDS.get(fn.name, nid) == nid
            assert struct.unpack_from("<II", stub_text, fn.stub_addr - text_addr) == (JR_RA, NOP)
    assert by_library["IoFileMgrForUser"].attributes == 0x4001
    assert by_library["SysMemUserForUser"].attributes == 0x4000
    called = {fn.name for lib in image.imports for fn in lib.functions}
    assert {"sceKernelExitGame", "sceIoOpen", "sceDisplaySetFrameBuf", "sceKernelCreateThread"} <= called
    assert "sceCtrlReadBufferPositive" not in called  # only what the program references


def test_threads_program_imports_the_thread_calls(out_dir):
    from allegrex.sdk import build
    from sdk_paths import APPS

    elf = build([APPS / "exercise" / "threads.c"], out_dir / "threads.elf", elf=True)
    image = loader.load(str(elf))
    called = {fn.name for lib in image.imports for fn in lib.functions}
    assert {"sceKernelCreateSema", "sceKernelWaitSema", "sceKernelSignalSema", "sceKernelWaitThreadEnd",
            "sceKernelCreateThread", "sceKernelStartThread", "sceKernelDeleteSema"} <= called
    # 5- and 6-argument calls go through wrappers that load $t0/$t1 from the o32 stack slots
    for name, loads in (("sceKernelCreateSema", ["lw      t0, 16(sp)"]),
                        ("sceKernelCreateThread", ["lw      t0, 16(sp)", "lw      t1, 20(sp)"])):
        wrapper = image.symbol_named(name)
        stub = next(fn.stub_addr for lib in image.imports for fn in lib.functions if fn.name == name)
        code = [disassemble(image.read_u32(wrapper.addr + 4 * i), wrapper.addr + 4 * i) for i in range(len(loads) + 1)]
        # the loads, the last one in the delay slot of the jump to the stub
        assert code == loads[:-1] + [f"j       0x{stub:08x}"] + loads[-1:]


# Encodings a MIPS32/MIPS64 compiler could emit that the Allegrex lacks or decodes differently.
def _foreign(word):
    op, rs, funct = word >> 26, (word >> 21) & 31, word & 63
    if op == 0x1C:
        return "SPECIAL2 (MIPS32 mul/madd/clz encodings)"
    if op == 0x11 and rs in (17, 21, 1, 5):
        return "double-precision or 64-bit FPU operation"
    if op in (0x13, 0x18, 0x19, 0x1A, 0x1B, 0x27, 0x2C, 0x2D, 0x34, 0x35, 0x37, 0x3C, 0x3D, 0x3F):
        return "64-bit, COP1X or doubleword load/store"
    # MIPS64 doubleword ops; the Allegrex reuses some of these functs (clz, madd, max...),
    # which a MIPS II compiler never emits, so any of them here is a 64-bit op.
    if op == 0 and funct in (0x14, 0x16, 0x17, 0x1C, 0x1D, 0x1E, 0x1F, 0x2C, 0x2D, 0x2E, 0x2F,
                             0x38, 0x3A, 0x3B, 0x3C, 0x3E, 0x3F):
        return "MIPS64 doubleword shift/arith"
    return None


PROGRAMS = ["hello/main.c", "exercise/printf_formats.c", "exercise/libm_table.c", "exercise/eabi_args.c",
            "exercise/threads.c", "exercise/heap.c", "exercise/fileio.c"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_code_is_allegrex_only(out_dir, program):
    from allegrex.sdk import build
    from sdk_paths import APPS

    elf = build([APPS / program], out_dir / (program.replace("/", "_") + ".elf"), elf=True)
    md = capstone.Cs(capstone.CS_ARCH_MIPS, capstone.CS_MODE_MIPS32 | capstone.CS_MODE_LITTLE_ENDIAN)
    checked = 0
    for name, (addr, data, flags) in sections(elf).items():
        if not flags & 0x4:  # SHF_EXECINSTR
            continue
        for i in range(0, len(data), 4):
            word = struct.unpack_from("<I", data, i)[0]
            where = f"{name} 0x{addr + i:08x}: 0x{word:08x} {disassemble(word, addr + i)}"
            assert decode.lookup(word) is not None, f"not an Allegrex instruction: {where}"
            assert _foreign(word) is None, f"{_foreign(word)}: {where}"
            assert list(md.disasm(data[i:i + 4], addr + i)), f"not a MIPS32 instruction: {where}"
            checked += 1
    assert checked > 1000


def test_cc_then_info_shows_module_title_and_imports(tmp_path):
    """The issue's acceptance path: `allegrex cc` then `allegrex info` on the result."""
    import subprocess
    import sys

    from sdk_paths import APPS, ROOT

    out = tmp_path / "EBOOT.PBP"
    cc = subprocess.run([sys.executable, "-m", "allegrex", "cc", str(APPS / "hello" / "main.c"), "-o", str(out),
                         "--title", "Hello Info"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert cc.returncode == 0, cc.stderr
    info = subprocess.run([sys.executable, "-m", "allegrex", "info", str(out)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert info.returncode == 0, info.stderr
    for expected in ("Hello Info", "hello", "IoFileMgrForUser", "sceIoOpen", "sceKernelExitGame", "0x109f50bc"):
        assert expected in info.stdout
