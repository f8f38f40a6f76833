"""load(): any PSP executable (EBOOT.PBP, PRX, static ELF) in, one relocated Image out."""

from __future__ import annotations

from pathlib import Path

from loader import pbp
from loader.elf import ET_EXEC, PT_PSP_REL, PT_PSP_REL2, SHF_ALLOC, SHT_PSP_REL, ElfFile
from loader.errors import LoaderError
from loader.image import Image, Segment
from loader.layout import Layout, LoadedSegment
from loader.module import MODULE_INFO, read_exports, read_imports, read_module_info
from loader.relocate import apply_compressed, apply_rel, parse_rel_entries
from loader.sfo import read_sfo
from loader.symbols import read_symbols

DEFAULT_PRX_BASE = 0x08804000  # where the PSP's loader puts a user PRX started as a game
MODULE_INFO_SECTION = ".rodata.sceModuleInfo"
MAX_BASE_ALIGN = 0x10000  # toolchains that ask for more than 64 KiB alignment are not honoured
EF_MIPS_ABI = 0x0000F000  # e_flags field naming the calling convention
ABI_NAMES = {0x1000: "o32", 0x3000: "eabi32"}


def load(source: str | Path | bytes, base: int | None = None) -> Image:
    """Detect the container by content and load it; base applies to PRX modules only
    (a static ELF runs at its fixed addresses)."""
    path, data = _read_source(source)
    magic = data[:4]
    if magic == pbp.MAGIC:
        return _load_pbp(data, path, base)
    if magic == b"\x7fELF":
        return load_elf(data, base, path=path)
    if magic == pbp.ENCRYPTED_MAGIC:
        raise LoaderError("file is an encrypted PSP executable (~PSP header): only unencrypted homebrew can be run")
    raise LoaderError(f"not a PSP executable: starts with {magic!r}, expected a PBP (\\0PBP) or an ELF (\\x7fELF)")


def _read_source(source) -> tuple[str | None, bytes]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return None, bytes(source)
    try:
        return str(source), Path(source).read_bytes()
    except OSError as exc:
        raise LoaderError(f"cannot read {source}: {exc.strerror or exc}") from None


def _load_pbp(data: bytes, path: str | None, base: int | None) -> Image:
    sections = pbp.read_pbp(data)
    pbp.check_data_psp(sections["DATA.PSP"])
    sfo = read_sfo(sections["PARAM.SFO"]) if sections["PARAM.SFO"] else None
    sizes = {name: len(body) for name, body in sections.items()}
    return load_elf(sections["DATA.PSP"], base, path=path, container="pbp", sfo=sfo,
                    pbp_sections=sizes, what="DATA.PSP")


def load_elf(data: bytes, base: int | None = None, *, path: str | None = None, container: str = "elf",
             sfo: dict | None = None, pbp_sections: dict | None = None, what: str = "ELF") -> Image:
    elf = ElfFile(data, what)
    loads = elf.load_segments()
    if not loads:
        raise LoaderError(f"{what} has no loadable (PT_LOAD) segment")
    shift = _prx_base(loads, base) if elf.is_prx else 0
    layout = Layout([LoadedSegment(ph.index, ph.vaddr + shift, elf.segment_data(ph), ph.memsz, ph.flags)
                     for ph in loads])
    if elf.is_prx:
        _relocate(elf, layout)
    entry = (elf.entry + shift) & 0xFFFFFFFF
    layout.locate(entry, 4, "entry point")
    info = _module_info(elf, layout)
    imports, exports = (read_imports(layout, info), read_exports(layout, info)) if info else ([], [])
    symbols = read_symbols(elf, shift)
    gp = info.gp if info else next((s.addr for s in symbols if s.name == "_gp"), 0)
    segments = [Segment(s.vaddr, bytes(s.memory[:s.filesz]), len(s.memory), s.flags) for s in layout.segments]
    return Image(path=path, kind="prx" if elf.is_prx else "elf", container=container,
                 base=min(s.vaddr for s in segments), segments=segments, entry=entry, gp=gp,
                 module_info=info, imports=imports, exports=exports, symbols=symbols,
                 sfo=sfo, pbp_sections=pbp_sections, abi=ABI_NAMES.get(elf.flags & EF_MIPS_ABI, ""))


def _prx_base(loads, base: int | None) -> int:
    low = min(ph.vaddr for ph in loads)
    high = max(ph.vaddr + ph.memsz for ph in loads)
    if base is None:  # honour the first segment's alignment (a power of two, up to 64 KiB)
        align = loads[0].align
        align = align if 0 < align <= MAX_BASE_ALIGN and align & (align - 1) == 0 else 1
        base = -(-DEFAULT_PRX_BASE // align) * align
    if base < 0 or base & 3:
        raise LoaderError(f"load base 0x{base & 0xFFFFFFFF:08x} is not a word-aligned address")
    if base + high > 1 << 32 or base + low < 0:
        raise LoaderError(f"module of 0x{high - low:x} bytes does not fit in the address space at base 0x{base:08x}")
    return base


def _relocate(elf: ElfFile, layout: Layout) -> None:
    """Relocation sections when the file has them, else relocation segments."""
    sections = [s for s in elf.sections if s.type == SHT_PSP_REL]
    for section in sections:
        where = f"relocation section {section.name or section.index}"
        if section.info >= len(elf.sections):
            raise LoaderError(f"{where} applies to section {section.info}, which does not exist")
        if elf.sections[section.info].flags & SHF_ALLOC:  # relocations of unloaded (debug) sections do not matter
            apply_rel(layout, parse_rel_entries(elf.section_data(section), where), where)
    if sections:
        return
    for ph in elf.program_headers:
        where = f"relocation segment {ph.index}"
        if ph.type == PT_PSP_REL:
            apply_rel(layout, parse_rel_entries(elf.segment_data(ph), where), where)
        elif ph.type == PT_PSP_REL2:
            apply_compressed(layout, elf.segment_data(ph), ph.index, where)


def _module_info(elf: ElfFile, layout: Layout):
    """PRX: the first program header's p_paddr is the module info's file offset.
    Static ELF: the .rodata.sceModuleInfo section (absent in plain MIPS programs)."""
    if elf.type == ET_EXEC:
        section = elf.section_named(MODULE_INFO_SECTION)
        if section is None:
            return None
        if section.size < MODULE_INFO.size:
            raise LoaderError(f"section {MODULE_INFO_SECTION} is {section.size} bytes, "
                              f"module info needs {MODULE_INFO.size}")
        return read_module_info(layout, section.addr)
    offset = elf.program_headers[0].paddr & 0x7FFFFFFF
    for ph, segment in zip(elf.load_segments(), layout.segments):
        if ph.offset <= offset and offset + MODULE_INFO.size <= ph.offset + ph.filesz:
            return read_module_info(layout, segment.vaddr + offset - ph.offset)
    raise LoaderError(f"module info file offset 0x{offset:x} (first program header's p_paddr) "
                      "is not inside a loaded segment")
