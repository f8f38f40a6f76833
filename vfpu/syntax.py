"""Operand text shared by the assembler and the disassembler: condition names, vrot
rotation strings, prefix lane text, vcst names, float16 immediates, GPR names."""

import numpy as np

from allegrex.cpu.asm import AsmError, gpr
from allegrex.cpu.state import GPR_NAMES
from allegrex.errors import AllegrexError
from vfpu.ops import CST_NAMES
from vfpu.prefix import CONST_TEXT

COND_NAMES = ("FL", "EQ", "LT", "LE", "TR", "NE", "GE", "GT",
              "EZ", "EN", "EI", "ES", "NZ", "NN", "NI", "NS")
SWIZZLE = "xyzw"
SAT_TEXT = {0: "", 1: "0:1", 3: "-1:1"}


class VfpuAsmError(AllegrexError):
    """VFPU assembly text that cannot be encoded (the message names what and why)."""


def rotation_text(imm: int, n: int) -> str:
    """vrot lane pattern for immediate `imm` and size n, e.g. '[c, s, s, s]'."""
    cl, sl, neg = imm & 3, (imm >> 2) & 3, imm & 0x10
    lanes = []
    for i in range(n):
        if i == cl:
            lanes.append("c")
        elif cl == sl or i == sl:
            lanes.append("-s" if neg else "s")
        else:
            lanes.append("0")
    return "[" + ", ".join(lanes) + "]"


def rotation_imm(text: str, n: int) -> int:
    """First immediate whose pattern is `text` (spaces ignored), or an integer 0-31."""
    t = text.replace(" ", "").lower()
    if not t.startswith("["):
        return parse_int(text, 0, 31, "vrot immediate")
    for imm in range(32):
        if rotation_text(imm, n).replace(" ", "") == t:
            return imm
    raise VfpuAsmError(f"bad vrot pattern {text!r} for size {n}")


def source_prefix_text(imm: int) -> str:
    if imm >> 20:
        return f"0x{imm:06x}"
    lanes = []
    for i in range(4):
        swz, absb = (imm >> 2 * i) & 3, (imm >> (8 + i)) & 1
        cst, neg = (imm >> (12 + i)) & 1, (imm >> (16 + i)) & 1
        if cst:
            t = CONST_TEXT[swz + 4 * absb]
        else:
            t = f"|{SWIZZLE[swz]}|" if absb else SWIZZLE[swz]
        lanes.append(("-" if neg else "") + t)
    return "[" + ", ".join(lanes) + "]"


def parse_source_prefix(text: str) -> int:
    t = text.strip()
    if t.lower().startswith("0x"):
        return parse_int(t, 0, 0xFFFFFF, "prefix")
    lanes = [x.strip() for x in t.strip("[]").split(",")]
    if len(lanes) > 4:
        raise VfpuAsmError(f"prefix {text!r} has more than 4 lanes")
    imm = 0
    for i in range(4):
        lane = lanes[i].lower() if i < len(lanes) else SWIZZLE[i]
        neg = lane.startswith("-")
        lane = lane.lstrip("-").strip()
        if neg:
            imm |= 1 << (16 + i)
        if lane in CONST_TEXT:
            k = CONST_TEXT.index(lane)
            imm |= (k & 3) << 2 * i | (k >> 2) << (8 + i) | 1 << (12 + i)
        elif len(lane) == 3 and lane[0] == lane[2] == "|" and lane[1] in SWIZZLE:
            imm |= SWIZZLE.index(lane[1]) << 2 * i | 1 << (8 + i)
        elif lane in SWIZZLE and lane:
            imm |= SWIZZLE.index(lane) << 2 * i
        else:
            raise VfpuAsmError(f"bad prefix lane {lanes[i]!r} (x y z w, |x|, -x, 0 1 2 1/2 3 1/3 1/4 1/6)")
    return imm


def dest_prefix_text(imm: int) -> str:
    lanes = []
    for i in range(4):
        sat, mask = (imm >> 2 * i) & 3, (imm >> (8 + i)) & 1
        if sat == 2 or (mask and sat):
            return f"0x{imm:06x}"
        lanes.append("m" if mask else SAT_TEXT[sat])
    if imm >> 12:
        return f"0x{imm:06x}"
    return "[" + ", ".join(lanes) + "]"


def parse_dest_prefix(text: str) -> int:
    t = text.strip()
    if t.lower().startswith("0x"):
        return parse_int(t, 0, 0xFFFFFF, "prefix")
    lanes = [x.strip().lower() for x in t.strip("[]").split(",")]
    if len(lanes) > 4:
        raise VfpuAsmError(f"prefix {text!r} has more than 4 lanes")
    imm = 0
    for i, lane in enumerate(lanes):
        if lane == "m":
            imm |= 1 << (8 + i)
        elif lane in ("0:1", "-1:1", ""):
            imm |= {"": 0, "0:1": 1, "-1:1": 3}[lane] << 2 * i
        else:
            raise VfpuAsmError(f"bad destination prefix lane {lane!r} (0:1, -1:1, m or empty)")
    return imm


def cst_text(imm: int) -> str:
    return CST_NAMES[imm] if 1 <= imm < len(CST_NAMES) else str(imm)


def parse_cst(text: str) -> int:
    t = text.strip().upper()
    if t in CST_NAMES:
        return CST_NAMES.index(t)
    if "VFPU_" + t in CST_NAMES:
        return CST_NAMES.index("VFPU_" + t)
    return parse_int(text, 0, 31, "vcst constant")


def half_text(imm: int) -> str:
    h = np.array([imm], dtype=np.uint16).view(np.float16)[0]
    if np.isnan(h):
        return f"0x{imm:04x}"
    v = float(h)
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def parse_half(text: str) -> int:
    t = text.strip().lower()
    if t.startswith("0x"):
        return parse_int(t, 0, 0xFFFF, "float16 bits")
    try:
        v = float(t)
    except ValueError:
        raise VfpuAsmError(f"bad float immediate {text!r}") from None
    with np.errstate(over="ignore"):
        return int(np.array([v], dtype=np.float16).view(np.uint16)[0])


def parse_int(text: str, lo: int, hi: int, what: str) -> int:
    try:
        v = int(text.strip(), 0)
    except ValueError:
        raise VfpuAsmError(f"bad {what} {text!r} (expected an integer)") from None
    if not lo <= v <= hi:
        raise VfpuAsmError(f"{what} {v} out of range {lo}..{hi}")
    return v


def gpr_text(num: int) -> str:
    return "$" + GPR_NAMES[num]


def parse_gpr(text: str) -> int:
    try:
        return gpr(text)
    except AsmError as exc:
        raise VfpuAsmError(str(exc)) from None
