"""Vertex decoding: one vertex of the VERTEXTYPE format from guest memory.

A vertex holds, in this order and each aligned to its own element size: skinning
weights, texture coordinates, colour, normal, position; the whole vertex is padded to
its largest element, and with morphing the block repeats once per morph target.
Fixed-point values are scaled as the GE does (s8 / 128, s16 / 32768, u8 / 128,
u16 / 32768) except in through mode, where 16-bit positions and texture coordinates
are screen pixels and texels (8-bit through-mode positions read as 0). Morph targets
are summed with the MORPHWEIGHT values; skinning blends up to 8 bone matrices with the
vertex's weights (position and normal).

`decode` fills a float64[V_SIZE] record: model position (or screen position in through
mode), texture coordinates, colour RGBA 0-255, normal.
"""

import numpy as np
from numba import njit

from allegrex.ge.state import BONES
from allegrex.memory import translate
from allegrex.ge.regs import MORPHWEIGHT0

V_X, V_Y, V_Z = 0, 1, 2
V_S, V_T = 3, 4
V_R, V_G, V_B, V_A = 5, 6, 7, 8
V_NX, V_NY, V_NZ = 9, 10, 11
V_SIZE = 12

# element size and alignment by format code (0 = absent)
TC_SIZE = (0, 2, 4, 8)
TC_ALIGN = (0, 1, 2, 4)
COLOR_SIZE = (0, 0, 0, 0, 2, 2, 2, 4)
NORMAL_SIZE = (0, 3, 6, 12)
NORMAL_ALIGN = (0, 1, 2, 4)
POS_SIZE = (3, 3, 6, 12)
POS_ALIGN = (1, 1, 2, 4)
WEIGHT_SIZE = (0, 1, 2, 4)
# _scalar's signedness as numpy bools: a literal True/False would have numba compile it once per value
UNSIGNED, SIGNED = np.bool_(False), np.bool_(True)

# layout record (int64[L_SIZE]) built by `layout`
L_STRIDE, L_ONE, L_WEIGHT, L_TC, L_COLOR, L_NORMAL, L_POS, L_ALIGN = 0, 1, 2, 3, 4, 5, 6, 7
L_SIZE = 8


@njit(cache=True, error_model="numpy")
def fields(vtype):
    """(tc, color, normal, pos, weight, index, weights, morphs, through) codes of a VERTEXTYPE."""
    return (vtype & 3, (vtype >> 2) & 7, (vtype >> 5) & 3, (vtype >> 7) & 3, (vtype >> 9) & 3,
            (vtype >> 11) & 3, ((vtype >> 14) & 7) + 1, ((vtype >> 18) & 7) + 1, (vtype >> 23) & 1)


@njit(cache=True, error_model="numpy")
def _align(n, a):
    return (n + a - 1) & ~(a - 1) if a > 1 else n


@njit(cache=True, error_model="numpy")
def layout(vtype):
    """Byte offsets of each element, the size of one morph target and the vertex stride."""
    tc, col, nrm, pos, wt, _idx, nweights, morphs, _through = fields(vtype)
    out = np.zeros(L_SIZE, dtype=np.int64)
    size = 0
    biggest = 1
    if wt:
        out[L_WEIGHT] = 0
        size += WEIGHT_SIZE[wt] * nweights
        biggest = max(biggest, WEIGHT_SIZE[wt])
    if tc:
        size = _align(size, TC_ALIGN[tc])
        out[L_TC] = size
        size += TC_SIZE[tc]
        biggest = max(biggest, TC_ALIGN[tc])
    if col:
        size = _align(size, COLOR_SIZE[col])
        out[L_COLOR] = size
        size += COLOR_SIZE[col]
        biggest = max(biggest, COLOR_SIZE[col])
    if nrm:
        size = _align(size, NORMAL_ALIGN[nrm])
        out[L_NORMAL] = size
        size += NORMAL_SIZE[nrm]
        biggest = max(biggest, NORMAL_ALIGN[nrm])
    size = _align(size, POS_ALIGN[pos])
    out[L_POS] = size
    size += POS_SIZE[pos]
    biggest = max(biggest, POS_ALIGN[pos])
    size = _align(size, biggest)
    out[L_ONE] = size
    out[L_STRIDE] = size * morphs
    out[L_ALIGN] = biggest
    return out


@njit(cache=True, error_model="numpy")
def _s8(mem, off):
    v = np.int64(mem[off])
    return v - 256 if v >= 128 else v


@njit(cache=True, error_model="numpy")
def _u16(mem, off):
    return np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8)


@njit(cache=True, error_model="numpy")
def _s16(mem, off):
    v = _u16(mem, off)
    return v - 65536 if v >= 32768 else v


@njit(cache=True, error_model="numpy")
def _f32(mem, off):
    bits = np.uint32(np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8) | (np.int64(mem[off + 2]) << 16)
                     | (np.int64(mem[off + 3]) << 24))
    return np.float64(np.array([bits], dtype=np.uint32).view(np.float32)[0])


@njit(cache=True, error_model="numpy")
def _scalar(mem, off, code, scale8, scale16, signed):
    """One element of format code 1 (8-bit), 2 (16-bit) or 3 (float)."""
    if code == 1:
        return (_s8(mem, off) if signed else np.float64(mem[off])) * scale8
    if code == 2:
        return (_s16(mem, off) if signed else _u16(mem, off)) * scale16
    v = _f32(mem, off)
    if v != v or v > 3.4e38 or v < -3.4e38:
        return 0.0  # NaN/inf read as 0 (the GE's float path has no specials that survive drawing)
    return v


@njit(cache=True, error_model="numpy")
def _color(mem, off, code, rgba):
    """Expand a 565/5551/4444/8888 colour to 0-255 components (bit replication)."""
    if code == 7:
        for i in range(4):
            rgba[i] = mem[off + i]
        return
    c = _u16(mem, off)
    if code == 4:
        r, g, b = c & 0x1F, (c >> 5) & 0x3F, (c >> 11) & 0x1F
        rgba[0], rgba[1], rgba[2], rgba[3] = (r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2), 255
    elif code == 5:
        r, g, b = c & 0x1F, (c >> 5) & 0x1F, (c >> 10) & 0x1F
        rgba[0], rgba[1], rgba[2] = (r << 3) | (r >> 2), (g << 3) | (g >> 2), (b << 3) | (b >> 2)
        rgba[3] = 255 if c >> 15 else 0
    else:
        rgba[0], rgba[1], rgba[2], rgba[3] = (c & 0xF) * 17, ((c >> 4) & 0xF) * 17, ((c >> 8) & 0xF) * 17, (c >> 12) * 17


@njit(cache=True, error_model="numpy")
def morph_weights(cmds, morphs):
    w = np.zeros(8, dtype=np.float64)
    bits = np.zeros(1, dtype=np.uint32)
    for i in range(morphs):
        bits[0] = (cmds[MORPHWEIGHT0 + i] & 0xFFFFFF) << 8
        w[i] = bits.view(np.float32)[0]
    return w


@njit(cache=True, error_model="numpy")
def decode(mem, ram_size, mapping, mtx, vtype, lay, mweights, addr, out):
    """Decode the vertex at guest `addr` into out[V_*]; False if it lies outside memory."""
    tc, col, nrm, pos, wt, _idx, nweights, morphs, through = fields(vtype)
    base = translate(addr, 1, ram_size, mapping)
    last = translate(addr + lay[L_STRIDE] - 1, 1, ram_size, mapping)
    if base < 0 or last < 0 or last - base != lay[L_STRIDE] - 1:
        return False
    if through:
        morphs = 1  # through mode reads the first target (positions and coordinates are not blended)
    one = lay[L_ONE]
    for i in range(V_SIZE):
        out[i] = 0.0
    if tc:
        for m in range(morphs):
            w = 1.0 if morphs == 1 else mweights[m]
            off = base + m * one + lay[L_TC]
            step = TC_SIZE[tc] // 2
            if through and tc == 2:
                out[V_S] += _u16(mem, off) * w
                out[V_T] += _u16(mem, off + 2) * w
            else:
                out[V_S] += _scalar(mem, off, tc, 1.0 / 128, 1.0 / 32768, UNSIGNED) * w
                out[V_T] += _scalar(mem, off + step, tc, 1.0 / 128, 1.0 / 32768, UNSIGNED) * w
    if col:
        rgba = np.zeros(4, dtype=np.int64)
        for m in range(((vtype >> 18) & 7) + 1):
            w = 1.0 if morphs == 1 else mweights[m]
            _color(mem, base + m * one + lay[L_COLOR], col, rgba)
            for i in range(4):
                out[V_R + i] += rgba[i] * w
        for i in range(4):
            out[V_R + i] = min(255.0, max(0.0, np.floor(out[V_R + i])))
    if nrm:
        step = NORMAL_SIZE[nrm] // 3
        for m in range(morphs):
            w = 1.0 if morphs == 1 else mweights[m]
            off = base + m * one + lay[L_NORMAL]
            for i in range(3):
                out[V_NX + i] += _scalar(mem, off + i * step, nrm, 1.0 / 128, 1.0 / 32768, SIGNED) * w
    step = POS_SIZE[pos] // 3
    for m in range(morphs):
        w = 1.0 if morphs == 1 else mweights[m]
        off = base + m * one + lay[L_POS]
        if through:
            if pos == 2:
                out[V_X] = _s16(mem, off)
                out[V_Y] = _s16(mem, off + 2)
                out[V_Z] = _u16(mem, off + 4)
            elif pos == 3:
                out[V_X] = _f32(mem, off)
                out[V_Y] = _f32(mem, off + 4)
                out[V_Z] = min(65535.0, max(0.0, _f32(mem, off + 8)))
            # 8-bit through-mode positions read as 0
        else:
            for i in range(3):
                out[V_X + i] += _scalar(mem, off + i * step, pos, 1.0 / 128, 1.0 / 32768, SIGNED) * w
    if wt and not through:
        _skin(mem, base, mtx, wt, nweights, out, nrm != 0)
    return True


@njit(cache=True, error_model="numpy")
def _skin(mem, base, mtx, wt, nweights, out, has_normal):
    """Blend the bone matrices by the vertex's weights and apply them to position and normal."""
    m = np.zeros(12, dtype=np.float64)
    for j in range(nweights):
        w = _scalar(mem, base + j * WEIGHT_SIZE[wt], wt, 1.0 / 128, 1.0 / 32768, UNSIGNED)
        if w != 0.0:
            for i in range(12):
                m[i] += w * mtx[BONES + 12 * j + i]
    x, y, z = out[V_X], out[V_Y], out[V_Z]
    for r in range(3):
        out[V_X + r] = m[r] * x + m[3 + r] * y + m[6 + r] * z + m[9 + r]
    if has_normal:
        nx, ny, nz = out[V_NX], out[V_NY], out[V_NZ]
        for r in range(3):
            out[V_NX + r] = m[r] * nx + m[3 + r] * ny + m[6 + r] * nz


@njit(cache=True, error_model="numpy")
def index_at(mem, ram_size, mapping, vtype, iaddr, i):
    """Vertex number i of an indexed draw (8/16/32-bit indices), or -1 outside memory."""
    code = (vtype >> 11) & 3
    if code == 0:
        return i
    size = 1 << (code - 1)
    off = translate(iaddr + i * size, size, ram_size, mapping)
    if off < 0:
        return -1
    if code == 1:
        return np.int64(mem[off])
    if code == 2:
        return _u16(mem, off)
    return _u16(mem, off) | (_u16(mem, off + 2) << 16)
