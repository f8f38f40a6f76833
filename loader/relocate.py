"""PRX relocation: patch the loaded segments for the chosen base address.

Two encodings exist. Type 0x700000A0 (section or segment) holds Elf32_Rel entries
whose r_info packs the relocation type (bits 0-7), the segment the offset is
relative to (bits 8-15) and the segment whose load address is added (bits 16-23).
Type 0x700000A1 (segment only, newer official toolchains) is a bit-packed stream of
16-bit commands with flag and type lookup tables; decode_compressed() documents it.
"""

from __future__ import annotations

import struct

from loader.errors import LoaderError
from loader.layout import Layout

R_MIPS_NONE = 0
R_MIPS_16 = 1
R_MIPS_32 = 2
R_MIPS_REL32 = 3
R_MIPS_26 = 4
R_MIPS_HI16 = 5
R_MIPS_LO16 = 6
R_MIPS_GPREL16 = 7

TYPE_NAMES = {R_MIPS_NONE: "R_MIPS_NONE", R_MIPS_16: "R_MIPS_16", R_MIPS_32: "R_MIPS_32",
              R_MIPS_REL32: "R_MIPS_REL32", R_MIPS_26: "R_MIPS_26", R_MIPS_HI16: "R_MIPS_HI16",
              R_MIPS_LO16: "R_MIPS_LO16", R_MIPS_GPREL16: "R_MIPS_GPREL16"}
REL = struct.Struct("<II")


def _s16(value: int) -> int:
    value &= 0xFFFF
    return value - 0x10000 if value & 0x8000 else value


def hi16_for(addr: int) -> int:
    """The lui immediate that, with a sign-extended lo16 added, gives addr (the carry)."""
    return ((addr + 0x8000) >> 16) & 0xFFFF


def relocate_jump(op: int, relocate_to: int) -> int:
    return (op & 0xFC000000) | (((op & 0x03FFFFFF) + (relocate_to >> 2)) & 0x03FFFFFF)


def relocate_lo16(op: int, relocate_to: int) -> int:
    return (op & 0xFFFF0000) | ((op + relocate_to) & 0xFFFF)


def parse_rel_entries(data: bytes, where: str) -> list[tuple[int, int]]:
    if len(data) % REL.size:
        raise LoaderError(f"{where} is {len(data)} bytes, not a whole number of 8-byte relocation entries")
    return [REL.unpack_from(data, i) for i in range(0, len(data), REL.size)]


def apply_rel(layout: Layout, entries: list[tuple[int, int]], where: str) -> int:
    """Apply Elf32_Rel entries (r_offset, r_info). Every word is read before any is
    written, so a HI16 pairs with its LO16's original immediate. Returns the count."""
    resolved = [_resolve(layout, offset, info, f"{where} entry {i}") for i, (offset, info) in enumerate(entries)]
    originals = [None if r is None else _read_target(layout, r) for r in resolved]
    next_lo = _next_lo16(resolved)
    patched = []
    for i, r in enumerate(resolved):
        if r is None:
            continue
        addr, type_, relocate_to, what = r
        op = originals[i]
        if type_ == R_MIPS_32:
            op = op + relocate_to
        elif type_ == R_MIPS_26:
            op = relocate_jump(op, relocate_to)
        elif type_ in (R_MIPS_LO16, R_MIPS_16):
            op = relocate_lo16(op, relocate_to)
        elif type_ == R_MIPS_HI16:
            if next_lo[i] is None:
                raise LoaderError(f"{what} has no R_MIPS_LO16 after it to complete the address")
            lo = _s16(originals[next_lo[i]])
            target = ((op & 0xFFFF) << 16) + lo + relocate_to
            op = (op & 0xFFFF0000) | hi16_for(target)
        else:  # R_MIPS_GPREL16: gp moves with the module, so the offset stays right
            continue
        patched.append((addr, op, what))
    for addr, op, what in patched:
        layout.write_u32(addr, op, what)
    return len(patched)


def _resolve(layout: Layout, offset: int, info: int, what: str):
    type_ = info & 0xFF
    if type_ == R_MIPS_NONE:
        return None
    name = TYPE_NAMES.get(type_, f"type {type_}")
    what = f"{what} ({name})"
    if type_ not in (R_MIPS_16, R_MIPS_32, R_MIPS_26, R_MIPS_HI16, R_MIPS_LO16, R_MIPS_GPREL16):
        raise LoaderError(f"{what}: unsupported relocation type {type_}")
    offset_seg, addr_seg = (info >> 8) & 0xFF, (info >> 16) & 0xFF
    for seg in (offset_seg, addr_seg):
        if seg not in layout.by_index:
            raise LoaderError(f"{what} names segment {seg}, which is not a loaded segment")
    addr = layout.by_index[offset_seg].vaddr + offset
    if type_ != R_MIPS_32 and addr & 3:
        raise LoaderError(f"{what} at 0x{addr & 0xFFFFFFFF:08x} is not word-aligned")
    return addr, type_, layout.by_index[addr_seg].vaddr, what


def _read_target(layout: Layout, resolved) -> int:
    addr, _type, _relocate_to, what = resolved
    segment, offset = layout.locate(addr, 4, what)
    if offset + 4 > segment.filesz:
        raise LoaderError(f"{what} at 0x{addr:08x} points into the zero-filled (bss) part of segment {segment.index}")
    return struct.unpack_from("<I", segment.memory, offset)[0]


def _next_lo16(resolved) -> list[int | None]:
    """For each entry, the index of the first later LO16 (or R_MIPS_16): several HI16
    may precede one LO16, and it completes them all."""
    following, upcoming = [None] * len(resolved), None
    for i in range(len(resolved) - 1, -1, -1):
        following[i] = upcoming
        if resolved[i] is not None and resolved[i][1] in (R_MIPS_LO16, R_MIPS_16):
            upcoming = i
    return following


# Types of the compressed form: its own numbering, mapped by the stream's type table.
A1_NONE, A1_LO16, A1_32, A1_26, A1_HI16, A1_LO16B, A1_J26, A1_JAL26 = range(8)


def apply_compressed(layout: Layout, data: bytes, rel_index: int, where: str) -> int:
    """Apply a 0x700000A1 stream found in program header rel_index. Returns the count.

    Layout: 2 unused bytes, flag_bits (u8), type_bits (u8); a flag table and a type
    table, each a byte array whose first byte is its own length; then u16 commands.
    A command's low flag_bits index the flag table, the next seg_bits (enough bits to
    number the program headers before this one, at least 1) give a segment, the next
    type_bits index the type table, and the rest is a signed offset delta.
    Flag bit 0 clear: set the offset segment and base (rest of the command, or a u32
    after it when flag&6 == 4). Flag bit 0 set: relocate one word against the named
    segment; flag&6 says how the offset advances (0: by the delta, 2: by delta<<16|u16,
    4: set to a u32) and flag&0x38 where a HI16's low half comes from (0: zero,
    0x08: the previous HI16's, 0x10: an s16 that follows)."""
    stream = _Stream(data, where)
    stream.take(2)
    flag_bits, type_bits = stream.take(1)[0], stream.take(1)[0]
    seg_bits = 1
    while (1 << seg_bits) < rel_index:
        seg_bits += 1
    flag_table = stream.table("flag table")
    type_table = stream.table("type table")
    shift = flag_bits + seg_bits + type_bits
    if shift > 16:
        raise LoaderError(f"{where}: command fields ({flag_bits}+{seg_bits}+{type_bits} bits) exceed 16 bits")
    off_seg, base, lo16, last_type, count = None, 0, 0, -1, 0
    while not stream.done():
        cmd = stream.u16()
        flag = _lookup(flag_table, cmd & ((1 << flag_bits) - 1), "flag", where)
        seg = (cmd >> flag_bits) & ((1 << seg_bits) - 1)
        type_ = _lookup(type_table, (cmd >> (flag_bits + seg_bits)) & ((1 << type_bits) - 1), "type", where)
        if not flag & 1:
            off_seg = _segment(layout, seg, where)
            base = _new_base(stream, flag, cmd >> (flag_bits + seg_bits), where)
            continue
        relocate_to = _segment(layout, seg, where).vaddr
        delta = _s16(cmd) >> shift
        size_mode = flag & 0x06
        if size_mode == 0:
            base += delta
        elif size_mode == 2:
            base += (delta << 16) | stream.u16()
        elif size_mode == 4:
            base = stream.u32()
        else:
            raise LoaderError(f"{where}: invalid offset mode in flag 0x{flag:02x}")
        lo_mode = flag & 0x38
        if lo_mode == 0x00 or (lo_mode == 0x08 and last_type != A1_HI16):
            lo16 = 0
        elif lo_mode == 0x10:
            lo16 = _s16(stream.u16())
        elif lo_mode != 0x08:
            raise LoaderError(f"{where}: invalid low-half mode in flag 0x{flag:02x}")
        if off_seg is None:
            raise LoaderError(f"{where}: a relocation comes before any offset segment is set")
        addr = off_seg.vaddr + base
        what = f"{where} relocation {count} (compressed type {type_})"
        count += _apply_one(layout, addr, type_, relocate_to, lo16, what)
        last_type = type_
    return count


def _apply_one(layout: Layout, addr: int, type_: int, relocate_to: int, lo16: int, what: str) -> int:
    if type_ == A1_NONE:
        return 0
    if type_ > A1_JAL26:
        raise LoaderError(f"{what}: unsupported relocation type")
    if addr & 3:
        raise LoaderError(f"{what} at 0x{addr & 0xFFFFFFFF:08x} is not word-aligned")
    op = _read_target(layout, (addr, type_, relocate_to, what))
    if type_ == A1_32:
        op += relocate_to
    elif type_ in (A1_26, A1_J26, A1_JAL26):
        op = relocate_jump(op, relocate_to)
        if type_ == A1_J26:
            op = (op & 0x03FFFFFF) | 0x08000000
        elif type_ == A1_JAL26:
            op = (op & 0x03FFFFFF) | 0x0C000000
    elif type_ == A1_HI16:
        op = (op & 0xFFFF0000) | hi16_for((op << 16) + lo16 + relocate_to)
    else:
        op = relocate_lo16(op, relocate_to)
    layout.write_u32(addr, op, what)
    return 1


def _new_base(stream, flag: int, rest: int, where: str) -> int:
    if flag & 0x06 == 0:
        return rest
    if flag & 0x06 == 4:
        return stream.u32()
    raise LoaderError(f"{where}: invalid base mode in flag 0x{flag:02x}")


def _lookup(table: bytes, index: int, what: str, where: str) -> int:
    if index >= len(table):
        raise LoaderError(f"{where}: {what} index {index} is outside its {len(table)}-entry table")
    return table[index]


def _segment(layout: Layout, seg: int, where: str):
    if seg not in layout.by_index:
        raise LoaderError(f"{where}: relocation names segment {seg}, which is not a loaded segment")
    return layout.by_index[seg]


class _Stream:
    def __init__(self, data: bytes, where: str):
        self.data, self.pos, self.where = data, 0, where

    def done(self) -> bool:
        return self.pos >= len(self.data)

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise LoaderError(f"{self.where} is truncated at byte {self.pos} of {len(self.data)}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u16(self) -> int:
        return int.from_bytes(self.take(2), "little")

    def u32(self) -> int:
        return int.from_bytes(self.take(4), "little")

    def table(self, what: str) -> bytes:
        if self.done():
            raise LoaderError(f"{self.where} is truncated before its {what}")
        size = self.data[self.pos]
        if size == 0:
            raise LoaderError(f"{self.where} has an empty {what}")
        return self.take(size)
