"""Which objects a program needs, and which functions it imports: a small archive
resolution over the SDK's objects, done here (not by the linker) so the import tables
can be generated for exactly the referenced functions, and an unknown function is
reported by name before linking."""

from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile


@dataclass
class ObjectSymbols:
    path: Path
    defined: set
    undefined: set   # strong undefined references (weak ones never pull an object)


def read_symbols(path: Path) -> ObjectSymbols:
    defined, undefined = set(), set()
    with open(path, "rb") as handle:
        symtab = ELFFile(handle).get_section_by_name(".symtab")
        for sym in symtab.iter_symbols() if symtab else ():
            bind = sym["st_info"]["bind"]
            if not sym.name or bind == "STB_LOCAL":
                continue
            if sym["st_shndx"] == "SHN_UNDEF":
                if bind == "STB_GLOBAL":
                    undefined.add(sym.name)
            else:
                defined.add(sym.name)
    return ObjectSymbols(Path(path), defined, undefined)


def resolve(program: list, library: list):
    """program: ObjectSymbols always linked; library: ObjectSymbols linked when they
    define something still undefined. Returns (library objects pulled in, in library
    order; {undefined name: referencing object name})."""
    providers = {}
    for obj in library:
        for name in obj.defined:
            providers.setdefault(name, obj)
    defined = set().union(*(o.defined for o in program)) if program else set()
    pulled, referrers = [], {}
    pending = [(name, o.path.name) for o in program for name in sorted(o.undefined)]
    while pending:
        name, referrer = pending.pop()
        if name in defined:
            continue
        obj = providers.get(name)
        if obj is None or obj in pulled:
            referrers.setdefault(name, referrer)
            continue
        pulled.append(obj)
        defined |= obj.defined
        pending += [(n, obj.path.name) for n in sorted(obj.undefined)]
    missing = {n: r for n, r in referrers.items() if n not in defined}
    order = {id(o): i for i, o in enumerate(library)}
    return sorted(pulled, key=lambda o: order[id(o)]), missing
