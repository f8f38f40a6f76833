"""The disassembler reads the decode table; encodings the Allegrex shares with MIPS32
are checked against capstone (an independent decoder)."""

import struct
from collections import namedtuple

import capstone
import pytest

from allegrex.cpu.asm import enc
from allegrex.cpu.decode import TABLE, decode, lookup
from allegrex.cpu.disasm import disassemble
from tests.cpu.program import BASE

ALLEGREX_ONLY = {"madd", "maddu", "msub", "msubu", "max", "min", "clz", "clo", "halt", "mfic", "mtic",
                 "bvf", "bvt", "bvfl", "bvtl", "bitrev", "wsbw"}
Symbol = namedtuple("Symbol", "name addr size")


def _sample_word(row):
    """The row's word with distinct, non-zero fields wherever the mask leaves them free
    (so capstone prints no alias such as `move` or `beqz`)."""
    f = row.fmt
    fields = 0
    if "rs" in f or "off" in f or f == "cache":
        fields |= 8 << 21
    if "rt" in f or "ft" in f or f == "cache":
        fields |= 9 << 16
    if "rd" in f or "fs" in f or "fcr" in f or "size" in f or f == "jalr":
        fields |= 10 << 11
    if "sa" in f or "fd" in f or "pos" in f:
        fields |= 3 << 6
    if "imm" in f or "off" in f or "branch" in f or f == "cache":
        fields |= 0x0010
    if f == "target":
        fields |= 0x0201004
    if f == "code":
        fields |= 0x123 << 6
    return row.match | (fields & ~row.mask & 0xFFFFFFFF)


@pytest.mark.parametrize("row", [r for r in TABLE if r.mnemonic not in ALLEGREX_ONLY and not r.sem == "vfpu"],
                         ids=lambda r: r.mnemonic)
def test_shared_encodings_agree_with_capstone(row):
    word = _sample_word(row)
    if row.mnemonic in ("ins",):  # msb field must be >= pos for a valid ins
        word = (word & ~(0x1F << 11)) | (20 << 11)
    md = capstone.Cs(capstone.CS_ARCH_MIPS, capstone.CS_MODE_MIPS32 | capstone.CS_MODE_LITTLE_ENDIAN)
    decoded = list(md.disasm(struct.pack("<I", word), BASE))
    assert decoded, f"capstone cannot decode {row.mnemonic} 0x{word:08x}"
    theirs = decoded[0].mnemonic
    aliases = {"rotr": {"rotr", "ror"}, "rotrv": {"rotrv", "rorv"}, "sync": {"sync"}}
    assert theirs in aliases.get(row.mnemonic, {row.mnemonic}), f"0x{word:08x}: {theirs} vs {row.mnemonic}"
    assert lookup(word) is row


def test_every_row_decodes_to_itself():
    for row in TABLE:
        assert TABLE[decode(_sample_word(row))] is row or row.mnemonic in ("ins",)


def test_text_uses_symbolic_registers_branch_targets_and_symbols():
    def symbol_at(addr):
        return (Symbol("memcpy", 0x08804100, 64), addr - 0x08804100) if addr >= 0x08804100 else None

    assert disassemble(enc("addiu", rt="sp", rs="sp", imm=-32)) == "addiu   sp, sp, -32"
    assert disassemble(enc("lw", rt="ra", rs="sp", imm=28)) == "lw      ra, 28(sp)"
    assert disassemble(0) == "nop"
    assert disassemble(enc("jal", target=0x08804100), BASE, symbol_at) == "jal     0x08804100 <memcpy>"
    assert disassemble(enc("bne", rs="a0", rt="zero", imm=-1), BASE + 0x108, symbol_at) == \
        "bne     a0, zero, 0x08804108 <memcpy+0x8>"
    assert disassemble(enc("syscall", code=0x2015)) == "syscall 0x2015"
    assert disassemble(enc("ext", rt="v0", rs="a0", sa=6, rd=16)) == "ext     v0, a0, 6, 17"
    assert disassemble(enc("ins", rt="v0", rs="a0", sa=4, rd=16)) == "ins     v0, a0, 4, 13"
    assert disassemble(enc("add.s", fd=0, fs=12, ft=13)) == "add.s   $f0, $f12, $f13"
    assert disassemble(enc("c.olt.s", fs=1, ft=2)) == "c.olt.s $f1, $f2"
    assert disassemble(enc("cfc1", rt="v0", rd=31)) == "cfc1    v0, $31"
    assert disassemble(0x7000003F) == ".word 0x7000003f"
    assert disassemble(0x60000000).startswith(".word 0x60000000  # VFPU") or "vadd" in disassemble(0x60000000)
