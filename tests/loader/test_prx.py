"""A PRX built by the tests loads at any base with every field right: relocations of
each type, module info, imports, exports and symbols."""

import io

import pytest
from elftools.elf.elffile import ELFFile

import loader
from loader.nids import nid_for_name
from tests.loader import samples
from tests.loader.samples import DATA_VADDR, ENTRY, FUNC, GP, GPREL_WORD, JUMP, T_CARRY, T_NEG, T_PLAIN

BASES = [0x08804000, 0x08900000, 0x0880C000, 0x09FF7FFC]


def word(image, addr):
    return image.read_u32(addr)


def effective(hi_word, lo_word):
    """What a lui/addiu (or lui/lw) pair computes: hi << 16 plus the sign-extended low half."""
    lo = lo_word & 0xFFFF
    return ((hi_word & 0xFFFF) << 16) + (lo - 0x10000 if lo & 0x8000 else lo) & 0xFFFFFFFF


@pytest.fixture(scope="module")
def prx_bytes():
    return samples.sample_prx()


def test_pyelftools_reads_the_sample(prx_bytes):
    elf = ELFFile(io.BytesIO(prx_bytes))
    assert elf["e_type"] == 0xFFA0 and elf.num_segments() == 2
    assert [s.name for s in elf.iter_sections()][1:4] == [".text", ".lib.ent", ".lib.stub"]
    assert elf.get_section_by_name(".rel.text")["sh_type"] == 0x700000A0


def test_default_base_is_0x08804000(prx_bytes):
    image = loader.load(prx_bytes)
    assert (image.kind, image.container, image.path) == ("prx", "elf", None)
    assert image.base == 0x08804000 and image.entry == 0x08804000 + ENTRY


@pytest.mark.parametrize("base", BASES)
def test_segments_move_with_the_base(prx_bytes, base):
    image = loader.load(prx_bytes, base=base)
    text, data = image.segments
    assert (text.vaddr, len(text.data), text.memsz, text.flags) == (base, 0x400, 0x400, 5)
    assert (data.vaddr, len(data.data), data.memsz, data.flags) == (base + DATA_VADDR, 0x200, 0x200 + 0xFE00, 6)
    assert image.end == base + DATA_VADDR + 0x200 + 0xFE00


@pytest.mark.parametrize("base", BASES)
def test_hi16_lo16_pairs_reach_their_targets(prx_bytes, base):
    image = loader.load(prx_bytes, base=base)
    assert effective(word(image, base + 0x00), word(image, base + 0x04)) == base + T_PLAIN
    assert effective(word(image, base + 0x08), word(image, base + 0x0C)) == base + T_CARRY


def test_hi16_carries_when_the_low_half_turns_negative(prx_bytes):
    image = loader.load(prx_bytes, base=0x08804000)  # T_CARRY -> 0x08808010: lo 0x8010 is negative
    assert word(image, 0x08804008) == 0x3C050881  # lui a1, 0x0881 (one more than 0x0880)
    assert word(image, 0x0880400C) == 0x24A58010  # addiu a1, a1, -0x7ff0


@pytest.mark.parametrize("base", BASES)
def test_several_hi16_share_one_lo16(prx_bytes, base):
    image = loader.load(prx_bytes, base=base)
    lo = word(image, base + 0x18)
    assert lo >> 16 == 0x8CC8  # still lw t0, ...(a2)
    for hi_at, reg in ((0x10, 6), (0x14, 7)):
        hi = word(image, base + hi_at)
        assert hi >> 16 == 0x3C00 | reg
        assert effective(hi, lo) == base + T_NEG


@pytest.mark.parametrize("base", BASES)
def test_r_mips_26_jumps_move(prx_bytes, base):
    image = loader.load(prx_bytes, base=base)
    for at, opcode, target in ((0x1C, 0x0C000000, FUNC), (0x24, 0x08000000, JUMP)):
        op = word(image, base + at)
        assert op & 0xFC000000 == opcode
        assert ((base + at + 4) & 0xF0000000) | (op & 0x03FFFFFF) << 2 == base + target


@pytest.mark.parametrize("base", BASES)
def test_gprel16_and_r_mips_16(prx_bytes, base):
    image = loader.load(prx_bytes, base=base)
    assert word(image, base + 0x20) == GPREL_WORD  # gp moves with the module: offset unchanged
    assert word(image, base + 0x28) == 0x34000000 | ((0x10 + base) & 0xFFFF)


@pytest.mark.parametrize("base", BASES)
def test_r_mips_32_uses_the_segments_named_in_r_info(prx_bytes, base):
    image = loader.load(prx_bytes, base=base)
    assert word(image, base + DATA_VADDR) == base + T_PLAIN  # offset in segment 1, value from segment 0
    assert word(image, base + DATA_VADDR + 4) == base + DATA_VADDR + 0x10  # both in segment 1


@pytest.mark.parametrize("base", BASES)
def test_module_info(prx_bytes, base):
    info = loader.load(prx_bytes, base=base).module_info
    assert info == loader.ModuleInfo("TestPrx", 0, (1, 2), base + GP, base + 0x200, base + 0x220,
                                     base + 0x220, base + 0x24C)
    assert loader.load(prx_bytes, base=base).gp == base + GP


def test_imports(prx_bytes):
    base = 0x08804000
    io_lib, var_lib = loader.load(prx_bytes).imports
    assert (io_lib.name, io_lib.version, io_lib.attributes) == ("IoFileMgrForUser", 0x11, 0x4001)
    assert io_lib.functions == [loader.ImportFunction(0x109F50BC, "sceIoOpen", base + 0x340),
                                loader.ImportFunction(0x810C4BC3, "sceIoClose", base + 0x348)]
    assert io_lib.variables == []
    assert (var_lib.name, var_lib.version, var_lib.attributes) == ("MyVarLib", 0x11, 0x0009)
    assert var_lib.functions == [loader.ImportFunction(0xDEADBEEF, None, base + 0x350)]
    assert var_lib.variables == [loader.ImportVariable(0x12345678, None, base + 0x500)]


def test_exports(prx_bytes):
    base = 0x08804000
    syslib, mylib = loader.load(prx_bytes).exports
    assert (syslib.name, syslib.version, syslib.attributes) == (None, 0, 0x8000)
    assert syslib.functions == [loader.ExportEntry(nid_for_name("module_start"), "module_start", base + ENTRY)]
    assert syslib.variables == [loader.ExportEntry(nid_for_name("module_info"), "module_info", base + 0x260)]
    assert (mylib.name, mylib.version, mylib.attributes) == ("MyLib", 0x11, 1)
    assert mylib.functions == [loader.ExportEntry(0x563FF2B2, None, base + FUNC)]
    assert mylib.variables == []


def test_symbols_skip_sections_files_and_undefined(prx_bytes):
    base = 0x08900000
    image = loader.load(prx_bytes, base=base)
    assert image.symbols == [loader.Symbol("abs_value", 0x1234, 0), loader.Symbol("_start", base + ENTRY, 8),
                             loader.Symbol("helper", base + FUNC, 8),
                             loader.Symbol("counter", base + DATA_VADDR + 4, 4)]
    assert image.symbol_named("helper") == loader.Symbol("helper", base + FUNC, 8)
    assert image.symbol_named("undefined_fn") is None


def test_symbol_at_finds_the_nearest_symbol_below(prx_bytes):
    base = 0x08900000
    image = loader.load(prx_bytes, base=base)
    assert image.symbol_at(base + FUNC + 4) == (loader.Symbol("helper", base + FUNC, 8), 4)
    assert image.symbol_at(base + ENTRY) == (loader.Symbol("_start", base + ENTRY, 8), 0)
    assert image.symbol_at(0x1240) == (loader.Symbol("abs_value", 0x1234, 0), 0xC)
    assert image.symbol_at(0x1233) is None


def test_unrelocated_bytes_are_kept(prx_bytes):
    image = loader.load(prx_bytes)
    assert image.read(0x08804000 + 0x2A8, 17) == b"IoFileMgrForUser\x00"
    assert image.read(0x08804000 + DATA_VADDR + 0x300, 8) == bytes(8)  # bss reads as zero


def test_default_base_honours_the_first_segments_alignment():
    from tests.loader.elfbuild import ET_PRX, Seg, build
    text = bytearray(0x100)
    text[0x40:0x44] = (0x10000).to_bytes(4, "little")  # module info with empty library tables
    module = build(ET_PRX, 0, [Seg(0, bytes(text), align=0x10000)], module_info_at=(0, 0x40))
    assert loader.load(module).base == 0x08810000  # 0x08804000 rounded up to 64 KiB
    assert loader.load(module, base=0x08804000).base == 0x08804000  # an explicit base is obeyed


@pytest.mark.parametrize("base", [0x08804000, 0x0880C000])
def test_stripped_module_relocated_by_a_relocation_segment(base):
    image = loader.load(samples.sample_prx_segment_relocations(), base=base)
    assert image.module_info.name == "Stripped" and image.symbols == []
    assert effective(word(image, base + 0x08), word(image, base + 0x0C)) == base + T_CARRY
    lo = word(image, base + 0x18)
    assert effective(word(image, base + 0x10), lo) == effective(word(image, base + 0x14), lo) == base + T_NEG
    op = word(image, base + 0x1C)
    assert op & 0xFC000000 == 0x0C000000 and (op & 0x03FFFFFF) << 2 == (base + FUNC) & 0x0FFFFFFF
