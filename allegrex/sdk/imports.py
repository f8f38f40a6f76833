"""The import declaration list (psp/sdk/imports.txt) and what the build makes of it:
the C header declaring the functions, and the assembly holding the import tables in
the official layout for exactly the functions a program references.

Layout emitted (per library, in imports.txt order):
  .rodata.sceResident  library name string
  .lib.stub            20-byte entry: name ptr, version u16, attributes u16, entry
                       length in words u8 (5), variable count u8 (0), function count
                       u16, NID table ptr, stub table ptr
  .rodata.sceNid       one NID word per function
  .sceStub.text        one 8-byte stub per function, `jr $ra; nop` (the OS patches
                       the nop into a syscall)
A function with more than 4 argument words gets a wrapper in .text under the C
name: zig's back end passes words 5-8 on the stack (o32), the PSP passes them in
$t0-$t3 (EABI), so the wrapper loads them and jumps to the stub.
"""

import re
from dataclasses import dataclass
from pathlib import Path

from allegrex.sdk.errors import SdkError
from loader.nids import nid_for_name

STUB_SIZE = 8
ENTRY_WORDS = 5
MAX_ARG_WORDS = 8  # a0-a3 then t0-t3; the PSP passes no arguments on the stack

_LIBRARY = re.compile(r"^\[(\w+)\s+(0x[0-9a-fA-F]{1,8})\]$")
_FUNCTION = re.compile(r"^(?P<ret>.+?)\b(?P<name>\w+)\s*\((?P<params>.*)\)\s*;\s*(?:@(?P<nid>0x[0-9a-fA-F]{1,8}))?$")
_WIDE_TYPES = re.compile(r"\b(SceOff|SceInt64|SceUInt64|s64|u64|int64_t|uint64_t|long\s+long|double)\b")


@dataclass(frozen=True)
class ImportDecl:
    library: str
    name: str
    nid: int
    arg_words: int   # 32-bit argument slots, counting the padding before a 64-bit pair
    prototype: str   # the C declaration, for the generated header


@dataclass(frozen=True)
class LibraryDecl:
    name: str
    flags_version: int  # the second word of the .lib.stub entry


@dataclass(frozen=True)
class ImportList:
    libraries: tuple  # LibraryDecl in file order
    functions: dict   # name -> ImportDecl

    def library_flags(self, library: str) -> int:
        return next(lib.flags_version for lib in self.libraries if lib.name == library)


def count_arg_words(params: str) -> int:
    """o32 argument words of a parameter list: 64-bit values start on an even word."""
    params = params.strip()
    if params in ("", "void"):
        return 0
    words = 0
    for param in params.split(","):
        if _WIDE_TYPES.search(param) and "*" not in param:
            words += words % 2 + 2
        else:
            words += 1
    return words


def parse_imports(text: str, origin: str = "imports.txt") -> ImportList:
    libraries, functions, library = [], {}, None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{origin}:{number}"
        match = _LIBRARY.match(line)
        if match:
            library = LibraryDecl(match.group(1), int(match.group(2), 16))
            libraries.append(library)
            continue
        match = _FUNCTION.match(line)
        if not match:
            raise SdkError(f"{where}: expected '[Library 0xFLAGS]' or a C prototype ending in ';', got {raw.strip()!r}")
        if library is None:
            raise SdkError(f"{where}: function {match.group('name')} comes before any [Library 0xFLAGS] line")
        name = match.group("name")
        if name in functions:
            raise SdkError(f"{where}: {name} is declared twice")
        words = count_arg_words(match.group("params"))
        if words > MAX_ARG_WORDS:
            raise SdkError(f"{where}: {name} takes {words} argument words; the PSP passes at most {MAX_ARG_WORDS} in registers")
        nid = int(match.group("nid"), 16) if match.group("nid") else nid_for_name(name)
        prototype = line.split("@", 1)[0].strip()
        functions[name] = ImportDecl(library.name, name, nid, words, prototype)
    return ImportList(tuple(libraries), functions)


def merge(base: ImportList, extra: ImportList) -> ImportList:
    """The SDK's list with a program's own declarations (other modules' libraries) added."""
    clash = sorted(set(base.functions) & set(extra.functions))
    if clash:
        raise SdkError(f"the program's imports declare {', '.join(clash)}, which the SDK already declares")
    return ImportList(base.libraries + extra.libraries, {**base.functions, **extra.functions})


def load_imports(path: Path) -> ImportList:
    return parse_imports(Path(path).read_text(), Path(path).name)


def header_text(imports: ImportList) -> str:
    """include/pspimports.h: the prototypes, grouped by library."""
    lines = ["/* Generated from psp/sdk/imports.txt by allegrex.sdk.imports: do not edit. */",
             "#ifndef PSPIMPORTS_H", "#define PSPIMPORTS_H", '#include "psptypes.h"', ""]
    for library in imports.libraries:
        lines.append(f"/* {library.name} */")
        lines += [f.prototype for f in imports.functions.values() if f.library == library.name]
        lines.append("")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def stubs_assembly(imports: ImportList, used: list) -> str:
    """The import tables for the functions named in `used` (any order; emitted sorted
    by library order in imports.txt, then by name, so output is deterministic)."""
    order = {lib.name: i for i, lib in enumerate(imports.libraries)}
    decls = sorted((imports.functions[n] for n in set(used)), key=lambda d: (order[d.library], d.name))
    out = ["# Generated by allegrex.sdk.imports: PSP import tables.", ".set noreorder", ".set noat"]
    for lib_index, library in enumerate(imports.libraries):
        funcs = [d for d in decls if d.library == library.name]
        if funcs:
            out += _library_tables(lib_index, library, funcs)
    return "\n".join(out) + "\n"


def _library_tables(index: int, library: LibraryDecl, funcs: list) -> list:
    tag = f"__import{index}"
    out = [
        '.section .rodata.sceResident,"a"', ".align 2", f"{tag}_name:", f'.asciz "{library.name}"',
        '.section .lib.stub,"a",@progbits', ".align 2", f"{tag}_entry:",
        f".word {tag}_name",
        f".word 0x{library.flags_version:08x}",
        f".byte {ENTRY_WORDS}, 0",
        f".2byte {len(funcs)}",
        f".word {tag}_nids",
        f".word {tag}_stubs",
        '.section .rodata.sceNid,"a"', ".align 2", f"{tag}_nids:",
    ]
    out += [f".word 0x{d.nid:08x}  # {d.name}" for d in funcs]
    out += ['.section .sceStub.text,"ax",@progbits', ".align 2", f"{tag}_stubs:"]
    for d in funcs:
        label = d.name if d.arg_words <= 4 else f"__stub_{d.name}"
        out += [f".globl {label}", f".type {label}, @function", f"{label}:", "jr $ra", "nop", f".size {label}, 8"]
    for d in funcs:
        if d.arg_words > 4:
            out += _eabi_wrapper(d)
    return out


def _eabi_wrapper(decl: ImportDecl) -> list:
    """o32 leaves argument words 5.. at 16($sp), 20($sp)...; the PSP wants them in $t0..$t3."""
    loads = [f"lw ${8 + i}, {16 + 4 * i}($sp)" for i in range(decl.arg_words - 4)]
    return [f'.section .text.{decl.name},"ax",@progbits', ".align 2", f".globl {decl.name}",
            f".type {decl.name}, @function", f"{decl.name}:", *loads[:-1],
            f"j __stub_{decl.name}", loads[-1], f".size {decl.name}, .-{decl.name}"]
