"""Static executables, EBOOT.PBP containers and the ELF -> PBP packer."""

import io

import pytest
from elftools.elf.elffile import ELFFile

import loader
from loader.pack import pack_eboot
from loader.pbp import SECTIONS
from tests.loader import samples
from tests.loader.samples import EXEC_BASE

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


@pytest.fixture(scope="module")
def elf_bytes():
    return samples.sample_elf()


def test_pyelftools_reads_the_static_sample(elf_bytes):
    elf = ELFFile(io.BytesIO(elf_bytes))
    assert elf["e_type"] == "ET_EXEC" and elf["e_entry"] == EXEC_BASE
    assert elf.get_section_by_name(".rodata.sceModuleInfo")["sh_addr"] == EXEC_BASE + 0x40


def test_static_elf_loads_at_its_own_addresses(elf_bytes):
    image = loader.load(elf_bytes, base=0x08804000)  # base only moves PRX modules
    assert (image.kind, image.container) == ("elf", "elf")
    assert image.base == EXEC_BASE and image.entry == EXEC_BASE
    [segment] = image.segments
    assert (segment.vaddr, len(segment.data), segment.memsz, segment.flags) == (EXEC_BASE, 0x200, 0x1000, 7)
    assert image.module_info == loader.ModuleInfo("StaticElf", 0, (1, 0), EXEC_BASE + 0x8000, EXEC_BASE + 0x80,
                                                  EXEC_BASE + 0x80, EXEC_BASE + 0x80, EXEC_BASE + 0x94)
    assert image.gp == EXEC_BASE + 0x8000
    [display] = image.imports
    assert display.name == "sceDisplay"
    assert display.functions == [loader.ImportFunction(0x984C27E7, "sceDisplayWaitVblankStart", EXEC_BASE + 0xC8)]
    assert image.exports == []
    assert image.symbol_named("_gp").addr == EXEC_BASE + 0x8000
    assert image.symbol_at(EXEC_BASE + 4) == (loader.Symbol("_start", EXEC_BASE, 8), 4)
    assert image.sfo is None and image.pbp_sections is None


def test_packed_eboot_round_trips(elf_bytes):
    eboot = pack_eboot(elf_bytes, "Hello PSP", large_memory=True, icon0=PNG)
    image = loader.load(eboot)
    assert (image.kind, image.container) == ("elf", "pbp")
    assert image.sfo["TITLE"] == "Hello PSP" and image.sfo["MEMSIZE"] == 1 and image.sfo["CATEGORY"] == "MG"
    assert list(image.pbp_sections) == list(SECTIONS)
    assert image.pbp_sections["DATA.PSP"] == len(elf_bytes)
    assert image.pbp_sections["ICON0.PNG"] == len(PNG)
    assert image.pbp_sections["DATA.PSAR"] == 0
    assert image.module_info.name == "StaticElf"


def test_packed_eboot_without_large_memory_has_no_memsize(elf_bytes):
    image = loader.load(pack_eboot(elf_bytes, "Small"))
    assert "MEMSIZE" not in image.sfo and image.pbp_sections["ICON0.PNG"] == 0


def test_prx_inside_a_pbp_is_relocated():
    image = loader.load(pack_eboot(samples.sample_prx(), "Module"), base=0x08900000)
    assert (image.kind, image.container, image.base) == ("prx", "pbp", 0x08900000)


def test_pack_refuses_what_the_loader_refuses(elf_bytes):
    with pytest.raises(loader.LoaderError):
        pack_eboot(b"not an elf", "x")
    with pytest.raises(ValueError, match="PNG"):
        pack_eboot(elf_bytes, "x", icon0=b"GIF89a")


def test_load_reads_paths(tmp_path, elf_bytes):
    path = tmp_path / "EBOOT.PBP"
    path.write_bytes(pack_eboot(elf_bytes, "From disk"))
    image = loader.load(path)
    assert image.path == str(path) and image.sfo["TITLE"] == "From disk"
    assert loader.load(str(path)).entry == EXEC_BASE
