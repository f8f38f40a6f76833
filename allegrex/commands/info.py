"""`allegrex info FILE`: what is inside a PSP executable (PBP, PRX or ELF)."""

from __future__ import annotations

import json
import os

import loader
from loader.image import PF_R, PF_W, PF_X, Image
from loader.module import stub_owners
from loader.nids import nid_for_name

KERNEL_MODE = 0x1000  # module attribute bit: runs in kernel mode


def add_parser(subparsers):
    parser = subparsers.add_parser("info", help="show what is inside a PSP executable (EBOOT.PBP, PRX, ELF)",
                                   description="Show the title, module, segments, imports and exports of a PSP executable.")
    parser.add_argument("file", help="an EBOOT.PBP, a .prx module or a static .elf")
    parser.add_argument("--json", action="store_true", help="print one JSON object (for scripts)")
    return parser


def run(args) -> int:
    image = loader.load(args.file)
    summary = summarize(image)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print("\n".join(render(summary)))
    return 0


def summarize(image: Image) -> dict:
    """Everything info shows, as plain data (the --json output)."""
    info = image.module_info
    return {
        "file": image.path,
        "container": image.container,
        "kind": image.kind,
        "sfo": image.sfo,
        "pbp_sections": image.pbp_sections,
        "module": None if info is None else {
            "name": info.name, "attributes": info.attributes, "version": list(info.version),
            "kernel": bool(info.attributes & KERNEL_MODE)},
        "base": image.base,
        "entry": image.entry,
        "entry_symbol": _symbol_name(image, image.entry),
        "gp": image.gp,
        "segments": [{"vaddr": s.vaddr, "file_size": len(s.data), "mem_size": s.memsz, "flags": s.flags}
                     for s in image.segments],
        "imports": _imports(image),
        "exports": [{"library": lib.name or "syslib", "version": lib.version, "attributes": lib.attributes,
                     "functions": [{"nid": e.nid, "name": _export_name(image, e), "addr": e.addr}
                                   for e in lib.functions],
                     "variables": [{"nid": e.nid, "name": _export_name(image, e), "addr": e.addr}
                                   for e in lib.variables]}
                    for lib in image.exports],
        "symbols": len(image.symbols),
    }


def _imports(image: Image) -> list[dict]:
    """Each library with the stubs it really gets: where an entry declares more functions
    than its own stubs, the later entry that also writes them wins (as the PSP's module
    loader links them); the stubs an entry declared but lost are listed as overlapped."""
    owners = stub_owners(image.imports)
    rows = []
    for lib in image.imports:
        owned = [f for f in lib.functions if owners[f.stub_addr][0] is lib]
        lost = [f for f in lib.functions if owners[f.stub_addr][0] is not lib]
        rows.append({"library": lib.name, "version": lib.version, "attributes": lib.attributes,
                     "functions": [{"nid": f.nid, "name": f.name, "stub": f.stub_addr} for f in owned],
                     "variables": [{"nid": v.nid, "name": v.name, "addr": v.addr} for v in lib.variables],
                     "overlapped": [{"nid": f.nid, "stub": f.stub_addr, "owner": owners[f.stub_addr][0].name}
                                    for f in lost]})
    return rows


def _export_name(image: Image, entry) -> str | None:
    """A module's own library functions are not in the NID list: the symbol at their
    address names them when its name hashes to the NID."""
    if entry.name:
        return entry.name
    found = image.symbol_at(entry.addr)
    if found is not None and found[1] == 0 and nid_for_name(found[0].name) == entry.nid:
        return found[0].name
    return None


def _symbol_name(image: Image, addr: int) -> str | None:
    """The symbol (or, without a symbol table, the exported function) at addr."""
    found = image.symbol_at(addr)
    if found is not None:
        symbol, offset = found
        return symbol.name if offset == 0 else f"{symbol.name}+0x{offset:x}"
    exported = [e.name for lib in image.exports for e in lib.functions if e.addr == addr and e.name]
    return exported[0] if exported else None


def render(s: dict) -> list[str]:
    kind = {"prx": "PRX module (relocatable)", "elf": "static ELF executable"}[s["kind"]]
    where = "inside an EBOOT.PBP" if s["container"] == "pbp" else "bare ELF file"
    lines = [f"{os.path.basename(s['file']) if s['file'] else '<bytes>'}: {kind}, {where}"]
    if s["sfo"] is not None:
        lines.append("PARAM.SFO")
        lines += [f"  {key:<16}{_sfo_value(value)}" for key, value in sorted(s["sfo"].items())]
    if s["pbp_sections"] is not None:
        lines.append("PBP sections")
        lines += [f"  {name:<12}{size:>10} bytes" for name, size in s["pbp_sections"].items()]
    module = s["module"]
    lines.append("module")
    if module is None:
        lines.append("  (no module info)")
    else:
        major, minor = module["version"]
        mode = "kernel" if module["kernel"] else "user"
        lines.append(f"  name        {module['name']}")
        lines.append(f"  version     {major}.{minor}")
        lines.append(f"  attributes  0x{module['attributes']:04x} ({mode} mode)")
    entry = f"0x{s['entry']:08x}" + (f"  <{s['entry_symbol']}>" if s["entry_symbol"] else "")
    lines += [f"  entry       {entry}", f"  gp          0x{s['gp']:08x}", f"  base        0x{s['base']:08x}",
              f"  symbols     {s['symbols']}"]
    lines.append("segments")
    for seg in s["segments"]:
        end = seg["vaddr"] + seg["mem_size"]
        lines.append(f"  0x{seg['vaddr']:08x}-0x{end:08x}  {_flags(seg['flags'])}  "
                     f"{seg['file_size']:>8} bytes from file, {seg['mem_size'] - seg['file_size']:>8} zero-filled")
    functions = sum(len(lib["functions"]) for lib in s["imports"])
    lines.append(f"imports: {len(s['imports'])} libraries, {functions} functions")
    for lib in s["imports"]:
        lines.append(f"  {lib['library']}  (version 0x{lib['version']:04x}, attributes 0x{lib['attributes']:04x})")
        lines += _entries(lib, "stub")
        if lib["overlapped"]:
            owners = ", ".join(sorted({o["owner"] for o in lib["overlapped"]}))
            lines.append(f"    (declares {len(lib['overlapped'])} more function(s) whose stubs belong to {owners})")
    lines.append(f"exports: {len(s['exports'])} libraries")
    for lib in s["exports"]:
        lines.append(f"  {lib['library']}  (version 0x{lib['version']:04x}, attributes 0x{lib['attributes']:04x})")
        lines += _entries(lib, "addr")
    return lines


def _entries(lib: dict, addr_key: str) -> list[str]:
    rows = []
    for kind, key in (("function", "functions"), ("variable", "variables")):
        for entry in lib[key]:
            name = entry["name"] or f"unknown NID 0x{entry['nid']:08x}"
            addr = entry.get(addr_key, entry.get("addr"))
            rows.append(f"    {name:<44}{kind:<9} 0x{addr:08x}  NID 0x{entry['nid']:08x}")
    return rows


def _flags(flags: int) -> str:
    return "".join(c if flags & bit else "-" for c, bit in (("r", PF_R), ("w", PF_W), ("x", PF_X)))


def _sfo_value(value) -> str:
    return f"{value} (0x{value:x})" if isinstance(value, int) else repr(value)
