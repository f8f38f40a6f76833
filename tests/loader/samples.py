"""Sample executables with known contents: a PRX exercising every relocation type,
module info, imports (functions and a variable), exports and symbols; the same
code relocated by the compressed 0x700000A1 stream; a static ELF; all built here."""

from __future__ import annotations

import struct

from loader.nids import nid_for_name
from tests.loader.elfbuild import (ET_EXEC, ET_PRX, PT_PSP_REL, PT_PSP_REL2, SHT_NOBITS, SHT_PSP_REL, Memory,
                                   Sec, Seg, build, rel, symtab)

R_16, R_32, R_26, R_HI16, R_LO16, R_GPREL16 = 1, 2, 4, 5, 6, 7

# Relocation targets (module-relative): T_CARRY's low half crosses 0x8000 once the
# default base 0x08804000 is added; T_NEG starts with a negative low half.
T_PLAIN, T_CARRY, T_NEG, FUNC, JUMP = 0x0234, 0x4010, 0xFFF0, 0x0100, 0x0180
T_MID = 0x7FF0
DATA_VADDR = 0x400
ENTRY = 0x40
GP = 0x8400
BSS_SIZE = 0xFE00
GPREL_WORD = 0x8F890010  # lw t1, 0x10(gp): gp-relative, must not change


def lui(rt, imm):
    return 0x3C000000 | rt << 16 | (imm & 0xFFFF)


def addiu(rt, rs, imm):
    return 0x24000000 | rs << 21 | rt << 16 | (imm & 0xFFFF)


def lw(rt, rs, imm):
    return 0x8C000000 | rs << 21 | rt << 16 | (imm & 0xFFFF)


def jal(target):
    return 0x0C000000 | (target >> 2)


def j(target):
    return 0x08000000 | (target >> 2)


def hi_lo(addr):
    """The unrelocated immediates a compiler writes: lui %hi, then a signed %lo."""
    return ((addr + 0x8000) >> 16) & 0xFFFF, addr & 0xFFFF


def code() -> tuple[Memory, list[tuple[int, int]]]:
    """Segment 0's code; returns it with its relocations (offset, type)."""
    text = Memory(0x400)
    relocs = []
    for offset, word, type_ in [
        (0x00, lui(4, hi_lo(T_PLAIN)[0]), R_HI16), (0x04, addiu(4, 4, hi_lo(T_PLAIN)[1]), R_LO16),
        (0x08, lui(5, hi_lo(T_CARRY)[0]), R_HI16), (0x0C, addiu(5, 5, hi_lo(T_CARRY)[1]), R_LO16),
        # two lui for one symbol (two paths), one lw completing both
        (0x10, lui(6, hi_lo(T_NEG)[0]), R_HI16), (0x14, lui(7, hi_lo(T_NEG)[0]), R_HI16),
        (0x18, lw(8, 6, hi_lo(T_NEG)[1]), R_LO16),
        (0x1C, jal(FUNC), R_26), (0x20, GPREL_WORD, R_GPREL16), (0x24, j(JUMP), R_26),
        (0x28, 0x34000000 | 0x0010, R_16),  # ori zero, zero, 0x10: a plain 16-bit field
    ]:
        text.u32(offset, word)
        relocs.append((offset, type_))
    text.u32(ENTRY, 0x03E00008, 0)  # jr ra; nop
    text.u32(FUNC, 0x03E00008, 0)
    return text, relocs


def sample_prx() -> bytes:
    text, code_relocs = code()
    pointers = []  # (offset in segment 0, module-relative value): relocated R_MIPS_32 words

    def ptr(offset, value):
        text.u32(offset, value)
        pointers.append(offset)

    # .lib.ent at 0x200: the module's syslib, then a named library
    text.u32(0x200, 0, 0x8000_0000, 0x0001_0104)  # name, version 0 attr 0x8000, len 4, 1 var, 1 func
    ptr(0x20C, 0x2C8)
    ptr(0x210, 0x2A0)
    text.u32(0x214, 0x0001_0011, 0x0001_0004)  # version 0x11, attr 1; len 4, 0 vars, 1 func
    ptr(0x21C, 0x2D8)
    # .lib.stub at 0x220: IoFileMgrForUser (5 words), MyVarLib (6 words, one variable)
    ptr(0x220, 0x2A8)
    text.u32(0x224, 0x4001_0011, 0x0002_0005)
    ptr(0x22C, 0x300)
    ptr(0x230, 0x340)
    ptr(0x234, 0x2BC)
    text.u32(0x238, 0x0009_0011, 0x0001_0106)
    ptr(0x240, 0x308)
    ptr(0x244, 0x350)
    ptr(0x248, 0x310)
    # module info at 0x260
    struct.pack_into("<HBB28s", text.data, 0x260, 0x0000, 2, 1, b"TestPrx")
    for i, value in enumerate((GP, 0x200, 0x220, 0x220, 0x24C)):
        ptr(0x280 + 4 * i, value)
    text.bytes_at(0x2A0, b"MyLib\x00")
    text.bytes_at(0x2A8, b"IoFileMgrForUser\x00")
    text.bytes_at(0x2BC, b"MyVarLib\x00")
    text.u32(0x2C8, nid_for_name("module_start"), nid_for_name("module_info"))
    ptr(0x2D0, ENTRY)
    ptr(0x2D4, 0x260)
    text.u32(0x2D8, nid_for_name("getModuleInfo"))
    ptr(0x2DC, FUNC)
    text.u32(0x300, nid_for_name("sceIoOpen"), nid_for_name("sceIoClose"), 0xDEADBEEF)
    ptr(0x310, 0x500)
    text.u32(0x314, 0x12345678)
    text.u32(0x340, 0x03E00008, 0, 0x03E00008, 0, 0x03E00008, 0)

    data = Memory(0x200)
    data.u32(0x0, T_PLAIN)  # R_MIPS_32 against segment 0
    data.u32(0x4, 0x10)  # R_MIPS_32 against segment 1 (itself)

    seg0 = Seg(0, bytes(text.data), flags=5, windows=[(".text", 0, 0x200), (".lib.ent", 0x200, 0x20),
                                                      (".lib.stub", 0x220, 0x2C),
                                                      (".rodata.sceModuleInfo", 0x260, 0x34),
                                                      (".rodata", 0x2A0, 0x160)])
    seg1 = Seg(DATA_VADDR, bytes(data.data), memsz=0x200 + BSS_SIZE, flags=6,
               windows=[(".data", 0, 0x200), (".bss", 0x200, BSS_SIZE, SHT_NOBITS)])
    rel_text = b"".join(rel(offset, type_) for offset, type_ in code_relocs)
    rel_tables = b"".join(rel(offset, R_32) for offset in pointers)
    rel_data = rel(0x0, R_32, offset_seg=1, addr_seg=0) + rel(0x4, R_32, offset_seg=1, addr_seg=1)
    symbols = symtab([("_start", ENTRY, 8, 0x12, 1), ("helper", FUNC, 8, 0x12, 1),
                      ("counter", DATA_VADDR + 4, 4, 0x11, 6), (".text", 0, 0, 0x03, 1),
                      ("sample.c", 0, 0, 0x04, 0xFFF1), ("undefined_fn", 0, 0, 0x12, 0),
                      ("abs_value", 0x1234, 0, 0x10, 0xFFF1)])
    sections = [Sec(".rel.text", SHT_PSP_REL, rel_text, info=".text", entsize=8),
                Sec(".rel.tables", SHT_PSP_REL, rel_tables, info=".lib.ent", entsize=8),
                Sec(".rel.data", SHT_PSP_REL, rel_data, info=".data", entsize=8), *symbols]
    return build(ET_PRX, ENTRY, [seg0, seg1], sections, module_info_at=(0, 0x260))


# The compressed stream's tables: flag index 1 sets the offset segment and base,
# 2 relocates at base += delta, 3 also reads the HI16's low half, 4 reads a new base,
# 5 reuses the previous HI16's low half (several HI16 before one LO16).
A1_FLAGS = bytes([6, 0x00, 0x01, 0x11, 0x05, 0x09])
A1_TYPES = bytes([7, 2, 3, 4, 5, 6, 7])  # index 1: 32, 2: 26, 3: HI16, 4: LO16, 5: J26, 6: JAL26
FLAG_BITS, SEG_BITS, TYPE_BITS = 3, 1, 3


def a1_set_base(seg, base):
    return struct.pack("<H", 1 | seg << FLAG_BITS | base << (FLAG_BITS + SEG_BITS))


def a1_reloc(flag, addr_seg, type_index, delta, extra=b""):
    cmd = flag | addr_seg << FLAG_BITS | type_index << (FLAG_BITS + SEG_BITS)
    cmd |= (delta & 0x1FF) << (FLAG_BITS + SEG_BITS + TYPE_BITS)
    return struct.pack("<H", cmd) + extra


def sample_prx_compressed() -> bytes:
    """The sample's code, relocated by a 0x700000A1 segment (program header 2)."""
    text, _ = code()
    text.u32(0x24, jal(JUMP))  # J26 forces a j whatever the word held
    text.u32(0x2C, j(FUNC))  # JAL26 forces a jal
    # a low half big enough that dropping it would change the HI16 result
    text.u32(0x10, lui(6, hi_lo(T_MID)[0]), lui(7, hi_lo(T_MID)[0]), lw(8, 6, hi_lo(T_MID)[1]))
    struct.pack_into("<HBB28sIIIII", text.data, 0x260, 0, 0, 1, b"Compressed", GP, 0, 0, 0, 0)
    data = Memory(0x10)
    data.u32(0x0, T_PLAIN, 0x8)
    lo = lambda t: struct.pack("<h", (t & 0xFFFF) - (0x10000 if t & 0x8000 else 0))  # noqa: E731
    stream = b"".join([
        bytes([0, 0, FLAG_BITS, TYPE_BITS]), A1_FLAGS, A1_TYPES,
        a1_set_base(0, 0),
        a1_reloc(3, 0, 3, 0, lo(T_PLAIN)), a1_reloc(2, 0, 4, 4),
        a1_reloc(3, 0, 3, 4, lo(T_CARRY)), a1_reloc(2, 0, 4, 4),
        a1_reloc(3, 0, 3, 4, lo(T_MID)), a1_reloc(5, 0, 3, 4), a1_reloc(2, 0, 4, 4),
        a1_reloc(2, 0, 2, 4), a1_reloc(2, 0, 5, 8), a1_reloc(2, 0, 6, 8),
        a1_set_base(1, 0), a1_reloc(2, 0, 1, 0), a1_reloc(4, 1, 1, 0, struct.pack("<I", 4)),
    ])
    seg0 = Seg(0, bytes(text.data), flags=5, windows=[(".text", 0, 0x260), (".rodata.sceModuleInfo", 0x260, 0x34)])
    seg1 = Seg(DATA_VADDR, bytes(data.data), memsz=0x10 + BSS_SIZE, flags=6, windows=[(".data", 0, 0x10)])
    relseg = Seg(0, stream, type=PT_PSP_REL2, flags=0, align=1)
    return build(ET_PRX, ENTRY, [seg0, seg1, relseg], module_info_at=(0, 0x260))


EXEC_BASE = 0x08900000


def sample_elf() -> bytes:
    """A static executable at 0x08900000: module info, one import library, symbols."""
    mem = Memory(0x200)
    mem.u32(0x0, 0x03E00008, 0)
    struct.pack_into("<HBB28sIIIII", mem.data, 0x40, 0x0000, 0, 1, b"StaticElf", EXEC_BASE + 0x8000,
                     EXEC_BASE + 0x80, EXEC_BASE + 0x80, EXEC_BASE + 0x80, EXEC_BASE + 0x94)
    mem.u32(0x80, EXEC_BASE + 0xA0, 0x4001_0011, 0x0001_0005, EXEC_BASE + 0xC0, EXEC_BASE + 0xC8)
    mem.bytes_at(0xA0, b"sceDisplay\x00")
    mem.u32(0xC0, nid_for_name("sceDisplayWaitVblankStart"))
    mem.u32(0xC8, 0x03E00008, 0)
    seg = Seg(EXEC_BASE, bytes(mem.data), memsz=0x1000, flags=7,
              windows=[(".text", 0, 0x40), (".rodata.sceModuleInfo", 0x40, 0x34), (".lib.stub", 0x80, 0x14)])
    syms = symtab([("_start", EXEC_BASE, 8, 0x12, 1), ("_gp", EXEC_BASE + 0x8000, 0, 0x10, 0xFFF1)])
    return build(ET_EXEC, EXEC_BASE, [seg], list(syms))


def sample_prx_segment_relocations() -> bytes:
    """The sample's code with its Elf32_Rel entries in a 0x700000A0 program header and
    no section headers at all, as stripped modules come."""
    text, relocs = code()
    struct.pack_into("<HBB28sIIIII", text.data, 0x260, 0, 0, 1, b"Stripped", GP, 0, 0, 0, 0)
    seg0 = Seg(0, bytes(text.data), flags=5)
    seg1 = Seg(DATA_VADDR, bytes(0x10), memsz=0x10 + BSS_SIZE, flags=6)
    table = b"".join(rel(offset, type_) for offset, type_ in relocs)
    elf = bytearray(build(ET_PRX, ENTRY, [seg0, seg1, Seg(0, table, type=PT_PSP_REL, flags=0, align=1)],
                          module_info_at=(0, 0x260)))
    struct.pack_into("<I", elf, 32, 0)  # e_shoff
    struct.pack_into("<HHH", elf, 46, 40, 0, 0)  # e_shentsize, e_shnum, e_shstrndx
    return bytes(elf)


OVERLAP_BASE = 0x08900000


def overlapping_imports_elf() -> bytes:
    """A static ELF whose first import entry (sceCtrl) declares three functions but owns
    one stub: its count runs on into the next entry's NIDs and stubs (sceDisplay's two),
    as some real EBOOTs' tables do. The module loader links the entries in order, so the
    stubs end up sceCtrl's sceCtrlReadBufferPositive, then sceDisplay's two functions."""
    mem = Memory(0x200)
    names = {"sceCtrl": 0x100, "sceDisplay": 0x110}
    nids = [nid_for_name("sceCtrlReadBufferPositive"), nid_for_name("sceDisplaySetMode"),
            nid_for_name("sceDisplayWaitVblankStart")]
    mem.u32(0x80, *nids)  # one NID table: sceCtrl's one NID, then sceDisplay's two
    for i in range(3):
        mem.u32(0xC0 + 8 * i, 0x03E00008, 0)  # the stubs, back to back
    # .lib.stub at 0x40: sceCtrl declares 3 functions from 0x80/0xC0; sceDisplay 2 from 0x84/0xC8
    mem.u32(0x40, OVERLAP_BASE + names["sceCtrl"], 0x40010000, 0x0003_0005, OVERLAP_BASE + 0x80, OVERLAP_BASE + 0xC0)
    mem.u32(0x54, OVERLAP_BASE + names["sceDisplay"], 0x40010000, 0x0002_0005, OVERLAP_BASE + 0x84,
            OVERLAP_BASE + 0xC8)
    for library, offset in names.items():
        mem.bytes_at(offset, library.encode() + b"\0")
    struct.pack_into("<HBB28s", mem.data, 0x140, 0, 1, 0, b"Overlap")
    mem.u32(0x160, 0, OVERLAP_BASE + 0x40, OVERLAP_BASE + 0x40, OVERLAP_BASE + 0x40, OVERLAP_BASE + 0x68)
    mem.u32(0x0, 0x03E00008, 0)  # the entry: jr ra
    seg = Seg(OVERLAP_BASE, bytes(mem.data), flags=7,
              windows=[(".text", 0, 0x40), (".lib.stub", 0x40, 0x28), (".sceStub.text", 0xC0, 0x18),
                       (".rodata.sceModuleInfo", 0x140, 0x34)])
    return build(ET_EXEC, OVERLAP_BASE, [seg])
