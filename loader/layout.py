"""The loaded segments as mutable memory while the loader relocates and reads tables
from them: every access is bounds-checked and names what it was reading."""

from __future__ import annotations

import bisect
import struct

from loader.errors import LoaderError

MAX_NAME = 256  # longest library or module name read from guest memory


class LoadedSegment:
    def __init__(self, index: int, vaddr: int, data: bytes, memsz: int, flags: int):
        self.index = index  # program header index: relocation entries name segments by it
        self.vaddr = vaddr
        self.filesz = len(data)
        self.memory = bytearray(data) + bytearray(memsz - len(data))
        self.flags = flags

    @property
    def end(self) -> int:
        return self.vaddr + len(self.memory)


class Layout:
    def __init__(self, segments: list[LoadedSegment]):
        self.segments = segments
        self.by_index = {s.index: s for s in segments}
        self.ordered = sorted((s for s in segments if len(s.memory)), key=lambda s: s.vaddr)  # empty ones hold nothing
        for low, high in zip(self.ordered, self.ordered[1:]):
            if high.vaddr < low.end:
                raise LoaderError(f"segments {low.index} and {high.index} overlap at 0x{high.vaddr:08x}")
        self.starts = [s.vaddr for s in self.ordered]

    def locate(self, addr: int, size: int, what: str) -> tuple[LoadedSegment, int]:
        i = bisect.bisect_right(self.starts, addr) - 1
        if i >= 0:
            segment = self.ordered[i]
            if addr + size <= segment.end:
                return segment, addr - segment.vaddr
        raise LoaderError(f"{what} at 0x{addr & 0xFFFFFFFF:08x} is outside the loaded image")

    def read(self, addr: int, size: int, what: str) -> bytes:
        segment, offset = self.locate(addr, size, what)
        return bytes(segment.memory[offset:offset + size])

    def u32(self, addr: int, what: str) -> int:
        return struct.unpack("<I", self.read(addr, 4, what))[0]

    def write_u32(self, addr: int, value: int, what: str) -> None:
        segment, offset = self.locate(addr, 4, what)
        if offset + 4 > segment.filesz:
            raise LoaderError(f"{what} at 0x{addr:08x} writes into the zero-filled (bss) part "
                              f"of segment {segment.index}")
        struct.pack_into("<I", segment.memory, offset, value & 0xFFFFFFFF)

    def cstring(self, addr: int, what: str) -> str:
        segment, offset = self.locate(addr, 1, what)
        end = segment.memory.find(b"\x00", offset, offset + MAX_NAME)
        if end < 0:
            raise LoaderError(f"{what} at 0x{addr:08x} is not NUL-terminated within {MAX_NAME} bytes")
        return name_text(segment.memory[offset:end])


def name_text(raw: bytes) -> str:
    """A name from the file (latin-1) with every unprintable character escaped (a newline as
    \\x0a), so that an error or a listing naming it stays one readable line."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in bytes(raw).decode("latin-1"))
