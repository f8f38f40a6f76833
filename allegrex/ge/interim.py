"""TEMPORARY stand-ins for ge-pixels' texture/fragment/lighting/curves functions (the
names and signatures of their prepared forms, docs/ge-pixels.md), used by
allegrex/ge/pixels.py only while those modules are not in this checkout. Deliberately the
least that ge-core's own tests need: unswizzled 16/32-bit textures sampled nearest at
level 0, modulate or the texel as it is, a plain pixel write with the frame buffer
format, depth test and write, clear mode; no lighting, CLUT formats, blending, stencil or
dithering, and patches are not tessellated. Delete with pixels.py's fallback once
texture.py, fragment.py, lighting.py and curves.py land.
"""

import numpy as np
from numba import njit

from allegrex.memory import translate

FRAMEBUFPTR, FRAMEBUFWIDTH, ZBUFPTR, ZBUFWIDTH = 0x9C, 0x9D, 0x9E, 0x9F
TEXADDR0, TEXBUFWIDTH0, TEXSIZE0 = 0xA0, 0xA8, 0xB8
CLUTADDR, CLUTADDRUPPER, LOADCLUT = 0xB0, 0xB1, 0xC4
TEXFORMAT, TEXWRAP, TEXFUNC = 0xC3, 0xC7, 0xC9
FRAMEBUFPIXFORMAT, CLEARMODE = 0xD2, 0xD3
ZTESTENABLE, ZTEST, ZWRITEDISABLE = 0x23, 0xDE, 0xE7
VRAM = 0x04000000


@njit(cache=True, error_model="numpy")
def load_clut(mem, ram_size, cmds, clut):
    addr = (cmds[CLUTADDR] & 0xFFFFF0) | ((cmds[CLUTADDRUPPER] << 8) & 0x0F000000)
    size = min(1024, (cmds[LOADCLUT] & 0x3F) * 32)
    for i in range(size):
        off = translate(addr + i, 1, ram_size)
        if off >= 0:
            clut[i] = mem[off]


@njit(cache=True, error_model="numpy")
def _u16(mem, off):
    return np.int64(mem[off]) | (np.int64(mem[off + 1]) << 8)


@njit(cache=True, error_model="numpy")
def _expand16(c, fmt):
    if fmt == 0:
        r, g, b = c & 0x1F, (c >> 5) & 0x3F, (c >> 11) & 0x1F
        return ((r << 3) | (r >> 2)) | (((g << 2) | (g >> 4)) << 8) | (((b << 3) | (b >> 2)) << 16) | (255 << 24)
    if fmt == 1:
        r, g, b = c & 0x1F, (c >> 5) & 0x1F, (c >> 10) & 0x1F
        return (((r << 3) | (r >> 2)) | (((g << 3) | (g >> 2)) << 8) | (((b << 3) | (b >> 2)) << 16)
                | ((255 if c >> 15 else 0) << 24))
    return ((c & 0xF) * 17) | (((c >> 4) & 0xF) * 17 << 8) | (((c >> 8) & 0xF) * 17 << 16) | ((c >> 12) * 17 << 24)


@njit(cache=True, error_model="numpy")
def sample(mem, ram_size, cmds, clut, u, v, lod):
    """The texel at u, v (here `cmds` and `clut` may be the same prepared array)."""
    fmt = cmds[TEXFORMAT] & 0xF
    w = 1 << (cmds[TEXSIZE0] & 0xF)
    h = 1 << ((cmds[TEXSIZE0] >> 8) & 0xF)
    x = int(np.floor(u * w))
    y = int(np.floor(v * h))
    if cmds[TEXWRAP] & 1:
        x = min(w - 1, max(0, x))
    else:
        x &= w - 1
    if cmds[TEXWRAP] & 0x100:
        y = min(h - 1, max(0, y))
    else:
        y &= h - 1
    addr = (cmds[TEXADDR0] & 0xFFFFF0) | ((cmds[TEXBUFWIDTH0] << 8) & 0x0F000000)
    stride = cmds[TEXBUFWIDTH0] & 0x7FF
    if fmt == 3:
        off = translate(addr + (y * stride + x) * 4, 4, ram_size)
        if off < 0:
            return np.uint32(0)
        return np.uint32(mem[off]) | (np.uint32(mem[off + 1]) << 8) | (np.uint32(mem[off + 2]) << 16) | (
            np.uint32(mem[off + 3]) << 24)
    if fmt > 3:
        return np.uint32(0xFFFFFFFF)  # CLUT and DXT formats: not in the stand-in
    off = translate(addr + (y * stride + x) * 2, 2, ram_size)
    if off < 0:
        return np.uint32(0)
    return np.uint32(_expand16(_u16(mem, off), fmt))


@njit(cache=True, error_model="numpy")
def combine(cmds, prim_rgba, tex_rgba):
    func = cmds[TEXFUNC] & 7
    if func != 0:  # everything but modulate: the texel as it is
        return tex_rgba
    out = np.uint32(0)
    for i in range(4):  # modulate
        p = (prim_rgba >> np.uint32(8 * i)) & np.uint32(0xFF)
        t = (tex_rgba >> np.uint32(8 * i)) & np.uint32(0xFF)
        out |= np.uint32((p * t + 255) // 256) << np.uint32(8 * i)
    return out


@njit(cache=True, error_model="numpy")
def texture_prepare(cmds, clut):
    return cmds.copy()


@njit(cache=True, error_model="numpy")
def sample_prepared(mem, ram_size, tex, u, v, lod):
    return sample(mem, ram_size, tex, tex, u, v, lod)


@njit(cache=True, error_model="numpy")
def fragment_prepare(cmds):
    return cmds.copy()


@njit(cache=True, error_model="numpy")
def process_prepared(mem, ram_size, frag, x, y, z, rgba, spec_rgb, fog):
    return process(mem, ram_size, frag, x, y, z, rgba, spec_rgb, fog)


@njit(cache=True, error_model="numpy")
def lighting_prepare(cmds):
    return cmds.copy()


@njit(cache=True, error_model="numpy")
def light_vertex_prepared(lp, pos, normal, color, has_color):
    return np.uint32(color), np.uint32(0)


@njit(cache=True, error_model="numpy")
def fog_depth(cmds, view_z):
    end = np.array([np.uint32((cmds[0xCD] & 0xFFFFFF) << 8)]).view(np.float32)[0]
    slope = np.array([np.uint32((cmds[0xCE] & 0xFFFFFF) << 8)]).view(np.float32)[0]
    return (view_z + end) * slope


@njit(cache=True, error_model="numpy")
def tessellate(command, cmds, pos, color, uv, has_uv):
    """Not tessellated here: nothing to draw."""
    return (np.zeros((0, 3), dtype=np.float32), np.zeros(0, dtype=np.uint32), np.zeros((0, 2), dtype=np.float32),
            np.zeros((0, 3), dtype=np.float32), np.zeros(0, dtype=np.int32), 3)


@njit(cache=True, error_model="numpy")
def _depth_pass(func, z, old):
    if func == 0:
        return False
    if func == 1:
        return True
    if func == 2:
        return z == old
    if func == 3:
        return z != old
    if func == 4:
        return z < old
    if func == 5:
        return z <= old
    if func == 6:
        return z > old
    return z >= old


@njit(cache=True, error_model="numpy")
def process(mem, ram_size, cmds, x, y, z, rgba, spec_rgb, fog):
    clear = cmds[CLEARMODE] & 1
    zstride = cmds[ZBUFWIDTH] & 0x7FC
    zoff = translate(VRAM + (cmds[ZBUFPTR] & 0x1FFFF0) + (y * zstride + x) * 2, 2, ram_size)
    if clear:
        if cmds[CLEARMODE] & 0x400 and zoff >= 0:
            mem[zoff] = z & 0xFF
            mem[zoff + 1] = (z >> 8) & 0xFF
        if not cmds[CLEARMODE] & 0x100:
            return 0
    elif cmds[ZTESTENABLE] & 1 and zoff >= 0:
        if not _depth_pass(cmds[ZTEST] & 7, z, _u16(mem, zoff)):
            return 0
        if not cmds[ZWRITEDISABLE] & 1:
            mem[zoff] = z & 0xFF
            mem[zoff + 1] = (z >> 8) & 0xFF
    fmt = cmds[FRAMEBUFPIXFORMAT] & 3
    stride = cmds[FRAMEBUFWIDTH] & 0x7FC
    base = VRAM + (cmds[FRAMEBUFPTR] & 0x1FFFF0)
    r, g, b, a = rgba & 0xFF, (rgba >> 8) & 0xFF, (rgba >> 16) & 0xFF, (rgba >> 24) & 0xFF
    if fmt == 3:
        off = translate(base + (y * stride + x) * 4, 4, ram_size)
        if off >= 0:
            mem[off], mem[off + 1], mem[off + 2], mem[off + 3] = r, g, b, a
        return 1
    if fmt == 0:
        c = (r >> 3) | ((g >> 2) << 5) | ((b >> 3) << 11)
    elif fmt == 1:
        c = (r >> 3) | ((g >> 3) << 5) | ((b >> 3) << 10) | ((a >> 7) << 15)
    else:
        c = (r >> 4) | ((g >> 4) << 4) | ((b >> 4) << 8) | ((a >> 4) << 12)
    off = translate(base + (y * stride + x) * 2, 2, ram_size)
    if off >= 0:
        mem[off] = c & 0xFF
        mem[off + 1] = (c >> 8) & 0xFF
    return 1
