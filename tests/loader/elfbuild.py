"""Build small ELF and PRX files byte by byte for the loader tests.

A segment is a block of bytes at a virtual address; sections name windows of a
segment (so .rodata.sceModuleInfo, .lib.stub... exist as in real files) or carry
their own bytes (relocation tables, .symtab). The layout is: ELF header, program
headers, each segment's bytes, the other sections, .shstrtab, section headers."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

ET_EXEC, ET_PRX = 2, 0xFFA0
PT_LOAD, PT_PSP_REL, PT_PSP_REL2 = 1, 0x700000A0, 0x700000A1
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS, SHT_PSP_REL = 1, 2, 3, 8, 0x700000A0
SHF_WRITE, SHF_ALLOC, SHF_EXEC = 1, 2, 4


@dataclass
class Seg:
    vaddr: int
    data: bytes
    memsz: int | None = None
    flags: int = 7
    windows: list = field(default_factory=list)  # (name, offset in segment, size[, sh_type])
    type: int = PT_LOAD
    align: int = 16


@dataclass
class Sec:
    name: str
    type: int
    data: bytes
    info: int | str = 0  # a section index or name
    link: int | str = 0
    entsize: int = 0
    flags: int = 0


def rel(offset: int, type_: int, offset_seg: int = 0, addr_seg: int = 0) -> bytes:
    return struct.pack("<II", offset, type_ | offset_seg << 8 | addr_seg << 16)


def build(e_type: int, entry: int, segments: list[Seg], sections: list[Sec] = (),
          module_info_at: tuple[int, int] | None = None) -> bytes:
    """module_info_at=(segment index, offset): a PRX's first p_paddr gets its file offset."""
    phoff = 52
    position = phoff + 32 * len(segments)
    seg_offsets = []
    for seg in segments:
        position += -position % 16
        seg_offsets.append(position)
        position += len(seg.data)
    sec_offsets = []
    for sec in sections:
        position += -position % 4
        sec_offsets.append(position)
        position += len(sec.data)

    # section 0 is null; then the segment windows, then the given sections, then .shstrtab
    names = bytearray(b"\x00")
    headers = [[0] * 10]
    index_of = {}

    def name_offset(name: str) -> int:
        offset = len(names)
        names.extend(name.encode() + b"\x00")
        return offset

    for seg, offset in zip(segments, seg_offsets):
        for window in seg.windows:
            name, start, size = window[:3]
            sh_type = window[3] if len(window) > 3 else SHT_PROGBITS
            flags = SHF_ALLOC | (SHF_EXEC if seg.flags & 1 else 0) | (SHF_WRITE if seg.flags & 2 else 0)
            index_of[name] = len(headers)
            headers.append([name_offset(name), sh_type, flags, seg.vaddr + start, offset + start, size, 0, 0, 4, 0])
    for sec, offset in zip(sections, sec_offsets):
        index_of[sec.name] = len(headers)
        headers.append([name_offset(sec.name), sec.type, sec.flags, 0, offset, len(sec.data),
                        sec.link, sec.info, 4, sec.entsize])
    for header in headers:  # link and info may name a section
        header[6], header[7] = (index_of[v] if isinstance(v, str) else v for v in header[6:8])
    shstrndx = len(headers)
    shstr_name = name_offset(".shstrtab")
    position += -position % 4
    shstr_offset = position
    position += len(names)
    headers.append([shstr_name, SHT_STRTAB, 0, 0, shstr_offset, len(names), 0, 0, 1, 0])
    position += -position % 4
    shoff = position

    out = bytearray(shoff + 40 * len(headers))
    struct.pack_into("<16sHHIIIIIHHHHHH", out, 0, b"\x7fELF\x01\x01\x01" + bytes(9), e_type, 8, 1, entry,
                     phoff, shoff, 0x10A23001, 52, 32, len(segments), 40, len(headers), shstrndx)
    for i, (seg, offset) in enumerate(zip(segments, seg_offsets)):
        paddr = seg.vaddr
        if module_info_at is not None and i == 0:
            paddr = seg_offsets[module_info_at[0]] + module_info_at[1]
        memsz = len(seg.data) if seg.memsz is None else seg.memsz
        vaddr = seg.vaddr if seg.type == PT_LOAD else 0
        struct.pack_into("<8I", out, phoff + 32 * i, seg.type, offset, vaddr, paddr, len(seg.data),
                         memsz if seg.type == PT_LOAD else 0, seg.flags, seg.align)
        out[offset:offset + len(seg.data)] = seg.data
    for sec, offset in zip(sections, sec_offsets):
        out[offset:offset + len(sec.data)] = sec.data
    out[shstr_offset:shstr_offset + len(names)] = names
    for i, header in enumerate(headers):
        struct.pack_into("<10I", out, shoff + 40 * i, *header)
    return bytes(out)


def symtab(symbols: list[tuple[str, int, int, int, int]]) -> tuple[Sec, Sec]:
    """symbols: (name, value, size, st_info, st_shndx). Returns (.symtab, .strtab)."""
    strtab = bytearray(b"\x00")
    entries = [bytes(16)]
    for name, value, size, info, shndx in symbols:
        entries.append(struct.pack("<IIIBBH", len(strtab), value, size, info, 0, shndx))
        strtab.extend(name.encode() + b"\x00")
    return Sec(".symtab", SHT_SYMTAB, b"".join(entries), link=".strtab", entsize=16), Sec(".strtab", SHT_STRTAB, bytes(strtab))


class Memory:
    """A segment's bytes under construction, addressed by segment offset."""

    def __init__(self, size: int):
        self.data = bytearray(size)

    def u32(self, offset: int, *values: int) -> None:
        for i, value in enumerate(values):
            struct.pack_into("<I", self.data, offset + 4 * i, value & 0xFFFFFFFF)

    def bytes_at(self, offset: int, raw: bytes) -> None:
        self.data[offset:offset + len(raw)] = raw

    def read_u32(self, offset: int) -> int:
        return struct.unpack_from("<I", self.data, offset)[0]
