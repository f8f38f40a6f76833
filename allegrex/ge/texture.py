"""Texture sampling: texel decode for every format, mip levels and LOD, wrap/clamp,
nearest/bilinear filtering with the GE's fixed-point weights, the CLUT, and the texture
functions that combine a texel with the primitive's colour.

Entry points (numba; ge-core's rasterizer calls them):
- `load_clut(mem, ram_size, mapping, cmds, clut)`: LOADCLUT.
- `prepare(cmds, clut, ram_size) -> int32[TEX_WORDS]`: the texture settings decoded once
  per primitive (format, levels with address/buffer width/size and, when a level lies in
  plain memory, its offset there, CLUT mode, wrap, filters, LOD mode) and, for CLUT
  formats, the CLUT decoded to RGBA8888 (so prepare after the last LOADCLUT before the
  primitive).
- `sample_prepared(mem, ram_size, mapping, tex, u, v, lod) -> RGBA8888`: one filtered texel.
  `u`, `v` are normalized (1.0 = the level-0 width/height). `lod` is the GE's level of
  detail as the raster measures it, in levels: `gelog2` of the larger of |du/dx| and
  |dv/dy| in level-0 texels (TEXLEVEL auto), or `gelog2(2 * w * TEXLODSLOPE)` with the
  pixel's clip w (slope mode); the sampler ignores it in const mode and adds the bias.
- `sample(mem, ram_size, mapping, cmds, clut, u, v, lod)`: the same from `cmds` directly
  (allocates and decodes the packed form on every call: for tests and one-off use).
- `gelog2(x)`: the GE's log2 (exponent plus 4 mantissa bits, in 1/16 steps).
- `combine(cmds, prim_rgba, tex_rgba) -> RGBA8888`: TEXFUNC.

Colours are RGBA8888 with red in the low byte. A texel whose address is outside guest
memory reads as 0 (transparent black), as PPSSPP's software renderer does; the PSP's
behaviour there is unknown.
"""

import math

import numpy as np
from numba import njit

from allegrex.ge import regs
from allegrex.ge.colors import from16
from allegrex.ge.direct import plain_offset
from allegrex.memory import translate

# TEXFORMAT values
TF_5650, TF_5551, TF_4444, TF_8888 = 0, 1, 2, 3
TF_CLUT4, TF_CLUT8, TF_CLUT16, TF_CLUT32 = 4, 5, 6, 7
TF_DXT1, TF_DXT3, TF_DXT5 = 8, 9, 10

# TEXFUNC values (bits 0-2); 5-7 act as ADD
TFX_MODULATE, TFX_DECAL, TFX_BLEND, TFX_REPLACE, TFX_ADD = 0, 1, 2, 3, 4

# TEXLEVEL modes (bits 0-1); 3 acts as CONST
LOD_AUTO, LOD_CONST, LOD_SLOPE = 0, 1, 2

CLUT_BYTES = 1024  # the GE's on-chip palette

# Packed form (prepare): one int32 per field, then 4 per mip level.
P_FMT = 0
P_SWIZZLE = 1
P_MAXLEVEL = 2  # 0 unless TEXFILTER selects a mipmap mode
P_CLUT_PER_LEVEL = 3  # CLUT4 with a separate 16-entry palette per level
P_CLUT_FMT = 4
P_CLUT_SHIFT = 5
P_CLUT_MASK = 6
P_CLUT_START = 7
P_CLAMP_S = 8
P_CLAMP_T = 9
P_MIN_LINEAR = 10
P_MIP_LINEAR = 11
P_MAG_LINEAR = 12
P_LOD_MODE = 13
P_LOD_BIAS = 14  # signed, 4 fraction bits
P_READ_FIRST, P_READ_END = 15, 16  # the offsets in `mem` every texel read lies between, or -1 (some level not direct)
P_LEVELS = 17
L_ADDR, L_BUFW, L_WSHIFT, L_HSHIFT = 0, 1, 2, 3
L_DIRECT = 4  # the level's offset in `mem` when every texel it can reach is in plain memory, else -1
LEVEL_WORDS = 5
P_PALETTE = P_LEVELS + 8 * LEVEL_WORDS  # the CLUT decoded to RGBA8888 (512 entries)
TEX_WORDS = P_PALETTE + 512

# constants passed to called (not inlined) functions as int64, not literals: numba would
# compile the function again for each literal value
LEVEL0 = np.int64(0)  # mip level 0
ONE_BYTE, TWO_BYTES, FOUR_BYTES = np.int64(1), np.int64(2), np.int64(4)  # read_le sizes

BITS_PER_TEXEL = np.array([16, 16, 16, 32, 4, 8, 16, 32, 4, 8, 8, 0, 0, 0, 0, 0], dtype=np.int64)


# ---------------------------------------------------------------- CLUT


@njit(cache=True)
def load_clut(mem, ram_size, mapping, cmds, clut):
    """LOADCLUT: copy (argument & 0x3F) blocks of 32 bytes from CLUTADDR (16-byte
    aligned, bits 24-27 from CLUTADDRUPPER) into `clut`, at most its 1024 bytes. Bytes
    outside guest memory load as 0 (pspautotests gpu/clut/address: a CLUT loaded from
    past the end of VRAM reads as black)."""
    addr = (np.int64(cmds[regs.CLUTADDR]) & 0xFFFFF0) | ((np.int64(cmds[regs.CLUTADDRUPPER]) << 8) & 0x0F000000)
    size = (np.int64(cmds[regs.LOADCLUT]) & 0x3F) * 32
    if size > CLUT_BYTES:
        size = CLUT_BYTES
    for i in range(size):
        off = translate(addr + i, 1, ram_size, mapping)
        clut[i] = mem[off] if off >= 0 else 0


@njit(cache=True, inline="always")
def clut_color(tex, index, level):
    """The palette colour for a raw texel index: CLUTFORMAT's shift, mask and start
    (start wraps inside the 1024-byte CLUT), per-level palettes for CLUT4; from the
    palette `prepare` decoded."""
    i = ((index >> tex[P_CLUT_SHIFT]) & tex[P_CLUT_MASK]) | tex[P_CLUT_START]
    if tex[P_CLUT_PER_LEVEL]:
        i += level * 16
    i &= 0xFF if tex[P_CLUT_FMT] == 3 else 0x1FF
    return np.int64(tex[P_PALETTE + i]) & 0xFFFFFFFF


@njit(cache=True)
def decode_palette(clut, clut_fmt, tex):
    """The CLUT as RGBA8888 entries into tex[P_PALETTE:]: 256 of 8888 or 512 of 16-bit."""
    if clut_fmt == 3:
        for i in range(256):
            c = np.int64(clut[4 * i]) | (np.int64(clut[4 * i + 1]) << 8) | (np.int64(clut[4 * i + 2]) << 16) | (np.int64(clut[4 * i + 3]) << 24)
            tex[P_PALETTE + i] = np.int32(np.uint32(c))
    else:
        for i in range(512):
            c = from16(clut_fmt, np.int64(clut[2 * i]) | (np.int64(clut[2 * i + 1]) << 8))
            tex[P_PALETTE + i] = np.int32(np.uint32(c))


# ---------------------------------------------------------------- memory


@njit(cache=True)  # a call: only textures outside plain memory and DXT blocks come here
def read_le(mem, ram_size, mapping, addr, size):
    """Little-endian unsigned value of `size` bytes (1, 2 or 4, aligned) at guest `addr`;
    0 outside guest memory."""
    off = translate(addr, size, ram_size, mapping)
    if off < 0:
        return 0
    return le_bytes(mem, off, size)


@njit(cache=True, inline="always")
def le_bytes(mem, off, size):
    """Little-endian unsigned value of the `size` bytes (1, 2 or 4) at mem[off]."""
    if size == 1:
        return np.int64(mem[off])
    if size == 2:
        return np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8)
    return np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8) | (np.int64(mem[off + 2]) << 16) | (np.int64(mem[off + 3]) << 24)


@njit(cache=True, inline="always")
def read_texel(mem, ram_size, mapping, direct, addr, offset, size):
    """`read_le` of the `size` bytes at `offset` in a level at `addr`: straight from `mem`
    when the level lies in plain memory (`direct` >= 0, its offset there)."""
    if direct >= 0:
        return le_bytes(mem, direct + offset, size)
    return read_le(mem, ram_size, mapping, addr + offset, size)


@njit(cache=True, inline="always")
def direct_color(mem, ram_size, mapping, fmt, direct, addr, bufw, swizzle, u, v):
    """RGBA8888 of texel (u, v) of a direct-colour (5650/5551/4444/8888) level at `addr`
    (`direct` its offset in `mem` or -1, as read_texel takes it): one read for both widths."""
    bits = 32 if fmt == TF_8888 else 16
    raw = read_texel(mem, ram_size, mapping, direct, addr, texel_byte_offset(u, v, bufw, bits, swizzle), bits >> 3)
    return raw if fmt == TF_8888 else from16(fmt, raw)


@njit(cache=True, inline="always")
def color_texel(mem, fmt, direct, bufw, swizzle, u, v):
    """RGBA8888 of texel (u, v) of a direct-colour (5650/5551/4444/8888) level at
    offset `direct` of `mem` (in plain memory)."""
    if fmt == TF_8888:
        return le_bytes(mem, direct + texel_byte_offset(u, v, bufw, 32, swizzle), 4)
    return from16(fmt, le_bytes(mem, direct + texel_byte_offset(u, v, bufw, 16, swizzle), 2))


@njit(cache=True, inline="always")
def texel_byte_offset(u, v, bufw, bits, swizzle):
    """Byte offset of texel (u, v) from the level's base. Swizzled textures are stored
    as 16-byte x 8-row blocks, row of blocks after row of blocks."""
    row_bytes = (bufw * bits) >> 3
    xb = (u * bits) >> 3
    if not swizzle:
        return v * row_bytes + xb
    return (v >> 3) * row_bytes * 8 + (xb >> 4) * 128 + (v & 7) * 16 + (xb & 15)


# ---------------------------------------------------------------- DXT


@njit(cache=True, inline="always")
def dxt_color(mem, ram_size, mapping, block, x, y):
    """RGB of texel (x, y) of a DXT colour block (PSP layout: 4 row bytes of 2-bit
    indices, then colour 0 and colour 1 as 565), and whether it is the transparent
    black of a 3-colour block. Channels expand by a plain shift (no bit replication)."""
    c0 = read_le(mem, ram_size, mapping, block + 4, TWO_BYTES)
    c1 = read_le(mem, ram_size, mapping, block + 6, TWO_BYTES)
    row = read_le(mem, ram_size, mapping, block + y, ONE_BYTE)
    index = (row >> (2 * x)) & 3
    r0, g0, b0 = (c0 >> 8) & 0xF8, (c0 >> 3) & 0xFC, (c0 << 3) & 0xF8
    r1, g1, b1 = (c1 >> 8) & 0xF8, (c1 >> 3) & 0xFC, (c1 << 3) & 0xF8
    if index == 0:
        r, g, b = r0, g0, b0
    elif index == 1:
        r, g, b = r1, g1, b1
    elif c0 > c1:
        if index == 2:
            r, g, b = (2 * r0 + r1) // 3, (2 * g0 + g1) // 3, (2 * b0 + b1) // 3
        else:
            r, g, b = (r0 + 2 * r1) // 3, (g0 + 2 * g1) // 3, (b0 + 2 * b1) // 3
    elif index == 2:
        r, g, b = (r0 + r1) // 2, (g0 + g1) // 2, (b0 + b1) // 2
    else:
        return 0, True
    return (b << 16) | (g << 8) | r, False


@njit(cache=True, inline="always")
def dxt5_alpha(mem, ram_size, mapping, block, x, y):
    """Alpha of texel (x, y) of a DXT5 block: 48 bits of 3-bit indices at +8 (low 32
    bits, then high 16), alpha 0 at +14 and alpha 1 at +15; 8-step or 6-step ramps
    rounded in 8.8 fixed point as the GE does."""
    lo = read_le(mem, ram_size, mapping, block + 8, FOUR_BYTES)
    hi = read_le(mem, ram_size, mapping, block + 12, TWO_BYTES)
    a0 = read_le(mem, ram_size, mapping, block + 14, ONE_BYTE)
    a1 = read_le(mem, ram_size, mapping, block + 15, ONE_BYTE)
    bits = lo | (hi << 32)
    index = (bits >> (y * 12 + x * 3)) & 7
    if index == 0:
        return a0
    if index == 1:
        return a1
    n = index - 1
    if a0 > a1:
        return ((a0 * ((7 - n) << 8)) // 7 + (a1 * (n << 8)) // 7 + 31) >> 8
    if index == 6:
        return 0
    if index == 7:
        return 255
    return ((a0 * ((5 - n) << 8)) // 5 + (a1 * (n << 8)) // 5 + 31) >> 8


# ---------------------------------------------------------------- texel fetch


@njit(cache=True)
def fetch_dxt(mem, ram_size, mapping, fmt, addr, bufw, u, v):
    """RGBA8888 of texel (u, v) of a DXT1/3/5 texture: 4x4 blocks, bufw / 4 per row."""
    if fmt > TF_DXT5:
        return 0
    block_bytes = 8 if fmt == TF_DXT1 else 16
    block = addr + ((v >> 2) * (bufw >> 2) + (u >> 2)) * block_bytes
    x = u & 3
    y = v & 3
    rgb, transparent = dxt_color(mem, ram_size, mapping, block, x, y)
    if fmt == TF_DXT1:
        return rgb if transparent else rgb | 0xFF000000
    if fmt == TF_DXT3:
        alpha = (read_le(mem, ram_size, mapping, block + 8 + 2 * y, TWO_BYTES) >> (4 * x)) & 0xF
        return rgb | (alpha << 28)
    return rgb | (dxt5_alpha(mem, ram_size, mapping, block, x, y) << 24)


@njit(cache=True, inline="always")
def clut_index(mem, ram_size, mapping, fmt, swizzle, direct, addr, bufw, u, v):
    """The raw palette index of texel (u, v) of a CLUT4/8/16/32 texture (one read for
    every width: each inlined read costs compile time)."""
    bits = BITS_PER_TEXEL[fmt]
    raw = read_texel(mem, ram_size, mapping, direct, addr, texel_byte_offset(u, v, bufw, bits, swizzle),
                     max(bits >> 3, 1))
    if fmt == TF_CLUT4:
        return (raw >> ((u & 1) * 4)) & 0xF
    return raw


@njit(cache=True)
def fetch_clut(mem, ram_size, mapping, tex, level, direct, addr, bufw, u, v):
    """RGBA8888 of texel (u, v) of a CLUT4/8/16/32 texture: the index, then the CLUT."""
    index = clut_index(mem, ram_size, mapping, tex[P_FMT], tex[P_SWIZZLE], direct, addr, bufw, u, v)
    return clut_color(tex, index, level)


@njit(cache=True)
def fetch_clut4(mem, ram_size, mapping, tex, level, xa, xb, ya, yb):
    """The 2x2 texels of a bilinear sample of a CLUT texture (one format dispatch)."""
    fmt = tex[P_FMT]
    swizzle = tex[P_SWIZZLE]
    base = P_LEVELS + level * LEVEL_WORDS
    addr = tex[base + L_ADDR]
    bufw = tex[base + L_BUFW]
    d = tex[base + L_DIRECT]
    return (clut_color(tex, clut_index(mem, ram_size, mapping, fmt, swizzle, d, addr, bufw, xa, ya), level),
            clut_color(tex, clut_index(mem, ram_size, mapping, fmt, swizzle, d, addr, bufw, xb, ya), level),
            clut_color(tex, clut_index(mem, ram_size, mapping, fmt, swizzle, d, addr, bufw, xa, yb), level),
            clut_color(tex, clut_index(mem, ram_size, mapping, fmt, swizzle, d, addr, bufw, xb, yb), level))


@njit(cache=True, inline="always")
def fetch(mem, ram_size, mapping, tex, level, u, v):
    """RGBA8888 of texel (u, v) (already wrapped or clamped) of mip `level`. Direct
    colours are decoded here; CLUT and DXT formats in their own functions (kept out of
    line so the common path stays small)."""
    fmt = tex[P_FMT]
    base = P_LEVELS + level * LEVEL_WORDS
    addr = tex[base + L_ADDR]
    bufw = tex[base + L_BUFW]
    direct = tex[base + L_DIRECT]
    if fmt <= TF_8888:
        return direct_color(mem, ram_size, mapping, fmt, direct, addr, bufw, tex[P_SWIZZLE], u, v)
    if fmt <= TF_CLUT32:
        return fetch_clut(mem, ram_size, mapping, tex, level, direct, addr, bufw, u, v)
    return fetch_dxt(mem, ram_size, mapping, fmt, addr, bufw, u, v)


# ---------------------------------------------------------------- settings


@njit(cache=True)
def level_extent(bufw, wshift, hshift, bits, swizzle):
    """Bytes from a level's address to the end of the last texel wrapping or clamping
    can reach (up to 512 x 512): offsets grow with u and v in both layouts."""
    last_u = min(1 << wshift, 512) - 1
    last_v = min(1 << hshift, 512) - 1
    return texel_byte_offset(last_u, last_v, bufw, bits, swizzle) + max(bits >> 3, 1)


@njit(cache=True)
def prepare_into(cmds, clut, tex, ram_size):
    """Fill `tex` (int32[TEX_WORDS]) with the texture settings of `cmds` and, for CLUT
    formats, the palette in `clut` decoded."""
    fmt = np.int64(cmds[regs.TEXFORMAT]) & 0xF
    texmode = np.int64(cmds[regs.TEXMODE])
    texfilter = np.int64(cmds[regs.TEXFILTER])
    mipmaps = (texfilter & 4) != 0
    maxlevel = (texmode >> 16) & 7 if mipmaps else 0
    tex[P_FMT] = fmt
    tex[P_SWIZZLE] = texmode & 1
    tex[P_MAXLEVEL] = maxlevel
    tex[P_CLUT_PER_LEVEL] = 1 if fmt == TF_CLUT4 and maxlevel > 0 and (texmode & 0x100) else 0
    clutformat = np.int64(cmds[regs.CLUTFORMAT])
    tex[P_CLUT_FMT] = clutformat & 3
    tex[P_CLUT_SHIFT] = (clutformat >> 2) & 0x1F
    tex[P_CLUT_MASK] = (clutformat >> 8) & 0xFF
    start = ((clutformat >> 16) & 0x1F) << 4
    tex[P_CLUT_START] = start & (0xFF if clutformat & 3 == 3 else 0x1FF)
    if TF_CLUT4 <= fmt <= TF_CLUT32:
        decode_palette(clut, clutformat & 3, tex)
    texwrap = np.int64(cmds[regs.TEXWRAP])
    tex[P_CLAMP_S] = texwrap & 1
    tex[P_CLAMP_T] = (texwrap >> 8) & 1
    tex[P_MIN_LINEAR] = texfilter & 1
    tex[P_MIP_LINEAR] = (texfilter >> 1) & 1
    tex[P_MAG_LINEAR] = (texfilter >> 8) & 1
    texlevel = np.int64(cmds[regs.TEXLEVEL])
    tex[P_LOD_MODE] = texlevel & 3
    bias = (texlevel >> 16) & 0xFF
    tex[P_LOD_BIAS] = bias - 256 if bias >= 128 else bias
    bits = BITS_PER_TEXEL[fmt]
    # buffer width: 11 bits, aligned down to 16 bytes; 0 means 16 bytes' worth
    align = (128 // bits) if bits else 1
    for level in range(8):
        base = P_LEVELS + level * LEVEL_WORDS
        bw = np.int64(cmds[regs.TEXBUFWIDTH0 + level])
        tex[base + L_ADDR] = (np.int64(cmds[regs.TEXADDR0 + level]) & 0xFFFFF0) | ((bw << 8) & 0x0F000000)
        bufw = bw & 0x7FF
        if fmt < TF_DXT1:
            bufw &= ~(align - 1)
        if bufw == 0 and bits:
            bufw = align
        tex[base + L_BUFW] = bufw
        size = np.int64(cmds[regs.TEXSIZE0 + level])
        tex[base + L_WSHIFT] = size & 0xF
        tex[base + L_HSHIFT] = (size >> 8) & 0xF
        tex[base + L_DIRECT] = -1
        if bits and fmt < TF_DXT1:
            tex[base + L_DIRECT] = plain_offset(tex[base + L_ADDR], level_extent(bufw, size & 0xF, (size >> 8) & 0xF,
                                                                                 bits, texmode & 1), ram_size)
    first = end = -1
    for level in range(maxlevel + 1):  # the levels sampling reads
        base = P_LEVELS + level * LEVEL_WORDS
        direct = tex[base + L_DIRECT]
        if direct < 0:
            first = end = -1
            break
        level_end = direct + level_extent(tex[base + L_BUFW], tex[base + L_WSHIFT], tex[base + L_HSHIFT], bits,
                                          texmode & 1)
        first = direct if first < 0 else min(first, direct)
        end = max(end, level_end)
    tex[P_READ_FIRST] = first
    tex[P_READ_END] = end


@njit(cache=True)
def prepare(cmds, clut, ram_size):
    """The packed texture settings (int32[TEX_WORDS]) for one primitive."""
    tex = np.zeros(TEX_WORDS, dtype=np.int32)
    prepare_into(cmds, clut, tex, ram_size)
    return tex


# ---------------------------------------------------------------- LOD


@njit(cache=True)
def log2_fixed4(x):
    """The GE's log2 with 4 fraction bits: the float's exponent and its top 4 mantissa
    bits (linear between powers of two, truncated)."""
    x = abs(x)
    if x == 0.0 or x != x:
        return -127 * 16
    if x > 3.4028234663852886e38:
        return 128 * 16
    m, e = math.frexp(x)  # x = m * 2^e, 0.5 <= m < 1
    if e - 1 < -126:  # denormal: exponent field 0
        return -127 * 16 + int(math.ldexp(x, 126) * 16)
    return (e - 1) * 16 + int((m * 2.0 - 1.0) * 16.0)


@njit(cache=True)
def gelog2(x):
    """The GE's log2 of a level-of-detail measure, in levels (multiples of 1/16)."""
    return log2_fixed4(x) / 16.0


@njit(cache=True)
def level_detail(tex, lod):
    """TEXLEVEL's level selector for one pixel in 16ths of a level: the raster's measure
    (auto and slope modes) or 0 (const mode, and the unused mode 3), plus the bias."""
    if tex[P_LOD_MODE] == LOD_CONST or tex[P_LOD_MODE] == 3:
        return tex[P_LOD_BIAS]
    if not lod > -128.0:  # also NaN
        return -128 * 16 + tex[P_LOD_BIAS]
    if lod > 128.0:
        return 128 * 16 + tex[P_LOD_BIAS]
    return int(math.floor(lod * 16.0)) + tex[P_LOD_BIAS]


# ---------------------------------------------------------------- filtering


@njit(cache=True, inline="always")
def texel_fixed8(c, size_shift):
    """Normalized coordinate -> level texels with 8 fraction bits (truncated toward 0);
    saturated far outside the texture so the conversion stays defined."""
    x = c * (1 << size_shift) * 256.0
    if x != x:
        return 0
    if x > 1073741824.0:
        return 1073741824
    if x < -1073741824.0:
        return -1073741824
    return int(x)


@njit(cache=True, inline="always")
def wrap_coord(c, size_shift, clamp):
    """Wrap (repeat) or clamp an integer texel coordinate; sizes above 512 behave as 512."""
    size = 1 << size_shift
    if clamp:
        top = size - 1 if size <= 512 else 511
        if c > top:
            return top
        return c if c > 0 else 0
    return c & (size - 1) & 511


@njit(cache=True)
def sample_level_nearest(mem, ram_size, mapping, tex, level, u, v):
    base = P_LEVELS + level * LEVEL_WORDS
    ws = tex[base + L_WSHIFT]
    hs = tex[base + L_HSHIFT]
    x = texel_fixed8(u, ws) >> 8
    y = texel_fixed8(v, hs) >> 8
    return fetch(mem, ram_size, mapping, tex, level,
                 wrap_coord(x, ws, tex[P_CLAMP_S]), wrap_coord(y, hs, tex[P_CLAMP_T]))


@njit(cache=True)
def sample_level_linear(mem, ram_size, mapping, tex, level, u, v):
    """Bilinear: the 2x2 texels around (u, v) - half a texel, each wrapped or clamped on
    its own, weighted in 1/16 steps per axis, truncated: (top*(16-fv) + bottom*fv) >> 8."""
    base = P_LEVELS + level * LEVEL_WORDS
    xa, xb, ya, yb, fu, fv = linear_taps(u, v, tex[base + L_WSHIFT], tex[base + L_HSHIFT], tex[P_CLAMP_S],
                                         tex[P_CLAMP_T])
    fmt = tex[P_FMT]
    addr = tex[base + L_ADDR]
    bufw = tex[base + L_BUFW]
    if fmt <= TF_8888:  # direct colours: one dispatch for the four texels
        d = tex[base + L_DIRECT]
        swizzle = tex[P_SWIZZLE]
        tl = direct_color(mem, ram_size, mapping, fmt, d, addr, bufw, swizzle, xa, ya)
        tr = direct_color(mem, ram_size, mapping, fmt, d, addr, bufw, swizzle, xb, ya)
        bl = direct_color(mem, ram_size, mapping, fmt, d, addr, bufw, swizzle, xa, yb)
        br = direct_color(mem, ram_size, mapping, fmt, d, addr, bufw, swizzle, xb, yb)
    elif fmt <= TF_CLUT32:
        tl, tr, bl, br = fetch_clut4(mem, ram_size, mapping, tex, level, xa, xb, ya, yb)
    else:
        tl = fetch_dxt(mem, ram_size, mapping, fmt, addr, bufw, xa, ya)
        tr = fetch_dxt(mem, ram_size, mapping, fmt, addr, bufw, xb, ya)
        bl = fetch_dxt(mem, ram_size, mapping, fmt, addr, bufw, xa, yb)
        br = fetch_dxt(mem, ram_size, mapping, fmt, addr, bufw, xb, yb)
    return bilinear(tl, tr, bl, br, fu, fv)


@njit(cache=True, inline="always")
def linear_taps(u, v, ws, hs, clamp_s, clamp_t):
    """The bilinear filter's texels around (u, v) - half a texel (columns xa, xb, rows
    ya, yb, each wrapped or clamped on its own) and its weights fu, fv in 1/16."""
    bu = texel_fixed8(u, ws) - 128
    bv = texel_fixed8(v, hs) - 128
    x0 = bu >> 8
    y0 = bv >> 8
    return (wrap_coord(x0, ws, clamp_s), wrap_coord(x0 + 1, ws, clamp_s), wrap_coord(y0, hs, clamp_t),
            wrap_coord(y0 + 1, hs, clamp_t), (bu >> 4) & 15, (bv >> 4) & 15)


@njit(cache=True, inline="always")
def bilinear(tl, tr, bl, br, fu, fv):
    """Four texels weighted per channel, truncated: (top*(16-fv) + bottom*fv) >> 8."""
    out = 0
    for shift in range(0, 32, 8):
        top = ((tl >> shift) & 0xFF) * (16 - fu) + ((tr >> shift) & 0xFF) * fu
        bottom = ((bl >> shift) & 0xFF) * (16 - fu) + ((br >> shift) & 0xFF) * fu
        out |= ((top * (16 - fv) + bottom * fv) >> 8) << shift
    return out


@njit(cache=True, inline="always")
def sample_level(mem, ram_size, mapping, tex, level, u, v, linear):
    if linear:
        return sample_level_linear(mem, ram_size, mapping, tex, level, u, v)
    return sample_level_nearest(mem, ram_size, mapping, tex, level, u, v)


@njit(cache=True)
def sample_between_levels(mem, ram_size, mapping, tex, level, frac, u, v, linear):
    """Mip-linear: level and level + 1 blended by `frac` sixteenths, truncated."""
    c = sample_level(mem, ram_size, mapping, tex, level, u, v, linear)
    c1 = sample_level(mem, ram_size, mapping, tex, level + 1, u, v, linear)
    out = 0
    for shift in range(0, 32, 8):
        mixed = (((c1 >> shift) & 0xFF) * frac + ((c >> shift) & 0xFF) * (16 - frac)) >> 4
        out |= mixed << shift
    return out


@njit(cache=True, inline="always")  # inlined into the raster loops: a call per pixel costs more than the work
def sample_prepared(mem, ram_size, mapping, tex, u, v, lod):
    """The filtered texel (RGBA8888) at normalized (u, v); see the module docstring.
    Levels: detail <= 0 or no mipmaps -> level 0 with the magnify filter; otherwise
    the minify filter at level detail/16 (clamped to the max level), rounded to the
    nearest level, or with the mip-linear filter blended with the next level by the
    4 fraction bits: (next*f + this*(16-f)) >> 4."""
    maxlevel = tex[P_MAXLEVEL]
    level = 0
    frac = 0
    if maxlevel == 0 and tex[P_MIN_LINEAR] == tex[P_MAG_LINEAR]:
        linear = tex[P_MAG_LINEAR]  # the level of detail changes nothing: skip it
    else:
        detail = level_detail(tex, lod)
        if detail > 0 and maxlevel > 0:
            level16 = min(detail, maxlevel * 16)
            if tex[P_MIP_LINEAR]:
                frac = level16 & 15
            else:
                level16 += 8
            level = level16 >> 4
        linear = tex[P_MIN_LINEAR] if detail > 0 else tex[P_MAG_LINEAR]
    if frac:
        return np.uint32(sample_between_levels(mem, ram_size, mapping, tex, level, frac, u, v, linear))
    return np.uint32(sample_level(mem, ram_size, mapping, tex, level, u, v, linear))


@njit(cache=True)
def one_level(tex):
    """Does sampling ignore the level of detail (one level, the same filter both ways)?"""
    return tex[P_MAXLEVEL] == 0 and tex[P_MIN_LINEAR] == tex[P_MAG_LINEAR]


@njit(cache=True)
def combine_span(mem, ram_size, mapping, cmds, tex, rgbas, us, vs, zs, start, end, check_range, minz, maxz):
    """rgbas[i] = combine(cmds, rgbas[i], sample_prepared(..., us[i], vs[i], lod)) for
    i in start..end-1 when `one_level(tex)` (lod then changes nothing), skipping the
    pixels whose zs[i] is outside minz..maxz when check_range; the level's settings read
    once, nearest texels fetched in the loop. Returns how many pixels were textured."""
    ws = tex[P_LEVELS + L_WSHIFT]
    hs = tex[P_LEVELS + L_HSHIFT]
    cs = tex[P_CLAMP_S]
    ct = tex[P_CLAMP_T]
    linear = tex[P_MAG_LINEAR]
    fmt = tex[P_FMT]
    direct = tex[P_LEVELS + L_DIRECT]
    bufw = tex[P_LEVELS + L_BUFW]
    swizzle = tex[P_SWIZZLE]
    plain_color = direct >= 0 and fmt <= TF_8888  # texels read straight from mem
    count = 0
    for i in range(start, end):
        z = zs[i]
        if check_range and (z < minz or z > maxz):
            continue
        if plain_color and linear:
            xa, xb, ya, yb, fu, fv = linear_taps(us[i], vs[i], ws, hs, cs, ct)
            texel = bilinear(color_texel(mem, fmt, direct, bufw, swizzle, xa, ya),
                             color_texel(mem, fmt, direct, bufw, swizzle, xb, ya),
                             color_texel(mem, fmt, direct, bufw, swizzle, xa, yb),
                             color_texel(mem, fmt, direct, bufw, swizzle, xb, yb), fu, fv)
        elif plain_color:
            texel = color_texel(mem, fmt, direct, bufw, swizzle, wrap_coord(texel_fixed8(us[i], ws) >> 8, ws, cs),
                                wrap_coord(texel_fixed8(vs[i], hs) >> 8, hs, ct))
        elif linear:
            texel = sample_level_linear(mem, ram_size, mapping, tex, LEVEL0, us[i], vs[i])
        else:
            x = wrap_coord(texel_fixed8(us[i], ws) >> 8, ws, cs)
            y = wrap_coord(texel_fixed8(vs[i], hs) >> 8, hs, ct)
            texel = fetch(mem, ram_size, mapping, tex, LEVEL0, x, y)
        rgbas[i] = combine(cmds, rgbas[i], np.uint32(texel))
        count += 1
    return count


@njit(cache=True)
def sample(mem, ram_size, mapping, cmds, clut, u, v, lod):
    """`sample_prepared` straight from `cmds` (decodes the settings on every call)."""
    return sample_prepared(mem, ram_size, mapping, prepare(cmds, clut, ram_size), u, v, lod)


# ---------------------------------------------------------------- texture function


@njit(cache=True, inline="always")
def channel(c, shift):
    return (c >> shift) & 0xFF


@njit(cache=True, inline="always")  # inlined into the raster loops (see sample_prepared)
def combine(cmds, prim_rgba, tex_rgba):
    """TEXFUNC: the fragment colour from the primitive colour and the texel, clamped to
    RGBA8888. Bit 8 selects RGBA (texture alpha used) vs RGB, bit 16 doubles RGB.
    Rounding as the GE does it (pspautotests gpu/texfunc): modulate (p+1)*t >> 8,
    decal ((p+1)*(255-ta) + (t+1)*ta) >> 8, blend ((255-t)*p + t*env + 255) >> 8
    (doubling divides by 128 instead of doubling afterwards where the GE keeps the bit)."""
    texfunc = np.int64(cmds[regs.TEXFUNC])
    func = texfunc & 7
    rgba = (texfunc & 0x100) != 0
    double = (texfunc & 0x10000) != 0
    prim = np.int64(prim_rgba)
    texel = np.int64(tex_rgba)
    env = np.int64(cmds[regs.TEXENVCOLOR])
    pa = channel(prim, 24)
    ta = channel(texel, 24)
    out = 0
    for shift in range(0, 24, 8):
        p = channel(prim, shift)
        t = channel(texel, shift)
        if func == TFX_MODULATE:
            c = ((p + 1) * t * (2 if double else 1)) >> 8
        elif func == TFX_DECAL:
            if rgba:
                c = ((p + 1) * (255 - ta) + (t + 1) * ta) >> (7 if double else 8)
            else:
                c = t * 2 if double else t
        elif func == TFX_BLEND:
            c = ((255 - t) * p + t * channel(env, shift) + 255) >> (7 if double else 8)
        elif func == TFX_REPLACE:
            c = t * 2 if double else t
        else:
            c = (p + t) * 2 if double else p + t
        out |= min(c, 255) << shift
    if not rgba or func == TFX_DECAL:
        a = pa
    elif func == TFX_REPLACE:
        a = ta
    else:
        a = ((pa + 1) * ta) >> 8
    return np.uint32(out | (a << 24))
