"""Timing classes of the integer and FPU instructions, and the per-op arrays the numba
model reads (indexed by the op index of allegrex.cpu.decode.TABLE).

A class gives: issue cycles (throughput), result latency (cycles from issue until a
dependent instruction may issue), the functional unit it keeps busy and for how long,
and the stall counter charged when someone waits for its result. Every class says
whether its figures are MEASURED (shared/reference/allegrex-timing.md, corrected for
the measuring loop's overhead as described in docs/timing.md) or an ESTIMATE.

The decode table names a coarse class per row; `refine` splits it where the hardware
differs (mfhi vs mthi, mov.s vs mfc1, likely branches).
"""

from dataclasses import dataclass

import numpy as np

from allegrex.cpu import decode as D
from allegrex.timing import counters as C

# Unified scoreboard register numbering (ready-time slots).
R_GPR = 0  # 32 GPRs
R_HI = 32
R_LO = 33
R_FPR = 34  # 32 FPRs
R_FCC = 66  # FPU condition bit (FCR31 bit 23)
R_VCC_BRANCH = 67  # VFPU CC as seen by bvt/bvf (the compare -> branch hazard)
R_VCTRL = 68  # 16 VFPU control registers (VFPU_CC at R_VCTRL + 3 is what mfvc sees)
R_VPR = 84  # 128 VFPU registers by element (vpr index m*16 + c*4 + r)
R_DUMMY = 212  # writes to $zero land here
NREG = 213

# Functional units with an occupancy (busy-until) slot.
U_NONE = -1
U_DIV = 0  # integer divider (div/divu)
U_FDIV = 1  # FPU divide / square root unit
NUNITS = 4

# Op flags.
F_LOAD, F_STORE, F_BRANCH, F_JUMP, F_LIKELY, F_CACHE, F_VFPU, F_SYSCALL = (1, 2, 4, 8, 16, 32, 64, 128)

FIXED = 99  # operand "shift" meaning: the register is the base itself (HI, LO, $ra, FCC...)
NONE = -1


@dataclass(frozen=True)
class TimingClass:
    name: str
    issue: int  # cycles the instruction occupies the issue slot
    latency: int  # cycles from issue to a dependent instruction's earliest issue
    stall: int  # counters[] index charged when a consumer waits on the result
    unit: int = U_NONE
    busy: int = 0  # cycles the unit stays busy after issue
    source: str = "ESTIMATE"  # MEASURED or ESTIMATE, with the figure it comes from
    note: str = ""


CLASSES = {c.name: c for c in (
    TimingClass("alu", 1, 1, C.STALL_LOAD_USE, source="MEASURED", note="throughput figures read 1.03 = 1 + loop overhead"),
    TimingClass("load", 1, 3, C.STALL_LOAD_USE, source="MEASURED", note="pointer chase in the D-cache: 3.04 (8 KiB)"),
    TimingClass("store", 1, 0, C.STALL_LOAD_USE, note="write buffer; no result"),
    TimingClass("hilo_read", 1, 1, C.STALL_MULDIV, note="mfhi/mflo: ALU-like once HI/LO are ready"),
    TimingClass("hilo_write", 1, 1, C.STALL_MULDIV, note="mthi/mtlo"),
    TimingClass("mul", 1, 6, C.STALL_MULDIV, source="MEASURED", note="mult 1.03/inst; mult->mflo pair 7.08"),
    TimingClass("madd", 1, 6, C.STALL_MULDIV, note="as mult; the accumulator forwards between madds"),
    TimingClass("div", 1, 20, C.STALL_MULDIV, U_DIV, 20, "MEASURED", "div 20.25/inst; div->mflo pair 21.25"),
    TimingClass("branch", 1, 0, C.STALL_BRANCH, source="MEASURED",
                note="taken: +2 refill (beq/bvt 4.07 per branch+slot); not taken: +0 (vcmp->bvt figure)"),
    TimingClass("branch_likely", 1, 0, C.STALL_BRANCH, source="MEASURED",
                note="taken as branch (bvtl 4.07); not taken: +1 for the annulled slot (ESTIMATE)"),
    TimingClass("jump", 1, 0, C.STALL_BRANCH, source="MEASURED", note="+1 refill (j 3.05, jr 3.06 per jump+slot)"),
    TimingClass("system", 1, 1, C.STALL_LOAD_USE, note="syscall/break/sync/traps/halt/mfic/mtic; HLE cost separate"),
    TimingClass("cache", 1, 0, C.STALL_DCACHE, note="plus the line operation's memory traffic"),
    TimingClass("fpu_load", 1, 3, C.STALL_LOAD_USE, note="as lw"),
    TimingClass("fpu_store", 1, 0, C.STALL_LOAD_USE, note="as sw"),
    TimingClass("fpu_move", 1, 1, C.STALL_FPU, note="mov.s/abs.s/neg.s: sign-bit operations"),
    TimingClass("fpu_xfer", 1, 2, C.STALL_FPU, note="mfc1/mtc1/cfc1/ctc1: crossing between register files"),
    TimingClass("fpu_add", 1, 5, C.STALL_FPU, source="MEASURED", note="add.s 1.03 / 5.05 (sub.s assumed equal)"),
    TimingClass("fpu_mul", 1, 5, C.STALL_FPU, source="MEASURED", note="mul.s 1.03 / 5.05"),
    TimingClass("fpu_div", 1, 31, C.STALL_FPU, U_FDIV, 30, "MEASURED", "div.s 30.26 / 31.27"),
    TimingClass("fpu_sqrt", 1, 30, C.STALL_FPU, U_FDIV, 29, "MEASURED", "sqrt.s 29.26 / 30.26"),
    TimingClass("fpu_cvt", 1, 5, C.STALL_FPU, note="conversions assumed to use the adder pipeline"),
    TimingClass("fpu_cmp", 1, 1, C.STALL_FPU, note="c.cond.s -> bc1t/bc1f"),
    TimingClass("vfpu", 1, 5, C.STALL_VFPU, note="placeholder; VFPU words are timed by vfpu_classes"),
)}

# Control-flow penalties (cycles added after the branch's own issue cycle).
TAKEN_BRANCH_PENALTY = 2  # MEASURED: beq/bvt/bvf/bvtl/bvfl taken 4.07 per branch + delay slot
JUMP_PENALTY = 1  # MEASURED: j 3.05, jr 3.06 per jump + delay slot
ANNULLED_SLOT_PENALTY = 1  # ESTIMATE: a likely branch not taken squashes its fetched delay slot

_LIKELY = {"beql", "bnel", "blezl", "bgtzl", "bltzl", "bgezl", "bltzall", "bgezall",
           "bc1fl", "bc1tl", "bvfl", "bvtl"}


def refine(ins: D.Instr) -> str:
    """The timing class name of a decode-table row."""
    m = ins.mnemonic
    if ins.timing == "hilo":
        return "hilo_read" if m in ("mfhi", "mflo") else "hilo_write"
    if ins.timing == "fpu_move" and m in ("mfc1", "mtc1", "cfc1", "ctc1"):
        return "fpu_xfer"
    if ins.timing == "branch" and m in _LIKELY:
        return "branch_likely"
    return ins.timing


# Operand roles per format: sources and destinations as (register base, field shift).
RS, RT, RD, SA = 21, 16, 11, 6


def operands(ins: D.Instr):
    """(sources, destinations) of a decode-table row as lists of (base, shift)."""
    f, m = ins.fmt, ins.mnemonic
    g = lambda s: (R_GPR, s)  # noqa: E731
    fp = lambda s: (R_FPR, s)  # noqa: E731
    fixed = lambda r: (r, FIXED)  # noqa: E731
    if f in (D.F_RD_RS_RT, D.F_RD_RT_RS):
        return [g(RS), g(RT)], [g(RD)]
    if f in (D.F_RD_RT_SA, D.F_RD_RT):
        return [g(RT)], [g(RD)]
    if f == D.F_RD_RS:
        return [g(RS)], [g(RD)]
    if f == D.F_RS_RT:
        if ins.timing in ("mul", "div"):
            return [g(RS), g(RT)], [fixed(R_HI), fixed(R_LO)]
        if ins.timing == "madd":  # the accumulator forwards: HI/LO are not waited for
            return [g(RS), g(RT)], [fixed(R_HI), fixed(R_LO)]
        return [g(RS), g(RT)], []
    if f == D.F_RD:
        return [fixed(R_HI if m == "mfhi" else R_LO)], [g(RD)]
    if f == D.F_RS:
        if m == "jr":
            return [g(RS)], []
        return [g(RS)], [fixed(R_HI if m == "mthi" else R_LO)]
    if f == D.F_JALR:
        return [g(RS)], [g(RD)]
    if f in (D.F_RT_RS_IMM, D.F_RT_RS_UIMM):
        return [g(RS)], [g(RT)]
    if f == D.F_RT_UIMM:
        return [], [g(RT)]
    if f == D.F_RS_IMM:
        return [g(RS)], []
    if f == D.F_MEM:
        if ins.timing == "load":
            return ([g(RS), g(RT)] if m in ("lwl", "lwr") else [g(RS)]), [g(RT)]
        if m == "sc":
            return [g(RS), g(RT)], [g(RT)]
        return [g(RS), g(RT)], []
    if f == D.F_FMEM:
        return ([g(RS)], [fp(RT)]) if m == "lwc1" else ([g(RS), fp(RT)], [])
    if f == D.F_CACHE:
        return [g(RS)], []
    if f == D.F_BR2:
        return [g(RS), g(RT)], []
    if f == D.F_BR1:
        return [g(RS)], ([fixed(31)] if "al" in m[3:] else [])
    if f == D.F_BR0:
        return [fixed(R_FCC)], []
    if f == D.F_BRV:
        return [fixed(R_VCC_BRANCH)], []
    if f == D.F_JUMP:
        return [], ([fixed(31)] if m == "jal" else [])
    if f == D.F_EXT:
        return [g(RS)], [g(RT)]
    if f == D.F_INS:
        return [g(RS), g(RT)], [g(RT)]
    if f == D.F_RT:
        return ([], [g(RT)]) if m == "mfic" else ([g(RT)], [])
    if f == D.F_FD_FS_FT:
        return [fp(RD), fp(RT)], [fp(SA)]
    if f == D.F_FD_FS:
        return [fp(RD)], [fp(SA)]
    if f == D.F_FS_FT:
        return [fp(RD), fp(RT)], [fixed(R_FCC)]
    if f == D.F_RT_FS:
        return ([fp(RD)], [g(RT)]) if m == "mfc1" else ([g(RT)], [fp(RD)])
    if f == D.F_RT_FCR:
        return ([fixed(R_FCC)], [g(RT)]) if m == "cfc1" else ([g(RT)], [fixed(R_FCC)])
    return [], []  # F_NONE, F_CODE, F_VFPU (the VFPU model reads its own operands)


def _flags(ins: D.Instr, cls: str) -> int:
    fl = 0
    if cls in ("load", "fpu_load") or ins.mnemonic == "ll":
        fl |= F_LOAD
    if cls in ("store", "fpu_store"):
        fl |= F_STORE
    if cls in ("branch", "branch_likely"):
        fl |= F_BRANCH
    if cls == "branch_likely":
        fl |= F_LIKELY
    if cls == "jump":
        fl |= F_JUMP
    if cls == "cache":
        fl |= F_CACHE
    if cls == "vfpu":
        fl |= F_VFPU
    if ins.mnemonic == "syscall":
        fl |= F_SYSCALL
    return fl


def _build():
    n = D.NOPS
    issue = np.ones(n, np.int64)
    lat = np.ones(n, np.int64)
    stall = np.full(n, C.STALL_LOAD_USE, np.int64)
    unit = np.full(n, U_NONE, np.int64)
    busy = np.zeros(n, np.int64)
    flags = np.zeros(n, np.int64)
    src = np.full((n, 3, 2), NONE, np.int64)  # [op, k] = (base, shift)
    dst = np.full((n, 2, 2), NONE, np.int64)
    for op, ins in enumerate(D.TABLE):
        c = CLASSES[refine(ins)]
        issue[op], lat[op], stall[op], unit[op], busy[op] = c.issue, c.latency, c.stall, c.unit, c.busy
        flags[op] = _flags(ins, c.name)
        s, d = operands(ins)
        for k, (base, shift) in enumerate(s):
            src[op, k] = (base, shift)
        for k, (base, shift) in enumerate(d):
            dst[op, k] = (base, shift)
    return issue, lat, stall, unit, busy, flags, src, dst


OP_ISSUE, OP_LATENCY, OP_STALL, OP_UNIT, OP_BUSY, OP_FLAGS, OP_SRC, OP_DST = _build()


def class_table():
    """Rows (mnemonic, class, issue, latency, unit busy, source, note) for docs and tools."""
    rows = []
    for ins in D.TABLE:
        c = CLASSES[refine(ins)]
        rows.append((ins.mnemonic, c.name, c.issue, c.latency, c.busy, c.source, c.note))
    return rows
