"""The one MIPS encoder: words of the integer and FPU rows of the decode table
(allegrex.cpu.decode.TABLE), from keyword fields or from assembly operands.

    enc("addiu", rt="v0", rs="zero", imm=5)            # fields by name: a test, a microbenchmark
    assemble("lw", ["v0", "8(sp)"], pc, labels)         # operands as written: the lab's snippets

A word is the row's match bits plus its fields (allegrex.cpu.fields says where each sits);
the text form reads operands in the order of the row's format (the disassembler's
vocabulary), so what disasm prints, assemble reads back. VFPU words: vfpu.asm.
"""

import re
import struct

from allegrex.cpu import decode as D
from allegrex.cpu.state import GPR_NAMES
from allegrex.errors import AllegrexError

NOP = 0
SHIFTS = {"rs": 21, "rt": 16, "rd": 11, "sa": 6, "fs": 11, "ft": 16, "fd": 6}
FPR_FIELDS = ("fs", "ft", "fd")
_MEM_RE = re.compile(r"^(.*)\(\s*(\$?\w+)\s*\)$")


class AsmError(AllegrexError):
    """An instruction the encoder cannot build (unknown, bad operand, out of range)."""


def row(mnemonic: str) -> D.Instr:
    """The decode-table row of an integer or FPU instruction."""
    op = D.OP_INDEX.get(mnemonic)
    if op is None or D.TABLE[op].fmt == D.F_VFPU:
        raise AsmError(f"unknown instruction {mnemonic!r}")
    return D.TABLE[op]


def gpr(reg) -> int:
    """A general register by number or name ('a0', '$a0', '$4'; s8 is fp)."""
    if not isinstance(reg, str):
        return int(reg)
    t = reg.strip().lower().lstrip("$")
    if t.isdigit() and int(t) < 32:
        return int(t)
    if t == "s8":
        return 30
    if t in GPR_NAMES:
        return GPR_NAMES.index(t)
    raise AsmError(f"bad general register {reg!r}")


def fpr(reg) -> int:
    """An FPU register by number or name ('f3', '$f3')."""
    if not isinstance(reg, str):
        return int(reg)
    t = reg.strip().lower().lstrip("$")
    if t.startswith("f") and t[1:].isdigit() and int(t[1:]) < 32:
        return int(t[1:])
    raise AsmError(f"bad FPU register {reg!r} ($f0..$f31)")


def enc(mnemonic: str, imm=None, target=None, code=None, **fields) -> int:
    """Word of `mnemonic` with its fields by MIPS name: rs rt rd sa (numbers or GPR names),
    fs ft fd (FPR numbers or names), imm (its low 16 bits), target (a byte address: its word
    index in bits 0-25), code (syscall/break, bits 6-25)."""
    ins = row(mnemonic)
    word = ins.match
    for key, value in fields.items():
        if key not in SHIFTS:
            raise AsmError(f"{mnemonic}: no field {key!r} (fields: {', '.join(SHIFTS)})")
        word |= ((fpr if key in FPR_FIELDS else gpr)(value) & 31) << SHIFTS[key]
    if imm is not None:
        word |= imm & 0xFFFF
    if target is not None:
        word |= (target >> 2) & 0x03FFFFFF
    if code is not None:
        word |= (code & 0xFFFFF) << 6
    if word & ins.mask != ins.match:
        raise AsmError(f"{mnemonic}: fields overlap its opcode bits (0x{word:08x})")
    return word


def code_bytes(words) -> bytes:
    """Little-endian bytes of a list of words."""
    return struct.pack(f"<{len(words)}I", *(w & 0xFFFFFFFF for w in words))


# ---------------------------------------------------------------- operands as text

def number(text) -> int:
    try:
        return int(str(text).strip(), 0)
    except ValueError:
        raise AsmError(f"bad number {text!r}") from None


def _ranged(text, lo, hi):
    v = number(text)
    if not lo <= v <= hi:
        raise AsmError(f"{v} out of range {lo}..{hi}")
    return v


def expect_operands(ops, n, mnemonic):
    if len(ops) != n:
        raise AsmError(f"{mnemonic} takes {n} operand(s), got {len(ops)}")


def _mem(text):
    """(offset, base register) of `offset(base)`."""
    m = _MEM_RE.match(text.replace(" ", ""))
    if not m:
        raise AsmError(f"bad memory operand {text!r} (expected offset(base))")
    return _ranged(m.group(1) or "0", -0x8000, 0x7FFF), gpr(m.group(2))


def _address(text, labels):
    t = text.strip()
    return labels[t] if t in labels else number(t)


# Register operands per format, in the order they are written (field names as in enc).
_REGISTERS = {
    D.F_RD_RS_RT: ("rd", "rs", "rt"), D.F_RD_RT_RS: ("rd", "rt", "rs"), D.F_RD_RS: ("rd", "rs"),
    D.F_RD_RT: ("rd", "rt"), D.F_RS_RT: ("rs", "rt"), D.F_RD: ("rd",), D.F_RS: ("rs",), D.F_RT: ("rt",),
    D.F_FD_FS_FT: ("fd", "fs", "ft"), D.F_FD_FS: ("fd", "fs"), D.F_FS_FT: ("fs", "ft"), D.F_RT_FS: ("rt", "fs"),
}


def assemble(mnemonic: str, ops: list, pc: int = 0, labels: dict | None = None) -> int:
    """Word of `mnemonic` with operands as written (`ops`: the comma-separated texts);
    branch and jump targets are labels or absolute addresses, `pc` the instruction's own."""
    ins, labels = row(mnemonic), labels or {}
    f = ins.fmt
    if f in _REGISTERS:
        names = _REGISTERS[f]
        expect_operands(ops, len(names), mnemonic)
        return enc(mnemonic, **dict(zip(names, ops)))
    if f == D.F_NONE:
        expect_operands(ops, 0, mnemonic)
        return ins.match
    if f == D.F_RD_RT_SA:
        expect_operands(ops, 3, mnemonic)
        return enc(mnemonic, rd=ops[0], rt=ops[1], sa=_ranged(ops[2], 0, 31))
    if f == D.F_JALR:  # `jalr rs` links through ra
        if len(ops) == 1:
            return enc(mnemonic, rd="ra", rs=ops[0])
        expect_operands(ops, 2, mnemonic)
        return enc(mnemonic, rd=ops[0], rs=ops[1])
    if f in (D.F_RT_RS_IMM, D.F_RT_RS_UIMM):
        expect_operands(ops, 3, mnemonic)
        lo, hi = (-0x8000, 0x7FFF) if f == D.F_RT_RS_IMM else (0, 0xFFFF)
        return enc(mnemonic, rt=ops[0], rs=ops[1], imm=_ranged(ops[2], lo, hi))
    if f == D.F_RT_UIMM:
        expect_operands(ops, 2, mnemonic)
        return enc(mnemonic, rt=ops[0], imm=_ranged(ops[1], 0, 0xFFFF))
    if f == D.F_RS_IMM:
        expect_operands(ops, 2, mnemonic)
        return enc(mnemonic, rs=ops[0], imm=_ranged(ops[1], -0x8000, 0x7FFF))
    if f in (D.F_MEM, D.F_FMEM, D.F_CACHE):
        expect_operands(ops, 2, mnemonic)
        off, base = _mem(ops[1])
        first = fpr(ops[0]) if f == D.F_FMEM else _ranged(ops[0], 0, 31) if f == D.F_CACHE else gpr(ops[0])
        return enc(mnemonic, rt=first, rs=base, imm=off)
    if f in (D.F_BR2, D.F_BR1, D.F_BR0):
        regs = {D.F_BR2: ("rs", "rt"), D.F_BR1: ("rs",), D.F_BR0: ()}[f]
        expect_operands(ops, len(regs) + 1, mnemonic)
        delta = _address(ops[-1], labels) - (pc + 4)
        if delta & 3 or not -0x20000 <= delta < 0x20000:
            raise AsmError(f"branch target {ops[-1]} out of reach")
        return enc(mnemonic, imm=delta >> 2, **dict(zip(regs, ops)))
    if f == D.F_JUMP:
        expect_operands(ops, 1, mnemonic)
        target = _address(ops[0], labels)
        if (target ^ (pc + 4)) & 0xF0000000 or target & 3:
            raise AsmError(f"jump target {ops[0]} out of reach")
        return enc(mnemonic, target=target)
    if f == D.F_CODE:
        return enc(mnemonic, code=_ranged(ops[0], 0, 0xFFFFF) if ops else 0)
    if f in (D.F_EXT, D.F_INS):  # rd holds the field's last bit (ins) or its size - 1 (ext)
        expect_operands(ops, 4, mnemonic)
        pos, size = _ranged(ops[2], 0, 31), _ranged(ops[3], 1, 32)
        msb = pos + size - 1 if f == D.F_INS else size - 1
        if msb > 31:
            raise AsmError("bit field runs past bit 31")
        return enc(mnemonic, rt=ops[0], rs=ops[1], sa=pos, rd=msb)
    if f == D.F_RT_FCR:
        expect_operands(ops, 2, mnemonic)
        return enc(mnemonic, rt=ops[0], rd=_ranged(ops[1].strip().lstrip("$"), 0, 31))
    raise AsmError(f"{mnemonic}: operand format {f!r} has no assembler")
