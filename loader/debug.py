"""Symbols and source lines for a loaded program from the unstripped ELF or PRX of the
same build (a stripped EBOOT's `--symbols FILE`, or our SDK's `allegrex cc -g`).

    image = with_symbols(loader.load("EBOOT.PBP"), "prog.elf")
    image.symbols, image.lines.at(addr) -> SourceLine(file, line) | None

The file belongs to the program when every executable segment of the program has the
same bytes at the same address in the file (a PRX file is loaded at the program's base
first, so its relocated code is compared). Anything else is refused: symbols of another
build would silently name the wrong functions. Line tables are DWARF .debug_line
(read with pyelftools), moved by the same base as the code.
"""

from __future__ import annotations

import dataclasses
import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from loader import pbp
from loader.errors import LoaderError
from loader.image import PF_X, Image
from loader.load import load


class SymbolsMismatch(LoaderError):
    """The symbols file is not the unstripped form of the loaded program."""


@dataclass(frozen=True)
class SourceLine:
    file: str  # path as the compiler recorded it (absolute when it knew the folder)
    line: int  # 1-based; 0: code the compiler gave no line

    @property
    def name(self) -> str:
        """The file's name without its folder (either separator: psp-gcc on Windows)."""
        return re.split(r"[\\/]", self.file)[-1]

    def __str__(self) -> str:
        return f"{self.name}:{self.line}"

    def text(self) -> str:
        """The line's source text when its file is readable here, else ""."""
        if self.line <= 0:
            return ""
        try:
            with open(self.file, encoding="utf-8", errors="replace") as f:
                for n, text in enumerate(f, 1):
                    if n == self.line:
                        return text.strip()
        except OSError:
            pass
        return ""


class LineTable:
    """Address -> source line, from DWARF line programs (rows sorted by address)."""

    def __init__(self, rows):
        """rows: (address, file or None at the end of a sequence, line), in any order."""
        rows = sorted(rows, key=lambda r: r[0])  # stable: a sequence's rows keep their order
        self.files = sorted({r[1] for r in rows if r[1] is not None})
        index = {f: i for i, f in enumerate(self.files)}
        self.starts = np.array([r[0] for r in rows], dtype=np.int64)
        self.file_of = np.array([-1 if r[1] is None else index[r[1]] for r in rows], dtype=np.int64)
        self.line_of = np.array([r[2] for r in rows], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.starts)

    def at(self, addr: int) -> SourceLine | None:
        i = int(np.searchsorted(self.starts, addr, side="right")) - 1
        if i < 0 or self.file_of[i] < 0:
            return None
        return SourceLine(self.files[self.file_of[i]], int(self.line_of[i]))


@dataclass
class DebugInfo:
    path: str
    symbols: list  # loader.Symbol, at the program's addresses
    lines: LineTable | None  # None: the file has no DWARF line table


def with_symbols(image: Image, path) -> Image:
    """A copy of `image` with the symbols and source lines of the unstripped file at
    `path`; raises SymbolsMismatch when that file is not the same program."""
    info = read_debug_info(image, path)
    return dataclasses.replace(image, symbols=info.symbols, lines=info.lines)


def read_debug_info(image: Image, path) -> DebugInfo:
    path = str(path)
    if not Path(path).is_file():
        raise LoaderError(f"symbols file {path}: no such file")
    data = Path(path).read_bytes()
    try:
        other = load(data, base=image.base if image.kind == "prx" else None)
    except LoaderError as exc:
        raise LoaderError(f"symbols file {path}: {exc}") from None
    _check_same_code(image, other, path)
    if not other.symbols:
        raise LoaderError(f"symbols file {path} has no symbol table (it is stripped too)")
    shift = other.base - _lowest_vaddr(data) if other.kind == "prx" else 0
    sizes_at_zero = {s.size for s in other.symbols if s.addr - shift == 0 and s.size}
    return DebugInfo(path, other.symbols, _line_table(_elf_bytes(data), shift, sizes_at_zero))


def _check_same_code(image: Image, other: Image, path: str) -> None:
    program = image.path or "the program"
    code = [s for s in image.segments if s.flags & PF_X]
    if not code:
        raise SymbolsMismatch(f"{program} has no executable segment to compare with {path}")
    if image.kind != other.kind:
        raise SymbolsMismatch(f"symbols file {path} is a {_kind(other)} but {program} is a {_kind(image)}: "
                              "not the same build (give the unstripped file the program was made from)")
    theirs = {s.vaddr: s for s in other.segments if s.flags & PF_X}
    for seg in code:
        mine = theirs.get(seg.vaddr)
        if mine is None:
            raise SymbolsMismatch(f"symbols file {path} does not belong to {program}: it has no code at "
                                  f"0x{seg.vaddr:08x}, where the program's code is")
        if mine.data != seg.data:
            a = np.frombuffer(seg.data[:len(seg.data) // 4 * 4], dtype="<u4")
            b = np.frombuffer(mine.data[:len(mine.data) // 4 * 4], dtype="<u4")
            n = min(len(a), len(b))
            diff = np.nonzero(a[:n] != b[:n])[0]
            first = int(diff[0]) * 4 if len(diff) else 4 * n
            raise SymbolsMismatch(
                f"symbols file {path} does not belong to {program}: their code differs from 0x{seg.vaddr + first:08x} "
                f"({len(diff) + abs(len(a) - len(b))} of {max(len(a), len(b))} words differ; code "
                f"{len(seg.data)} vs {len(mine.data)} bytes)")


def _kind(image: Image) -> str:
    return "relocatable PRX" if image.kind == "prx" else "static ELF"


def _elf_bytes(data: bytes) -> bytes:
    return pbp.read_pbp(data)["DATA.PSP"] if data[:4] == pbp.MAGIC else data


def _lowest_vaddr(data: bytes) -> int:
    from elftools.elf.elffile import ELFFile
    elf = ELFFile(io.BytesIO(_elf_bytes(data)))
    return min(seg["p_vaddr"] for seg in elf.iter_segments() if seg["p_type"] == "PT_LOAD")


def _line_table(elf_data: bytes, shift: int, sizes_at_zero=frozenset()) -> LineTable | None:
    """The line table of every DWARF line program, moved by `shift`. The linker points
    the sequences of code it dropped (gc-sections) at address 0: in a module linked at 0
    they would cover its first functions, so a sequence at 0 is kept only when it is as
    long as a symbol at 0 (`sizes_at_zero`)."""
    from elftools.common.exceptions import DWARFError, ELFError
    from elftools.elf.elffile import ELFFile
    try:
        elf = ELFFile(io.BytesIO(elf_data))
        section = elf.get_section_by_name(".debug_line")
        if section is None:
            return None
        dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False)
        comp_dirs = {}  # line program offset -> its compile unit's folder
        for cu in dwarf.iter_CUs():
            top = cu.get_top_DIE()
            if "DW_AT_stmt_list" in top.attributes:
                folder = top.attributes.get("DW_AT_comp_dir")
                comp_dirs[top.attributes["DW_AT_stmt_list"].value] = _text(folder.value) if folder else ""
        rows, offset = [], 0
        while offset < section.data_size:  # every program: assembly with .loc has no compile unit
            program = dwarf._parse_line_program_at_offset(offset, dwarf.structs)
            for start, length, sequence in _sequences(comp_dirs.get(offset, ""), program):
                if start != 0 or length in sizes_at_zero:
                    rows += [((addr + shift) & 0xFFFFFFFF, file, line) for addr, file, line in sequence]
            offset = program.program_end_offset
    except (ELFError, DWARFError, KeyError, ValueError, IndexError) as exc:
        raise LoaderError(f"cannot read the DWARF line table: {exc.__class__.__name__}: {exc}") from None
    return LineTable(rows) if rows else None


def _sequences(comp_dir, program):
    """(start address, length, rows) of each sequence of a line program; a row is
    (address, file, line), the last one (address, None, 0) where the sequence ends."""
    version = program["version"]
    dirs = [_text(d) for d in program["include_directory"]]
    files = []
    for entry in program["file_entry"]:
        d = entry.dir_index
        if version >= 5:
            folder = dirs[d] if d < len(dirs) else ""
        else:
            folder = comp_dir if d == 0 else dirs[d - 1] if d - 1 < len(dirs) else ""
        files.append(str(Path(comp_dir, folder, _text(entry.name))))
    rows = []
    for entry in program.get_entries():
        state = entry.state
        if state is None:
            continue
        if state.end_sequence:
            rows.append((state.address, None, 0))
            yield rows[0][0], state.address - rows[0][0], rows
            rows = []
            continue
        k = state.file if version >= 5 else state.file - 1
        rows.append((state.address, files[k] if 0 <= k < len(files) else "?", state.line))


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
