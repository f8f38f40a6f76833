"""NIDs: a PSP library function is imported by a 32-bit id, the first four bytes of
the SHA-1 of its name read as a little-endian word (sceIoOpen -> 0x109F50BC)."""

import hashlib


def nid_for_name(name: str) -> int:
    return int.from_bytes(hashlib.sha1(name.encode("ascii")).digest()[:4], "little")
