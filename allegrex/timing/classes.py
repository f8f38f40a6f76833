"""Timing classes of the integer and FPU instructions, and the per-op arrays the numba
model reads (indexed by the op index of allegrex.cpu.decode.TABLE).

A class gives: issue cycles (throughput), result latency (cycles from issue until a
dependent instruction may issue), the functional unit it keeps busy and for how long,
and the stall counter charged when someone waits for its result. Every class says
whether its figures are MEASURED (shared/reference/allegrex-timing.md, corrected for
the measuring loop's overhead as described in docs/timing.md) or an ESTIMATE.

The decode table names a coarse class per row; `refine` splits it where the hardware
differs (mfhi vs mthi, mov.s vs mfc1, likely branches), from the row's roles and flags.
OP_FLAGS holds each row's decode flags (LOAD, STORE, BRANCH...) for the model.
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



def refine(ins: D.Instr) -> str:
    """The timing class name of a decode-table row: its coarse class, split by its roles
    and flags where the hardware differs (mfhi vs mthi, mov.s vs mfc1, likely branches)."""
    if ins.timing == "hilo":
        return "hilo_read" if "hi" in ins.reads or "lo" in ins.reads else "hilo_write"
    if ins.timing == "fpu_move" and any(r in GPR_ROLES for r in ins.reads + ins.writes):
        return "fpu_xfer"  # between the register files
    if ins.timing == "branch" and ins.flags & D.LIKELY:
        return "branch_likely"
    return ins.timing


# Scoreboard slot of each operand role: (register base, field shift), or FIXED for a
# register that is the base itself.
ROLE_SLOTS = {"rs": (R_GPR, 21), "rt": (R_GPR, 16), "rd": (R_GPR, 11), "fs": (R_FPR, 11), "ft": (R_FPR, 16),
              "fd": (R_FPR, 6), "hi": (R_HI, FIXED), "lo": (R_LO, FIXED), "ra": (R_GPR + 31, FIXED),
              "fcc": (R_FCC, FIXED), "vcc": (R_VCC_BRANCH, FIXED)}
GPR_ROLES = ("rs", "rt", "rd", "ra")


def operands(ins: D.Instr):
    """(sources, destinations) of a decode-table row as lists of (base, shift), from its
    roles (VFPU words have none here: the VFPU model reads its own operands)."""
    return [ROLE_SLOTS[r] for r in ins.reads], [ROLE_SLOTS[r] for r in ins.writes]


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
        flags[op] = ins.flags
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
