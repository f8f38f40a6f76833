"""VFPU register naming: the 7-bit register field of an instruction <-> the names the
hardware manuals use (S/C/R/M/E), and the cells of the register file a name covers.

The register file is 128 singles seen as 8 matrices of 4x4. The single S<m><c><r>
(matrix m, column c, row r) lives at vpr[m*16 + c*4 + r] (allegrex/cpu/state.py).

Register field bits (7 bits):  bit 6-5: row/offset bits, bit 4-2: matrix, bit 1-0: index.
- single:  S<m><c><r>, c = f & 3, r = (f >> 5) & 3.
- vector (n = 2, 3, 4): bit 5 selects a row vector (R) instead of a column (C); the first
  element's position along the vector is (f >> 5) & 2 for pairs and quads and (f >> 6) & 1
  for triples. Names always read <matrix><column><row> of the first element:
  C<m><c><r> = S<m><c><r>, S<m><c><r+1>, ...;  R<m><c><r> = S<m><c><r>, S<m><c+1><r>, ...
- matrix (side n = 2, 3, 4): M<m><c><r> is the n column vectors C<m><c+i><r>;
  E<m><c><r> (bit 5 set) covers the same cells read as the n row vectors R<m><c><r+i>.
Element order (what `cells` returns) is the order the hardware reads the operand:
vectors element by element, matrices vector by vector (element k of vector i at i*n + k).
"""

import re

import numpy as np

SIZE_SUFFIX = {1: "s", 2: "p", 3: "t", 4: "q"}
SUFFIX_SIZE = {v: k for k, v in SIZE_SUFFIX.items()}

# Control registers 128-143 as mfvc/mtvc number them (index = number - 128).
CONTROL_NAMES = (
    "VFPU_PFXS", "VFPU_PFXT", "VFPU_PFXD", "VFPU_CC", "VFPU_INF4", "VFPU_RSV5", "VFPU_RSV6",
    "VFPU_REV", "VFPU_RCX0", "VFPU_RCX1", "VFPU_RCX2", "VFPU_RCX3", "VFPU_RCX4", "VFPU_RCX5",
    "VFPU_RCX6", "VFPU_RCX7",
)


class VfpuRegisterError(ValueError):
    """A register name that does not exist for the kind and size asked."""


def vpr_index(m: int, c: int, r: int) -> int:
    """Index into vpr of the single S<m><c><r>."""
    return m * 16 + (c & 3) * 4 + (r & 3)


def _offset(field: int, n: int) -> int:
    if n == 3:
        return (field >> 6) & 1
    return (field >> 5) & 2


def vector_cells(field: int, n: int) -> list[int]:
    """vpr indices of the n elements of the vector (or single, n = 1) `field`."""
    m, idx = (field >> 2) & 7, field & 3
    if n == 1:
        return [vpr_index(m, idx, (field >> 5) & 3)]
    off = _offset(field, n)
    if (field >> 5) & 1:  # row vector: row idx, columns from off
        return [vpr_index(m, off + i, idx) for i in range(n)]
    return [vpr_index(m, idx, off + i) for i in range(n)]


def matrix_cells(field: int, n: int) -> list[int]:
    """vpr indices of an n x n matrix, vector by vector (element k of vector i at i*n+k)."""
    m, idx = (field >> 2) & 7, field & 3
    if n == 1:
        return vector_cells(field, 1)
    off = _offset(field, n)
    out = []
    for i in range(n):
        for k in range(n):
            if (field >> 5) & 1:  # E: vector i is row idx+i, columns from off
                out.append(vpr_index(m, off + k, idx + i))
            else:  # M: vector i is column idx+i, rows from off
                out.append(vpr_index(m, idx + i, off + k))
    return out


def cells(field: int, size_or_kind) -> list[int]:
    """vpr indices a register field covers. `size_or_kind` is 1-4 (or 's','p','t','q') for a
    single/vector, or 'm2'/'m3'/'m4' (also 'mp','mt','mq') for a matrix."""
    kind, n = _kind_size(size_or_kind)
    return matrix_cells(field, n) if kind == "m" else vector_cells(field, n)


def _kind_size(size_or_kind):
    if isinstance(size_or_kind, int):
        return "v", size_or_kind
    s = size_or_kind.lower()
    if s in SUFFIX_SIZE:
        return "v", SUFFIX_SIZE[s]
    if s[0] == "m" and len(s) == 2:
        n = SUFFIX_SIZE.get(s[1]) or int(s[1])
        return "m", n
    raise VfpuRegisterError(f"unknown register size {size_or_kind!r}")


def name(field: int, size_or_kind) -> str:
    """The conventional name of register field `field` read with the given size/kind."""
    kind, n = _kind_size(size_or_kind)
    field &= 0x7F
    m, idx = (field >> 2) & 7, field & 3
    if n == 1:
        return f"S{m}{idx}{(field >> 5) & 3}"
    off = _offset(field, n)
    row = (field >> 5) & 1
    letter = ("E" if row else "M") if kind == "m" else ("R" if row else "C")
    if row:
        return f"{letter}{m}{off}{idx}"
    return f"{letter}{m}{idx}{off}"


_SUFFIX_RE = re.compile(r"\.[sptq]$", re.IGNORECASE)
_NAME_RE = re.compile(r"^([SCRME])([0-7])([0-3])([0-3])$", re.IGNORECASE)


def parse(text: str, size_or_kind) -> int:
    """Register field of `text` (e.g. 'C010', 'r102', 'E012') read with the given size/kind;
    raises VfpuRegisterError when that name cannot be encoded for that size."""
    kind, n = _kind_size(size_or_kind)
    text = _SUFFIX_RE.sub("", text.strip())  # old toolchains write C000.q
    mt = _NAME_RE.match(text)
    if not mt:
        raise VfpuRegisterError(f"bad VFPU register name {text!r}")
    letter, m, a, b = mt.group(1).upper(), int(mt.group(2)), int(mt.group(3)), int(mt.group(4))
    field = None
    if n == 1:
        if letter == "S":
            field = (m << 2) | a | (b << 5)
    else:
        allowed = ("M", "E") if kind == "m" else ("C", "R")
        if letter in allowed:
            transposed = letter in "RE"
            idx, off = (b, a) if transposed else (a, b)
            bits = _offset_bits(off, n)
            if bits is not None:
                field = (m << 2) | idx | bits | (0x20 if transposed else 0)
    if field is None or name(field, size_or_kind).upper() != text.strip().upper():
        what = f"matrix {n}x{n}" if kind == "m" else {1: "single", 2: "pair", 3: "triple", 4: "quad"}[n]
        raise VfpuRegisterError(f"{text!r} is not a valid {what} register")
    return field


def _offset_bits(off: int, n: int):
    if n == 3:
        return {0: 0, 1: 0x40}.get(off)
    if n == 2:
        return {0: 0, 2: 0x40}.get(off)
    return {0: 0, 2: 0x40}.get(off)  # quad: offset 2 wraps around (encodable, unusual)


def valid_fields(size_or_kind) -> list[int]:
    """Register fields with a conventional name for that size (what an assembler accepts)."""
    kind, n = _kind_size(size_or_kind)
    out = []
    for f in range(128):
        if n == 1:
            out.append(f)
        elif kind == "v":
            if n == 4 and f & 0x40:
                continue
            out.append(f)
        else:
            idx = f & 3
            if n == 2 and idx & 1:
                continue
            if n == 3 and idx > 1:
                continue
            if n == 4 and (idx or f & 0x40):
                continue
            out.append(f)
    return out


def control_index(text: str) -> int:
    """Control register number 128-143 from '$131', '131', 'VFPU_CC' or 'CC'."""
    t = text.strip().upper().lstrip("$")
    if t.isdigit():
        num = int(t)
        if 128 <= num <= 143:
            return num
    for i, nm in enumerate(CONTROL_NAMES):
        if t in (nm, nm[5:]):
            return 128 + i
    raise VfpuRegisterError(f"bad VFPU control register {text!r} (128-143 or VFPU_CC...)")


# Numba-readable tables: VEC_CELLS[n, field, i] and MAT_CELLS[n, field, i*n+k].
VEC_CELLS = np.zeros((5, 128, 4), dtype=np.int32)
MAT_CELLS = np.zeros((5, 128, 16), dtype=np.int32)
for _n in range(1, 5):
    for _f in range(128):
        _v = vector_cells(_f, _n)
        VEC_CELLS[_n, _f, :_n] = _v
        # Lanes past n continue the same row/column (a swizzle may read them): wrap mod 4.
        if _n > 1:
            _first = _v[0]
            _step = _v[1] - _v[0]
            for _i in range(_n, 4):
                if _step == 1:  # column: rows wrap
                    VEC_CELLS[_n, _f, _i] = (_first & ~3) | ((_first + _i) & 3)
                else:  # row: columns wrap
                    VEC_CELLS[_n, _f, _i] = (_first & ~15) | ((_first + 4 * _i) & 15)
        else:  # a single's swizzle lanes continue down its column
            for _i in range(1, 4):
                VEC_CELLS[1, _f, _i] = (_v[0] & ~3) | ((_v[0] + _i) & 3)
        MAT_CELLS[_n, _f, :_n * _n] = matrix_cells(_f, _n)
