"""Module info and the library tables it points at, read from relocated memory.

sceModuleInfo (52 bytes): attributes u16, version {minor u8, major u8}, name[28],
gp, ent_top, ent_end, stub_top, stub_end.
An import entry (.lib.stub), entry_len words long: name ptr, version u16,
attributes u16, entry_len u8, var count u8, func count u16, NID table ptr, stub
table ptr (8 bytes per function) and, when entry_len >= 6, a variable table ptr
({addr, nid} pairs).
An export entry (.lib.ent): name ptr (0 for the module's own "syslib"), version u16,
attributes u16, entry_len u8, var count u8, func count u16, table ptr (NIDs of
functions then variables, then their addresses in the same order).
"""

from __future__ import annotations

import struct

from loader.errors import LoaderError
from loader.image import ExportEntry, ExportLibrary, ImportFunction, ImportLibrary, ImportVariable, ModuleInfo
from loader.layout import Layout, name_text
from loader.nids import name_for_nid

MODULE_INFO = struct.Struct("<HBB28sIIIII")
ENTRY_HEAD = struct.Struct("<IHHBBH")
SYSLIB = "syslib"
MAX_ENTRIES = 0x10000  # more stub or export entries than this means a corrupt table


def read_module_info(layout: Layout, addr: int) -> ModuleInfo:
    raw = layout.read(addr, MODULE_INFO.size, "module info")
    attributes, minor, major, name, gp, ent_top, ent_end, stub_top, stub_end = MODULE_INFO.unpack(raw)
    for low, high, what in ((ent_top, ent_end, "export"), (stub_top, stub_end, "import")):
        if high < low:
            raise LoaderError(f"module info {what} table ends (0x{high:08x}) before it starts (0x{low:08x})")
    return ModuleInfo(name_text(name.split(b"\x00", 1)[0]), attributes, (major, minor),
                      gp, ent_top, ent_end, stub_top, stub_end)


def _entries(layout: Layout, top: int, end: int, min_words: int, what: str):
    """Walk a table of variable-length entries; yields (addr, head fields)."""
    addr = top
    for _ in range(MAX_ENTRIES):
        if addr >= end:
            return
        head = ENTRY_HEAD.unpack(layout.read(addr, ENTRY_HEAD.size, f"{what} entry"))
        words = head[3]
        if words < min_words:
            raise LoaderError(f"{what} entry at 0x{addr:08x} claims {words} words, fewer than the {min_words} it needs")
        if addr + 4 * words > end:
            raise LoaderError(f"{what} entry at 0x{addr:08x} ({words} words) runs past the table end 0x{end:08x}")
        yield addr, head
        addr += 4 * words
    raise LoaderError(f"{what} table at 0x{top:08x} has more than {MAX_ENTRIES} entries")


def read_imports(layout: Layout, info: ModuleInfo) -> list[ImportLibrary]:
    libraries = []
    for addr, (name_ptr, version, attributes, words, var_count, func_count) in _entries(
            layout, info.stub_top, info.stub_end, 5, "import"):
        name = layout.cstring(name_ptr, f"import library name (entry at 0x{addr:08x})")
        nid_table = layout.u32(addr + 12, "import NID table pointer")
        stub_table = layout.u32(addr + 16, "import stub table pointer")
        nids = _words(layout, nid_table, func_count, f"{name} import NID table")
        if func_count:  # the stubs must lie inside the image: HLE patches them
            layout.read(stub_table, 8 * func_count, f"{name} import stubs")
        functions = [ImportFunction(nid, name_for_nid(name, nid), stub_table + 8 * i) for i, nid in enumerate(nids)]
        variables = []
        if var_count:
            if words < 6:
                raise LoaderError(f"{name} import entry at 0x{addr:08x} has {var_count} variables "
                                  "but no variable table")
            var_table = layout.u32(addr + 20, "import variable table pointer")
            pairs = _words(layout, var_table, 2 * var_count, f"{name} import variable table")
            variables = [ImportVariable(nid, name_for_nid(name, nid), ref) for ref, nid in zip(pairs[::2], pairs[1::2])]
        libraries.append(ImportLibrary(name, version, attributes, functions, variables))
    return libraries


def stub_owners(imports: list[ImportLibrary]) -> dict[int, tuple[ImportLibrary, ImportFunction]]:
    """Which entry each import stub ends up calling. The module loader links the entries
    in table order and each writes every stub it declares, so where an entry declares
    more functions than its own stubs and runs into the next entry's, the later entry
    decides (the firmware's order: LoadCore links stub entries one after the other)."""
    owners = {}
    for library in imports:
        for function in library.functions:
            owners.pop(function.stub_addr, None)  # the later writer's place in the order
            owners[function.stub_addr] = (library, function)
    return owners


def read_exports(layout: Layout, info: ModuleInfo) -> list[ExportLibrary]:
    libraries = []
    for addr, (name_ptr, version, attributes, words, var_count, func_count) in _entries(
            layout, info.ent_top, info.ent_end, 4, "export"):
        name = layout.cstring(name_ptr, f"export library name (entry at 0x{addr:08x})") if name_ptr else None
        if words > 4:  # newer entries carry a 16-bit variable count beside the 8-bit one
            var_count = max(var_count, struct.unpack("<H", layout.read(addr + 16, 2, "export variable count"))[0])
        table = layout.u32(addr + 12, "export table pointer")
        count = func_count + var_count
        values = _words(layout, table, 2 * count, f"{name or SYSLIB} export table")
        nids, addrs = values[:count], values[count:]
        lookup = name or SYSLIB
        entries = [ExportEntry(nid, name_for_nid(lookup, nid), a) for nid, a in zip(nids, addrs)]
        libraries.append(ExportLibrary(name, version, attributes, entries[:func_count], entries[func_count:]))
    return libraries


def _words(layout: Layout, addr: int, count: int, what: str) -> list[int]:
    if not count:
        return []
    return list(struct.unpack(f"<{count}I", layout.read(addr, 4 * count, what)))
