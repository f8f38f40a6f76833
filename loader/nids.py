"""NIDs: a PSP library function is imported by a 32-bit id, the first four bytes of
the SHA-1 of its name read as a little-endian word (sceIoOpen -> 0x109F50BC).

name_for_nid() answers from loader/nid_names.txt, a table of the function names of
the PSP libraries (facts from the public SDK's import stubs)."""

import hashlib
from functools import lru_cache
from pathlib import Path

NAMES_FILE = Path(__file__).with_name("nid_names.txt")


def nid_for_name(name: str) -> int:
    return int.from_bytes(hashlib.sha1(name.encode("ascii")).digest()[:4], "little")


def name_for_nid(library: str, nid: int) -> str | None:
    """The function name behind nid in library, or None if the table does not know it."""
    return _table().get((library, nid & 0xFFFFFFFF))


def known_library(library: str) -> bool:
    """The table names functions of this library (a PSP firmware library)."""
    return library in _libraries()


def libraries_naming(nid: int) -> dict[str, str]:
    """{library: function name} for every library whose table names this NID."""
    return _by_nid().get(nid & 0xFFFFFFFF, {})


@lru_cache(maxsize=1)
def _by_nid() -> dict:
    found = {}
    for (library, nid), name in _table().items():
        found.setdefault(nid, {})[library] = name
    return found


@lru_cache(maxsize=1)
def _libraries() -> frozenset:
    return frozenset(library for library, _ in _table())


@lru_cache(maxsize=1)
def _table() -> dict:
    """{(library, nid): name}. A line is 'Library name' or 'Library name 0xNID' where
    the NID is not the name's hash (names some firmware versions changed)."""
    table = {}
    for number, line in enumerate(NAMES_FILE.read_text().splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) == 2:
            library, name = fields
            nid = nid_for_name(name)
        elif len(fields) == 3:
            library, name, nid = fields[0], fields[1], int(fields[2], 16)
        else:
            raise ValueError(f"{NAMES_FILE.name} line {number}: expected 'Library name [0xNID]'")
        table[(library, nid)] = name
    return table
