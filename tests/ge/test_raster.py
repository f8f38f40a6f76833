"""Rasterization: coverage against a plain per-pixel reading of the GE's rules (pixel
centres, top-left fill rule), exact colours for agreeing vertices, the line rule measured
on a PSP (gpu/primitives/lines), sprite extents, drawn through the whole list processor;
the span paths (raster.shade_span) against the per-pixel rules on the same memory."""

import struct

import numpy as np
import pytest

from allegrex.ge import cost, fragment, raster, regs, texture
from allegrex.ge.state import R_CYCLES, R_PIXELS, GeState
from gelists import LIST, Ge, cmd
from gu import Ge as PixelGe

VERTS = 0x08A00000
VRAM = 0x04000000
THROUGH_COLOR_FLOAT = (1 << 23) | (7 << 2) | (3 << 7)  # through mode, 8888 colour, float position


def frame_words():
    return [cmd("FRAMEBUFPTR", 0), cmd("FRAMEBUFWIDTH", 512), cmd("FRAMEBUFPIXFORMAT", 3),
            cmd("SCISSOR1", 0), cmd("SCISSOR2", (271 << 10) | 479), cmd("REGION2", (271 << 10) | 479),
            cmd("SHADEMODE", 1), cmd("BASE", (VERTS >> 8) & 0xF0000), cmd("VERTEXTYPE", THROUGH_COLOR_FLOAT)]


def draw(ge: Ge, prim: int, vertices) -> np.ndarray:
    """Draw (colour, x, y) through-mode vertices; returns the 272 x 480 RGBA frame."""
    data = b"".join(struct.pack("<Ifff", c, x, y, 0.0) for c, x, y in vertices)
    ge.memory.write(VERTS, data)
    ge.memory.write(VRAM, bytes(512 * 272 * 4))
    ge.load(frame_words() + [cmd("VADDR", VERTS & 0xFFFFFF), cmd("PRIM", (prim << 16) | len(vertices)),
                             cmd("FINISH"), cmd("END")])
    ge.run()
    off = ge.memory.span(VRAM, 512 * 272 * 4)
    return ge.memory.mem[off:off + 512 * 272 * 4].reshape(272, 512, 4)[:, :480]


def reference_coverage(pts):
    """The GE's rule read plainly: a pixel is covered when its centre is inside all three
    edges, pixels on right or flat-bottom edges belonging to the neighbour."""
    p = [(int(np.floor(x * 16)), int(np.floor(y * 16))) for x, y in pts]
    (x0, y0), (x1, y1), (x2, y2) = p
    if (x0 - x1) * (y0 - y2) - (y0 - y1) * (x0 - x2) < 0:  # only counter-clockwise on screen
        return np.zeros((272, 480), bool)
    ys, xs = np.mgrid[0:272, 0:480]
    sx, sy = xs * 16 + 8, ys * 16 + 8
    cover = np.ones((272, 480), bool)
    for (ax, ay), (bx, by), (vx, vy) in (((x1, y1), (x2, y2), (x0, y0)), ((x2, y2), (x0, y0), (x1, y1)),
                                         ((x0, y0), (x1, y1), (x2, y2))):
        w = (ay - by) * sx + (bx - ax) * sy + (by * ax - bx * ay)
        right_or_bottom = vy < ay if ay == by else vx < ax + (bx - ax) * (vy - ay) / (by - ay)
        cover &= w >= (1 if right_or_bottom else 0)
    return cover


@pytest.mark.parametrize("seed", range(6))
def test_triangle_coverage_follows_the_centre_and_fill_rules(seed):
    rng = np.random.default_rng(seed)
    pts = [tuple(rng.uniform(-20, 300, 2).round(4)) for _ in range(3)]
    ge = Ge()
    frame = draw(ge, 3, [(0xFF0000FF, x, y) for x, y in pts])  # culling off: either winding draws
    ordered = pts if reference_coverage(pts).any() else pts[::-1]
    np.testing.assert_array_equal(frame[..., 0] == 0xFF, reference_coverage(ordered))


def test_triangles_sharing_an_edge_cover_each_pixel_once():
    ge = Ge()
    quad = [(10.3, 10.7), (90.6, 12.1), (88.2, 70.9), (12.5, 68.4)]
    frame = draw(ge, 5, [(0xFF00FF00, x, y) for x, y in quad])  # a fan of two triangles
    covered = int((frame[..., 1] == 0xFF).sum())
    assert covered == int(ge.state.regs[R_PIXELS])  # no pixel written twice
    assert covered == int((reference_coverage(quad[:3]) | reference_coverage([quad[0], quad[2], quad[3]])).sum())


def test_gouraud_shading_keeps_an_exact_colour_when_the_vertices_agree():
    ge = Ge()
    frame = draw(ge, 3, [(0xFF00FF00, 10, 50), (0xFF00FF00, 10, 10), (0xFF00FF00, 50, 50)])
    drawn = frame[frame[..., :3].any(axis=2), :3]  # alpha holds the stencil, not the colour's alpha
    assert len(drawn) > 700 and (drawn == [0, 255, 0]).all()


def test_lines_draw_the_pixels_whose_centres_they_pass():
    """gpu/primitives/lines on a PSP: 9.375 -> 11.25 lights pixels 9 and 10; 24 -> 22, 23 and 22."""
    for (a, b), want in (((9.375, 11.25), {9, 10}), ((24.0, 22.0), {22, 23})):
        ge = Ge()
        frame = draw(ge, 1, [(0xFFFFFFFF, a, 19.125), (0xFFFFFFFF, b, 19.125)])
        ys, xs = np.nonzero(frame[..., 0])
        assert set(xs) == want and set(ys) == {19}


def test_a_sprite_covers_its_corners_rectangle_exclusive_of_the_far_edges():
    ge = Ge()
    frame = draw(ge, 6, [(0xFFFFFFFF, 50, 40), (0xFFFFFFFF, 10, 10)])  # corners in either order
    ys, xs = np.nonzero(frame[..., 0])
    assert (xs.min(), xs.max(), ys.min(), ys.max()) == (10, 49, 10, 39)
    assert len(xs) == 40 * 30


# --- spans: raster.shade_span's paths (clear fills, plain spans, textures read ahead, direct
# offsets, and the per-pixel fallbacks) against the per-pixel rules texture.sample_prepared,
# texture.combine and fragment.process_prepared, pixel by pixel on the same memory.
SPAN_CASES = {
    "clear colour+depth 8888": dict(CLEARMODE=0x501),
    "clear colour only 5551, RGB mask": dict(CLEARMODE=0x101, FRAMEBUFPIXFORMAT=1, MASKRGB=0x0F0F0F),
    "clear stencil 4444, dithered": dict(CLEARMODE=0x301, FRAMEBUFPIXFORMAT=2, DITHERENABLE=1, DITH0=0x1F2E),
    "depth GEQUAL + write 8888": dict(ZTESTENABLE=1, ZTEST=7),
    "blend 4444, secondary colour": dict(ALPHABLENDENABLE=1, BLENDMODE=0x32, FRAMEBUFPIXFORMAT=2, spec=True),
    "depth range, transform mode": dict(ZTESTENABLE=1, ZTEST=1, VERTEXTYPE=0, MINZ=0x4000, MAXZ=0xC000),
    "nearest 8888 texture in RAM, depth": dict(tex=(3, 0), ZTESTENABLE=1, ZTEST=6),
    "bilinear 5650 texture, blend": dict(tex=(0, 0x101), ALPHABLENDENABLE=1, BLENDMODE=0x32),
    "nearest CLUT8 texture, 565 buffer": dict(tex=(5, 0), FRAMEBUFPIXFORMAT=0),
    "texture is the frame buffer": dict(tex=(3, 0), tex_addr=0x04000000),
    "alpha test, textured": dict(tex=(3, 0x101), ALPHATESTENABLE=1, ALPHATEST=4 | (0x80 << 8) | (0xFF << 16)),
    "mipmapped texture": dict(tex=(3, 0x105), TEXMODE=1 << 16, TEXLEVEL=1 | (0x18 << 16)),
    "frame buffer row in a VRAM mirror": dict(FRAMEBUFPTR=0x1FF800, ZTESTENABLE=1, ZTEST=7),
}


@pytest.mark.parametrize("case", sorted(SPAN_CASES))
def test_span_paths_store_what_the_per_pixel_rules_store(case):
    settings = dict(SPAN_CASES[case])
    rng = np.random.default_rng(sorted(SPAN_CASES).index(case))
    ge = PixelGe()
    for op, arg in (("FRAMEBUFPTR", 0), ("FRAMEBUFWIDTH", 512), ("FRAMEBUFPIXFORMAT", 3), ("ZBUFPTR", 0x100000),
                    ("ZBUFWIDTH", 512), ("VERTEXTYPE", regs.THROUGH_BIT), ("SCISSOR2", (271 << 10) | 479),
                    ("REGION2", (271 << 10) | 479), ("MAXZ", 0xFFFF)):
        ge.send(getattr(regs, op), arg)
    spec = settings.pop("spec", False)
    fmt_filter = settings.pop("tex", None)
    tex_addr = settings.pop("tex_addr", 0x08900000)
    for op, arg in settings.items():
        ge.send(getattr(regs, op), arg)
    ge.mem[ge.ram_size:ge.ram_size + 0x200000] = rng.integers(0, 256, 0x200000, dtype=np.uint8)  # old pixels
    if fmt_filter:
        fmt, filt = fmt_filter
        if tex_addr < 0x08000000:
            off = ge.ram_size + (tex_addr - 0x04000000)
        else:
            off = tex_addr - 0x08000000
            ge.mem[off:off + 0x10000] = rng.integers(0, 256, 0x10000, dtype=np.uint8)
        ge.mem[0x00800000:0x00800400] = rng.integers(0, 256, 0x400, dtype=np.uint8)  # a CLUT at 0x08800000
        ge.clut_load(32, 0x08800000)
        ge.clut_mode(3, 0, 0xFF, 0)
        for level in range(2):
            ge.send(regs.TEXADDR0 + level, (tex_addr + 0x4000 * level) & 0xFFFFFF)
            ge.send(regs.TEXBUFWIDTH0 + level, (((tex_addr + 0x4000 * level) >> 8) & 0xF0000) | (64 >> level))
            ge.send(regs.TEXSIZE0 + level, ((6 - level) << 8) | (6 - level))
        ge.send(regs.TEXTUREMAPENABLE, 1)
        ge.send(regs.TEXFORMAT, fmt)
        ge.send(regs.TEXFILTER, filt)
        ge.send(regs.TEXFUNC, 0x100)
    y, x0, n = 1, 37, 300  # row 1: inside the 64 x 64 texture placed on the frame buffer
    rs = raster.setup(ge.cmds)
    pix = raster.prepare_pixels(ge.cmds, ge.clut, ge.ram_size)
    tex, frag, si, sf = pix
    si[raster.SI_Z, :n] = rng.integers(0, 0x10000, n)
    si[raster.SI_RGBA, :n] = rng.integers(0, 1 << 32, n)
    si[raster.SI_SPEC, :n] = rng.integers(0, 1 << 24, n) if spec else 0
    sf[raster.SF_FOG, :n] = 1.0
    sf[raster.SF_S, :n] = rng.uniform(-1.5, 2.5, n)
    sf[raster.SF_T, :n] = rng.uniform(-1.5, 2.5, n)
    sf[raster.SF_LOD, :n] = rng.uniform(-2.0, 3.0, n)
    expected = ge.mem.copy()
    textured_pixels = written_pixels = 0
    for i in range(n):  # the per-pixel rules, in pixel order
        z, rgba = int(si[raster.SI_Z, i]), int(si[raster.SI_RGBA, i])
        if rs[raster.RS_DEPTHRANGE] and not rs[raster.RS_MINZ] <= z <= rs[raster.RS_MAXZ]:
            continue
        if rs[raster.RS_TEX]:
            texel = texture.sample_prepared(expected, ge.ram_size, ge.memory.mapping, tex, sf[raster.SF_S, i],
                                            sf[raster.SF_T, i], sf[raster.SF_LOD, i])
            rgba = int(texture.combine(ge.cmds, rgba, texel))
            textured_pixels += 1
        written_pixels += fragment.process_prepared(expected, ge.ram_size, ge.memory.mapping, frag, x0 + i, y, z, rgba,
                                                    int(si[raster.SI_SPEC, i]), 1.0)
    counters = GeState().regs
    raster.shade_span(ge.mem, ge.ram_size, ge.memory.mapping, counters, ge.cmds, pix, rs, y, x0, n)
    changed = np.flatnonzero(ge.mem != expected)
    assert changed.size == 0, f"{changed.size} bytes differ, first at offset 0x{changed[0]:x}"
    assert counters[R_PIXELS] == written_pixels > 0
    assert counters[R_CYCLES] == textured_pixels * cost.PIXEL_TEXTURED


def test_every_row_of_a_textured_sprite_modulates_its_own_texels():
    """Nearest texels under the pixel centres, times the sprite colour: (p + 1) * t >> 8
    per channel (TEXFUNC modulate); the frame buffer keeps its alpha (no stencil)."""
    rng = np.random.default_rng(7)
    texels = rng.integers(0, 256, (16, 16, 4), dtype=np.uint8)
    tex_addr = 0x08A80000
    ge = Ge()
    ge.memory.write(tex_addr, texels.tobytes())
    ge.memory.write(VERTS, struct.pack("<ffIfff", 0.0, 0.0, 0xFF8040C0, 0.0, 0.0, 0.0)
                    + struct.pack("<ffIfff", 16.0, 8.0, 0xFF8040C0, 16.0, 8.0, 0.0))
    ge.memory.write(VRAM, bytes(512 * 272 * 4))
    vtype = (1 << 23) | 3 | (7 << 2) | (3 << 7)  # through, float texture coordinates, 8888 colour, float position
    ge.load(frame_words() + [cmd("TEXTUREMAPENABLE", 1), cmd("TEXADDR0", tex_addr & 0xFFFFFF),
                             cmd("TEXBUFWIDTH0", ((tex_addr >> 8) & 0xF0000) | 16), cmd("TEXSIZE0", (4 << 8) | 4),
                             cmd("TEXFORMAT", 3), cmd("TEXFILTER", 0), cmd("TEXFUNC", 0x100),
                             cmd("VERTEXTYPE", vtype), cmd("VADDR", VERTS & 0xFFFFFF), cmd("PRIM", (6 << 16) | 2),
                             cmd("FINISH"), cmd("END")])
    ge.run()
    off = ge.memory.span(VRAM, 512 * 8 * 4)
    drawn = ge.memory.mem[off:off + 512 * 8 * 4].reshape(8, 512, 4)[:, :16]
    prim = np.array([0xC0, 0x40, 0x80], dtype=np.int64)
    expected = ((prim + 1) * texels[:8, :, :3].astype(np.int64)) >> 8
    assert np.array_equal(drawn[:, :, :3], expected)
    assert not drawn[:, :, 3].any()
