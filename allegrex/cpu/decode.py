"""The Allegrex instruction table: the one source of truth for encodings.

Each row names an instruction, the bits that identify it (word & mask == match), its
operand format (read by the disassembler), its semantic id (the interpreter's
dispatch key, see `SEMANTICS`) and its timing class (read by the timing model).

Encodings come from the MIPS32/MIPS II manuals and, for the Allegrex-only words
(madd/msub in SPECIAL, max/min, ext/ins, BSHFL, rotr/rotrv, halt/mfic/mtic, the
VFPU opcode space), from the published PPSSPP decode tables (facts only).

The interpreter never sees names: `decode_word` (numba) maps a word to a row index
("op index") through arrays built from this table, and `SEM_OF_OP[op]` gives the
semantic id the run loop dispatches on.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

# Operand formats (the disassembler's vocabulary).
F_NONE = ""
F_RD_RS_RT = "rd,rs,rt"
F_RD_RT_RS = "rd,rt,rs"  # variable shifts
F_RD_RT_SA = "rd,rt,sa"
F_RD_RS = "rd,rs"  # clz/clo
F_RD_RT = "rd,rt"  # seb/seh/wsbh/wsbw/bitrev
F_RS_RT = "rs,rt"  # mult/div/madd, traps
F_RD = "rd"
F_RS = "rs"
F_JALR = "jalr"
F_RT_RS_IMM = "rt,rs,imm"
F_RT_RS_UIMM = "rt,rs,uimm"
F_RT_UIMM = "rt,uimm"  # lui
F_RS_IMM = "rs,imm"  # trap immediates
F_MEM = "rt,off(rs)"
F_FMEM = "ft,off(rs)"
F_CACHE = "cache"
F_BR2 = "rs,rt,branch"
F_BR1 = "rs,branch"
F_BR0 = "branch"  # bc1f/bc1t
F_BRV = "cc,branch"  # bvf/bvt
F_JUMP = "target"
F_CODE = "code"  # syscall/break
F_EXT = "rt,rs,pos,size"
F_INS = "rt,rs,pos,isize"
F_RT = "rt"  # mfic/mtic
F_FD_FS_FT = "fd,fs,ft"
F_FD_FS = "fd,fs"
F_FS_FT = "fs,ft"
F_RT_FS = "rt,fs"
F_RT_FCR = "rt,fcr"
F_VFPU = "vfpu"

# Semantic ids: the interpreter's dispatch key. Order puts the hottest ops first.
SEMANTICS = (
    "invalid", "addiu", "addu", "lw", "sw", "sll", "beq", "bne", "lui", "ori", "andi",
    "and", "or", "xor", "nor", "subu", "slt", "sltu", "slti", "sltiu", "xori",
    "srl", "sra", "sllv", "srlv", "srav", "rotr", "rotrv",
    "lb", "lbu", "lh", "lhu", "sb", "sh", "lwl", "lwr", "swl", "swr", "ll", "sc",
    "add", "addi", "sub",
    "j", "jal", "jr", "jalr",
    "blez", "bgtz", "bltz", "bgez", "bltzal", "bgezal",
    "beql", "bnel", "blezl", "bgtzl", "bltzl", "bgezl", "bltzall", "bgezall",
    "mult", "multu", "div", "divu", "madd", "maddu", "msub", "msubu",
    "mfhi", "mthi", "mflo", "mtlo",
    "movz", "movn", "clz", "clo", "max", "min", "ext", "ins",
    "seb", "seh", "wsbh", "wsbw", "bitrev",
    "syscall", "break", "sync", "cache", "halt", "mfic", "mtic",
    "teq", "tne", "tge", "tgeu", "tlt", "tltu",
    "teqi", "tnei", "tgei", "tgeiu", "tlti", "tltiu",
    "lwc1", "swc1", "mfc1", "mtc1", "cfc1", "ctc1",
    "add.s", "sub.s", "mul.s", "div.s", "sqrt.s", "abs.s", "mov.s", "neg.s",
    "round.w.s", "trunc.w.s", "ceil.w.s", "floor.w.s", "cvt.s.w", "cvt.w.s", "c.cond.s",
    "bc1f", "bc1t", "bc1fl", "bc1tl",
    "bvf", "bvt", "bvfl", "bvtl",
    "vfpu",
)
SEM = {name: i for i, name in enumerate(SEMANTICS)}


@dataclass(frozen=True)
class Instr:
    mnemonic: str
    mask: int
    match: int
    fmt: str
    sem: str  # a SEMANTICS name
    timing: str  # timing class name, refined by allegrex.timing


def _r(name, funct, fmt, timing="alu", sem=None, zero_mask=0):
    """SPECIAL (opcode 0) register-form instruction selected by funct."""
    return Instr(name, 0xFC00003F | zero_mask, funct, fmt, sem or name, timing)


def _i(name, opcode, fmt, timing="alu", sem=None):
    """An instruction selected by its primary opcode alone."""
    return Instr(name, 0xFC000000, opcode << 26, fmt, sem or name, timing)


def _regimm(name, rt, fmt, timing="branch"):
    return Instr(name, 0xFC1F0000, (1 << 26) | (rt << 16), fmt, name, timing)


def _fpu_s(name, funct, fmt, timing, sem=None):
    """COP1 fmt=S (rs=16) arithmetic."""
    return Instr(name, 0xFFE0003F, (0x11 << 26) | (16 << 21) | funct, fmt, sem or name, timing)


def _bshfl(name, sa):
    """SPECIAL3 BSHFL (funct 0x20), selected by the sa field."""
    return Instr(name, 0xFFE007FF, (0x1F << 26) | (sa << 6) | 0x20, F_RD_RT, name, "alu")


_FPU_CONDS = ("f", "un", "eq", "ueq", "olt", "ult", "ole", "ule",
              "sf", "ngle", "seq", "ngl", "lt", "nge", "le", "ngt")

TABLE = [
    # --- SPECIAL (opcode 0) ---
    _r("sll", 0x00, F_RD_RT_SA, "alu", zero_mask=0x03E00000),
    _r("srl", 0x02, F_RD_RT_SA, "alu", zero_mask=0x03E00000),
    Instr("rotr", 0xFFE0003F, 0x00200002, F_RD_RT_SA, "rotr", "alu"),  # srl with bit 21
    _r("sra", 0x03, F_RD_RT_SA, "alu", zero_mask=0x03E00000),
    _r("sllv", 0x04, F_RD_RT_RS, "alu", zero_mask=0x7C0),
    _r("srlv", 0x06, F_RD_RT_RS, "alu", zero_mask=0x7C0),
    Instr("rotrv", 0xFC0007FF, 0x00000046, F_RD_RT_RS, "rotrv", "alu"),  # srlv with bit 6
    _r("srav", 0x07, F_RD_RT_RS, "alu", zero_mask=0x7C0),
    _r("jr", 0x08, F_RS, "jump"),
    _r("jalr", 0x09, F_JALR, "jump"),
    _r("movz", 0x0A, F_RD_RS_RT, "alu"),
    _r("movn", 0x0B, F_RD_RS_RT, "alu"),
    _r("syscall", 0x0C, F_CODE, "system"),
    _r("break", 0x0D, F_CODE, "system"),
    _r("sync", 0x0F, F_NONE, "system"),
    _r("mfhi", 0x10, F_RD, "hilo"),
    _r("mthi", 0x11, F_RS, "hilo"),
    _r("mflo", 0x12, F_RD, "hilo"),
    _r("mtlo", 0x13, F_RS, "hilo"),
    _r("clz", 0x16, F_RD_RS, "alu"),
    _r("clo", 0x17, F_RD_RS, "alu"),
    _r("mult", 0x18, F_RS_RT, "mul"),
    _r("multu", 0x19, F_RS_RT, "mul"),
    _r("div", 0x1A, F_RS_RT, "div"),
    _r("divu", 0x1B, F_RS_RT, "div"),
    _r("madd", 0x1C, F_RS_RT, "madd"),
    _r("maddu", 0x1D, F_RS_RT, "madd"),
    _r("add", 0x20, F_RD_RS_RT, "alu"),
    _r("addu", 0x21, F_RD_RS_RT, "alu"),
    _r("sub", 0x22, F_RD_RS_RT, "alu"),
    _r("subu", 0x23, F_RD_RS_RT, "alu"),
    _r("and", 0x24, F_RD_RS_RT, "alu"),
    _r("or", 0x25, F_RD_RS_RT, "alu"),
    _r("xor", 0x26, F_RD_RS_RT, "alu"),
    _r("nor", 0x27, F_RD_RS_RT, "alu"),
    _r("slt", 0x2A, F_RD_RS_RT, "alu"),
    _r("sltu", 0x2B, F_RD_RS_RT, "alu"),
    _r("max", 0x2C, F_RD_RS_RT, "alu"),
    _r("min", 0x2D, F_RD_RS_RT, "alu"),
    _r("msub", 0x2E, F_RS_RT, "madd"),
    _r("msubu", 0x2F, F_RS_RT, "madd"),
    _r("tge", 0x30, F_RS_RT, "system"),
    _r("tgeu", 0x31, F_RS_RT, "system"),
    _r("tlt", 0x32, F_RS_RT, "system"),
    _r("tltu", 0x33, F_RS_RT, "system"),
    _r("teq", 0x34, F_RS_RT, "system"),
    _r("tne", 0x36, F_RS_RT, "system"),
    # --- REGIMM (opcode 1) ---
    _regimm("bltz", 0x00, F_BR1),
    _regimm("bgez", 0x01, F_BR1),
    _regimm("bltzl", 0x02, F_BR1),
    _regimm("bgezl", 0x03, F_BR1),
    _regimm("tgei", 0x08, F_RS_IMM, "system"),
    _regimm("tgeiu", 0x09, F_RS_IMM, "system"),
    _regimm("tlti", 0x0A, F_RS_IMM, "system"),
    _regimm("tltiu", 0x0B, F_RS_IMM, "system"),
    _regimm("teqi", 0x0C, F_RS_IMM, "system"),
    _regimm("tnei", 0x0E, F_RS_IMM, "system"),
    _regimm("bltzal", 0x10, F_BR1),
    _regimm("bgezal", 0x11, F_BR1),
    _regimm("bltzall", 0x12, F_BR1),
    _regimm("bgezall", 0x13, F_BR1),
    # --- primary opcodes ---
    _i("j", 0x02, F_JUMP, "jump"),
    _i("jal", 0x03, F_JUMP, "jump"),
    _i("beq", 0x04, F_BR2, "branch"),
    _i("bne", 0x05, F_BR2, "branch"),
    Instr("blez", 0xFC1F0000, 0x06 << 26, F_BR1, "blez", "branch"),
    Instr("bgtz", 0xFC1F0000, 0x07 << 26, F_BR1, "bgtz", "branch"),
    _i("addi", 0x08, F_RT_RS_IMM),
    _i("addiu", 0x09, F_RT_RS_IMM),
    _i("slti", 0x0A, F_RT_RS_IMM),
    _i("sltiu", 0x0B, F_RT_RS_IMM),
    _i("andi", 0x0C, F_RT_RS_UIMM),
    _i("ori", 0x0D, F_RT_RS_UIMM),
    _i("xori", 0x0E, F_RT_RS_UIMM),
    Instr("lui", 0xFFE00000, 0x0F << 26, F_RT_UIMM, "lui", "alu"),
    _i("beql", 0x14, F_BR2, "branch"),
    _i("bnel", 0x15, F_BR2, "branch"),
    Instr("blezl", 0xFC1F0000, 0x16 << 26, F_BR1, "blezl", "branch"),
    Instr("bgtzl", 0xFC1F0000, 0x17 << 26, F_BR1, "bgtzl", "branch"),
    _i("lb", 0x20, F_MEM, "load"),
    _i("lh", 0x21, F_MEM, "load"),
    _i("lwl", 0x22, F_MEM, "load"),
    _i("lw", 0x23, F_MEM, "load"),
    _i("lbu", 0x24, F_MEM, "load"),
    _i("lhu", 0x25, F_MEM, "load"),
    _i("lwr", 0x26, F_MEM, "load"),
    _i("sb", 0x28, F_MEM, "store"),
    _i("sh", 0x29, F_MEM, "store"),
    _i("swl", 0x2A, F_MEM, "store"),
    _i("sw", 0x2B, F_MEM, "store"),
    _i("swr", 0x2E, F_MEM, "store"),
    _i("cache", 0x2F, F_CACHE, "cache"),
    _i("ll", 0x30, F_MEM, "load"),
    _i("lwc1", 0x31, F_FMEM, "fpu_load"),
    _i("sc", 0x38, F_MEM, "store"),
    _i("swc1", 0x39, F_FMEM, "fpu_store"),
    # --- SPECIAL2 (opcode 0x1C): the Allegrex's privileged extras ---
    Instr("halt", 0xFFFFFFFF, 0x70000000, F_NONE, "halt", "system"),
    Instr("mfic", 0xFFE0FFFF, 0x70000024, F_RT, "mfic", "system"),
    Instr("mtic", 0xFFE0FFFF, 0x70000026, F_RT, "mtic", "system"),
    # --- SPECIAL3 (opcode 0x1F) ---
    Instr("ext", 0xFC00003F, 0x7C000000, F_EXT, "ext", "alu"),
    Instr("ins", 0xFC00003F, 0x7C000004, F_INS, "ins", "alu"),
    _bshfl("wsbh", 0x02),
    _bshfl("wsbw", 0x03),
    _bshfl("seb", 0x10),
    _bshfl("bitrev", 0x14),
    _bshfl("seh", 0x18),
    # --- COP1 (opcode 0x11): single-precision FPU ---
    Instr("mfc1", 0xFFE007FF, 0x44000000, F_RT_FS, "mfc1", "fpu_move"),
    Instr("cfc1", 0xFFE007FF, 0x44400000, F_RT_FCR, "cfc1", "fpu_move"),
    Instr("mtc1", 0xFFE007FF, 0x44800000, F_RT_FS, "mtc1", "fpu_move"),
    Instr("ctc1", 0xFFE007FF, 0x44C00000, F_RT_FCR, "ctc1", "fpu_move"),
    Instr("bc1f", 0xFFFF0000, 0x45000000, F_BR0, "bc1f", "branch"),
    Instr("bc1t", 0xFFFF0000, 0x45010000, F_BR0, "bc1t", "branch"),
    Instr("bc1fl", 0xFFFF0000, 0x45020000, F_BR0, "bc1fl", "branch"),
    Instr("bc1tl", 0xFFFF0000, 0x45030000, F_BR0, "bc1tl", "branch"),
    _fpu_s("add.s", 0x00, F_FD_FS_FT, "fpu_add"),
    _fpu_s("sub.s", 0x01, F_FD_FS_FT, "fpu_add"),
    _fpu_s("mul.s", 0x02, F_FD_FS_FT, "fpu_mul"),
    _fpu_s("div.s", 0x03, F_FD_FS_FT, "fpu_div"),
    Instr("sqrt.s", 0xFFFF003F, 0x46000004, F_FD_FS, "sqrt.s", "fpu_sqrt"),
    Instr("abs.s", 0xFFFF003F, 0x46000005, F_FD_FS, "abs.s", "fpu_move"),
    Instr("mov.s", 0xFFFF003F, 0x46000006, F_FD_FS, "mov.s", "fpu_move"),
    Instr("neg.s", 0xFFFF003F, 0x46000007, F_FD_FS, "neg.s", "fpu_move"),
    Instr("round.w.s", 0xFFFF003F, 0x4600000C, F_FD_FS, "round.w.s", "fpu_cvt"),
    Instr("trunc.w.s", 0xFFFF003F, 0x4600000D, F_FD_FS, "trunc.w.s", "fpu_cvt"),
    Instr("ceil.w.s", 0xFFFF003F, 0x4600000E, F_FD_FS, "ceil.w.s", "fpu_cvt"),
    Instr("floor.w.s", 0xFFFF003F, 0x4600000F, F_FD_FS, "floor.w.s", "fpu_cvt"),
    Instr("cvt.w.s", 0xFFFF003F, 0x46000024, F_FD_FS, "cvt.w.s", "fpu_cvt"),
    Instr("cvt.s.w", 0xFFFF003F, 0x46800020, F_FD_FS, "cvt.s.w", "fpu_cvt"),
] + [
    Instr(f"c.{cond}.s", 0xFFE007FF, 0x46000030 | i, F_FS_FT, "c.cond.s", "fpu_cmp")
    for i, cond in enumerate(_FPU_CONDS)
] + [
    # --- COP2 branches on the VFPU condition bits (rs=8, bits 16-17 select) ---
    Instr("bvf", 0xFFE30000, 0x49000000, F_BRV, "bvf", "branch"),
    Instr("bvt", 0xFFE30000, 0x49010000, F_BRV, "bvt", "branch"),
    Instr("bvfl", 0xFFE30000, 0x49020000, F_BRV, "bvfl", "branch"),
    Instr("bvtl", 0xFFE30000, 0x49030000, F_BRV, "bvtl", "branch"),
] + [
    # --- the VFPU space: every other word of these opcodes goes to cpu/cop2.py ---
    Instr(f"vfpu.{op:02x}", 0xFC000000, op << 26, F_VFPU, "vfpu", "vfpu")
    for op in (0x12, 0x18, 0x19, 0x1B, 0x32, 0x34, 0x35, 0x36, 0x37, 0x3A, 0x3C, 0x3D, 0x3E, 0x3F)
]

OP_INVALID = len(TABLE)  # op index of a word no row matches
NOPS = len(TABLE) + 1
OP_INDEX = {ins.mnemonic: i for i, ins in enumerate(TABLE)}


def _build_lookup():
    """Per primary opcode, the candidate rows, most specific mask first, as flat
    arrays numba can scan: (start, count) per opcode into (mask, match, op)."""
    buckets = [[] for _ in range(64)]
    for op, ins in enumerate(TABLE):
        buckets[ins.match >> 26].append(op)
    starts = np.zeros(64, dtype=np.int32)
    counts = np.zeros(64, dtype=np.int32)
    masks, matches, ops = [], [], []
    for primary, rows in enumerate(buckets):
        rows.sort(key=lambda op: -bin(TABLE[op].mask).count("1"))
        starts[primary] = len(ops)
        counts[primary] = len(rows)
        for op in rows:
            masks.append(TABLE[op].mask)
            matches.append(TABLE[op].match)
            ops.append(op)
    return (starts, counts, np.array(masks, dtype=np.uint32), np.array(matches, dtype=np.uint32),
            np.array(ops, dtype=np.int32))


LOOKUP_START, LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP = _build_lookup()
SEM_OF_OP = np.array([SEM[ins.sem] for ins in TABLE] + [SEM["invalid"]], dtype=np.int32)


def _check_table():
    for ins in TABLE:
        assert ins.sem in SEM, f"{ins.mnemonic}: unknown semantic {ins.sem}"
        assert ins.match & ~ins.mask == 0, f"{ins.mnemonic}: match has bits outside mask"
    assert len(OP_INDEX) == len(TABLE), "duplicate mnemonic in TABLE"


_check_table()


@njit(cache=True)
def decode_word(word, lk_start, lk_count, lk_mask, lk_match, lk_op):
    """Op index (row of TABLE) of `word`, or OP_INVALID (== len(TABLE))."""
    primary = (word >> 26) & 0x3F
    start = lk_start[primary]
    for k in range(start, start + lk_count[primary]):
        if word & lk_mask[k] == lk_match[k]:
            return lk_op[k]
    return len(lk_op)


def decode(word: int) -> int:
    """Op index of `word` (Python convenience; OP_INVALID when no row matches)."""
    return int(decode_word(word & 0xFFFFFFFF, LOOKUP_START, LOOKUP_COUNT, LOOKUP_MASK,
                           LOOKUP_MATCH, LOOKUP_OP))


def lookup(word: int):
    """The Instr row decoding `word`, or None."""
    op = decode(word)
    return TABLE[op] if op < len(TABLE) else None


def fingerprint() -> str:
    """A digest of the table: changes whenever an encoding or semantic changes."""
    import hashlib
    text = repr([(i.mnemonic, i.mask, i.match, i.sem) for i in TABLE]) + repr(SEMANTICS)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
