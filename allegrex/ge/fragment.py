"""Per-pixel operations after texturing: colour sum, fog, the alpha/colour/stencil/depth
tests, depth write, blending, dithering, logic ops, write masks and the frame buffer's
pixel formats, and clear mode.

Entry points (numba; ge-core's rasterizer calls them for every covered pixel):
- `prepare(cmds) -> int32[FRAG_WORDS]`: the fragment settings decoded once per primitive.
- `process_prepared(mem, ram_size, mapping, frag, x, y, z, rgba, spec_rgb, fog) -> 1 if written`;
  `process_at` is the same with the pixel's colour and depth offsets in `mem` given
  (the raster's spans compute them a row at a time), `clear_store` its clear-mode form
  without dithering (`clear_keep` the bits it keeps), `plain_span` a span's pixels when
  prepare found only the depth test, depth write, blending and the store at work.
- `process(mem, ram_size, mapping, cmds, x, y, z, rgba, spec_rgb, fog)`: the same from `cmds`
  (decodes the settings on every call: for tests and one-off use).

Arguments: final frame buffer x, y (the raster has applied the offset and scissor); z the
16-bit depth (0..65535); rgba the textured colour (RGBA8888, red in the low byte);
spec_rgb the secondary colour (lighting's separate specular; 0 when there is none), added
before fog; fog the interpolated fog factor (1.0 = no fog, 0.0 = all fog colour).

Order, as the GE does it (PPSSPP's software renderer states the same order): colour sum,
depth range (MINZ..MAXZ, not in through mode), alpha test, fog, colour test, stencil test
(its sfail op), depth test (zfail op), zpass op and depth write, blending or plain colour,
dithering (added before the clamp, in every format and in clear mode), logic op, clear-mode
masks, then the RGB/alpha write masks and the store in 565/5551/4444/8888.

Stencil lives in the frame buffer's alpha: 8 bits in 8888, 4 bits in 4444 (read as
n * 17; INCR/DECR step by 0x10), 1 bit in 5551 (INCR sets, DECR clears), none in 565
(reads 0, ops do nothing). When no stencil operation can write (stencil test off), the
alpha of the frame buffer is kept: a drawn pixel's alpha is its stencil, not its colour
alpha. In clear mode the primitive's alpha is the stencil value written.
"""

import numpy as np
from numba import njit

from allegrex.ge import regs
from allegrex.ge.colors import FMT_5551, FMT_4444, FMT_8888, from16, to16
from allegrex.ge.colors import FMT_5650 as FMT_565
from allegrex.memory import translate

# comparison functions (alpha, stencil, depth: 3 bits; colour test: 2 bits)
NEVER, ALWAYS, EQUAL, NOTEQUAL, LESS, LEQUAL, GREATER, GEQUAL = range(8)

# stencil operations (6 and 7 act as KEEP)
KEEP, ZERO, REPLACE, INVERT, INCR, DECR = range(6)

# blend equations (6 and 7 disable blending) and factors
BLEND_ADD, BLEND_SUB, BLEND_REVERSE_SUB, BLEND_MIN, BLEND_MAX, BLEND_ABS = range(6)
FACTOR_COLOR, FACTOR_INV_COLOR, FACTOR_SRC_ALPHA, FACTOR_INV_SRC_ALPHA = 0, 1, 2, 3
FACTOR_DST_ALPHA, FACTOR_INV_DST_ALPHA = 4, 5
FACTOR_DOUBLE_SRC_ALPHA, FACTOR_DOUBLE_INV_SRC_ALPHA = 6, 7
FACTOR_DOUBLE_DST_ALPHA, FACTOR_DOUBLE_INV_DST_ALPHA = 8, 9
FACTOR_FIX = 10  # 10-15: the fixed colour

LOGIC_COPY = 3

# Packed form (prepare)
F_THROUGH = 0
F_CLEAR = 1
F_CLEAR_COLOR = 2
F_CLEAR_STENCIL = 3
F_CLEAR_DEPTH = 4
F_MINZ = 5
F_MAXZ = 6
F_ALPHA_FUNC = 7  # ALWAYS when the test is off
F_ALPHA_REF = 8
F_ALPHA_MASK = 9
F_FOG = 10
F_FOG_COLOR = 11
F_COLOR_FUNC = 12  # ALWAYS when the test is off
F_COLOR_REF = 13
F_COLOR_MASK = 14
F_STENCIL = 15  # stencil test on
F_STENCIL_FUNC = 16
F_STENCIL_REF = 17
F_STENCIL_MASK = 18
F_SFAIL = 19
F_ZFAIL = 20
F_ZPASS = 21
F_DEPTH_FUNC = 22  # ALWAYS when the test is off
F_DEPTH_WRITE = 23
F_BLEND = 24
F_BLEND_EQ = 25
F_BLEND_SRC = 26
F_BLEND_DST = 27
F_FIX_A = 28
F_FIX_B = 29
F_DITHER = 30
F_LOGIC_OP = 31  # LOGIC_COPY when off
F_KEEP_MASK = 32  # frame buffer bits kept from the old pixel, in the buffer's format
F_FB_FMT = 33
F_FB_ADDR = 34
F_FB_STRIDE = 35
F_Z_ADDR = 36
F_Z_STRIDE = 37
F_DITHER_MATRIX = 38  # 16 signed values, row-major (y * 4 + x)
F_PLAIN = F_DITHER_MATRIX + 16  # 1: no clear mode, alpha/colour/stencil test, fog, dithering or logic op
FRAG_WORDS = F_PLAIN + 1

VRAM_BASE = 0x04000000


@njit(cache=True)
def prepare_into(cmds, frag):
    """Fill `frag` (int32[FRAG_WORDS]) with the fragment settings of `cmds`."""
    frag[:] = 0
    frag[F_THROUGH] = 1 if regs.is_through(cmds) else 0
    clearmode = np.int64(cmds[regs.CLEARMODE])
    clear = clearmode & 1
    fmt = np.int64(cmds[regs.FRAMEBUFPIXFORMAT]) & 3
    frag[F_CLEAR] = clear
    frag[F_CLEAR_COLOR] = (clearmode >> 8) & 1
    frag[F_CLEAR_STENCIL] = 1 if (clearmode >> 9) & 1 and fmt != FMT_565 else 0
    frag[F_CLEAR_DEPTH] = (clearmode >> 10) & 1
    frag[F_MINZ] = np.int64(cmds[regs.MINZ]) & 0xFFFF
    frag[F_MAXZ] = np.int64(cmds[regs.MAXZ]) & 0xFFFF

    alphatest = np.int64(cmds[regs.ALPHATEST])
    frag[F_ALPHA_FUNC] = alphatest & 7 if np.int64(cmds[regs.ALPHATESTENABLE]) & 1 else ALWAYS
    frag[F_ALPHA_REF] = (alphatest >> 8) & 0xFF
    frag[F_ALPHA_MASK] = (alphatest >> 16) & 0xFF

    frag[F_FOG] = 1 if np.int64(cmds[regs.FOGENABLE]) & 1 and not frag[F_THROUGH] else 0
    frag[F_FOG_COLOR] = np.int64(cmds[regs.FOGCOLOR]) & 0xFFFFFF

    colortest_on = np.int64(cmds[regs.COLORTESTENABLE]) & 1
    frag[F_COLOR_FUNC] = np.int64(cmds[regs.COLORTEST]) & 3 if colortest_on else ALWAYS
    frag[F_COLOR_MASK] = np.int64(cmds[regs.COLORTESTMASK]) & 0xFFFFFF
    frag[F_COLOR_REF] = np.int64(cmds[regs.COLORREF]) & frag[F_COLOR_MASK]

    stenciltest = np.int64(cmds[regs.STENCILTEST])
    stencilop = np.int64(cmds[regs.STENCILOP])
    frag[F_STENCIL] = np.int64(cmds[regs.STENCILTESTENABLE]) & 1
    frag[F_STENCIL_FUNC] = stenciltest & 7
    frag[F_STENCIL_REF] = (stenciltest >> 8) & 0xFF
    frag[F_STENCIL_MASK] = (stenciltest >> 16) & 0xFF
    frag[F_SFAIL] = stencilop & 7
    frag[F_ZFAIL] = (stencilop >> 8) & 7
    frag[F_ZPASS] = (stencilop >> 16) & 7

    depth_on = np.int64(cmds[regs.ZTESTENABLE]) & 1
    frag[F_DEPTH_FUNC] = np.int64(cmds[regs.ZTEST]) & 7 if depth_on else ALWAYS
    # depth is written only with the depth test on (PPSSPP's rule; no pspautotests program tests it)
    frag[F_DEPTH_WRITE] = 1 if depth_on and not np.int64(cmds[regs.ZWRITEDISABLE]) & 1 else 0

    blendmode = np.int64(cmds[regs.BLENDMODE])
    eq = (blendmode >> 8) & 7
    frag[F_BLEND] = 1 if np.int64(cmds[regs.ALPHABLENDENABLE]) & 1 and eq <= BLEND_ABS else 0
    frag[F_BLEND_EQ] = eq
    frag[F_BLEND_SRC] = blendmode & 0xF
    frag[F_BLEND_DST] = (blendmode >> 4) & 0xF
    frag[F_FIX_A] = np.int64(cmds[regs.BLENDFIXEDA]) & 0xFFFFFF
    frag[F_FIX_B] = np.int64(cmds[regs.BLENDFIXEDB]) & 0xFFFFFF

    frag[F_DITHER] = np.int64(cmds[regs.DITHERENABLE]) & 1
    for y in range(4):
        row = np.int64(cmds[regs.DITH0 + y])
        for x in range(4):
            value = (row >> (4 * x)) & 0xF
            frag[F_DITHER_MATRIX + y * 4 + x] = value - 16 if value >= 8 else value

    logic_on = np.int64(cmds[regs.LOGICOPENABLE]) & 1
    frag[F_LOGIC_OP] = np.int64(cmds[regs.LOGICOP]) & 0xF if logic_on else LOGIC_COPY

    # MASKRGB/MASKALPHA bits set = bits kept; alpha also kept when no stencil is written
    keep = (np.int64(cmds[regs.MASKRGB]) & 0xFFFFFF) | ((np.int64(cmds[regs.MASKALPHA]) & 0xFF) << 24)
    writes_stencil = frag[F_CLEAR_STENCIL] if clear else frag[F_STENCIL]
    if not writes_stencil:
        keep |= 0xFF000000
    frag[F_KEEP_MASK] = np.int32(np.uint32(keep)) if fmt == FMT_8888 else to16(fmt, keep)
    frag[F_FB_FMT] = fmt
    frag[F_FB_ADDR] = VRAM_BASE | (np.int64(cmds[regs.FRAMEBUFPTR]) & 0x1FFFF0)
    frag[F_FB_STRIDE] = np.int64(cmds[regs.FRAMEBUFWIDTH]) & 0x7FC
    frag[F_Z_ADDR] = VRAM_BASE | (np.int64(cmds[regs.ZBUFPTR]) & 0x1FFFF0)
    frag[F_Z_STRIDE] = np.int64(cmds[regs.ZBUFWIDTH]) & 0x7FC
    frag[F_PLAIN] = 1 if (not clear and frag[F_ALPHA_FUNC] == ALWAYS and not frag[F_FOG]
                          and frag[F_COLOR_FUNC] == ALWAYS and not frag[F_STENCIL] and not frag[F_DITHER]
                          and frag[F_LOGIC_OP] == LOGIC_COPY) else 0


@njit(cache=True)
def prepare(cmds):
    """The packed fragment settings (int32[FRAG_WORDS]) for one primitive."""
    frag = np.zeros(FRAG_WORDS, dtype=np.int32)
    prepare_into(cmds, frag)
    return frag


@njit(cache=True)
def fog_depth(cmds, view_z):
    """The fog factor of a vertex at view-space depth `view_z` (ge-core's vertex stage
    calls this; the raster interpolates it and `process` takes it as `fog`):
    (view_z + FOG1) * FOG2, FOG1 the fog end and FOG2 1 / (end - start) as sceGuFog sets
    them; 1 or more = no fog, 0 or less = all fog colour. Exponent-255 arguments count as
    huge numbers (not inf/NaN); the result is bounded so interpolating it stays finite."""
    end = regs.float24_finite(cmds[regs.FOG1])
    slope = regs.float24_finite(cmds[regs.FOG2])
    f = (view_z + end) * slope
    if f != f:
        return 0.0
    return min(max(f, -262144.0), 262144.0)


@njit(cache=True, inline="always")
def fog8(fog):
    """The 8-bit fog weight of the primitive colour: floor(fog * 256) in 0..255."""
    f = fog * 256.0
    if not f > 0.0:
        return 0
    return 255 if f >= 255.0 else int(f)


# ---------------------------------------------------------------- tests


@njit(cache=True, inline="always")
def compare(func, a, b):
    """`a func b` for the GE's comparison codes."""
    if func == ALWAYS:
        return True
    if func == NEVER:
        return False
    if func == EQUAL:
        return a == b
    if func == NOTEQUAL:
        return a != b
    if func == LESS:
        return a < b
    if func == LEQUAL:
        return a <= b
    if func == GREATER:
        return a > b
    return a >= b


@njit(cache=True)
def stencil_op(op, fmt, ref, old):
    """The new 8-bit stencil after `op` (4444 steps by 0x10, 5551 saturates at once)."""
    if op == ZERO:
        return 0
    if op == REPLACE:
        return ref
    if op == INVERT:
        return ~old & 0xFF
    if op == INCR:
        if fmt == FMT_8888:
            return old + 1 if old != 0xFF else old
        if fmt == FMT_5551:
            return 0xFF
        if fmt == FMT_4444:
            return old + 0x10 if old < 0xF0 else old
        return old
    if op == DECR:
        if fmt == FMT_4444:
            return old - 0x10 if old >= 0x10 else old
        if fmt == FMT_5551:
            return 0
        return old - 1 if old != 0 else old
    return old


# ---------------------------------------------------------------- frame buffer


@njit(cache=True, inline="always")
def pixel_offset(mem, ram_size, mapping, frag, x, y):
    """Offset in `mem` of pixel (x, y) of the colour buffer, or -1."""
    bpp = 4 if frag[F_FB_FMT] == FMT_8888 else 2
    return translate(frag[F_FB_ADDR] + (y * frag[F_FB_STRIDE] + x) * bpp, bpp, ram_size, mapping)


@njit(cache=True, inline="always")
def load_raw(mem, off, fmt):
    if fmt == FMT_8888:
        return np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8) | (np.int64(mem[off + 2]) << 16) | (np.int64(mem[off + 3]) << 24)
    return np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8)


@njit(cache=True, inline="always")
def store_raw(mem, off, fmt, value):
    mem[off] = value & 0xFF
    mem[off + 1] = (value >> 8) & 0xFF
    if fmt == FMT_8888:
        mem[off + 2] = (value >> 16) & 0xFF
        mem[off + 3] = (value >> 24) & 0xFF


@njit(cache=True, inline="always")
def raw_to_rgba(fmt, raw):
    """RGBA8888 of a stored pixel; 565 reads alpha 0 (for DST_ALPHA blending)."""
    if fmt == FMT_8888:
        return raw
    if fmt == FMT_565:
        return from16(fmt, raw) & 0xFFFFFF
    return from16(fmt, raw)


@njit(cache=True, inline="always")
def raw_stencil(fmt, raw):
    if fmt == FMT_8888:
        return (raw >> 24) & 0xFF
    if fmt == FMT_4444:
        return ((raw >> 12) & 0xF) * 17
    if fmt == FMT_5551:
        return 0xFF if raw & 0x8000 else 0
    return 0


@njit(cache=True, inline="always")
def write_stencil_only(mem, off, frag, raw, stencil):
    """Store a new stencil (a failed test's op) into the pixel's alpha bits, through the
    alpha write mask; the colour bits stay."""
    fmt = frag[F_FB_FMT]
    keep = np.int64(frag[F_KEEP_MASK]) & 0xFFFFFFFF
    if fmt == FMT_8888:
        keep |= 0x00FFFFFF
        value = (raw & keep) | ((stencil << 24) & ~keep)
    elif fmt == FMT_4444:
        keep |= 0x0FFF
        value = (raw & keep) | ((stencil << 8) & ~keep & 0xFFFF)
    elif fmt == FMT_5551:
        if keep & 0x8000:
            return
        value = (raw & 0x7FFF) | ((stencil & 0x80) << 8)
    else:
        return
    store_raw(mem, off, fmt, value)


# ---------------------------------------------------------------- blending


@njit(cache=True, inline="always")
def blend_factor(factor, fix, other, src_a, dst_a):
    """One channel's blend factor (0..510): `other` is the other side's channel."""
    if factor == FACTOR_COLOR:
        return other
    if factor == FACTOR_INV_COLOR:
        return 255 - other
    if factor == FACTOR_SRC_ALPHA:
        return src_a
    if factor == FACTOR_INV_SRC_ALPHA:
        return 255 - src_a
    if factor == FACTOR_DST_ALPHA:
        return dst_a
    if factor == FACTOR_INV_DST_ALPHA:
        return 255 - dst_a
    if factor == FACTOR_DOUBLE_SRC_ALPHA:
        return 2 * src_a
    if factor == FACTOR_DOUBLE_INV_SRC_ALPHA:
        return 255 - min(2 * src_a, 255)
    if factor == FACTOR_DOUBLE_DST_ALPHA:
        return 2 * dst_a
    if factor == FACTOR_DOUBLE_INV_DST_ALPHA:
        return 255 - min(2 * dst_a, 255)
    return fix


@njit(cache=True, inline="always")
def blend_channel(frag, shift, src, dst):
    """One channel of the blend equation, before dithering and the clamp. Products are
    taken on half-offset 9-bit values: (2c+1)(2f+1) / 1024."""
    s = (src >> shift) & 0xFF
    d = (dst >> shift) & 0xFF
    eq = frag[F_BLEND_EQ]
    if eq == BLEND_MIN:
        return min(s, d)
    if eq == BLEND_MAX:
        return max(s, d)
    if eq == BLEND_ABS:
        return abs(s - d)
    src_a = (src >> 24) & 0xFF
    dst_a = (dst >> 24) & 0xFF
    fs = blend_factor(frag[F_BLEND_SRC], (frag[F_FIX_A] >> shift) & 0xFF, d, src_a, dst_a)
    fd = blend_factor(frag[F_BLEND_DST], (frag[F_FIX_B] >> shift) & 0xFF, s, src_a, dst_a)
    a = ((2 * s + 1) * (2 * fs + 1)) >> 10
    b = ((2 * d + 1) * (2 * fd + 1)) >> 10
    if eq == BLEND_ADD:
        return a + b
    if eq == BLEND_SUB:
        return a - b
    return b - a


@njit(cache=True)
def logic_op(op, old, new):
    """The logic op on RGB; the new pixel's alpha (stencil) passes through unchanged."""
    rgb_new = new & 0xFFFFFF
    rgb_old = old & 0xFFFFFF
    if op == 0:
        rgb = 0
    elif op == 1:
        rgb = rgb_new & rgb_old
    elif op == 2:
        rgb = rgb_new & ~rgb_old
    elif op == 3:
        rgb = rgb_new
    elif op == 4:
        rgb = ~rgb_new & rgb_old
    elif op == 5:
        rgb = rgb_old
    elif op == 6:
        rgb = rgb_new ^ rgb_old
    elif op == 7:
        rgb = rgb_new | rgb_old
    elif op == 8:
        rgb = ~(rgb_new | rgb_old)
    elif op == 9:
        rgb = ~(rgb_new ^ rgb_old)
    elif op == 10:
        rgb = ~rgb_old
    elif op == 11:
        rgb = rgb_new | ~rgb_old
    elif op == 12:
        rgb = ~rgb_new
    elif op == 13:
        rgb = ~rgb_new | rgb_old
    elif op == 14:
        rgb = ~(rgb_new & rgb_old)
    else:
        rgb = 0xFFFFFF
    return (new & 0xFF000000) | (rgb & 0xFFFFFF)


# ---------------------------------------------------------------- the pixel


@njit(cache=True, inline="always")
def clamp255(c):
    if c < 0:
        return 0
    return c if c < 255 else 255


@njit(cache=True, inline="always")
def uses_depth(frag):
    """Does a pixel read or write the depth buffer?"""
    if frag[F_CLEAR]:
        return frag[F_CLEAR_DEPTH] != 0
    return frag[F_DEPTH_FUNC] != ALWAYS or frag[F_DEPTH_WRITE] != 0


@njit(cache=True, inline="always")
def depth_offset(ram_size, mapping, frag, x, y):
    """Offset in `mem` of pixel (x, y) of the depth buffer, or -1."""
    return translate(frag[F_Z_ADDR] + (y * frag[F_Z_STRIDE] + x) * 2, 2, ram_size, mapping)


@njit(cache=True, inline="always")
def process_prepared(mem, ram_size, mapping, frag, x, y, z, rgba, spec_rgb, fog):
    """Run one pixel through the fragment stage and store it; 1 if the colour buffer was
    written, 0 if a test rejected it (a failed stencil test may still store its op)."""
    off = pixel_offset(mem, ram_size, mapping, frag, x, y)
    zoff = depth_offset(ram_size, mapping, frag, x, y) if uses_depth(frag) else -1
    return process_at(mem, frag, x, y, z, rgba, spec_rgb, fog, off, zoff)


@njit(cache=True, inline="always")  # inlined into the raster's span loop: a call per pixel costs more than the work
def process_at(mem, frag, x, y, z, rgba, spec_rgb, fog, off, zoff):
    """`process_prepared` with the pixel's offsets in `mem` (colour `off`, depth `zoff`:
    -1 outside memory, and `zoff` -1 too when `uses_depth` is false)."""
    clear = frag[F_CLEAR]
    c = np.int64(rgba)
    r = c & 0xFF
    g = (c >> 8) & 0xFF
    b = (c >> 16) & 0xFF
    a = (c >> 24) & 0xFF
    if not clear:
        sp = np.int64(spec_rgb)
        r = min(r + (sp & 0xFF), 255)
        g = min(g + ((sp >> 8) & 0xFF), 255)
        b = min(b + ((sp >> 16) & 0xFF), 255)

    if not frag[F_THROUGH] and (z < frag[F_MINZ] or z > frag[F_MAXZ]):
        return 0
    if not clear:
        mask = frag[F_ALPHA_MASK]
        if not compare(frag[F_ALPHA_FUNC], a & mask, frag[F_ALPHA_REF] & mask):
            return 0
        if frag[F_FOG]:
            # fog factor as 8 bits, then a blend that rounds up like TEXFUNC blend
            f8 = fog8(fog)
            fc = frag[F_FOG_COLOR]
            r = (r * f8 + (fc & 0xFF) * (255 - f8) + 255) >> 8
            g = (g * f8 + ((fc >> 8) & 0xFF) * (255 - f8) + 255) >> 8
            b = (b * f8 + ((fc >> 16) & 0xFF) * (255 - f8) + 255) >> 8
        cfunc = frag[F_COLOR_FUNC]
        if cfunc != ALWAYS:
            masked = (r | (g << 8) | (b << 16)) & frag[F_COLOR_MASK]
            if cfunc == NEVER:
                return 0
            if cfunc == EQUAL and masked != frag[F_COLOR_REF]:
                return 0
            if cfunc == NOTEQUAL and masked == frag[F_COLOR_REF]:
                return 0

    fmt = frag[F_FB_FMT]
    if off < 0:
        return 0
    old_raw = load_raw(mem, off, fmt)

    if clear:
        stencil = a
        if frag[F_CLEAR_DEPTH] and zoff >= 0:
            mem[zoff] = z & 0xFF
            mem[zoff + 1] = (z >> 8) & 0xFF
    else:
        stencil = raw_stencil(fmt, old_raw)
        depth_ok = True
        if frag[F_DEPTH_FUNC] != ALWAYS:
            stored = np.int64(mem[zoff]) | (np.int64(mem[zoff + 1]) << 8) if zoff >= 0 else 0
            depth_ok = compare(frag[F_DEPTH_FUNC], z, stored)
        if frag[F_STENCIL]:
            smask = frag[F_STENCIL_MASK]
            ref = frag[F_STENCIL_REF]
            # stencil ops cannot write a 565 buffer; 6 and 7 act as KEEP
            if not compare(frag[F_STENCIL_FUNC], ref & smask, stencil & smask):
                write_stencil_only(mem, off, frag, old_raw, stencil_op(frag[F_SFAIL], fmt, ref, stencil))
                return 0
            if not depth_ok:
                write_stencil_only(mem, off, frag, old_raw, stencil_op(frag[F_ZFAIL], fmt, ref, stencil))
                return 0
            stencil = stencil_op(frag[F_ZPASS], fmt, ref, stencil)
        elif not depth_ok:
            return 0
        if frag[F_DEPTH_WRITE] and zoff >= 0:
            mem[zoff] = z & 0xFF
            mem[zoff + 1] = (z >> 8) & 0xFF

    old = raw_to_rgba(fmt, old_raw)
    if frag[F_BLEND] and not clear:
        src = r | (g << 8) | (b << 16) | (a << 24)
        r = blend_channel(frag, 0, src, old)
        g = blend_channel(frag, 8, src, old)
        b = blend_channel(frag, 16, src, old)
    if frag[F_DITHER]:
        d = frag[F_DITHER_MATRIX + (y & 3) * 4 + (x & 3)]
        r += d
        g += d
        b += d
    new = clamp255(r) | (clamp255(g) << 8) | (clamp255(b) << 16) | ((stencil & 0xFF) << 24)
    if not clear and frag[F_LOGIC_OP] != LOGIC_COPY:
        new = logic_op(frag[F_LOGIC_OP], old, new)
    if clear:
        if not frag[F_CLEAR_COLOR]:
            new = (new & 0xFF000000) | (old & 0x00FFFFFF)
        if not frag[F_CLEAR_STENCIL]:
            new = (new & 0x00FFFFFF) | (old & 0xFF000000)
    keep = np.int64(frag[F_KEEP_MASK]) & 0xFFFFFFFF
    if fmt != FMT_8888:
        new = to16(fmt, new)
    store_raw(mem, off, fmt, (new & ~keep) | (old_raw & keep))
    return 1


@njit(cache=True)
def clear_keep(frag):
    """The stored bits a clear-mode pixel keeps: the write masks', the colour without
    CLEARMODE's colour bit, the stencil without its stencil bit (F_KEEP_MASK has it)."""
    fmt = frag[F_FB_FMT]
    keep = np.int64(frag[F_KEEP_MASK]) & 0xFFFFFFFF
    if not frag[F_CLEAR_COLOR]:
        keep |= 0x00FFFFFF if fmt == FMT_8888 else to16(fmt, np.int64(0x00FFFFFF))
    return keep


@njit(cache=True, inline="always")
def clear_store(mem, fmt, off, zoff, z, rgba, keep):
    """A clear-mode pixel without dithering at offsets `off` (colour) and `zoff` (depth,
    -1 when CLEARMODE does not clear it): the primitive colour with its alpha as the
    stencil, through `keep` (clear_keep), as process_at stores it."""
    new = np.int64(rgba) & 0xFFFFFFFF
    if fmt != FMT_8888:
        new = to16(fmt, new)
    store_raw(mem, off, fmt, (new & ~keep) | (load_raw(mem, off, fmt) & keep))
    if zoff >= 0:
        mem[zoff] = z & 0xFF
        mem[zoff + 1] = (z >> 8) & 0xFF


@njit(cache=True)
def plain_span(mem, frag, row, zrow, n, rgbas, specs, zs, check_range):
    """process_at for the n pixels of a span whose colour (from `row`) and depth (from
    `zrow`, -1 when uses_depth is false) are contiguous in `mem`, when frag[F_PLAIN]:
    the secondary colour sum, the MINZ..MAXZ range (check_range), the depth test and
    write, blending and the store, in process_at's order and arithmetic. Returns the
    number of pixels written."""
    fmt = frag[F_FB_FMT]
    bpp = 4 if fmt == FMT_8888 else 2
    keep = np.int64(frag[F_KEEP_MASK]) & 0xFFFFFFFF
    zfunc = frag[F_DEPTH_FUNC]
    zwrite = frag[F_DEPTH_WRITE] != 0 and zrow >= 0
    blend = frag[F_BLEND] != 0
    minz, maxz = frag[F_MINZ], frag[F_MAXZ]
    written = 0
    for i in range(n):
        z = zs[i]
        if check_range and (z < minz or z > maxz):
            continue
        zoff = zrow + 2 * i
        if zfunc != ALWAYS:
            stored = np.int64(mem[zoff]) | (np.int64(mem[zoff + 1]) << 8) if zrow >= 0 else 0
            if not compare(zfunc, z, stored):
                continue
        if zwrite:
            mem[zoff] = z & 0xFF
            mem[zoff + 1] = (z >> 8) & 0xFF
        c = rgbas[i]
        r = c & 0xFF
        g = (c >> 8) & 0xFF
        b = (c >> 16) & 0xFF
        a = (c >> 24) & 0xFF
        sp = specs[i]
        if sp:  # a zero secondary colour adds nothing
            r = min(r + (sp & 0xFF), 255)
            g = min(g + ((sp >> 8) & 0xFF), 255)
            b = min(b + ((sp >> 16) & 0xFF), 255)
        off = row + i * bpp
        old_raw = load_raw(mem, off, fmt)
        if blend:
            old = raw_to_rgba(fmt, old_raw)
            src = r | (g << 8) | (b << 16) | (a << 24)
            r = clamp255(blend_channel(frag, 0, src, old))
            g = clamp255(blend_channel(frag, 8, src, old))
            b = clamp255(blend_channel(frag, 16, src, old))
        new = r | (g << 8) | (b << 16) | ((raw_stencil(fmt, old_raw) & 0xFF) << 24)
        if fmt != FMT_8888:
            new = to16(fmt, new)
        store_raw(mem, off, fmt, (new & ~keep) | (old_raw & keep))
        written += 1
    return written


@njit(cache=True)
def process(mem, ram_size, mapping, cmds, x, y, z, rgba, spec_rgb, fog):
    """`process_prepared` straight from `cmds` (decodes the settings on every call)."""
    return process_prepared(mem, ram_size, mapping, prepare(cmds), x, y, z, rgba, spec_rgb, fog)
