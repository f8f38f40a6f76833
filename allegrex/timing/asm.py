"""A tiny encoder for hand-assembled timing loops, driven by the decode tables (integer
and FPU rows from allegrex.cpu.decode, VFPU rows from vfpu.table), so microbenchmarks and
tests need no C toolchain."""

from allegrex.cpu.decode import OP_INDEX, TABLE
from allegrex.cpu.state import GPR_NAMES

FIELDS = {"rs": 21, "rt": 16, "rd": 11, "sa": 6, "ft": 16, "fs": 11, "fd": 6}


def reg(r):
    if isinstance(r, str):
        return GPR_NAMES.index(r.lstrip("$"))
    return r


def enc(name, imm=None, target=None, code=None, **fields):
    """Word of integer/FPU instruction `name`; fields by MIPS name (rs, rt, rd, sa, ft, fs, fd)."""
    w = TABLE[OP_INDEX[name]].match
    for key, value in fields.items():
        w |= (reg(value) & 31) << FIELDS[key]
    if imm is not None:
        w |= imm & 0xFFFF
    if target is not None:
        w |= (target >> 2) & 0x03FFFFFF
    if code is not None:
        w |= (code & 0xFFFFF) << 6
    return w


NOP = 0


def vfpu_row(text_name):
    from vfpu import table
    return table.BY_NAME[text_name]


def venc(text_name, d=None, s=None, t=None, imm=None):
    """Word of VFPU instruction `text_name` (e.g. 'vadd.q') with 7-bit register numbers
    placed as the timing model reads them (allegrex.timing.vfpu_classes); imm is None or
    (value, bit position)."""
    from allegrex.timing import vfpu_classes as V
    row = vfpu_row(text_name)
    fd, fs, ft, *_ = V._fields(row)
    w = row.match
    if imm is not None:
        w |= (imm[0] << imm[1]) & ~row.mask & 0xFFFFFFFF
    for value, field in ((d, fd), (s, fs), (t, ft)):
        if value is None:
            continue
        if field == V.FLD_VD:
            w |= value & 0x7F
        elif field == V.FLD_VS:
            w |= (value & 0x7F) << 8
        elif field == V.FLD_VT:
            w |= (value & 0x7F) << 16
    return w & 0xFFFFFFFF
