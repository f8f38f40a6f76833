"""EBOOT.PBP: a 40-byte header (magic "\\0PBP", version, eight section offsets) and
the eight sections in order. A section's size is the distance to the next offset."""

import struct

from loader.errors import LoaderError

MAGIC = b"\x00PBP"
VERSION = 0x00010000
SECTIONS = ("PARAM.SFO", "ICON0.PNG", "ICON1.PMF", "PIC0.PNG", "PIC1.PNG", "SND0.AT3", "DATA.PSP", "DATA.PSAR")
HEADER = struct.Struct("<4sI8I")
ENCRYPTED_MAGIC = b"~PSP"


def read_pbp(data: bytes) -> dict:
    """Split a PBP into {section name: bytes} (empty sections included as b"")."""
    if len(data) < HEADER.size:
        raise LoaderError(f"PBP is truncated: {len(data)} bytes, the header needs {HEADER.size}")
    magic, _version, *offsets = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise LoaderError(f"not a PBP: wrong magic {magic!r} (expected {MAGIC!r})")
    bounds = offsets + [len(data)]
    sections = {}
    for i, name in enumerate(SECTIONS):
        start, end = bounds[i], bounds[i + 1]
        if start < HEADER.size or start > len(data):
            raise LoaderError(f"PBP section {name} starts at offset {start}, outside the file ({len(data)} bytes)")
        if end < start:
            raise LoaderError(f"PBP section {name} has negative size (offsets {start} then {end})")
        sections[name] = data[start:end]
    return sections


def check_data_psp(data_psp: bytes) -> None:
    """Refuse what the simulator cannot run: an empty or encrypted executable."""
    if not data_psp:
        raise LoaderError("PBP has an empty DATA.PSP: there is no executable to run")
    if data_psp[:4] == ENCRYPTED_MAGIC:
        raise LoaderError("DATA.PSP is encrypted (~PSP header): only unencrypted homebrew can be run")


def write_pbp(sections: dict) -> bytes:
    """Build a PBP from {section name: bytes}; missing sections are empty."""
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        raise ValueError(f"unknown PBP sections: {', '.join(sorted(unknown))}")
    offsets, body, position = [], b"", HEADER.size
    for name in SECTIONS:
        offsets.append(position)
        chunk = sections.get(name, b"")
        body += chunk
        position += len(chunk)
    return HEADER.pack(MAGIC, VERSION, *offsets) + body
