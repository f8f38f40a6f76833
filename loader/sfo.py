"""PARAM.SFO: the key/value table inside every PBP (TITLE, DISC_ID, MEMSIZE...).

Layout: a 20-byte header (magic "\\0PSF", version, key table offset, data table
offset, entry count), 16-byte index entries (key offset, format, used length,
reserved length, data offset), then the NUL-terminated keys and the padded values.
"""

import struct

from loader.errors import LoaderError

MAGIC = b"\x00PSF"
VERSION = 0x00000101
FMT_UTF8_SPECIAL = 0x0004  # utf-8, not NUL-terminated
FMT_UTF8 = 0x0204
FMT_INT32 = 0x0404

HEADER = struct.Struct("<4sIIII")
ENTRY = struct.Struct("<HHIII")

# Reserved value lengths the official tools use for the keys homebrew sets.
_RESERVED = {"TITLE": 128, "DISC_ID": 16, "DISC_VERSION": 8, "PSP_SYSTEM_VER": 8, "CATEGORY": 4}


def read_sfo(data: bytes) -> dict:
    """Parse an SFO into {key: str | int}."""
    if len(data) < HEADER.size:
        raise LoaderError(f"PARAM.SFO is truncated: {len(data)} bytes, header needs {HEADER.size}")
    magic, _version, key_start, data_start, count = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise LoaderError(f"PARAM.SFO has wrong magic {magic!r} (expected {MAGIC!r})")
    if HEADER.size + count * ENTRY.size > len(data):
        raise LoaderError(f"PARAM.SFO claims {count} entries, more than its {len(data)} bytes hold")
    values = {}
    for i in range(count):
        key_off, fmt, used, _reserved, data_off = ENTRY.unpack_from(data, HEADER.size + i * ENTRY.size)
        key = _cstring(data, key_start + key_off, "key")
        start = data_start + data_off
        if start + used > len(data):
            raise LoaderError(f"PARAM.SFO value of {key!r} runs past the end of the file")
        raw = data[start:start + used]
        if fmt == FMT_INT32:
            if used != 4:
                raise LoaderError(f"PARAM.SFO integer {key!r} has length {used}, expected 4")
            values[key] = struct.unpack("<I", raw)[0]
        else:
            values[key] = raw.split(b"\x00", 1)[0].decode("utf-8", errors="replace")
    return values


def _cstring(data: bytes, start: int, what: str) -> str:
    end = data.find(b"\x00", start)
    if start >= len(data) or end < 0:
        raise LoaderError(f"PARAM.SFO {what} at offset {start} is outside the file or unterminated")
    return data[start:end].decode("utf-8", errors="replace")


def write_sfo(values: dict) -> bytes:
    """Build an SFO from {key: str | int}; keys are sorted as the format requires."""
    keys = sorted(values)
    key_table = b""
    key_offsets = []
    for key in keys:
        key_offsets.append(len(key_table))
        key_table += key.encode("ascii") + b"\x00"
    key_table += b"\x00" * (-len(key_table) % 4)

    entries, data_table = [], b""
    for key, key_off in zip(keys, key_offsets):
        value = values[key]
        if isinstance(value, int):
            fmt, raw, reserved = FMT_INT32, struct.pack("<I", value & 0xFFFFFFFF), 4
        else:
            raw = str(value).encode("utf-8") + b"\x00"
            fmt = FMT_UTF8
            reserved = max(_RESERVED.get(key, 0), len(raw) + (-len(raw) % 4))
        entries.append(ENTRY.pack(key_off, fmt, len(raw), reserved, len(data_table)))
        data_table += raw + b"\x00" * (reserved - len(raw))

    key_start = HEADER.size + ENTRY.size * len(keys)
    data_start = key_start + len(key_table)
    header = HEADER.pack(MAGIC, VERSION, key_start, data_start, len(keys))
    return header + b"".join(entries) + key_table + data_table


def homebrew_sfo(title: str, large_memory: bool = False) -> dict:
    """The SFO fields a homebrew EBOOT carries; MEMSIZE=1 asks for the 64 MiB layout."""
    values = {
        "BOOTABLE": 1,
        "CATEGORY": "MG",
        "DISC_ID": "UCJS10041",
        "DISC_VERSION": "1.00",
        "PARENTAL_LEVEL": 1,
        "PSP_SYSTEM_VER": "1.00",
        "REGION": 0x8000,
        "TITLE": title,
    }
    if large_memory:
        values["MEMSIZE"] = 1
    return values
