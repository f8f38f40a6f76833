"""VFPU timing: issue and latency per VFPU table row (from vfpu_timing.csv, derived from
the measured reference by allegrex.timing.derive) and each row's operands as element
cells, so the scoreboard tracks the 128 VFPU registers element by element.

Decoding uses the one VFPU table (vfpu/table.py) and its register cell tables
(vfpu/regs.py); `vfpu_word` places register numbers where this model reads them, for
hand-assembled timing loops.
"""

import csv
from pathlib import Path

import numpy as np

from vfpu import table as _vt
from vfpu.regs import MAT_CELLS, VEC_CELLS

CSV = Path(__file__).resolve().parent / "vfpu_timing.csv"
ALIASES = {"vuc2i.s": "vuc2ifs.s"}  # the reference prints vuc2i.s under this name
# Fractional issue cycles normally delay the op's start (vzero & co: 1.28 / 3.30); for
# vocp the extra half cycle (.t/.q 1.54) does not show in its latency (5.31 for all sizes).
FRACTION_AFTER_ISSUE = {"vocp"}

VCMP_TO_BRANCH = 8  # MEASURED: vcmp -> bvt 8.12 (vfpu-docs: compare latency 8 for branches)
VCMP_TO_MFVC = 5  # ESTIMATE: mfvc of the CC register waits as for an arithmetic result

# Operand register fields (how the 7-bit VFPU register number is found in the word).
FLD_NONE, FLD_VD, FLD_VS, FLD_VT, FLD_MEMS, FLD_MEMQ = range(6)
KIND_NONE, KIND_VEC, KIND_MAT = 0, 1, 2
# Control register number fields.
CTRL_NONE, CTRL_LOW4, CTRL_BITS8 = 0, 1, 2
MEM_NONE, MEM_LOAD, MEM_STORE = 0, 1, 2


def load_table():
    """{instruction text name: (issue, latency, source, note)} from the CSV."""
    out = {}
    with open(CSV) as f:
        for row in csv.DictReader(f):
            out[row["instruction"]] = (float(row["issue"]), int(row["latency"]), row["source"], row["note"])
    return out


TIMING = load_table()



def _perf_estimate(row):
    """(issue, latency) from the vfpu-docs perf class formulas, for rows the CSV lacks."""
    n = row.size or 1
    if row.perf_class and row.perf_class in _vt.PERF_CLASSES:
        tput, lat = _vt.PERF_CLASSES[row.perf_class]
        return float(eval(tput, {"N": n})), int(eval(lat, {"N": n}))  # noqa: S307 (table formulas)
    return 1.0, 5


def row_timing(row):
    """(issue, latency, source) of a vfpu.table Row."""
    name = row.text_name
    hit = TIMING.get(name) or TIMING.get(ALIASES.get(name, ""))
    if hit:
        return hit[0], hit[1], hit[2]
    issue, lat = _perf_estimate(row)
    return issue, lat, "ESTIMATE"


def _fields(row):
    """(d field, s field, t field, gpr src shift, gpr dst shift, ctrl src, ctrl dst, mem)."""
    fmt = row.fmt
    d, s, t = FLD_VD, FLD_VS, FLD_VT
    gsrc = gdst = -1
    csrc = cdst = CTRL_NONE
    mem = MEM_NONE
    if fmt in ("iim", "fim"):
        d = FLD_VT
    elif fmt == "gv":  # mfv: vector -> rt; mtv: rt -> vector (both in the low 7 bits)
        if row.mnemonic == "mfv":
            s, gdst = FLD_VD, 16
        else:
            d, gsrc = FLD_VD, 16
    elif fmt == "gc":
        if row.mnemonic == "mfvc":
            csrc, gdst = CTRL_LOW4, 16
        else:
            cdst, gsrc = CTRL_LOW4, 16
    elif fmt == "vc":  # vmfvc: control (bits 8-15) -> vector d
        csrc = CTRL_BITS8
    elif fmt == "cv":  # vmtvc: vector s -> control (bits 0-7)
        cdst = CTRL_LOW4
    elif fmt in ("mems", "memq", "memlr"):
        field = FLD_MEMS if fmt == "mems" else FLD_MEMQ
        gsrc = 21
        if row.mnemonic.startswith("l"):
            d, mem = field, MEM_LOAD
        else:
            s, mem = field, MEM_STORE
    return d, s, t, gsrc, gdst, csrc, cdst, mem


def _shape(row, which, field):
    shape = getattr(row, which)
    if shape is None:
        return KIND_NONE, 0, FLD_NONE
    return (KIND_MAT if shape[0] == "m" else KIND_VEC), row.count(which), field


def _build():
    rows = _vt.ROWS
    n = len(rows)
    issue_q4 = np.full(n, 4, np.int64)
    latency = np.full(n, 5, np.int64)
    ops = np.zeros((n, 3, 3), np.int64)  # [row, d/s/t] = (kind, count, field)
    extra = np.full((n, 7), -1, np.int64)  # gpr src shift, gpr dst shift, ctrl src, ctrl dst, mem, cc write,
    #                                        fraction after issue
    for r in rows:
        issue, lat, _ = row_timing(r)
        issue_q4[r.id] = int(round(issue * 4))
        latency[r.id] = lat
        d, s, t, gsrc, gdst, csrc, cdst, mem = _fields(r)
        ops[r.id, 0] = _shape(r, "d", d)
        ops[r.id, 1] = _shape(r, "s", s)
        ops[r.id, 2] = _shape(r, "t", t)
        extra[r.id] = (gsrc, gdst, csrc, cdst, mem, 1 if r.mnemonic == "vcmp" else 0,
                       1 if r.mnemonic in FRACTION_AFTER_ISSUE else 0)
    lut_start, lut_rows = _vt.LUT_START.astype(np.int64), _vt.LUT_ROWS.astype(np.int64)
    mask, match = _vt.ROW_MASK.astype(np.int64), _vt.ROW_MATCH.astype(np.int64)
    return issue_q4, latency, ops, extra, lut_start, lut_rows, mask, match


(ROW_ISSUE_Q4, ROW_LATENCY, ROW_OPS, ROW_EXTRA, LUT_START, LUT_ROWS, ROW_MASK, ROW_MATCH) = _build()
VEC_CELLS64 = VEC_CELLS.astype(np.int64)
MAT_CELLS64 = MAT_CELLS.astype(np.int64)


def table_rows():
    """(instruction, issue, latency, source, note) for every timed VFPU instruction."""
    return [(k, v[0], v[1], v[2], v[3]) for k, v in sorted(TIMING.items())]


def vfpu_word(text_name, d=None, s=None, t=None, imm=None):
    """Word of VFPU instruction `text_name` (e.g. 'vadd.q') with 7-bit register numbers
    d, s, t placed where this model reads them; imm is None or (value, bit position)."""
    row = _vt.BY_NAME[text_name]
    word = row.match
    if imm is not None:
        word |= (imm[0] << imm[1]) & ~row.mask & 0xFFFFFFFF
    shifts = {FLD_VD: 0, FLD_VS: 8, FLD_VT: 16}
    for value, field in zip((d, s, t), _fields(row)[:3]):
        if value is not None and field in shifts:
            word |= (value & 0x7F) << shifts[field]
    return word & 0xFFFFFFFF
