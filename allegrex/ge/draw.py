"""Drawing commands: PRIM, BEZIER/SPLINE (tessellated by curves.py), BOUNDINGBOX and
immediate vertices (VAP).

PRIM decodes its vertices (through IADR when indexed), runs the vertex stage
(geometry.py) and assembles primitives: points, lines, line strips, triangles, strips,
fans, sprites. Primitive type 7 continues the previous PRIM: its unfinished vertices
(kept in `keep`, up to 3, with regs[R_KEEP_COUNT]) carry over, as they do for immediate
vertices. Culling sends a triangle to the rasterizer in the winding that draws
(raster.triangle draws counter-clockwise ones): both windings with culling off, one
otherwise, alternating along strips and fans. Clipping is only against the near plane
(z = -w), regardless of the viewport; a primitive with a vertex outside the screen space
or, without depth clamp, outside the depth range is dropped (the GE's guard band).

After a draw VADR (or IADR when indexed) points past the vertices used.
"""

import numpy as np
from numba import njit

from allegrex.ge import cost, geometry, raster, vertex
from allegrex.ge.geometry import S_CZ, S_OUT, S_SIZE, S_W, S_X, S_Y, S_Z, f24
from allegrex.ge.curves import tessellate
from allegrex.ge.lighting import prepare as lighting_prepare
from allegrex.ge.state import (EXEC_BBOX_INSIDE, KEEP_LAST, R_CYCLES, R_EXEC, R_IADR, R_IMM_FLAGS, R_KEEP_COUNT,
                               R_LISTADDR, R_PRIM_LAST, R_VADR, R_VERTICES, R_WARN, R_WARN_ADDR, R_WARN_PC)
from allegrex.ge.regs import (VERTEXTYPE, CULLFACEENABLE, CULL, CLEARMODE, SHADEMODE, DEPTHCLIPENABLE,
                             LIGHTINGENABLE, LIGHTENABLE0, TEXMAPMODE, SCISSOR1, SCISSOR2, REGION1, REGION2,
                             OFFSETX, OFFSETY, VSCX, VSCY, VSCZ, VTCS, VTCT,
                             VTCQ, VCV, VFC, VSCV, LIGHTMODE, ANTIALIASENABLE, TEXTUREMAPENABLE, FOGENABLE,
                             DITHERENABLE, TEXSIZE0, BEZIER, SPLINE)

POINTS, LINES, LINE_STRIP, TRIANGLES, TRIANGLE_STRIP, TRIANGLE_FAN, SPRITES, CONTINUE = range(8)
CULL_OFF, CULL_CW, CULL_CCW = 0, 1, 2


WARN_VERTICES = 1  # regs[R_WARN]: a draw read vertices or indices outside memory (it is skipped)

@njit(cache=True, error_model="numpy")
def vertex_cost(cmds, vtype):
    c = cost.VERTEX
    if cmds[LIGHTINGENABLE] & 1:
        c += cost.VERTEX_LIT
        for i in range(4):
            if cmds[LIGHTENABLE0 + i] & 1:
                c += cost.VERTEX_PER_LIGHT
    if cmds[TEXMAPMODE] & 3:
        c += cost.VERTEX_TEXGEN
    morphs = ((vtype >> 18) & 7) + 1
    if morphs > 1:
        c += cost.VERTEX_MORPH * morphs
    return c


@njit(cache=True, error_model="numpy")
def _cull_type(cmds):
    if not cmds[CULLFACEENABLE] & 1 or cmds[CLEARMODE] & 1:
        return CULL_OFF
    return CULL_CCW if cmds[CULL] & 1 else CULL_CW


@njit(cache=True, error_model="numpy", inline="always")
def _warn(regs, code, addr):
    if regs[R_WARN] == 0:
        regs[R_WARN] = code
        regs[R_WARN_PC] = regs[R_LISTADDR] - 4
        regs[R_WARN_ADDR] = addr


@njit(cache=True, error_model="numpy")
def _consume(regs, vtype, lay, count):
    """The vertex and index addresses a draw of `count` vertices reads from; the GE's
    VADR (or IADR when indexed) moves past them."""
    indexed = (vtype >> 11) & 3
    vaddr, iaddr = regs[R_VADR], regs[R_IADR]
    if indexed:
        regs[R_IADR] = iaddr + count * (1 << (indexed - 1))
    else:
        regs[R_VADR] = vaddr + count * lay[vertex.L_STRIDE]
    return vaddr, iaddr


@njit(cache=True, error_model="numpy")
def primitive(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, count, ptype):
    """PRIM: decode, transform and draw `count` vertices as primitives of `ptype`."""
    vtype = cmds[VERTEXTYPE] & 0xFFFFFF
    lay = vertex.layout(vtype)
    vaddr, iaddr = _consume(regs, vtype, lay, count)
    if ptype != CONTINUE:
        regs[R_KEEP_COUNT] = 0
        regs[R_PRIM_LAST] = ptype
    else:
        ptype = regs[R_PRIM_LAST]
    if (vtype >> 7) & 3 == 0:
        return  # no position: nothing is drawn (the vertices still count)
    regs[R_VERTICES] += count
    regs[R_CYCLES] += count * vertex_cost(cmds, vtype) + cost.PRIMITIVE
    xf = geometry.setup(cmds, mtx)
    rs = raster.setup(cmds)
    lp = lighting_prepare(cmds)
    mw = vertex.morph_weights(cmds, ((vtype >> 18) & 7) + 1)
    dv = np.zeros(vertex.V_SIZE, dtype=np.float64)
    verts = np.zeros((count, S_SIZE), dtype=np.float64)
    for i in range(count):
        n = vertex.index_at(mem, ram_size, mapping, vtype, iaddr, i)
        if n < 0 or not vertex.decode(mem, ram_size, mapping, mtx, vtype, lay, mw, vaddr + n * lay[vertex.L_STRIDE], dv):
            _warn(regs, WARN_VERTICES, iaddr + i if n < 0 else vaddr + n * lay[vertex.L_STRIDE])
            return
        _carry_attributes(vtype, dv, keep[KEEP_LAST])
        geometry.transform(cmds, mtx, xf, lp, vtype, dv, verts[i])
    pix = raster.prepare_pixels(cmds, clut, ram_size)
    assemble(mem, ram_size, mapping, regs, cmds, pix, keep, xf, rs, verts, count, ptype, np.bool_(False))


@njit(cache=True, error_model="numpy")
def _carry_attributes(vtype, dv, last):
    """A vertex without texture coordinates or a normal keeps the last ones the GE read
    (MEASURED: gpu/texmtx/source 'Without UV / normal' uses the previous draw's UV)."""
    if vtype & 3:
        last[0], last[1] = dv[vertex.V_S], dv[vertex.V_T]
    else:
        dv[vertex.V_S], dv[vertex.V_T] = last[0], last[1]
    if (vtype >> 5) & 3:
        for j in range(3):
            last[2 + j] = dv[vertex.V_NX + j]
    else:
        for j in range(3):
            dv[vertex.V_NX + j] = last[2 + j]


@njit(cache=True, error_model="numpy")
def assemble(mem, ram_size, mapping, regs, cmds, pix, keep, xf, rs, verts, count, ptype, immediate):
    """Turn screen vertices into primitives, continuing the kept ones (keep, R_KEEP_COUNT)."""
    cull = _cull_type(cmds)
    k = regs[R_KEEP_COUNT]
    if ptype == POINTS:
        for i in range(k):
            _point(mem, ram_size, mapping, regs, cmds, pix, rs, keep[i])
        k = 0
        for i in range(count):
            _point(mem, ram_size, mapping, regs, cmds, pix, rs, verts[i])
    elif ptype == LINES:
        i = 0
        while i + 1 < k:
            _line(mem, ram_size, mapping, regs, cmds, pix, xf, rs, keep[i], keep[i + 1])
            i += 2
        k &= 1
        for i in range(count):
            keep[k] = verts[i]
            k += 1
            if k == 2:
                _line(mem, ram_size, mapping, regs, cmds, pix, xf, rs, keep[0], keep[1])
                k = 0
    elif ptype == TRIANGLES:
        for i in range(count):
            keep[k] = verts[i]
            k += 1
            if k == 3:
                k = 0
                _send_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep[0], keep[1], keep[2], np.int64(2))
        if k >= 3:
            _send_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep[0], keep[1], keep[2], np.int64(2))
            k = 0
    elif ptype == SPRITES:
        for i in range(count):
            keep[k] = verts[i]
            k += 1
            if k == 2:
                _rectangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, keep[0], keep[1])
                k = 0
        if k >= 2:
            _rectangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, keep[0], keep[1])
            k -= 2
    elif ptype == LINE_STRIP:
        skip = 1 if k == 0 else 0
        for i in range(count):
            keep[k & 1] = verts[i]
            k += 1
            if skip:
                skip -= 1
            else:
                _line(mem, ram_size, mapping, regs, cmds, pix, xf, rs, keep[k & 1], keep[(k & 1) ^ 1])
        if immediate and k >= 2:
            _line(mem, ram_size, mapping, regs, cmds, pix, xf, rs, keep[k & 1], keep[(k & 1) ^ 1])
    elif ptype == TRIANGLE_STRIP:
        for i in range(count):
            provoking = k % 3
            keep[provoking] = verts[i]
            k += 1
            if k >= 3:
                _strip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep, k, provoking)
        if immediate and k >= 3:
            _strip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep, k, (k - 1) % 3)
    elif ptype == TRIANGLE_FAN:
        start = 0
        if k == 0 and count > 0:
            keep[0] = verts[0]
            k = 1
            start = 1
        for i in range(start, count):
            provoking = 2 - (k % 2)
            keep[provoking] = verts[i]
            k += 1
            if k >= 3:
                _strip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep, k, provoking)
        if immediate and k >= 3:
            _strip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep, k, 2 - ((k - 1) % 2))
    regs[R_KEEP_COUNT] = k


@njit(cache=True, error_model="numpy", inline="always")
def _strip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, keep, k, provoking):
    """Strips and fans alternate their winding: every other triangle flips the cull side."""
    wind = (k - 1) % 2
    c = cull
    if cull != CULL_OFF and wind:
        c = CULL_CCW if cull == CULL_CW else CULL_CW
    _send_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, c, keep[0], keep[1], keep[2], provoking)


@njit(cache=True, error_model="numpy")
def _send_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, cull, v0, v1, v2, provoking):
    pv = v0 if provoking == 0 else (v1 if provoking == 1 else v2)
    if cull == CULL_OFF:
        _clip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1, v2, pv)
        _clip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v2, v1, v0, pv)
    elif cull == CULL_CW:
        _clip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v2, v1, v0, pv)
    else:
        _clip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1, v2, pv)


@njit(cache=True, error_model="numpy")
def _outside_z(v):
    """+1 / -1 when z/w is beyond the far / near plane (with the GE's small tolerance), else 0."""
    z = v[S_CZ] / v[S_W]
    if z >= 1.000030517578125:
        return 1
    if -z >= 1.000030517578125:
        return -1
    return 0


@njit(cache=True, error_model="numpy", inline="always")
def _depth_rejects(cmds, pos, neg, n):
    """With depth clamp off one vertex beyond near/far drops the primitive; with it on all
    of them must be beyond the same plane."""
    if pos + neg > 0 and not cmds[DEPTHCLIPENABLE] & 1:
        return True
    return pos >= n or neg >= n


@njit(cache=True, error_model="numpy")
def _with_flat_color(rs, v, pv):
    if rs[raster.RS_GOURAUD] != 0.0:
        return v
    out = v.copy()
    for i in range(geometry.S_R, geometry.S_SB + 1):
        out[i] = pv[i]
    return out


@njit(cache=True, error_model="numpy")
def _clip_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1, v2, pv):
    if rs[raster.RS_THROUGH] == 0.0:
        if v0[S_OUT] != 0.0 or v1[S_OUT] != 0.0 or v2[S_OUT] != 0.0:
            return
        if v0[S_W] < 0.0 and v1[S_W] < 0.0 and v2[S_W] < 0.0:
            return
        pos = neg = 0
        for v in (v0, v1, v2):
            o = _outside_z(v)
            pos += o == 1
            neg += o == -1
        if _depth_rejects(cmds, pos, neg, 3):
            return
        if v0[S_CZ] < -v0[S_W] or v1[S_CZ] < -v1[S_W] or v2[S_CZ] < -v2[S_W]:
            _near_clip(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1, v2, pv)
            return
    raster.triangle(mem, ram_size, mapping, regs, cmds, pix, rs, v0, v1, _with_flat_color(rs, v2, pv))


@njit(cache=True, error_model="numpy")
def _lerp(cmds, xf, a, b, t, out):
    """The vertex at t from a to b (attributes and clip coordinates), re-projected."""
    for i in range(S_SIZE):
        out[i] = a[i] + (b[i] - a[i]) * t
    geometry.to_screen(cmds, xf, out)


@njit(cache=True, error_model="numpy", inline="always")
def _near_clip(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1, v2, pv):
    """Clip against z + w >= 0 (the only plane the GE clips) and fan out the polygon."""
    poly = np.zeros((4, S_SIZE), dtype=np.float64)
    n = 0
    src = (v0, v1, v2)
    for j in range(3):
        a = src[j]
        b = src[(j + 1) % 3]
        da = a[S_CZ] + a[S_W]
        db = b[S_CZ] + b[S_W]
        if da >= 0:
            poly[n] = a
            n += 1
        if (da <= 0 < db) or (db <= 0 < da):
            if db < 0:
                _lerp(cmds, xf, b, a, db / (db - da), poly[n])
            else:
                _lerp(cmds, xf, a, b, da / (da - db), poly[n])
            n += 1
    for j in range(2, n):
        t0, t1, t2 = poly[0], poly[j - 1], poly[j]
        if t0[S_OUT] != 0.0 or t1[S_OUT] != 0.0 or t2[S_OUT] != 0.0:
            continue
        raster.triangle(mem, ram_size, mapping, regs, cmds, pix, rs, t0, t1, _with_flat_color(rs, t2, pv))


@njit(cache=True, error_model="numpy")
def _line(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1):
    if rs[raster.RS_THROUGH] != 0.0:
        raster.line(mem, ram_size, mapping, regs, cmds, pix, rs, v0, v1)
        return
    if v0[S_OUT] != 0.0 or v1[S_OUT] != 0.0:
        return
    o0, o1 = _outside_z(v0), _outside_z(v1)
    if _depth_rejects(cmds, (o0 == 1) + (o1 == 1), (o0 == -1) + (o1 == -1), 2):
        return
    a, b = v0.copy(), v1.copy()
    da, db = a[S_CZ] + a[S_W], b[S_CZ] + b[S_W]
    if da < 0 <= db:
        _lerp(cmds, xf, b, v0, db / (db - da), a)
    elif db < 0 <= da:
        _lerp(cmds, xf, a, v1, da / (da - db), b)
    elif da < 0 and db < 0:
        return
    if a[S_OUT] == 0.0 and b[S_OUT] == 0.0:
        raster.line(mem, ram_size, mapping, regs, cmds, pix, rs, a, b)


@njit(cache=True, error_model="numpy", inline="always")
def _point(mem, ram_size, mapping, regs, cmds, pix, rs, v0):
    if rs[raster.RS_THROUGH] == 0.0 and v0[S_OUT] != 0.0:
        return
    raster.point(mem, ram_size, mapping, regs, cmds, pix, rs, v0)


@njit(cache=True, error_model="numpy")
def _rectangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1):
    if rs[raster.RS_THROUGH] == 0.0:
        if v0[S_OUT] != 0.0 or v1[S_OUT] != 0.0:
            return
        o0, o1 = _outside_z(v0), _outside_z(v1)
        if _depth_rejects(cmds, (o0 == 1) + (o1 == 1), (o0 == -1) + (o1 == -1), 2):
            return
        if rs[raster.RS_PROJ] != 0.0:
            _projected_rectangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1)
            return
    raster.rectangle(mem, ram_size, mapping, regs, cmds, pix, rs, v0, v1)


@njit(cache=True, error_model="numpy", inline="always")
def _projected_rectangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, v0, v1):
    """A sprite with projective texture coordinates is drawn as two triangles over its
    corners (their fill rule covers the same pixels), coordinates mixed from both ends."""
    corners = np.zeros((4, S_SIZE), dtype=np.float64)
    for i in range(4):
        corners[i] = v1
    corners[0, S_X], corners[0, S_Y] = v0[S_X], v0[S_Y]  # v0's corner with v0's coordinates
    corners[0, geometry.S_S], corners[0, geometry.S_T], corners[0, geometry.S_Q] = (
        v0[geometry.S_S], v0[geometry.S_T], v0[geometry.S_Q])
    corners[1, S_X], corners[1, S_Y] = v0[S_X], v1[S_Y]
    corners[1, geometry.S_S], corners[1, geometry.S_Q] = v0[geometry.S_S], v0[geometry.S_Q]
    corners[2, S_X], corners[2, S_Y] = v1[S_X], v0[S_Y]
    corners[2, geometry.S_T] = v0[geometry.S_T]
    if (v0[S_X] < v1[S_X]) != (v0[S_Y] < v1[S_Y]):  # corners swapped on one axis: rotated coordinates
        for c in (geometry.S_S, geometry.S_T, geometry.S_Q):
            corners[1, c], corners[2, c] = corners[2, c], corners[1, c]
    _send_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, np.int64(CULL_OFF), corners[0], corners[1], corners[3],
                   np.int64(2))
    _send_triangle(mem, ram_size, mapping, regs, cmds, pix, xf, rs, np.int64(CULL_OFF), corners[0], corners[3], corners[2],
                   np.int64(2))


@njit(cache=True, error_model="numpy")
def bounding_box(mem, ram_size, mapping, regs, cmds, mtx, count):
    """BOUNDINGBOX: set the 'inside' flag BJUMP reads when some part of the `count` points
    can be on screen: the test fails only when every point is beyond the same side of the
    scissor (and, with depth clamp, of the near/far planes). Counts above 0x100 test the
    GE's odd subset (MEASURED by PPSSPP on a PSP): count - 0x100 points, or above 0x200
    the 0x100 points from count - 0x200."""
    regs[R_EXEC] &= ~EXEC_BBOX_INSIDE
    if count == 0:
        return
    vtype = cmds[VERTEXTYPE] & 0xFFFFFF
    lay = vertex.layout(vtype)
    vaddr, iaddr = _consume(regs, vtype, lay, count)
    regs[R_CYCLES] += count * cost.BOUNDINGBOX_VERTEX
    first, tested = 0, count
    if count > 0x200:
        first, tested = count - 0x200, 0x100
    elif count > 0x100:
        tested = count - 0x100
    if _box_inside(mem, ram_size, mapping, regs, cmds, mtx, vtype, lay, vaddr, iaddr, first, tested):
        regs[R_EXEC] |= EXEC_BBOX_INSIDE


@njit(cache=True, error_model="numpy")
def _box_inside(mem, ram_size, mapping, regs, cmds, mtx, vtype, lay, vaddr, iaddr, first, tested):
    xf = geometry.setup(cmds, mtx)
    ox, oy = (cmds[OFFSETX] & 0xFFFF) / 16.0, (cmds[OFFSETY] & 0xFFFF) / 16.0
    left = ox + max(cmds[REGION1] & 0x3FF, cmds[SCISSOR1] & 0x3FF) - 1
    top = oy + max((cmds[REGION1] >> 10) & 0x3FF, (cmds[SCISSOR1] >> 10) & 0x3FF) - 1
    right = ox + min(cmds[REGION2] & 0x3FF, cmds[SCISSOR2] & 0x3FF) + 1
    bottom = oy + min((cmds[REGION2] >> 10) & 0x3FF, (cmds[SCISSOR2] >> 10) & 0x3FF) + 1
    if right >= 4096 or bottom >= 4096 or left < 1.0 or top < 1.0:
        return True  # a drawing box reaching outside the 4096 space passes every test
    mw = vertex.morph_weights(cmds, ((vtype >> 18) & 7) + 1)
    dv = np.zeros(vertex.V_SIZE, dtype=np.float64)
    inside = np.zeros(6, dtype=np.int64)
    model = (vtype & ~(1 << 23)) & 0xFFFFFF  # the test always transforms
    for i in range(first, first + tested):
        n = vertex.index_at(mem, ram_size, mapping, vtype, iaddr, i)
        if n < 0 or not vertex.decode(mem, ram_size, mapping, mtx, model, lay, mw, vaddr + n * lay[vertex.L_STRIDE], dv):
            return True  # unreadable data: the test passes
        x, y, z = dv[vertex.V_X], dv[vertex.V_Y], dv[vertex.V_Z]
        wx = geometry._apply(xf, geometry.X_WORLD, x, y, z, 1.0, 0)
        wy = geometry._apply(xf, geometry.X_WORLD, x, y, z, 1.0, 1)
        wz = geometry._apply(xf, geometry.X_WORLD, x, y, z, 1.0, 2)
        c = np.zeros(4, dtype=np.float64)
        for r in range(4):
            c[r] = geometry._apply(xf, geometry.X_VIEWPROJ, wx, wy, wz, 1.0, r)
        w = c[3]
        inside[4] += c[2] >= -w
        inside[5] += c[2] <= w
        dx = c[0] * xf[geometry.X_SCALE] + xf[geometry.X_CENTER] * w
        dy = c[1] * xf[geometry.X_SCALE + 1] + xf[geometry.X_CENTER + 1] * w
        inside[0] += dx >= left * w
        inside[1] += dx <= right * w
        inside[2] += dy >= top * w
        inside[3] += dy <= bottom * w
    planes = 6 if cmds[DEPTHCLIPENABLE] & 1 else 4
    for p in range(planes):
        if inside[p] == 0:
            return False
    return True


@njit(cache=True, error_model="numpy")
def patch(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, spline, arg):
    """BEZIER/SPLINE: decode the u x v control points (VADR/IADR move past them), have
    curves.tessellate turn them into vertices and an index list, and draw those like a
    PRIM of the primitive type it returns."""
    vtype = cmds[VERTEXTYPE] & 0xFFFFFF
    lay = vertex.layout(vtype)
    count = (arg & 0xFF) * ((arg >> 8) & 0xFF)
    vaddr, iaddr = _consume(regs, vtype, lay, count)
    regs[R_CYCLES] += count * vertex_cost(cmds, vtype)
    if count == 0:
        return
    mw = vertex.morph_weights(cmds, ((vtype >> 18) & 7) + 1)
    dv = np.zeros(vertex.V_SIZE, dtype=np.float64)
    pos = np.zeros((count, 3), dtype=np.float32)
    color = np.zeros((count, 4), dtype=np.float32)
    uv = np.zeros((count, 2), dtype=np.float32)
    for i in range(count):
        n = vertex.index_at(mem, ram_size, mapping, vtype, iaddr, i)
        if n < 0 or not vertex.decode(mem, ram_size, mapping, mtx, vtype, lay, mw, vaddr + n * lay[vertex.L_STRIDE], dv):
            _warn(regs, WARN_VERTICES, iaddr + i if n < 0 else vaddr + n * lay[vertex.L_STRIDE])
            return
        for j in range(3):
            pos[i, j] = dv[vertex.V_X + j]
        for j in range(4):
            color[i, j] = dv[vertex.V_R + j]
        uv[i, 0], uv[i, 1] = dv[vertex.V_S], dv[vertex.V_T]
    command = (np.int64(SPLINE if spline else BEZIER) << 24) | arg
    positions, colors, uvs, normals, indices, prim = tessellate(command, cmds, pos, color, uv, vtype & 3 != 0)
    m = positions.shape[0]
    regs[R_VERTICES] += m
    regs[R_CYCLES] += m * vertex_cost(cmds, vtype)
    xf = geometry.setup(cmds, mtx)
    rs = raster.setup(cmds)
    lp = lighting_prepare(cmds)
    screen = np.zeros((m, S_SIZE), dtype=np.float64)
    plain = vtype & ~((3 << 9) | (7 << 14) | (7 << 18))  # tessellated vertices are not skinned or morphed again
    for i in range(m):
        for j in range(vertex.V_SIZE):
            dv[j] = 0.0
        for j in range(3):
            dv[vertex.V_X + j] = positions[i, j]
            dv[vertex.V_NX + j] = normals[i, j]
        for j in range(4):
            dv[vertex.V_R + j] = (colors[i] >> np.uint32(8 * j)) & np.uint32(0xFF)
        dv[vertex.V_S], dv[vertex.V_T] = uvs[i, 0], uvs[i, 1]
        geometry.transform(cmds, mtx, xf, lp, plain, dv, screen[i])
    verts = np.zeros((indices.shape[0], S_SIZE), dtype=np.float64)
    for i in range(indices.shape[0]):
        verts[i] = screen[indices[i]]
    regs[R_KEEP_COUNT] = 0
    pix = raster.prepare_pixels(cmds, clut, ram_size)
    assemble(mem, ram_size, mapping, regs, cmds, pix, keep, xf, rs, verts, indices.shape[0], prim, np.bool_(False))


@njit(cache=True, error_model="numpy")
def immediate_vertex(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, arg):
    """VAP: one vertex from the VSC*/VTC*/VCV/VFC/VSCV registers and this alpha; a new
    primitive type starts a primitive (its flags override antialiasing, shading, culling,
    texturing, fog and dither while it draws), type 7 continues it."""
    prim = (arg >> 8) & 7
    if prim != CONTINUE:
        regs[R_KEEP_COUNT] = 0
        regs[R_PRIM_LAST] = prim
        regs[R_IMM_FLAGS] = arg & 0xFFF800
    through = (cmds[VERTEXTYPE] >> 23) & 1
    sv = np.zeros(S_SIZE, dtype=np.float64)
    x16 = cmds[VSCX] & 0xFFFF
    y16 = cmds[VSCY] & 0xFFFF
    if through:
        sv[S_X], sv[S_Y] = x16 - 0x8000, y16 - 0x8000
    else:
        sv[S_X], sv[S_Y] = x16 - (cmds[OFFSETX] & 0xFFFF), y16 - (cmds[OFFSETY] & 0xFFFF)
    sv[S_Z] = cmds[VSCZ] & 0xFFFF
    sv[S_W] = 1.0
    sv[S_CZ] = sv[S_Z] / 65535.0
    sv[geometry.S_S], sv[geometry.S_T], sv[geometry.S_Q] = f24(cmds[VTCS]), f24(cmds[VTCT]), f24(cmds[VTCQ])
    if through:
        sv[geometry.S_S] *= 1 << (cmds[TEXSIZE0] & 0xF)
        sv[geometry.S_T] *= 1 << ((cmds[TEXSIZE0] >> 8) & 0xF)
    color = cmds[VCV] & 0xFFFFFF
    sv[geometry.S_R], sv[geometry.S_G], sv[geometry.S_B] = color & 0xFF, (color >> 8) & 0xFF, (color >> 16) & 0xFF
    sv[geometry.S_A] = arg & 0xFF
    sv[geometry.S_FOG] = (cmds[VFC] & 0xFF) / 255.0
    if cmds[LIGHTMODE] & 1 and not through:
        spec = cmds[VSCV] & 0xFFFFFF
        sv[geometry.S_SR], sv[geometry.S_SG], sv[geometry.S_SB] = spec & 0xFF, (spec >> 8) & 0xFF, (spec >> 16) & 0xFF
    regs[R_VERTICES] += 1
    regs[R_CYCLES] += cost.VERTEX
    flags = regs[R_IMM_FLAGS]
    saved = np.zeros(6, dtype=np.uint32)
    ops = (ANTIALIASENABLE, SHADEMODE, CULLFACEENABLE, TEXTUREMAPENABLE, FOGENABLE, DITHERENABLE)
    bits = (11, 18, 19, 21, 22, 23)
    for i in range(6):
        saved[i] = cmds[ops[i]]
        cmds[ops[i]] = (ops[i] << 24) | ((flags >> bits[i]) & 1)
    saved_cull = cmds[CULL]
    cmds[CULL] = (CULL << 24) | ((flags >> 20) & 1)
    xf = geometry.setup(cmds, mtx)
    rs = raster.setup(cmds)
    pix = raster.prepare_pixels(cmds, clut, ram_size)
    ptype = regs[R_PRIM_LAST]
    k = regs[R_KEEP_COUNT]
    if ptype == LINE_STRIP:
        slot = k & 1
    elif ptype == TRIANGLE_STRIP:
        slot = k % 3
    elif ptype == TRIANGLE_FAN:
        slot = 0 if k == 0 else 2 - (k % 2)
    else:
        slot = k
    keep[slot] = sv
    regs[R_KEEP_COUNT] = k + 1
    assemble(mem, ram_size, mapping, regs, cmds, pix, keep, xf, rs, np.zeros((0, S_SIZE), dtype=np.float64), np.int64(0), ptype,
             np.bool_(True))
    for i in range(6):
        cmds[ops[i]] = saved[i]
    cmds[CULL] = saved_cull
