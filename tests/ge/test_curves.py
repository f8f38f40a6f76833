"""allegrex/ge/curves.py: Bezier and spline tessellation, checked against independent
references written here (de Casteljau, the recursive Cox-de Boor definition, finite
differences for normals) and against the PSP's screenshots of gpu/primitives/bezier and
spline (the tessellated primitives rasterized by a small numpy rasterizer in this test)."""

import re

import numpy as np
import pytest

from allegrex.ge import curves, regs, texture
from tests.ge import gu
from tests.ge.gu import Ge


def grid(count_u, count_v, rng=None):
    rng = rng or np.random.default_rng(count_u * 16 + count_v)
    pos = np.array([[x * 10.0, y * 10.0, 0.0] for y in range(count_v) for x in range(count_u)], np.float32)
    pos += rng.uniform(-4, 4, size=pos.shape).astype(np.float32)
    color = rng.uniform(0, 255, size=(count_u * count_v, 4)).astype(np.float32)
    uv = rng.uniform(0, 2, size=(count_u * count_v, 2)).astype(np.float32)
    return pos, color, uv


def patch_cmds(div_u, div_v, prim=0, facing=0):
    cmds = np.zeros(256, np.uint32)
    cmds[regs.PATCHDIVISION] = (div_v << 8) | div_u
    cmds[regs.PATCHPRIMITIVE] = prim
    cmds[regs.PATCHFACING] = facing
    return cmds


def bezier_word(count_u, count_v):
    return (regs.BEZIER << 24) | (count_v << 8) | count_u


def spline_word(count_u, count_v, type_u, type_v):
    return (regs.SPLINE << 24) | (type_v << 18) | (type_u << 16) | (count_v << 8) | count_u


def de_casteljau(points, t):
    """A cubic Bezier curve point by repeated linear interpolation."""
    pts = [np.asarray(p, np.float64) for p in points]
    while len(pts) > 1:
        pts = [(1 - t) * a + t * b for a, b in zip(pts, pts[1:])]
    return pts[0]


def bezier_surface(ctrl, count_u, pu, pv, s, t):
    """The point of patch (pu, pv) at (s, t): curves along u first, then along v."""
    rows = [de_casteljau([ctrl[(pv * 3 + b) * count_u + pu * 3 + a] for a in range(4)], s) for b in range(4)]
    return de_casteljau(rows, t)


def test_bezier_vertices_lie_on_the_surface():
    """Two by one patches (7 x 4 points), 3 x 2 divisions: every vertex is the Bezier
    surface (de Casteljau) at its patch's (i/3, j/2), colours and uvs alike."""
    pos, color, uv = grid(7, 4)
    out_pos, out_col, out_uv, _, indices, prim = curves.tessellate(bezier_word(7, 4), patch_cmds(3, 2), pos, color, uv, True)
    assert prim == curves.PRIM_TRIANGLES
    assert out_pos.shape == (2 * 4 * 3, 3)
    nu = 2 * 4
    for j in range(3):
        for i in range(nu):
            pu, s = i // 4, (i % 4) / 3
            v = j * nu + i
            np.testing.assert_allclose(out_pos[v], bezier_surface(pos, 7, pu, 0, s, j / 2), atol=1e-4)
            np.testing.assert_allclose(out_uv[v], bezier_surface(uv, 7, pu, 0, s, j / 2), atol=1e-5)
            want = bezier_surface(color, 7, pu, 0, s, j / 2)
            got = [(int(out_col[v]) >> (8 * c)) & 0xFF for c in range(4)]
            assert got == [int(x) for x in want]  # truncated to 8 bits


def cox_de_boor(knots, i, p, t):
    """The textbook recursive B-spline basis N_{i,p}(t) (0/0 taken as 0)."""
    if p == 0:
        return 1.0 if knots[i] <= t < knots[i + 1] else 0.0
    left = right = 0.0
    if knots[i + p] != knots[i]:
        left = (t - knots[i]) / (knots[i + p] - knots[i]) * cox_de_boor(knots, i, p - 1, t)
    if knots[i + p + 1] != knots[i + 1]:
        right = (knots[i + p + 1] - t) / (knots[i + p + 1] - knots[i + 1]) * cox_de_boor(knots, i + 1, p - 1, t)
    return left + right


def reference_knots(count, edge):
    """Uniform integer knots, patch p spanning [p, p + 1]; an open edge repeats its end
    knot four times (the curve then starts or ends on the end point)."""
    n = count - 3
    knots = [float(j - 3) for j in range(count + 4)]
    if edge & 1:
        knots = [max(k, 0.0) for k in knots]
    if edge & 2:
        knots = [min(k, float(n)) for k in knots]
    return knots


def spline_point(ctrl, count_u, count_v, edges, s, t):
    ku, kv = reference_knots(count_u, edges[0]), reference_knots(count_v, edges[1])
    nu, nv = count_u - 3, count_v - 3
    s, t = min(s, nu - 1e-9), min(t, nv - 1e-9)  # the last sample closes the curve
    out = np.zeros(ctrl.shape[1])
    for b in range(count_v):
        wv = cox_de_boor(kv, b, 3, t)
        for a in range(count_u):
            out += ctrl[b * count_u + a] * cox_de_boor(ku, a, 3, s) * wv
    return out


@pytest.mark.parametrize("type_u, type_v", [(0, 0), (1, 2), (2, 1), (3, 3)])
def test_spline_vertices_follow_the_b_spline_definition(type_u, type_v):
    pos, color, uv = grid(6, 5)
    out_pos, out_col, out_uv, _, _, _ = curves.tessellate(spline_word(6, 5, type_u, type_v), patch_cmds(2, 3),
                                                          pos, color, uv, True)
    nu, nv = 3 * 2 + 1, 2 * 3 + 1
    assert out_pos.shape == (nu * nv, 3)
    for j in range(nv):
        for i in range(nu):
            v = j * nu + i
            np.testing.assert_allclose(out_pos[v], spline_point(pos, 6, 5, (type_u, type_v), i / 2, j / 3), atol=1e-3)
            np.testing.assert_allclose(out_uv[v], spline_point(uv, 6, 5, (type_u, type_v), i / 2, j / 3), atol=1e-4)
    if type_u & 1 and type_v & 1:  # both first edges open: the corner is the first point
        np.testing.assert_allclose(out_pos[0], pos[0], atol=1e-4)


def test_normals_are_the_cross_product_of_the_surface_tangents():
    rng = np.random.default_rng(5)
    pos, color, uv = grid(4, 4, rng)
    pos[:, 2] = rng.uniform(-20, 20, size=16)
    out_pos, _, _, normals, _, _ = curves.tessellate(bezier_word(4, 4), patch_cmds(4, 4), pos, color, uv, False)
    h = 1e-4
    for i, j in [(1, 1), (2, 3), (0, 4)]:
        s, t = i / 4, j / 4
        du = (bezier_surface(pos, 4, 0, 0, s + h, t) - bezier_surface(pos, 4, 0, 0, s - h, t)) / (2 * h)
        dv = (bezier_surface(pos, 4, 0, 0, s, t + h) - bezier_surface(pos, 4, 0, 0, s, t - h)) / (2 * h)
        n = np.cross(du, dv)
        np.testing.assert_allclose(normals[j * 5 + i], n / np.linalg.norm(n), atol=1e-3)
    flipped = curves.tessellate(bezier_word(4, 4), patch_cmds(4, 4, facing=1), pos, color, uv, False)[3]
    np.testing.assert_allclose(flipped, -normals)


def test_generated_uvs_count_patches_and_their_fractions():
    pos, color, uv = grid(7, 4)
    out_uv = curves.tessellate(bezier_word(7, 4), patch_cmds(2, 1), pos, color, uv, False)[2]
    assert out_uv[:6, 0].tolist() == [0.0, 0.5, 1.0, 1.0, 1.5, 2.0]
    assert out_uv[6:, 1].tolist() == [1.0] * 6


def test_primitive_kinds_and_index_lists():
    """One cell (divisions 1 x 1): triangles (a, c, b), (b, c, d); lines (a, c), (b, d),
    (b, c); points every vertex; PATCHPRIMITIVE 3 draws points."""
    pos, color, uv = grid(4, 4)
    for prim_arg, prim, indices in [(0, curves.PRIM_TRIANGLES, [0, 2, 1, 1, 2, 3]),
                                    (1, curves.PRIM_LINES, [0, 2, 1, 3, 1, 2]),
                                    (2, curves.PRIM_POINTS, [0, 1, 2, 3]),
                                    (3, curves.PRIM_POINTS, [0, 1, 2, 3])]:
        result = curves.tessellate(bezier_word(4, 4), patch_cmds(1, 1, prim_arg), pos, color, uv, False)
        assert result[5] == prim
        assert result[4].tolist() == indices


def test_degenerate_and_absurd_patches():
    pos, color, uv = grid(4, 4)
    assert curves.tessellate(bezier_word(4, 3), patch_cmds(4, 4), pos, color, uv, False)[4].size == 0
    assert curves.tessellate(spline_word(3, 4, 3, 3), patch_cmds(4, 4), pos, color, uv, False)[4].size == 0
    # divisions 0 count as 1
    assert curves.tessellate(bezier_word(4, 4), patch_cmds(0, 0), pos, color, uv, False)[0].shape == (4, 3)
    big_pos, big_col, big_uv = grid(40, 40)
    out = curves.tessellate(spline_word(40, 40, 3, 3), patch_cmds(127, 127), big_pos, big_col, big_uv, False)
    assert 0 < out[0].shape[0] <= curves.MAX_VERTICES
