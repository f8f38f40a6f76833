"""ELF structure for PSP executables: header, program headers, section headers and
their names, each checked against the file's size before it is trusted.

Parsed with struct rather than pyelftools so that every bad offset or count in a
hostile file becomes a LoaderError naming the field (tests cross-check against
pyelftools on real files)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from loader.errors import LoaderError
from loader.layout import name_text

MAGIC = b"\x7fELF"
ET_EXEC = 2
ET_PSP_PRX = 0xFFA0
EM_MIPS = 8

PT_LOAD = 1
PT_PSP_REL = 0x700000A0  # a segment holding Elf32_Rel entries
PT_PSP_REL2 = 0x700000A1  # a segment holding the compressed relocation stream

SHT_NOBITS = 8
SHT_SYMTAB = 2
SHT_PSP_REL = 0x700000A0
SHF_ALLOC = 2
MAX_SEGMENT = 64 << 20  # the most RAM any PSP model has

HEADER = struct.Struct("<16sHHIIIIIHHHHHH")
PHDR = struct.Struct("<8I")
SHDR = struct.Struct("<10I")


@dataclass(frozen=True)
class ProgramHeader:
    index: int
    type: int
    offset: int
    vaddr: int
    paddr: int
    filesz: int
    memsz: int
    flags: int
    align: int


@dataclass(frozen=True)
class Section:
    index: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    align: int
    entsize: int


class ElfFile:
    """The parsed tables of one ELF; data() hands out checked byte ranges."""

    def __init__(self, data: bytes, what: str = "ELF"):
        self.raw = data
        self.what = what
        if len(data) < HEADER.size:
            raise LoaderError(f"{what} is truncated: {len(data)} bytes, the ELF header needs {HEADER.size}")
        (ident, self.type, machine, _version, self.entry, phoff, shoff, self.flags,
         _ehsize, phentsize, phnum, shentsize, shnum, shstrndx) = HEADER.unpack_from(data)
        if ident[:4] != MAGIC:
            raise LoaderError(f"{what} has wrong magic {ident[:4]!r} (expected {MAGIC!r})")
        if ident[4] != 1 or ident[5] != 1:
            raise LoaderError(f"{what} is not a 32-bit little-endian ELF (class {ident[4]}, data {ident[5]})")
        if machine != EM_MIPS:
            raise LoaderError(f"{what} is for machine {machine}, not MIPS ({EM_MIPS})")
        if self.type not in (ET_EXEC, ET_PSP_PRX):
            raise LoaderError(f"{what} has e_type 0x{self.type:x}: neither a static executable (2) nor a PRX (0xffa0)")
        self.program_headers = self._program_headers(phoff, phentsize, phnum)
        self.sections = self._sections(shoff, shentsize, shnum, shstrndx)
        self._check_totals()

    @property
    def is_prx(self) -> bool:
        return self.type == ET_PSP_PRX

    def _table(self, offset: int, entsize: int, count: int, needed: int, what: str) -> None:
        if count and entsize != needed:
            raise LoaderError(f"{self.what} {what} entries are {entsize} bytes, expected {needed}")
        if offset + entsize * count > len(self.raw):
            raise LoaderError(f"{self.what} {what} table ({count} entries at offset {offset}) "
                              f"runs past the end of the file ({len(self.raw)} bytes)")

    def _program_headers(self, phoff, phentsize, phnum) -> list[ProgramHeader]:
        self._table(phoff, phentsize, phnum, PHDR.size, "program header")
        headers = []
        for i in range(phnum):
            fields = PHDR.unpack_from(self.raw, phoff + i * PHDR.size)
            ph = ProgramHeader(i, *fields)
            if ph.type in (PT_LOAD, PT_PSP_REL, PT_PSP_REL2):
                if ph.offset + ph.filesz > len(self.raw):
                    raise LoaderError(f"{self.what} segment {i} (offset {ph.offset}, {ph.filesz} bytes) "
                                      f"runs past the end of the file ({len(self.raw)} bytes)")
            if ph.type == PT_LOAD:
                if ph.filesz > ph.memsz:
                    raise LoaderError(f"{self.what} segment {i} has more file bytes ({ph.filesz}) "
                                      f"than memory bytes ({ph.memsz})")
                if ph.memsz > MAX_SEGMENT:
                    raise LoaderError(f"{self.what} segment {i} wants {ph.memsz} bytes of memory, "
                                      f"more than a PSP has ({MAX_SEGMENT >> 20} MiB)")
                if ph.vaddr + ph.memsz > 1 << 32:
                    raise LoaderError(f"{self.what} segment {i} at 0x{ph.vaddr:08x} "
                                      f"({ph.memsz} bytes) wraps past the 4 GiB address space")
            headers.append(ph)
        return headers

    def _check_totals(self) -> None:
        """Refuse before any work what would make loading slow however small the file: more
        memory than a PSP has across the segments, or relocation data read more than once
        (many headers over the same bytes), which a file of N bytes cannot hold more than N of."""
        memory = sum(ph.memsz for ph in self.load_segments())
        if memory > MAX_SEGMENT:
            raise LoaderError(f"{self.what} segments want {memory} bytes of memory in all, "
                              f"more than a PSP has ({MAX_SEGMENT >> 20} MiB)")
        for what, sizes in (("relocation segments", [ph.filesz for ph in self.program_headers
                                                     if ph.type in (PT_PSP_REL, PT_PSP_REL2)]),
                            ("relocation sections", [s.size for s in self.sections if s.type == SHT_PSP_REL])):
            if sum(sizes) > len(self.raw):
                raise LoaderError(f"{self.what} {what} add up to {sum(sizes)} bytes, more than the whole "
                                  f"file ({len(self.raw)} bytes): they overlap")

    def _sections(self, shoff, shentsize, shnum, shstrndx) -> list[Section]:
        self._table(shoff, shentsize, shnum, SHDR.size, "section header")
        if not shnum:
            return []
        raw = [SHDR.unpack_from(self.raw, shoff + i * SHDR.size) for i in range(shnum)]
        for i, (_n, type_, _f, _a, offset, size, *_rest) in enumerate(raw):
            if type_ != SHT_NOBITS and type_ != 0 and offset + size > len(self.raw):
                raise LoaderError(f"{self.what} section {i} (offset {offset}, {size} bytes) "
                                  f"runs past the end of the file ({len(self.raw)} bytes)")
        if shstrndx >= shnum:
            raise LoaderError(f"{self.what} section-name table index {shstrndx} is not one of its {shnum} sections")
        strtab = raw[shstrndx]
        names = self.raw[strtab[4]:strtab[4] + strtab[5]] if shstrndx and strtab[1] != SHT_NOBITS else b""
        return [Section(i, string_at(names, fields[0], f"{self.what} section {i} name"), *fields[1:])
                for i, fields in enumerate(raw)]

    def section_named(self, name: str) -> Section | None:
        for section in self.sections:
            if section.name == name:
                return section
        return None

    def section_data(self, section: Section) -> bytes:
        if section.type == SHT_NOBITS:
            return b""
        return self.raw[section.offset:section.offset + section.size]

    def segment_data(self, ph: ProgramHeader) -> bytes:
        return self.raw[ph.offset:ph.offset + ph.filesz]

    def load_segments(self) -> list[ProgramHeader]:
        return [ph for ph in self.program_headers if ph.type == PT_LOAD]


def string_at(table: bytes, offset: int, what: str) -> str:
    """A NUL-terminated name from a string table; names are empty without a table."""
    if not table:
        return ""
    if offset >= len(table):
        raise LoaderError(f"{what} at string offset {offset} is outside its table ({len(table)} bytes)")
    end = table.find(b"\x00", offset)
    if end < 0:
        raise LoaderError(f"{what} at string offset {offset} is not NUL-terminated")
    return name_text(table[offset:end])
