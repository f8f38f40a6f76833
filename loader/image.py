"""The Image: everything the rest of allegrex needs from a PSP executable, already
relocated to its load address. The loader builds it; nothing else parses files."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

# Segment flags, as in an ELF program header's p_flags.
PF_X, PF_W, PF_R = 1, 2, 4


@dataclass(frozen=True)
class Segment:
    """Bytes to place at vaddr; memsz may exceed len(data): the rest is zero (bss)."""

    vaddr: int
    data: bytes
    memsz: int
    flags: int

    @property
    def end(self) -> int:
        return self.vaddr + self.memsz

    def contains(self, addr: int, size: int = 1) -> bool:
        return self.vaddr <= addr and addr + size <= self.end


@dataclass(frozen=True)
class ImportFunction:
    nid: int
    name: str | None
    stub_addr: int  # the 8-byte stub the program calls; HLE patches it


@dataclass(frozen=True)
class ImportVariable:
    nid: int
    name: str | None
    addr: int  # the variable's reference table, as the stub entry gives it


@dataclass(frozen=True)
class ImportLibrary:
    name: str
    version: int
    attributes: int
    functions: list[ImportFunction]
    variables: list[ImportVariable]


@dataclass(frozen=True)
class ExportEntry:
    """One exported function or variable: its NID, its name if known, its address."""

    nid: int
    name: str | None
    addr: int


@dataclass(frozen=True)
class ExportLibrary:
    name: str | None  # None is the module's own "syslib" (module_start, module_info...)
    version: int
    attributes: int
    functions: list[ExportEntry]
    variables: list[ExportEntry]


@dataclass(frozen=True)
class ModuleInfo:
    name: str
    attributes: int
    version: tuple[int, int]  # (major, minor)
    gp: int
    ent_top: int
    ent_end: int
    stub_top: int
    stub_end: int


@dataclass(frozen=True)
class Symbol:
    name: str
    addr: int
    size: int


@dataclass
class Image:
    path: str | None
    kind: str  # "elf" (static ET_EXEC) or "prx" (relocatable, e_type 0xFFA0)
    container: str  # "elf" (a bare ELF/PRX file) or "pbp" (inside an EBOOT.PBP)
    base: int  # lowest loaded address
    segments: list[Segment]
    entry: int
    gp: int
    module_info: ModuleInfo | None
    imports: list[ImportLibrary]
    exports: list[ExportLibrary]
    symbols: list[Symbol]  # sorted by address
    sfo: dict | None
    pbp_sections: dict[str, int] | None  # PBP section name -> size in bytes
    abi: str = ""  # calling convention from the ELF header: "o32" (our SDK), "eabi32" (psp-gcc), "" unknown
    lines: object = None  # a loader.debug.LineTable when debug info was attached (with_symbols)
    _symbol_addrs: list[int] = field(default_factory=list, init=False, repr=False, compare=False)
    _symbol_names: dict[str, Symbol] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.symbols = sorted(self.symbols, key=lambda s: (s.addr, -s.size, s.name))
        self._symbol_addrs = [s.addr for s in self.symbols]
        self._symbol_names = {}
        for symbol in self.symbols:
            self._symbol_names.setdefault(symbol.name, symbol)

    @property
    def end(self) -> int:
        """One past the highest loaded address (bss included)."""
        return max(s.end for s in self.segments)

    def symbol_at(self, addr: int) -> tuple[Symbol, int] | None:
        """The nearest symbol at or below addr and addr's offset from it, or None."""
        i = bisect.bisect_right(self._symbol_addrs, addr)
        if i == 0:
            return None
        # Several symbols may share an address: the first of the run is the sized one.
        start = bisect.bisect_left(self._symbol_addrs, self._symbol_addrs[i - 1])
        symbol = self.symbols[start]
        return symbol, addr - symbol.addr

    def symbol_named(self, name: str) -> Symbol | None:
        return self._symbol_names.get(name)

    def segment_at(self, addr: int) -> Segment | None:
        for segment in self.segments:
            if segment.contains(addr):
                return segment
        return None

    def read(self, addr: int, size: int) -> bytes:
        """Loaded bytes at addr (bss reads as zeros); raises KeyError outside the image."""
        for segment in self.segments:
            if segment.contains(addr, size):
                offset = addr - segment.vaddr
                chunk = segment.data[offset:offset + size]
                return chunk + bytes(size - len(chunk))
        raise KeyError(f"0x{addr:08x}+{size} is outside the image")

    def read_u32(self, addr: int) -> int:
        return int.from_bytes(self.read(addr, 4), "little")
