"""Rasterization: screen vertices to pixels (triangles, sprites, lines, points).

Positions are in 1/16 pixel (the GE's sub-pixel precision). A triangle covers a pixel
when the pixel's sample point (7/16 into it) is inside all three edges; pixels exactly on
a right or flat-bottom edge are left to the neighbour (the top-left fill rule), and only
counter-clockwise triangles (on screen, y down) draw: the primitive stage sends a culled
or double-sided triangle in the order(s) it wants. Colour interpolates linearly in
screen space (not perspective-corrected, as on the PSP), texture coordinates
perspective-correctly (s/w, t/w, 1/w), depth and fog linearly. Flat shading uses the
provoking vertex (v2). Pixels outside the scissor (and REGION2) are not drawn; outside
MINZ..MAXZ (transform mode) they are discarded before texturing.

The primitives work a span at a time (a row's run of covered pixels): they fill the
span buffers with each pixel's depth, colours, fog and texture coordinates, and
`shade_span` runs them through texture.sample_prepared + texture.combine (texturing on,
not clear mode) and fragment.process_at, which writes the frame buffer, with the row's
colour and depth offsets computed once when the row lies in plain memory (direct.py).
One compiled copy of the pixel stages serves every primitive. `pix` holds their
per-draw prepared states and the span buffers (`prepare_pixels`).
`lod` is the GE's log2 of texels per pixel along the screen axes at level 0, as its
piecewise-linear approximation (exponent + mantissa fraction), or in slope mode the
log2 of 2 * w * TEXLODSLOPE.
"""

import numpy as np
from numba import njit

from allegrex.ge import cost, fragment
from allegrex.ge.colors import FMT_8888
from allegrex.ge.direct import plain_offset
from allegrex.ge.geometry import (S_A, S_B, S_FOG, S_G, S_Q, S_R, S_S, S_SB, S_SG, S_SR, S_T, S_W, S_X, S_Y,
                                  S_Z, f24, pack_rgba)
from allegrex.ge.fragment import prepare as fragment_prepare
from allegrex.ge.texture import (P_READ_END, P_READ_FIRST, combine, combine_span, gelog2, one_level,
                                  sample_prepared)
from allegrex.ge.texture import prepare as texture_prepare
from allegrex.ge.state import R_CYCLES, R_PIXELS
from allegrex.ge.regs import (SCISSOR1, SCISSOR2, REGION2, MINZ, MAXZ, TEXTUREMAPENABLE, TEXSIZE0, TEXMAPMODE,
                             TEXLEVEL, TEXLODSLOPE, TEXMODE, TEXFILTER, SHADEMODE, CLEARMODE, FOGENABLE,
                             VERTEXTYPE, ANTIALIASENABLE)

# raster setup record (float64[RS_SIZE]), computed once per draw by `setup`
RS_X1, RS_Y1, RS_X2, RS_Y2 = 0, 1, 2, 3  # scissor, pixels, inclusive
RS_MINZ, RS_MAXZ, RS_DEPTHRANGE = 4, 5, 6
RS_TEX, RS_TW, RS_TH, RS_PROJ, RS_LODMODE, RS_SLOPE = 7, 8, 9, 10, 11, 12
RS_THROUGH, RS_GOURAUD, RS_FOG, RS_CLEAR, RS_ANTIALIAS = 13, 14, 15, 16, 17
RS_NEEDLOD = 18  # the sampler's choices depend on the measured level of detail
RS_SIZE = 20
SAMPLE = 8  # where in its 16 sub-pixels a pixel is sampled (its centre)

# span buffers (prepare_pixels): per pixel of a span, integer and float attributes
SPAN_MAX = 1024  # scissor x runs 0-1023
SI_Z, SI_RGBA, SI_SPEC = 0, 1, 2
SF_FOG, SF_S, SF_T, SF_LOD = 0, 1, 2, 3


@njit(cache=True, error_model="numpy")
def setup(cmds):
    rs = np.zeros(RS_SIZE, dtype=np.float64)
    rs[RS_X1] = cmds[SCISSOR1] & 0x3FF
    rs[RS_Y1] = (cmds[SCISSOR1] >> 10) & 0x3FF
    rs[RS_X2] = min(cmds[SCISSOR2] & 0x3FF, cmds[REGION2] & 0x3FF)
    rs[RS_Y2] = min((cmds[SCISSOR2] >> 10) & 0x3FF, (cmds[REGION2] >> 10) & 0x3FF)
    through = (cmds[VERTEXTYPE] >> 23) & 1
    clear = cmds[CLEARMODE] & 1
    rs[RS_MINZ] = cmds[MINZ] & 0xFFFF
    rs[RS_MAXZ] = cmds[MAXZ] & 0xFFFF
    rs[RS_DEPTHRANGE] = 0 if through else 1
    rs[RS_TEX] = 1 if (cmds[TEXTUREMAPENABLE] & 1) and not clear else 0
    rs[RS_TW] = 1 << (cmds[TEXSIZE0] & 0xF)
    rs[RS_TH] = 1 << ((cmds[TEXSIZE0] >> 8) & 0xF)
    rs[RS_PROJ] = 1 if (cmds[TEXMAPMODE] & 3) == 1 and not through else 0
    rs[RS_LODMODE] = cmds[TEXLEVEL] & 3
    rs[RS_SLOPE] = f24(cmds[TEXLODSLOPE])
    rs[RS_THROUGH] = through
    rs[RS_GOURAUD] = cmds[SHADEMODE] & 1
    rs[RS_FOG] = 1 if (cmds[FOGENABLE] & 1) and not through and not clear else 0
    rs[RS_CLEAR] = clear
    rs[RS_ANTIALIAS] = cmds[ANTIALIASENABLE] & 1
    # with one level and the same filter both ways (or a constant level) lod changes nothing
    mipmapped = (cmds[TEXMODE] >> 16) & 7 != 0
    filters_differ = (cmds[TEXFILTER] & 1) != ((cmds[TEXFILTER] >> 8) & 1)
    rs[RS_NEEDLOD] = 1 if (cmds[TEXLEVEL] & 3) != 1 and (mipmapped or filters_differ) else 0
    return rs


@njit(cache=True, error_model="numpy")
def prepare_pixels(cmds, clut, ram_size):
    """The texture and fragment stages' prepared state for one draw, and span buffers."""
    return (texture_prepare(cmds, clut, ram_size), fragment_prepare(cmds),
            np.zeros((3, SPAN_MAX), dtype=np.int64), np.zeros((4, SPAN_MAX), dtype=np.float64))


@njit(cache=True, error_model="numpy")
def shade_span(mem, ram_size, mapping, regs, cmds, pix, rs, y, x0, n):
    """Texture (if on) and hand the span's n pixels from (x0, y) to the fragment stage;
    their attributes are in the span buffers (texturing replaces the colours there: a
    caller fills them again for its next span). Pixels outside MINZ..MAXZ (transform
    mode) are skipped before texturing. In plain memory: a clear-mode span without
    dithering is a fill (fragment.clear_store); a span whose texels are not in the rows
    it writes is textured first, then goes through fragment.plain_span when the draw's
    fragment settings allow; otherwise each pixel is textured and stored in turn."""
    tex, frag, si, sf = pix
    fmt = frag[fragment.F_FB_FMT]
    bpp = 4 if fmt == FMT_8888 else 2
    row = plain_offset(frag[fragment.F_FB_ADDR] + (y * frag[fragment.F_FB_STRIDE] + x0) * bpp, n * bpp, ram_size)
    depth = fragment.uses_depth(frag)
    zrow = -1
    if depth:
        zrow = plain_offset(frag[fragment.F_Z_ADDR] + (y * frag[fragment.F_Z_STRIDE] + x0) * 2, n * 2, ram_size)
    rows_plain = row >= 0 and (zrow >= 0 or not depth)
    check_range = rs[RS_DEPTHRANGE] != 0.0
    minz, maxz = rs[RS_MINZ], rs[RS_MAXZ]
    written = 0
    if frag[fragment.F_CLEAR] and not frag[fragment.F_DITHER] and rows_plain:
        keep = fragment.clear_keep(frag)
        for i in range(n):
            z = si[SI_Z, i]
            if check_range and (z < minz or z > maxz):
                continue
            fragment.clear_store(mem, fmt, row + i * bpp, zrow + 2 * i if depth else -1, z, si[SI_RGBA, i], keep)
            written += 1
        regs[R_PIXELS] += written
        return
    textured = rs[RS_TEX] != 0.0
    first, end = tex[P_READ_FIRST], tex[P_READ_END]
    ahead = (textured and rows_plain and first >= 0 and _apart(first, end, row, row + n * bpp)
             and (not depth or _apart(first, end, zrow, zrow + 2 * n)))
    cycles = 0
    if ahead:
        cycles = _texture_span(mem, ram_size, mapping, cmds, tex, si, sf, np.int64(0), n, check_range, minz, maxz)
    if (ahead or not textured) and rows_plain and frag[fragment.F_PLAIN]:
        written = fragment.plain_span(mem, frag, row, zrow, n, si[SI_RGBA], si[SI_SPEC], si[SI_Z], check_range)
    else:
        for i in range(n):
            z = si[SI_Z, i]
            if check_range and (z < minz or z > maxz):
                continue
            if textured and not ahead:
                cycles += _texture_span(mem, ram_size, mapping, cmds, tex, si, sf, i, i + 1, check_range, minz, maxz)
            x = x0 + i
            off = row + i * bpp if row >= 0 else fragment.pixel_offset(mem, ram_size, mapping, frag, x, y)
            zoff = -1
            if depth:
                zoff = zrow + 2 * i if zrow >= 0 else fragment.depth_offset(ram_size, mapping, frag, x, y)
            written += fragment.process_at(mem, frag, x, y, z, si[SI_RGBA, i], si[SI_SPEC, i], sf[SF_FOG, i], off,
                                           zoff)
    regs[R_CYCLES] += cycles * cost.PIXEL_TEXTURED
    regs[R_PIXELS] += written


@njit(cache=True, error_model="numpy")
def _apart(a0, a1, b0, b1):
    """Do the byte ranges [a0, a1) and [b0, b1) not overlap?"""
    return a1 <= b0 or b1 <= a0


@njit(cache=True, error_model="numpy")
def _texture_span(mem, ram_size, mapping, cmds, tex, si, sf, start, end, check_range, minz, maxz):
    """Replace the colours of span pixels start..end-1 (those inside MINZ..MAXZ when
    check_range) by texture.combine of them and their texel; returns how many."""
    if one_level(tex):  # the level of detail changes nothing: texture.combine_span's loop
        return combine_span(mem, ram_size, mapping, cmds, tex, si[SI_RGBA], sf[SF_S], sf[SF_T], si[SI_Z], start, end,
                            check_range, minz, maxz)
    count = 0
    for i in range(start, end):
        z = si[SI_Z, i]
        if check_range and (z < minz or z > maxz):
            continue
        si[SI_RGBA, i] = combine(cmds, si[SI_RGBA, i],
                                 sample_prepared(mem, ram_size, mapping, tex, sf[SF_S, i], sf[SF_T, i], sf[SF_LOD, i]))
        count += 1
    return count


@njit(cache=True, error_model="numpy", inline="always")
def _shade_pixel(mem, ram_size, mapping, regs, cmds, pix, rs, x, y, z, rgba, spec, fog, s, t, lod):
    """One pixel as a span of one (points and lines)."""
    si, sf = pix[2], pix[3]
    si[SI_Z, 0], si[SI_RGBA, 0], si[SI_SPEC, 0] = z, rgba, spec
    sf[SF_FOG, 0], sf[SF_S, 0], sf[SF_T, 0], sf[SF_LOD, 0] = fog, s, t, lod
    shade_span(mem, ram_size, mapping, regs, cmds, pix, rs, y, x, np.int64(1))


@njit(cache=True, error_model="numpy")
def _lod(rs, ds, dt, w):
    if rs[RS_LODMODE] == 2:
        return gelog2(2.0 * w * rs[RS_SLOPE])
    return gelog2(max(abs(ds * rs[RS_TW]), abs(dt * rs[RS_TH])))


@njit(cache=True, error_model="numpy")
def _right_or_flat_bottom(vx, vy, ax, ay, bx, by):
    """Is the edge a-b a right edge (the third vertex v left of it) or a flat bottom?"""
    if ay == by:
        return vy < ay
    return vx < ax + (bx - ax) * (vy - ay) / (by - ay)


@njit(cache=True, error_model="numpy")
def triangle(mem, ram_size, mapping, regs, cmds, pix, rs, v0, v1, v2):
    """Draw a counter-clockwise triangle (clockwise ones cover no pixel)."""
    x0, y0, x1, y1, x2, y2 = int(v0[S_X]), int(v0[S_Y]), int(v1[S_X]), int(v1[S_Y]), int(v2[S_X]), int(v2[S_Y])
    if (x0 - x1) * (y0 - y2) - (y0 - y1) * (x0 - x2) < 0:
        return
    if (x0 == x1 and x0 == x2) or (y0 == y1 and y0 == y2):
        return
    minx = max(min(x0, x1, x2) >> 4, int(rs[RS_X1]))
    maxx = min(max(x0, x1, x2) >> 4, int(rs[RS_X2]))
    miny = max(min(y0, y1, y2) >> 4, int(rs[RS_Y1]))
    maxy = min(max(y0, y1, y2) >> 4, int(rs[RS_Y2]))
    if minx > maxx or miny > maxy:
        return
    bias0 = -1 if _right_or_flat_bottom(x0, y0, x1, y1, x2, y2) else 0
    bias1 = -1 if _right_or_flat_bottom(x1, y1, x2, y2, x0, y0) else 0
    bias2 = -1 if _right_or_flat_bottom(x2, y2, x0, y0, x1, y1) else 0
    # edge functions w_i(X, Y) = a_i X + b_i Y + c_i (opposite vertex i)
    a0, b0, c0 = y1 - y2, x2 - x1, y2 * x1 - x2 * y1
    a1, b1, c1 = y2 - y0, x0 - x2, y0 * x2 - x0 * y2
    a2, b2, c2 = y0 - y1, x1 - x0, y1 * x0 - x1 * y0
    wsum = float(c0 + c1 + c2)  # w0 + w1 + w2 is constant: twice the area (a_i and b_i sum to 0)
    if wsum <= 0.0:
        return
    recip = 1.0 / wsum
    flat_z = v0[S_Z] == v1[S_Z] and v0[S_Z] == v2[S_Z]
    if rs[RS_DEPTHRANGE] != 0.0 and flat_z and (v0[S_Z] < rs[RS_MINZ] or v0[S_Z] > rs[RS_MAXZ]):
        return
    gouraud = rs[RS_GOURAUD] != 0.0
    tex = rs[RS_TEX] != 0.0
    need_lod = tex and rs[RS_NEEDLOD] != 0.0
    fog_on = rs[RS_FOG] != 0.0
    # attributes as v2 + d0 * w0 / wsum + d1 * w1 / wsum (exact when the vertices agree)
    dz0, dz1 = v0[S_Z] - v2[S_Z], v1[S_Z] - v2[S_Z]
    dc = np.zeros((7, 2))
    for i in range(7):
        dc[i, 0] = v0[S_R + i] - v2[S_R + i]
        dc[i, 1] = v1[S_R + i] - v2[S_R + i]
    df0, df1 = v0[S_FOG] - v2[S_FOG], v1[S_FOG] - v2[S_FOG]
    flat_rgba = pack_rgba(v2[S_R], v2[S_G], v2[S_B], v2[S_A])
    flat_spec = pack_rgba(v2[S_SR], v2[S_SG], v2[S_SB], 0.0)
    # a secondary colour the same at every vertex interpolates to itself: pack it once
    spec_varies = (dc[4, 0] != 0.0 or dc[4, 1] != 0.0 or dc[5, 0] != 0.0 or dc[5, 1] != 0.0 or dc[6, 0] != 0.0
                   or dc[6, 1] != 0.0)
    # texture coordinates: s = Ns / Nq with Ns, Nq linear in the weights (perspective-correct)
    tc = _texture_planes(v0, v1, v2, rs)
    si, sf = pix[2], pix[3]
    for py in range(miny, maxy + 1):
        sy = py * 16 + SAMPLE
        lo, hi = minx, maxx
        lo, hi = _span(a0, b0 * sy + c0 + bias0, lo, hi)
        lo, hi = _span(a1, b1 * sy + c1 + bias1, lo, hi)
        lo, hi = _span(a2, b2 * sy + c2 + bias2, lo, hi)
        if hi < lo:
            continue
        for px in range(lo, hi + 1):
            i = px - lo
            sx = px * 16 + SAMPLE
            w0 = a0 * sx + b0 * sy + c0
            w1 = a1 * sx + b1 * sy + c1
            f0, f1 = w0 * recip, w1 * recip
            z = int(v2[S_Z]) if flat_z else int(v2[S_Z] + dz0 * f0 + dz1 * f1)
            if gouraud:
                rgba = pack_rgba(v2[S_R] + dc[0, 0] * f0 + dc[0, 1] * f1, v2[S_G] + dc[1, 0] * f0 + dc[1, 1] * f1,
                             v2[S_B] + dc[2, 0] * f0 + dc[2, 1] * f1, v2[S_A] + dc[3, 0] * f0 + dc[3, 1] * f1)
                spec = flat_spec
                if spec_varies:
                    spec = pack_rgba(v2[S_SR] + dc[4, 0] * f0 + dc[4, 1] * f1, v2[S_SG] + dc[5, 0] * f0 + dc[5, 1] * f1,
                                 v2[S_SB] + dc[6, 0] * f0 + dc[6, 1] * f1, 0.0)
            else:
                rgba, spec = flat_rgba, flat_spec
            si[SI_Z, i], si[SI_RGBA, i], si[SI_SPEC, i] = z, rgba, spec
            sf[SF_FOG, i] = v2[S_FOG] + df0 * f0 + df1 * f1 if fog_on else 1.0
            if tex:
                s, t, w = _st_at(tc, rs, sx, sy)
                lod = 0.0
                if need_lod:  # measured per 2x2 quad, as the GE does
                    qx, qy = (px & ~1) * 16 + SAMPLE, (py & ~1) * 16 + SAMPLE
                    s0, t0, w = _st_at(tc, rs, qx, qy)
                    s1, _t1, _w = _st_at(tc, rs, qx + 16, qy)
                    _s2, t2, _w = _st_at(tc, rs, qx, qy + 16)
                    lod = _lod(rs, s1 - s0, t2 - t0, w)
                sf[SF_S, i], sf[SF_T, i], sf[SF_LOD, i] = s, t, lod
        shade_span(mem, ram_size, mapping, regs, cmds, pix, rs, py, lo, hi - lo + 1)


@njit(cache=True, error_model="numpy")
def _span(a, k, lo, hi):
    """Narrow [lo, hi] to the pixels px with a * (16 px + SAMPLE) + k >= 0 (one edge)."""
    r = -k - SAMPLE * a
    if a > 0:
        lo = max(lo, -((-r) // (16 * a)))  # ceil(r / 16a)
    elif a < 0:
        hi = min(hi, (-r) // (-16 * a))  # floor(r / 16a)
    elif k < 0:
        hi = lo - 1
    return lo, hi


@njit(cache=True, error_model="numpy")
def _texture_planes(v0, v1, v2, rs):
    """Planes over screen (1/16 px) of the texture numerators and their denominator:
    rows s, t, q (q: 1/w, times the vertex q with texture projection), w, and the weights'
    sum in [4, 2]; columns x, y, 1."""
    tc = np.zeros((5, 3))
    x0, y0, x1, y1, x2, y2 = v0[S_X], v0[S_Y], v1[S_X], v1[S_Y], v2[S_X], v2[S_Y]
    through = rs[RS_THROUGH] != 0.0
    q = np.empty(3)
    qq = np.empty(3)
    for i, v in enumerate((v0, v1, v2)):
        q[i] = 1.0 if through else 1.0 / v[S_W]
        qq[i] = q[i] * v[S_Q] if rs[RS_PROJ] != 0.0 else q[i]
    a = np.array([y1 - y2, y2 - y0, y0 - y1])
    b = np.array([x2 - x1, x0 - x2, x1 - x0])
    c = np.array([y2 * x1 - x2 * y1, y0 * x2 - x0 * y2, y1 * x0 - x1 * y0])
    vals = np.empty((4, 3))
    for i, v in enumerate((v0, v1, v2)):
        vals[0, i] = v[S_S] * q[i]
        vals[1, i] = v[S_T] * q[i]
        vals[2, i] = qq[i]
        vals[3, i] = v[S_W]
    for r in range(4):
        for i in range(3):
            tc[r, 0] += a[i] * vals[r, i]
            tc[r, 1] += b[i] * vals[r, i]
            tc[r, 2] += c[i] * vals[r, i]
    tc[4, 2] = c[0] + c[1] + c[2]  # the weights' sum (twice the area)
    return tc


@njit(cache=True, error_model="numpy")
def _st_at(tc, rs, sx, sy):
    """Level-0 normalized s, t and the interpolated w at screen point (sx, sy)."""
    nq = tc[2, 0] * sx + tc[2, 1] * sy + tc[2, 2]
    if nq == 0.0:
        return 0.0, 0.0, 1.0
    s = (tc[0, 0] * sx + tc[0, 1] * sy + tc[0, 2]) / nq
    t = (tc[1, 0] * sx + tc[1, 1] * sy + tc[1, 2]) / nq
    if rs[RS_THROUGH] != 0.0:
        return s / rs[RS_TW], t / rs[RS_TH], 1.0
    return s, t, (tc[3, 0] * sx + tc[3, 1] * sy + tc[3, 2]) / tc[4, 2]


@njit(cache=True, error_model="numpy")
def rectangle(mem, ram_size, mapping, regs, cmds, pix, rs, v0, v1):
    """A sprite: the axis-aligned rectangle between two corners, coloured by v1. A pixel
    is drawn when its centre lies in [x1, x2) x [y1, y2) (MEASURED: gpu/filtering
    precision*2d, a sprite from x = -0.5 to 1.5 covers pixel 0 only); texture
    coordinates run from v0's corner to v1's (rotated when the corners are swapped)."""
    ex1, ey1 = min(int(v0[S_X]), int(v1[S_X])), min(int(v0[S_Y]), int(v1[S_Y]))
    ex2, ey2 = max(int(v0[S_X]), int(v1[S_X])) - 1, max(int(v0[S_Y]), int(v1[S_Y])) - 1
    minx = max(-((SAMPLE - ex1) // 16), int(rs[RS_X1]), 0)  # ceil((ex1 - SAMPLE) / 16)
    miny = max(-((SAMPLE - ey1) // 16), int(rs[RS_Y1]), 0)
    maxx = min((ex2 - SAMPLE) // 16, int(rs[RS_X2]))
    maxy = min((ey2 - SAMPLE) // 16, int(rs[RS_Y2]))
    if minx > maxx or miny > maxy:
        return
    z = int(v1[S_Z])
    if rs[RS_DEPTHRANGE] != 0.0 and (z < rs[RS_MINZ] or z > rs[RS_MAXZ]):
        return
    rgba = pack_rgba(v1[S_R], v1[S_G], v1[S_B], v1[S_A])
    spec = pack_rgba(v1[S_SR], v1[S_SG], v1[S_SB], 0.0)
    fog = v1[S_FOG] if rs[RS_FOG] != 0.0 else 1.0
    tex = rs[RS_TEX] != 0.0
    s0, t0, s1, t1 = v0[S_S], v0[S_T], v1[S_S], v1[S_T]
    if rs[RS_THROUGH] != 0.0:
        s0, s1 = s0 / rs[RS_TW], s1 / rs[RS_TW]
        t0, t1 = t0 / rs[RS_TH], t1 / rs[RS_TH]
    dx = (ex2 - ex1 + 1) / 16.0
    dy = (ey2 - ey1 + 1) / 16.0
    ds, dt = s1 - s0, t1 - t0
    # coordinates at the top-left corner and their steps per pixel along x and y
    if v0[S_X] < v1[S_X]:
        if v0[S_Y] < v1[S_Y]:
            s_tl, t_tl, sxs, sxt, sys, syt = s0, t0, ds / dx, 0.0, 0.0, dt / dy
        else:
            s_tl, t_tl, sxs, sxt, sys, syt = s1, t0, 0.0, dt / dx, -ds / dy, 0.0
    else:
        if v0[S_Y] < v1[S_Y]:
            s_tl, t_tl, sxs, sxt, sys, syt = s0, t1, 0.0, -dt / dx, ds / dy, 0.0
        else:
            s_tl, t_tl, sxs, sxt, sys, syt = s1, t1, -ds / dx, 0.0, 0.0, -dt / dy
    lod = _lod(rs, sxs, syt, v1[S_W]) if tex else 0.0
    si, sf = pix[2], pix[3]
    n = maxx - minx + 1
    for py in range(miny, maxy + 1):
        fy = (py * 16 + SAMPLE - ey1) / 16.0
        for px in range(minx, maxx + 1):  # every row: shading a span textures its colours in place
            i = px - minx
            si[SI_Z, i], si[SI_RGBA, i], si[SI_SPEC, i] = z, rgba, spec
            sf[SF_FOG, i], sf[SF_LOD, i] = fog, lod
            if tex:
                fx = (px * 16 + SAMPLE - ex1) / 16.0
                sf[SF_S, i] = s_tl + sxs * fx + sys * fy
                sf[SF_T, i] = t_tl + sxt * fx + syt * fy
        shade_span(mem, ram_size, mapping, regs, cmds, pix, rs, py, minx, n)


@njit(cache=True, error_model="numpy")
def point(mem, ram_size, mapping, regs, cmds, pix, rs, v0):
    px, py = int(v0[S_X]) >> 4, int(v0[S_Y]) >> 4
    if px < rs[RS_X1] or px > rs[RS_X2] or py < rs[RS_Y1] or py > rs[RS_Y2]:
        return
    s, t = v0[S_S], v0[S_T]
    if rs[RS_THROUGH] != 0.0:
        s, t = s / rs[RS_TW], t / rs[RS_TH]
    elif rs[RS_PROJ] != 0.0 and v0[S_Q] != 0.0:
        s, t = s / v0[S_Q], t / v0[S_Q]
    lod = _lod(rs, 0.0, 0.0, v0[S_W]) if rs[RS_TEX] != 0.0 else 0.0
    _shade_pixel(mem, ram_size, mapping, regs, cmds, pix, rs, px, py, int(v0[S_Z]), pack_rgba(v0[S_R], v0[S_G], v0[S_B], v0[S_A]),
                 pack_rgba(v0[S_SR], v0[S_SG], v0[S_SB], 0.0), v0[S_FOG] if rs[RS_FOG] != 0.0 else 1.0, s, t, lod)


@njit(cache=True, error_model="numpy")
def line(mem, ram_size, mapping, regs, cmds, pix, rs, v0, v1):
    """A line: along its longer axis, the pixels whose centres lie from v0 up to (not
    including) v1; the other coordinate, colour (Gouraud, else v1's), depth and texture
    coordinates at each centre (MEASURED: gpu/primitives/lines draws 9.375..11.25 as
    pixels 9 and 10, and 24..22 as 23 and 22)."""
    ax, ay, bx, by = v0[S_X], v0[S_Y], v1[S_X], v1[S_Y]
    x_major = abs(bx - ax) >= abs(by - ay)
    a, b = (ax, bx) if x_major else (ay, by)
    if a == b:
        return
    if b > a:
        first, last, step = -((8 - int(a)) // 16), -((8 - int(b)) // 16) - 1, 1  # centres in [a, b)
    else:
        first, last, step = (int(a) - 8) // 16, (int(b) - 8) // 16 + 1, -1  # centres in (b, a]
    gouraud = rs[RS_GOURAUD] != 0.0
    flat_rgba = pack_rgba(v1[S_R], v1[S_G], v1[S_B], v1[S_A])
    flat_spec = pack_rgba(v1[S_SR], v1[S_SG], v1[S_SB], 0.0)
    for p in range(first, last + step, step):
        t = (p * 16 + 8 - a) / (b - a)
        minor = (ay + (by - ay) * t) if x_major else (ax + (bx - ax) * t)
        q = int(np.floor(minor / 16.0))
        px, py = (p, q) if x_major else (q, p)
        if not (rs[RS_X1] <= px <= rs[RS_X2] and rs[RS_Y1] <= py <= rs[RS_Y2]):
            continue
        rgba, spec = flat_rgba, flat_spec
        if gouraud:
            rgba = pack_rgba(_lerp(v0[S_R], v1[S_R], t), _lerp(v0[S_G], v1[S_G], t), _lerp(v0[S_B], v1[S_B], t),
                         _lerp(v0[S_A], v1[S_A], t))
            spec = pack_rgba(_lerp(v0[S_SR], v1[S_SR], t), _lerp(v0[S_SG], v1[S_SG], t),
                         _lerp(v0[S_SB], v1[S_SB], t), 0.0)
        fog = _lerp(v0[S_FOG], v1[S_FOG], t) if rs[RS_FOG] != 0.0 else 1.0
        z = int(_lerp(v0[S_Z], v1[S_Z], t))
        s = tt = lod = 0.0
        if rs[RS_TEX] != 0.0:
            s, tt, w = _line_st(v0, v1, rs, 1.0 - t)
            t1 = t + 16.0 / abs(b - a)
            s1, tt1, _w = _line_st(v0, v1, rs, 1.0 - t1)
            lod = _lod(rs, (s1 - s) if x_major else 0.0, (tt1 - tt) if not x_major else 0.0, w)
        _shade_pixel(mem, ram_size, mapping, regs, cmds, pix, rs, px, py, z, rgba, spec, fog, s, tt, lod)


@njit(cache=True, error_model="numpy")
def _lerp(a, b, t):
    return a + (b - a) * t


@njit(cache=True, error_model="numpy")
def _line_st(v0, v1, rs, p):
    """Texture coordinates at fraction p of v0 (p = 1 at v0)."""
    if rs[RS_THROUGH] != 0.0:
        return ((v0[S_S] * p + v1[S_S] * (1.0 - p)) / rs[RS_TW], (v0[S_T] * p + v1[S_T] * (1.0 - p)) / rs[RS_TH],
                1.0)
    wq0, wq1 = p / v0[S_W], (1.0 - p) / v1[S_W]
    den = wq0 + wq1
    if rs[RS_PROJ] != 0.0:
        den = v0[S_Q] * wq0 + v1[S_Q] * wq1
    if den == 0.0:
        return 0.0, 0.0, 1.0
    return ((v0[S_S] * wq0 + v1[S_S] * wq1) / den, (v0[S_T] * wq0 + v1[S_T] * wq1) / den,
            v0[S_W] * p + v1[S_W] * (1.0 - p))
