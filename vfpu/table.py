"""The one VFPU instruction table: encodings, operand shapes, prefix rules and timing
classes. The interpreter (exec.py), the assembler, the disassembler and the timing model
all read it; nothing else spells out a VFPU encoding.

Each mnemonic expands to one `Row` per size (.s/.p/.t/.q). A word matches a row when
`word & mask == match`; rows never overlap (checked at import).

Operand shapes (`d`, `s`, `t`): None, or (kind, count) with kind 'v' (single or vector,
`count` elements), 'm' (count x count matrix), and count derived from the size n:
'n', '1', 'h' (n/2), 'd' (2n), '4', 'm1' (n-1).

Prefix honour (facts from pspdev/vfpu-docs, inst-vfpu-desc.yaml `prefix:`): for S and T
0 = ignored, 1 = swizzle only, 2 = full (swizzle, abs, constants, negate); for D 0 =
ignored, 1 = write mask only, 2 = full (saturation and mask). `pfx_single_only`: the
prefixes apply only to the .s form (the wider forms are sequences of .s operations).
"""

from dataclasses import dataclass

import numpy as np

SIZES = {"s": 1, "p": 2, "t": 3, "q": 4}


@dataclass(frozen=True)
class Row:
    id: int  # index into ROWS (what the interpreter switches on is `op`)
    mnemonic: str  # without size suffix
    size: int  # 1-4, or 0 for instructions without a size suffix
    mask: int
    match: int
    fmt: str  # operand syntax, see asm.py / disasm.py
    d: tuple | None
    s: tuple | None
    t: tuple | None
    pfx_s: int
    pfx_t: int
    pfx_d: int
    pfx_single_only: bool
    perf_class: str | None  # key of PERF_CLASSES
    op: int  # semantic operation number (same for every size of a mnemonic)

    @property
    def text_name(self) -> str:
        return f"{self.mnemonic}.{'_sptq'[self.size]}" if self.size else self.mnemonic

    def count(self, operand: str) -> int:
        """Element count of operand 'd'/'s'/'t' (matrix side for kind 'm')."""
        shape = getattr(self, operand)
        n = self.size or 1
        return {"n": n, "1": 1, "h": n // 2, "d": 2 * n, "4": 4, "m1": n - 1}[shape[1]]


# Issue throughput / latency in cycles per class; N is the element count (or matrix side).
# Facts measured on a PSP-3000 (vfpu-docs "perf classes"); the timing model reads these.
PERF_CLASSES = {
    "vfpu-branch": ("1", "4"),
    "vfpu-compare": ("1", "8"),
    "bit-manipulation": ("1", "3"),
    "arithmetic": ("1", "5"),
    "arithmetic-reduction": ("1", "7"),
    "transcendental": ("N", "N+6"),
    "transform": ("N", "N+6"),
    "random-draw": ("3*N", "3*N+2"),
    "matrix-init": ("N", "N+2"),
    "matrix-multiplication": ("N*N", "N*N+6"),
    "matrix-scaling": ("N", "N+4"),
    "rot-matrix": ("2", "8"),
    "division": ("14*N", "14*N+3"),
    "prefix": ("1", "1"),
}

V = lambda c: ("v", c)  # noqa: E731
M = lambda c: ("m", c)  # noqa: E731

# Prefix shorthands: (s, t, d, single_only)
P_STD = (2, 2, 2, False)
P_NONE = (0, 0, 0, False)


def _p(spec: str):
    """Prefix honour from the reference's notation: s/t/d full, S swizzle-only,
    D mask-only, a trailing 0 = only for the .s form, 'std' = all three."""
    if spec == "std":
        return P_STD
    s = 2 if "s" in spec else 1 if "S" in spec else 0
    t = 2 if "t" in spec else 0
    d = 2 if "d" in spec else 1 if "D" in spec else 0
    return (s, t, d, "0" in spec)


# (mnemonic, op9 or full match, sizes, fmt, d, s, t, prefix spec, perf class, extra match, extra mask, size encoding)
# size encoding: 'std' (bit 15 hi, bit 7 lo: s=00 p=01 t=10 q=11), 'm1' (n-1 encoded), None.
SPEC = []


def alu(mn, op9, sizes, fmt, d, s, t, pfx, perf, xmatch=0, xmask=0, senc="std"):
    SPEC.append((mn, op9 << 23, sizes, fmt, d, s, t, pfx, perf, xmatch, xmask | 0xFF800000, senc))


def unary(mn, sub, sizes, d=V("n"), s=V("n"), pfx="sd", perf="arithmetic", fmt="ds", rs_fixed=False):
    xmask = 0x7F << 16 | (0x7F << 8 if rs_fixed else 0)
    alu(mn, 0x1A0, sizes, fmt, d, s, None, pfx, perf, sub << 16, xmask)


def fixed(mn, word, fmt, d=None, s=None, t=None, pfx="", perf=None, mask=0xFFFFFFFF, sizes=""):
    SPEC.append((mn, word, sizes, fmt, d, s, t, pfx, perf, 0, mask, None))


# --- binary vector ops (0x18, 0x19, 0x1B) ---
alu("vadd", 0x0C0, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vsub", 0x0C1, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vsbn", 0x0C2, "s", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vdiv", 0x0C7, "sptq", "dst", V("n"), V("n"), V("n"), "s0t0d0", "division")
alu("vmul", 0x0C8, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vdot", 0x0C9, "ptq", "dst", V("1"), V("n"), V("n"), "std", "arithmetic-reduction")
# vscl: the reference lists "sd", but a real PSP applies a vpfxt constant to the scalar
# (pspautotests prefixes.expected: vpfxt [3, ...] then vscl.q gives 3 * x).
alu("vscl", 0x0CA, "ptq", "dst", V("n"), V("n"), V("1"), "std", "arithmetic")
alu("vhdp", 0x0CC, "ptq", "dst", V("1"), V("n"), V("n"), "td", "arithmetic-reduction")
alu("vcrs", 0x0CD, "t", "dst", V("n"), V("n"), V("n"), "d", "arithmetic")
alu("vdet", 0x0CE, "p", "dst", V("1"), V("n"), V("n"), "sd", "arithmetic-reduction")
alu("vcmp", 0x0D8, "sptq", "cmp", None, V("n"), V("n"), "st", "vfpu-compare", 0, 0x70)
alu("vmin", 0x0DA, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vmax", 0x0DB, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vscmp", 0x0DD, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vsge", 0x0DE, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")
alu("vslt", 0x0DF, "sptq", "dst", V("n"), V("n"), V("n"), "std", "arithmetic")

# --- unary group 0x34 (rt field is a sub-opcode) ---
unary("vmov", 0x00, "sptq", perf="bit-manipulation")
unary("vabs", 0x01, "sptq", pfx="Sd", perf="bit-manipulation")
unary("vneg", 0x02, "sptq", pfx="Sd", perf="bit-manipulation")
unary("vidt", 0x03, "pq", s=None, pfx="d", perf="bit-manipulation", fmt="d", rs_fixed=True)
unary("vsat0", 0x04, "sptq", pfx="sD", perf="bit-manipulation")
unary("vsat1", 0x05, "sptq", pfx="sD", perf="bit-manipulation")
unary("vzero", 0x06, "sptq", s=None, pfx="d", perf="bit-manipulation", fmt="d", rs_fixed=True)
unary("vone", 0x07, "sptq", s=None, pfx="d", perf="bit-manipulation", fmt="d", rs_fixed=True)
unary("vrcp", 0x10, "sptq", pfx="s0d0", perf="transcendental")
unary("vrsq", 0x11, "sptq", pfx="s0d0", perf="transcendental")
unary("vsin", 0x12, "sptq", pfx="s0d0", perf="transcendental")
unary("vcos", 0x13, "sptq", pfx="s0d0", perf="transcendental")
unary("vexp2", 0x14, "sptq", pfx="s0d0", perf="transcendental")
unary("vlog2", 0x15, "sptq", pfx="s0d0", perf="transcendental")
unary("vsqrt", 0x16, "sptq", pfx="s0d0", perf="transcendental")
unary("vasin", 0x17, "sptq", pfx="s0d0", perf="transcendental")
unary("vnrcp", 0x18, "sptq", pfx="d0", perf="transcendental")
unary("vnsin", 0x1A, "sptq", pfx="d0", perf="transcendental")
unary("vrexp2", 0x1C, "sptq", pfx="d0", perf="transcendental")
alu("vrnds", 0x1A0, "s", "s", None, V("n"), None, "", None, 0x20 << 16, 0x7F << 16 | 0x7F)
unary("vrndi", 0x21, "sptq", s=None, pfx="d0", perf="random-draw", fmt="d", rs_fixed=True)
unary("vrndf1", 0x22, "sptq", s=None, pfx="d0", perf="random-draw", fmt="d", rs_fixed=True)
unary("vrndf2", 0x23, "sptq", s=None, pfx="d0", perf="random-draw", fmt="d", rs_fixed=True)
unary("vf2h", 0x32, "pq", d=V("h"), pfx="sD")
unary("vh2f", 0x33, "sp", d=V("d"), pfx="d")
unary("vsbz", 0x36, "s")
unary("vlgb", 0x37, "s")
# The reference lists vc2i/vuc2i as .s; pspautotests hand-encodes them with .q size bits
# (0xD0398081) and real hardware runs that: both forms read a single, write a quad.
unary("vuc2i", 0x38, "sq", d=V("4"), s=V("1"), pfx="D", perf="bit-manipulation")
unary("vc2i", 0x39, "sq", d=V("4"), s=V("1"), pfx="D", perf="bit-manipulation")
unary("vus2i", 0x3A, "sp", d=V("d"), pfx="D", perf="bit-manipulation")
unary("vs2i", 0x3B, "sp", d=V("d"), pfx="D", perf="bit-manipulation")
unary("vi2uc", 0x3C, "q", d=V("1"), pfx="SD", perf="bit-manipulation")
unary("vi2c", 0x3D, "q", d=V("1"), pfx="SD", perf="bit-manipulation")
unary("vi2us", 0x3E, "pq", d=V("h"), pfx="SD", perf="bit-manipulation")
unary("vi2s", 0x3F, "pq", d=V("h"), pfx="SD", perf="bit-manipulation")
unary("vsrt1", 0x40, "q", pfx="d")
unary("vsrt2", 0x41, "q", pfx="d")
unary("vbfy1", 0x42, "pq", pfx="d")
unary("vbfy2", 0x43, "q", pfx="d")
unary("vocp", 0x44, "sptq", pfx="d")
unary("vsocp", 0x45, "sp", d=V("d"), pfx="")
unary("vfad", 0x46, "ptq", d=V("1"), perf="arithmetic-reduction")
unary("vavg", 0x47, "ptq", d=V("1"), perf="arithmetic-reduction")
unary("vsrt3", 0x48, "q", pfx="d")
unary("vsrt4", 0x49, "q", pfx="d")
unary("vsgn", 0x4A, "sptq")
unary("vt4444", 0x59, "q", d=V("h"), pfx="S", perf="bit-manipulation")
unary("vt5551", 0x5A, "q", d=V("h"), pfx="S", perf="bit-manipulation")
unary("vt5650", 0x5B, "q", d=V("h"), pfx="S", perf="bit-manipulation")
alu("vcst", 0x1A0, "sptq", "cst", V("n"), None, None, "d", "bit-manipulation", 0x60 << 16, 0x60 << 16 | 0x7F << 8)
for _i, _mn in enumerate(("vf2in", "vf2iz", "vf2iu", "vf2id")):
    alu(_mn, 0x1A4, "sptq", "dsi5", V("n"), V("n"), None, "sD", "arithmetic", _i << 21, 3 << 21)
alu("vi2f", 0x1A5, "sptq", "dsi5", V("n"), V("n"), None, "Sd", "arithmetic", 0, 3 << 21)
alu("vcmovt", 0x1A5, "sptq", "cmov", V("n"), V("n"), None, "s", "arithmetic", 1 << 21, 0xF << 19)
alu("vcmovf", 0x1A5, "sptq", "cmov", V("n"), V("n"), None, "s", "arithmetic", 1 << 21 | 1 << 19, 0xF << 19)
SPEC.append(("vwbn", 0xD3000000, "s", "wbn", V("n"), V("n"), None, "sd", "arithmetic", 0, 0xFF000000, "std"))
# vmfvc/vmtvc: control register number 128-143 in an 8-bit field.
fixed("vmfvc", 0xD0508000, "vc", d=V("1"), mask=0xFFFFF080, perf="bit-manipulation")
fixed("vmtvc", 0xD0510080, "cv", s=V("1"), mask=0xFFFF80F0, perf="bit-manipulation")

# --- prefixes and immediates (0x37) ---
fixed("vpfxs", 0xDC000000, "pfxs", mask=0xFF000000, perf="prefix")
fixed("vpfxt", 0xDD000000, "pfxt", mask=0xFF000000, perf="prefix")
fixed("vpfxd", 0xDE000000, "pfxd", mask=0xFF000000, perf="prefix")
SPEC.append(("viim", 0xDF000000, "s", "iim", V("n"), None, None, "d", "arithmetic", 0, 0xFF800000, None))
SPEC.append(("vfim", 0xDF800000, "s", "fim", V("n"), None, None, "d", "arithmetic", 0, 0xFF800000, None))

# --- matrix group 0x3C ---
alu("vmmul", 0x1E0, "ptq", "dst", M("n"), M("n"), M("n"), "", "matrix-multiplication")
for _k, _sz in ((1, "p"), (2, "t"), (3, "q")):
    alu(f"vtfm{_k + 1}", 0x1E0 + _k, _sz, "dst", V("n"), M("n"), V("n"), "", "transform")
    # vhtfm: size bits hold n-1, but rt is named and addressed as an n-vector whose last
    # lane is unused (vfpu-bugs.c: "vhtfm2.p R400, M000, R100" reads S100, S110).
    alu(f"vhtfm{_k + 1}", 0x1E0 + _k, _sz, "dst", V("n"), M("n"), V("n"), "", "transform", senc="m1")
alu("vmscl", 0x1E4, "ptq", "dst", M("n"), M("n"), V("1"), "", "matrix-scaling")
alu("vcrsp", 0x1E5, "t", "dst", V("n"), V("n"), V("n"), "", "transform")
alu("vqmul", 0x1E5, "q", "dst", V("n"), V("n"), V("n"), "", "transform")
alu("vmmov", 0x1E7, "ptq", "ds", M("n"), M("n"), None, "", "matrix-init", 0, 0x7F << 16)
for _sub, _mn in ((3, "vmidt"), (6, "vmzero"), (7, "vmone")):
    alu(_mn, 0x1E7, "ptq", "d", M("n"), None, None, "", "matrix-init", _sub << 16, 0x7F << 16 | 0x7F << 8)
alu("vrot", 0x1E7, "ptq", "rot", V("n"), V("1"), None, "", "rot-matrix", 0x20 << 16, 0x60 << 16)

# --- specials (0x3F) ---
fixed("vnop", 0xFFFF0000, "none")
fixed("vsync", 0xFFFF0320, "none")
fixed("vflush", 0xFFFF040D, "none")

# --- COP2 moves and branches ---
fixed("mfv", 0x48600000, "gv", d=None, s=V("1"), mask=0xFFE0FF80)
fixed("mfvc", 0x48600080, "gc", mask=0xFFE0FFF0)
fixed("mtv", 0x48E00000, "gv", d=V("1"), mask=0xFFE0FF80)
fixed("mtvc", 0x48E00080, "gc", mask=0xFFE0FFF0)
for _mn, _bits in (("bvf", 0), ("bvt", 1), ("bvfl", 2), ("bvtl", 3)):
    fixed(_mn, 0x49000000 | _bits << 16, "br", mask=0xFFE30000, perf="vfpu-branch")

# --- loads and stores ---
fixed("lv.s", 0xC8000000, "mems", d=V("1"), mask=0xFC000000)
fixed("sv.s", 0xE8000000, "mems", s=V("1"), mask=0xFC000000)
fixed("lv.q", 0xD8000000, "memq", d=V("4"), mask=0xFC000000)  # bit 1: ", wb" (cache write-back hint)
fixed("sv.q", 0xF8000000, "memq", s=V("4"), mask=0xFC000000)
fixed("lvl.q", 0xD4000000, "memlr", d=V("4"), mask=0xFC000002)
fixed("lvr.q", 0xD4000002, "memlr", d=V("4"), mask=0xFC000002)
fixed("svl.q", 0xF4000000, "memlr", s=V("4"), mask=0xFC000002)
fixed("svr.q", 0xF4000002, "memlr", s=V("4"), mask=0xFC000002)


def _size_bits(n: int, senc: str | None) -> tuple[int, int]:
    if senc is None:
        return 0, 0
    code = n - 1 if senc == "std" else n - 2
    return ((code & 2) << 14) | ((code & 1) << 7), 0x8080


def _build():
    rows, ops = [], {}
    for mn, base, sizes, fmt, d, s, t, pfx, perf, xmatch, xmask, senc in SPEC:
        op = ops.setdefault(mn, len(ops))
        ps, pt, pd, single = _p(pfx) if pfx else P_NONE
        for ch in sizes or "_":
            n = SIZES.get(ch, 0)
            sbits, smask = _size_bits(n, senc) if n else (0, 0)
            if senc is None:
                sbits, smask = 0, 0
            mask = (xmask | smask) & 0xFFFFFFFF
            match = (base | xmatch | sbits) & mask
            rows.append(Row(len(rows), mn, n, mask, match, fmt, d, s, t, ps, pt, pd, single, perf, op))
    return rows, ops


ROWS, OPS = _build()
BY_NAME = {r.text_name: r for r in ROWS}


def _check_disjoint():
    for i, a in enumerate(ROWS):
        for b in ROWS[i + 1:]:
            common = a.mask & b.mask
            if (a.match & common) == (b.match & common):
                raise AssertionError(f"VFPU table rows overlap: {a.text_name} / {b.text_name}")


_check_disjoint()


def find(word: int) -> Row | None:
    """The row that decodes `word`, or None."""
    top = word >> 16
    for rid in LUT_ROWS[LUT_START[top]:LUT_START[top + 1]]:
        r = ROWS[rid]
        if word & r.mask == r.match:
            return r
    return None


def _lut():
    """Candidate rows per top 16 bits of the word (CSR layout), for fast decoding."""
    tops = np.arange(65536, dtype=np.int64)
    buckets = [[] for _ in range(65536)]
    for r in ROWS:
        hit = np.nonzero((tops & (r.mask >> 16)) == (r.match >> 16))[0]
        for h in hit:
            buckets[h].append(r.id)
    start = np.zeros(65537, dtype=np.int32)
    start[1:] = np.cumsum([len(b) for b in buckets])
    flat = np.array([x for b in buckets for x in b], dtype=np.int32)
    return start, flat


LUT_START, LUT_ROWS = _lut()

# Per-row arrays for the numba interpreter.
_SHAPE_CODE = {"n": 0, "1": 1, "h": 2, "d": 3, "4": 4, "m1": 5}
ROW_MASK = np.array([r.mask for r in ROWS], dtype=np.uint32)
ROW_MATCH = np.array([r.match for r in ROWS], dtype=np.uint32)
ROW_OP = np.array([r.op for r in ROWS], dtype=np.int32)
ROW_SIZE = np.array([r.size for r in ROWS], dtype=np.int32)
ROW_DN = np.array([r.count("d") if r.d else 0 for r in ROWS], dtype=np.int32)
ROW_SN = np.array([r.count("s") if r.s else 0 for r in ROWS], dtype=np.int32)
ROW_TN = np.array([r.count("t") if r.t else 0 for r in ROWS], dtype=np.int32)
ROW_PFX = np.array([r.pfx_s | r.pfx_t << 2 | r.pfx_d << 4 | int(r.pfx_single_only) << 6 for r in ROWS],
                   dtype=np.int32)
