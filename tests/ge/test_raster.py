"""Rasterization: coverage against a plain per-pixel reading of the GE's rules (pixel
centres, top-left fill rule), exact colours for agreeing vertices, the line rule measured
on a PSP (gpu/primitives/lines), sprite extents. Drawn through the whole list processor."""

import struct

import numpy as np
import pytest

from allegrex.ge.state import R_PIXELS
from gelists import LIST, Ge, cmd

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
