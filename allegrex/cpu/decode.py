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


# Control-flow and memory-access flags of a row (PPSSPP's tables carry the same facts).
BRANCH = 1  # conditional, PC-relative (taken: the target after the delay slot)
LIKELY = 2  # a branch whose delay slot is annulled when it is not taken
LINK = 4  # writes the return address (pc + 8) to ra, or to rd for jalr
JUMP = 8  # unconditional: j/jal to a 26-bit target, jr/jalr to a register's
REGISTER_TARGET = 16  # a jump whose target is a register's value (jr, jalr)
LOAD = 32  # reads `width` bytes of memory at rs + offset
STORE = 64  # writes `width` bytes of memory at rs + offset
CACHE_OP = 128  # the `cache` instruction: acts on a cache line at rs + offset
EVENT = 256  # the run loop hands it to Python: syscall, break, halt
VFPU_OP = 512  # executed by the VFPU (cpu/cop2.py); its roles come from vfpu/table.py
DELAY_SLOT = BRANCH | JUMP  # every branch and jump executes the next word before going

# Operand roles: what an instruction reads and writes, by field or fixed register.
# rs rt rd: GPR fields; fs ft fd: FPR fields; hi lo; ra: GPR 31 (links);
# fcc: the FPU condition bit (FCR31 bit 23, and FCR31 itself for cfc1/ctc1);
# vcc: the VFPU condition bits as bvf/bvt see them.
ROLES = ("rs", "rt", "rd", "fs", "ft", "fd", "hi", "lo", "ra", "fcc", "vcc")

# What a format's operands usually mean: (reads, writes). Rows say where theirs differ.
FORMAT_ROLES = {
    F_NONE: ("", ""), F_RD_RS_RT: ("rs rt", "rd"), F_RD_RT_RS: ("rs rt", "rd"), F_RD_RT_SA: ("rt", "rd"),
    F_RD_RS: ("rs", "rd"), F_RD_RT: ("rt", "rd"), F_RS_RT: ("rs rt", ""), F_RD: ("", "rd"), F_RS: ("rs", ""),
    F_JALR: ("rs", "rd"), F_RT_RS_IMM: ("rs", "rt"), F_RT_RS_UIMM: ("rs", "rt"), F_RT_UIMM: ("", "rt"),
    F_RS_IMM: ("rs", ""), F_MEM: ("rs", "rt"), F_FMEM: ("rs", "ft"), F_CACHE: ("rs", ""), F_BR2: ("rs rt", ""),
    F_BR1: ("rs", ""), F_BR0: ("fcc", ""), F_BRV: ("vcc", ""), F_JUMP: ("", ""), F_CODE: ("", ""),
    F_EXT: ("rs", "rt"), F_INS: ("rs rt", "rt"), F_RT: ("", "rt"), F_FD_FS_FT: ("fs ft", "fd"),
    F_FD_FS: ("fs", "fd"), F_FS_FT: ("fs ft", "fcc"), F_RT_FS: ("fs", "rt"), F_RT_FCR: ("fcc", "rt"),
    F_VFPU: ("", ""),
}


@dataclass(frozen=True)
class Instr:
    mnemonic: str
    mask: int
    match: int
    fmt: str
    sem: str  # a SEMANTICS name
    timing: str  # timing class name, refined by allegrex.timing
    reads: tuple = ()  # ROLES the instruction reads, in operand order
    writes: tuple = ()  # ROLES it writes
    flags: int = 0  # BRANCH, LIKELY, LINK, JUMP... (above)
    width: int = 0  # bytes a LOAD or STORE moves

    @property
    def delay_slot(self) -> bool:
        return bool(self.flags & DELAY_SLOT)


def _row(name, mask, match, fmt, timing, sem=None, reads=None, writes=None, flags=0, width=0):
    """A row; reads/writes (space-separated ROLES) default to what its format means."""
    default_reads, default_writes = FORMAT_ROLES[fmt]
    return Instr(name, mask, match, fmt, sem or name, timing,
                 tuple((default_reads if reads is None else reads).split()),
                 tuple((default_writes if writes is None else writes).split()), flags, width)


def _r(name, funct, fmt, timing="alu", zero_mask=0, **kw):
    """SPECIAL (opcode 0) register-form instruction selected by funct."""
    return _row(name, 0xFC00003F | zero_mask, funct, fmt, timing, **kw)


def _i(name, opcode, fmt, timing="alu", **kw):
    """An instruction selected by its primary opcode alone."""
    return _row(name, 0xFC000000, opcode << 26, fmt, timing, **kw)


def _regimm(name, rt, fmt, timing="branch", **kw):
    return _row(name, 0xFC1F0000, (1 << 26) | (rt << 16), fmt, timing, **kw)


def _fpu_s(name, funct, fmt, timing):
    """COP1 fmt=S (rs=16) arithmetic."""
    return _row(name, 0xFFE0003F, (0x11 << 26) | (16 << 21) | funct, fmt, timing)


def _bshfl(name, sa):
    """SPECIAL3 BSHFL (funct 0x20), selected by the sa field."""
    return _row(name, 0xFFE007FF, (0x1F << 26) | (sa << 6) | 0x20, F_RD_RT, "alu")


def _load(name, opcode, width, fmt=F_MEM, timing="load", **kw):
    return _i(name, opcode, fmt, timing, flags=LOAD, width=width, **kw)


def _store(name, opcode, width, fmt=F_MEM, timing="store", writes=""):
    """A store reads its base and the register it stores."""
    value = "ft" if fmt == F_FMEM else "rt"
    return _i(name, opcode, fmt, timing, flags=STORE, width=width, reads="rs " + value, writes=writes)


_FPU_CONDS = ("f", "un", "eq", "ueq", "olt", "ult", "ole", "ule",
              "sf", "ngle", "seq", "ngl", "lt", "nge", "le", "ngt")
B, BL, BAL, BALL = BRANCH, BRANCH | LIKELY, BRANCH | LINK, BRANCH | LIKELY | LINK

TABLE = [
    # --- SPECIAL (opcode 0) ---
    _r("sll", 0x00, F_RD_RT_SA, zero_mask=0x03E00000),
    _r("srl", 0x02, F_RD_RT_SA, zero_mask=0x03E00000),
    _row("rotr", 0xFFE0003F, 0x00200002, F_RD_RT_SA, "alu"),  # srl with bit 21
    _r("sra", 0x03, F_RD_RT_SA, zero_mask=0x03E00000),
    _r("sllv", 0x04, F_RD_RT_RS, zero_mask=0x7C0),
    _r("srlv", 0x06, F_RD_RT_RS, zero_mask=0x7C0),
    _row("rotrv", 0xFC0007FF, 0x00000046, F_RD_RT_RS, "alu"),  # srlv with bit 6
    _r("srav", 0x07, F_RD_RT_RS, zero_mask=0x7C0),
    _r("jr", 0x08, F_RS, "jump", flags=JUMP | REGISTER_TARGET),
    _r("jalr", 0x09, F_JALR, "jump", flags=JUMP | REGISTER_TARGET | LINK),
    _r("movz", 0x0A, F_RD_RS_RT),
    _r("movn", 0x0B, F_RD_RS_RT),
    _r("syscall", 0x0C, F_CODE, "system", flags=EVENT),
    _r("break", 0x0D, F_CODE, "system", flags=EVENT),
    _r("sync", 0x0F, F_NONE, "system"),
    _r("mfhi", 0x10, F_RD, "hilo", reads="hi"),
    _r("mthi", 0x11, F_RS, "hilo", writes="hi"),
    _r("mflo", 0x12, F_RD, "hilo", reads="lo"),
    _r("mtlo", 0x13, F_RS, "hilo", writes="lo"),
    _r("clz", 0x16, F_RD_RS),
    _r("clo", 0x17, F_RD_RS),
    _r("mult", 0x18, F_RS_RT, "mul", writes="hi lo"),
    _r("multu", 0x19, F_RS_RT, "mul", writes="hi lo"),
    _r("div", 0x1A, F_RS_RT, "div", writes="hi lo"),
    _r("divu", 0x1B, F_RS_RT, "div", writes="hi lo"),
    # madd/msub read HI:LO too, but the accumulator forwards: the scoreboard does not wait for it
    _r("madd", 0x1C, F_RS_RT, "madd", writes="hi lo"),
    _r("maddu", 0x1D, F_RS_RT, "madd", writes="hi lo"),
    _r("add", 0x20, F_RD_RS_RT),
    _r("addu", 0x21, F_RD_RS_RT),
    _r("sub", 0x22, F_RD_RS_RT),
    _r("subu", 0x23, F_RD_RS_RT),
    _r("and", 0x24, F_RD_RS_RT),
    _r("or", 0x25, F_RD_RS_RT),
    _r("xor", 0x26, F_RD_RS_RT),
    _r("nor", 0x27, F_RD_RS_RT),
    _r("slt", 0x2A, F_RD_RS_RT),
    _r("sltu", 0x2B, F_RD_RS_RT),
    _r("max", 0x2C, F_RD_RS_RT),
    _r("min", 0x2D, F_RD_RS_RT),
    _r("msub", 0x2E, F_RS_RT, "madd", writes="hi lo"),
    _r("msubu", 0x2F, F_RS_RT, "madd", writes="hi lo"),
    _r("tge", 0x30, F_RS_RT, "system"),
    _r("tgeu", 0x31, F_RS_RT, "system"),
    _r("tlt", 0x32, F_RS_RT, "system"),
    _r("tltu", 0x33, F_RS_RT, "system"),
    _r("teq", 0x34, F_RS_RT, "system"),
    _r("tne", 0x36, F_RS_RT, "system"),
    # --- REGIMM (opcode 1) ---
    _regimm("bltz", 0x00, F_BR1, flags=B),
    _regimm("bgez", 0x01, F_BR1, flags=B),
    _regimm("bltzl", 0x02, F_BR1, flags=BL),
    _regimm("bgezl", 0x03, F_BR1, flags=BL),
    _regimm("tgei", 0x08, F_RS_IMM, "system"),
    _regimm("tgeiu", 0x09, F_RS_IMM, "system"),
    _regimm("tlti", 0x0A, F_RS_IMM, "system"),
    _regimm("tltiu", 0x0B, F_RS_IMM, "system"),
    _regimm("teqi", 0x0C, F_RS_IMM, "system"),
    _regimm("tnei", 0x0E, F_RS_IMM, "system"),
    _regimm("bltzal", 0x10, F_BR1, flags=BAL, writes="ra"),
    _regimm("bgezal", 0x11, F_BR1, flags=BAL, writes="ra"),
    _regimm("bltzall", 0x12, F_BR1, flags=BALL, writes="ra"),
    _regimm("bgezall", 0x13, F_BR1, flags=BALL, writes="ra"),
    # --- primary opcodes ---
    _i("j", 0x02, F_JUMP, "jump", flags=JUMP),
    _i("jal", 0x03, F_JUMP, "jump", flags=JUMP | LINK, writes="ra"),
    _i("beq", 0x04, F_BR2, "branch", flags=B),
    _i("bne", 0x05, F_BR2, "branch", flags=B),
    _row("blez", 0xFC1F0000, 0x06 << 26, F_BR1, "branch", flags=B),
    _row("bgtz", 0xFC1F0000, 0x07 << 26, F_BR1, "branch", flags=B),
    _i("addi", 0x08, F_RT_RS_IMM),
    _i("addiu", 0x09, F_RT_RS_IMM),
    _i("slti", 0x0A, F_RT_RS_IMM),
    _i("sltiu", 0x0B, F_RT_RS_IMM),
    _i("andi", 0x0C, F_RT_RS_UIMM),
    _i("ori", 0x0D, F_RT_RS_UIMM),
    _i("xori", 0x0E, F_RT_RS_UIMM),
    _row("lui", 0xFFE00000, 0x0F << 26, F_RT_UIMM, "alu"),
    _i("beql", 0x14, F_BR2, "branch", flags=BL),
    _i("bnel", 0x15, F_BR2, "branch", flags=BL),
    _row("blezl", 0xFC1F0000, 0x16 << 26, F_BR1, "branch", flags=BL),
    _row("bgtzl", 0xFC1F0000, 0x17 << 26, F_BR1, "branch", flags=BL),
    _load("lb", 0x20, 1),
    _load("lh", 0x21, 2),
    _load("lwl", 0x22, 4, reads="rs rt"),  # merges into the register's other bytes
    _load("lw", 0x23, 4),
    _load("lbu", 0x24, 1),
    _load("lhu", 0x25, 2),
    _load("lwr", 0x26, 4, reads="rs rt"),
    _store("sb", 0x28, 1),
    _store("sh", 0x29, 2),
    _store("swl", 0x2A, 4),
    _store("sw", 0x2B, 4),
    _store("swr", 0x2E, 4),
    _i("cache", 0x2F, F_CACHE, "cache", flags=CACHE_OP),
    _load("ll", 0x30, 4),
    _load("lwc1", 0x31, 4, F_FMEM, "fpu_load"),
    _store("sc", 0x38, 4, writes="rt"),  # rt: 1 if the store happened
    _store("swc1", 0x39, 4, F_FMEM, "fpu_store"),
    # --- SPECIAL2 (opcode 0x1C): the Allegrex's privileged extras ---
    _row("halt", 0xFFFFFFFF, 0x70000000, F_NONE, "system", flags=EVENT),
    _row("mfic", 0xFFE0FFFF, 0x70000024, F_RT, "system"),
    _row("mtic", 0xFFE0FFFF, 0x70000026, F_RT, "system", reads="rt", writes=""),
    # --- SPECIAL3 (opcode 0x1F) ---
    _row("ext", 0xFC00003F, 0x7C000000, F_EXT, "alu"),
    _row("ins", 0xFC00003F, 0x7C000004, F_INS, "alu"),
    _bshfl("wsbh", 0x02),
    _bshfl("wsbw", 0x03),
    _bshfl("seb", 0x10),
    _bshfl("bitrev", 0x14),
    _bshfl("seh", 0x18),
    # --- COP1 (opcode 0x11): single-precision FPU ---
    _row("mfc1", 0xFFE007FF, 0x44000000, F_RT_FS, "fpu_move"),
    _row("cfc1", 0xFFE007FF, 0x44400000, F_RT_FCR, "fpu_move"),
    _row("mtc1", 0xFFE007FF, 0x44800000, F_RT_FS, "fpu_move", reads="rt", writes="fs"),
    _row("ctc1", 0xFFE007FF, 0x44C00000, F_RT_FCR, "fpu_move", reads="rt", writes="fcc"),
    _row("bc1f", 0xFFFF0000, 0x45000000, F_BR0, "branch", flags=B),
    _row("bc1t", 0xFFFF0000, 0x45010000, F_BR0, "branch", flags=B),
    _row("bc1fl", 0xFFFF0000, 0x45020000, F_BR0, "branch", flags=BL),
    _row("bc1tl", 0xFFFF0000, 0x45030000, F_BR0, "branch", flags=BL),
    _fpu_s("add.s", 0x00, F_FD_FS_FT, "fpu_add"),
    _fpu_s("sub.s", 0x01, F_FD_FS_FT, "fpu_add"),
    _fpu_s("mul.s", 0x02, F_FD_FS_FT, "fpu_mul"),
    _fpu_s("div.s", 0x03, F_FD_FS_FT, "fpu_div"),
    _row("sqrt.s", 0xFFFF003F, 0x46000004, F_FD_FS, "fpu_sqrt"),
    _row("abs.s", 0xFFFF003F, 0x46000005, F_FD_FS, "fpu_move"),
    _row("mov.s", 0xFFFF003F, 0x46000006, F_FD_FS, "fpu_move"),
    _row("neg.s", 0xFFFF003F, 0x46000007, F_FD_FS, "fpu_move"),
    _row("round.w.s", 0xFFFF003F, 0x4600000C, F_FD_FS, "fpu_cvt"),
    _row("trunc.w.s", 0xFFFF003F, 0x4600000D, F_FD_FS, "fpu_cvt"),
    _row("ceil.w.s", 0xFFFF003F, 0x4600000E, F_FD_FS, "fpu_cvt"),
    _row("floor.w.s", 0xFFFF003F, 0x4600000F, F_FD_FS, "fpu_cvt"),
    _row("cvt.w.s", 0xFFFF003F, 0x46000024, F_FD_FS, "fpu_cvt"),
    _row("cvt.s.w", 0xFFFF003F, 0x46800020, F_FD_FS, "fpu_cvt"),
] + [
    _row(f"c.{cond}.s", 0xFFE007FF, 0x46000030 | i, F_FS_FT, "fpu_cmp", sem="c.cond.s")
    for i, cond in enumerate(_FPU_CONDS)
] + [
    # --- COP2 branches on the VFPU condition bits (rs=8, bits 16-17 select) ---
    _row("bvf", 0xFFE30000, 0x49000000, F_BRV, "branch", flags=B),
    _row("bvt", 0xFFE30000, 0x49010000, F_BRV, "branch", flags=B),
    _row("bvfl", 0xFFE30000, 0x49020000, F_BRV, "branch", flags=BL),
    _row("bvtl", 0xFFE30000, 0x49030000, F_BRV, "branch", flags=BL),
] + [
    # --- the VFPU space: every other word of these opcodes goes to cpu/cop2.py ---
    _row(f"vfpu.{op:02x}", 0xFC000000, op << 26, F_VFPU, "vfpu", sem="vfpu", flags=VFPU_OP)
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
        assert set(ins.reads + ins.writes) <= set(ROLES), f"{ins.mnemonic}: unknown role"
        assert bool(ins.flags & (LOAD | STORE)) == (ins.width > 0), f"{ins.mnemonic}: width without access"
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
