"""`allegrex cc -g` and `--strip`: debug info changes no instruction; an EBOOT ships
without DWARF (and with --strip without symbols) while the full ELF is written beside it."""

import io

from elftools.elf.elffile import ELFFile

import loader
from allegrex.cli import main
from allegrex.sdk import build
from loader.pbp import read_pbp
from tests.saxpy_app import SOURCES


def _elf(data: bytes) -> ELFFile:
    return ELFFile(io.BytesIO(data))


def _sections(data: bytes) -> set:
    return {s.name for s in _elf(data).iter_sections()}


def test_debug_info_changes_no_byte_of_the_program(tmp_path):
    plain = build(SOURCES, tmp_path / "plain.elf", elf=True)
    debug = build(SOURCES, tmp_path / "debug.elf", elf=True, debug=True)
    a, b = loader.load(plain), loader.load(debug)
    assert a.segments == b.segments and a.entry == b.entry
    assert {(s.name, s.addr, s.size) for s in a.symbols} == {(s.name, s.addr, s.size) for s in b.symbols}
    assert not _elf(plain.read_bytes()).has_dwarf_info()
    assert {".debug_info", ".debug_line"} <= _sections(debug.read_bytes())
    assert not (tmp_path / "debug.debug.elf").exists()  # a bare -g ELF is itself the full one


def test_an_eboot_ships_without_dwarf_and_the_full_elf_lies_beside_it(tmp_path, capsys):
    out = tmp_path / "EBOOT.PBP"
    assert main(["cc", "-g", *map(str, SOURCES), "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"wrote {tmp_path / 'EBOOT.elf'} (symbols and DWARF)",
                                                   f"wrote {out}"]
    shipped = read_pbp(out.read_bytes())["DATA.PSP"]
    assert ".symtab" in _sections(shipped) and not any(n.startswith(".debug") for n in _sections(shipped))
    full = (tmp_path / "EBOOT.elf").read_bytes()
    assert {".debug_line", ".symtab"} <= _sections(full)
    assert loader.load(out).segments == loader.load(full).segments


def test_strip_leaves_no_symbols_in_the_output(tmp_path):
    out = build(SOURCES, tmp_path / "EBOOT.PBP", strip=True)
    shipped = read_pbp(out.read_bytes())["DATA.PSP"]
    assert ".symtab" not in _sections(shipped) and loader.load(out).symbols == []
    full = tmp_path / "EBOOT.elf"
    assert loader.load(full).symbol_named("saxpy_vfpu") is not None and not _elf(full.read_bytes()).has_dwarf_info()
    assert loader.load(full).segments == loader.load(out).segments
