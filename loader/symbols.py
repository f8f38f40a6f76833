"""Symbols from .symtab: named functions and objects, for profiles and fault reports."""

from __future__ import annotations

import struct

from loader.elf import SHT_SYMTAB, ElfFile, string_at
from loader.errors import LoaderError
from loader.image import Symbol

SYM = struct.Struct("<IIIBBH")
STT_SECTION, STT_FILE = 3, 4
SHN_UNDEF, SHN_ABS, SHN_LORESERVE = 0, 0xFFF1, 0xFF00


def read_symbols(elf: ElfFile, base: int) -> list[Symbol]:
    """Defined symbols with a name; section-relative values move by base (0 for ET_EXEC)."""
    symtab = next((s for s in elf.sections if s.type == SHT_SYMTAB), None)
    if symtab is None:
        return []
    if symtab.link >= len(elf.sections):
        raise LoaderError(f"symbol table names string table section {symtab.link}, which does not exist")
    data, names = elf.section_data(symtab), elf.section_data(elf.sections[symtab.link])
    if symtab.size % SYM.size:
        raise LoaderError(f"symbol table is {symtab.size} bytes, not a whole number of {SYM.size}-byte entries")
    symbols = []
    for i in range(0, len(data), SYM.size):
        name_off, value, size, info, _other, shndx = SYM.unpack_from(data, i)
        if not name_off or shndx == SHN_UNDEF or (info & 0xF) in (STT_SECTION, STT_FILE):
            continue
        name = string_at(names, name_off, f"symbol {i // SYM.size} name")
        if not name:
            continue
        moved = value if shndx >= SHN_LORESERVE else (value + base) & 0xFFFFFFFF
        symbols.append(Symbol(name, moved, size))
    return symbols
