"""Real PSP programs built with the official toolchain (hrydgard/pspautotests, set
PSPAUTOTESTS): the loader agrees with pyelftools' reading of the same files, and
imports of the common user libraries all have names."""

import io
import struct

import pytest
from elftools.elf.elffile import ELFFile

import loader

COMMON_LIBRARIES = {"IoFileMgrForUser", "ThreadManForUser", "SysMemUserForUser", "sceDisplay", "sceCtrl",
                    "LoadExecForUser", "UtilsForUser", "sceRtc", "scePower", "sceUtility", "StdioForUser",
                    "Kernel_Library", "ModuleMgrForUser", "sceGe_user", "InterruptManager"}
SAMPLES = ["tests/cpu/cpu_alu/cpu_alu.prx", "tests/io/file/file.prx", "tests/io/directory/directory.prx",
           "tests/threads/threads/create.prx", "tests/display/display.prx", "tests/rtc/rtc.prx",
           "tests/power/power.prx", "tests/ctrl/ctrl.prx", "tests/sysmem/sysmem.prx"]


def existing(root, names):
    paths = [root / name for name in names if (root / name).exists()]
    assert paths, "none of the sample files exist in this pspautotests checkout"
    return paths


def test_sample_prx_modules_load_and_match_their_sections(pspautotests):
    for path in existing(pspautotests, SAMPLES):
        data = path.read_bytes()
        elf = ELFFile(io.BytesIO(data))
        base = 0x08804000
        image = loader.load(path)
        info = image.module_info
        assert image.kind == "prx" and info.name == "TESTMODULE", path
        assert image.entry == base + elf["e_entry"]
        for name, top, end in ((".lib.stub", info.stub_top, info.stub_end), (".lib.ent", info.ent_top, info.ent_end)):
            section = elf.get_section_by_name(name)
            assert (top, end) == (base + section["sh_addr"], base + section["sh_addr"] + section["sh_size"]), path
        stub_text = elf.get_section_by_name(".sceStub.text")
        stubs = [f.stub_addr for lib in image.imports for f in lib.functions]
        assert min(stubs) == base + stub_text["sh_addr"]
        assert max(stubs) + 8 == base + stub_text["sh_addr"] + stub_text["sh_size"]


def test_real_hi16_lo16_pairs_move_by_exactly_the_base_difference(pspautotests):
    """Load twice, 0x8000 + 4 bytes apart, so every pair's low half changes sign somewhere:
    each lui/lo pair named by .rel.text must compute an address larger by exactly that."""
    path = pspautotests / "tests/cpu/cpu_alu/cpu_alu.prx"
    elf = ELFFile(io.BytesIO(path.read_bytes()))
    rel = elf.get_section_by_name(".rel.text").data()
    entries = [struct.unpack_from("<II", rel, i) for i in range(0, len(rel), 8)]
    a, b = 0x08804000, 0x0880C004
    image_a, image_b = loader.load(path, base=a), loader.load(path, base=b)
    pairs = 0
    for (hi_at, hi_info), (lo_at, lo_info) in zip(entries, entries[1:]):
        if hi_info & 0xFF == 5 and lo_info & 0xFF == 6:
            def address(image, base):
                hi, lo = image.read_u32(base + hi_at), image.read_u32(base + lo_at) & 0xFFFF
                return (((hi & 0xFFFF) << 16) + (lo - 0x10000 if lo & 0x8000 else lo)) & 0xFFFFFFFF
            assert address(image_b, b) - address(image_a, a) == b - a, hex(hi_at)
            pairs += 1
    assert pairs > 100


def test_static_elf_matches_pyelftools(pspautotests):
    path = pspautotests / "demos/sample.elf"
    if not path.exists():
        pytest.skip("demos/sample.elf is not in this checkout")
    elf = ELFFile(io.BytesIO(path.read_bytes()))
    image = loader.load(path)
    [segment] = [s for s in elf.iter_segments() if s["p_type"] == "PT_LOAD"]
    [loaded] = image.segments
    assert (loaded.vaddr, loaded.data, loaded.memsz) == (segment["p_vaddr"], segment.data(), segment["p_memsz"])
    expected = {(s.name, s["st_value"], s["st_size"]) for s in elf.get_section_by_name(".symtab").iter_symbols()
                if s.name and s["st_shndx"] != "SHN_UNDEF" and s["st_info"]["type"] not in ("STT_SECTION", "STT_FILE")}
    assert {(s.name, s.addr, s.size) for s in image.symbols} == expected
    assert image.symbol_at(image.entry)[0].name == "_start"


def test_every_real_file_loads_with_named_common_imports(pspautotests):
    paths = sorted(p for pattern in ("**/*.prx", "**/*.elf", "**/*.PBP") for p in pspautotests.glob(pattern))
    assert len(paths) > 100
    unknown = set()
    for path in paths:
        image = loader.load(path)
        assert image.module_info is not None, path
        for lib in image.imports:
            if lib.name in COMMON_LIBRARIES:
                unknown |= {(lib.name, hex(f.nid), path.name) for f in lib.functions + lib.variables if f.name is None}
    assert not unknown


@pytest.mark.parametrize("base", [0x08804000, 0x09000004])
def test_relocated_jumps_land_inside_the_module(pspautotests, base):
    """Every j/jal that .rel.text relocates must target the module's own code."""
    jumps = 0
    for path in existing(pspautotests, SAMPLES[:4]):
        elf = ELFFile(io.BytesIO(path.read_bytes()))
        rel = elf.get_section_by_name(".rel.text").data()
        image = loader.load(path, base=base)
        stubs = elf.get_section_by_name(".sceStub.text")  # the last code section
        code_end = base + stubs["sh_addr"] + stubs["sh_size"]
        for i in range(0, len(rel), 8):
            offset, info = struct.unpack_from("<II", rel, i)
            if info & 0xFF == 4:  # R_MIPS_26
                op = image.read_u32(base + offset)
                target = ((base + offset + 4) & 0xF0000000) | (op & 0x03FFFFFF) << 2
                assert base <= target < code_end, (path.name, hex(offset))
                jumps += 1
    assert jumps > 1000
