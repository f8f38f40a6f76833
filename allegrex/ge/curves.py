"""Bezier and spline patches: the GE's BEZIER and SPLINE commands tessellated into the
vertices and index list of an ordinary primitive.

Entry point (numba; ge-core calls it for BEZIER/SPLINE with the control points decoded):
    tessellate(command, cmds, pos, color, uv, has_uv)
        -> (positions float32[m, 3], colors uint32[m], uvs float32[m, 2],
            normals float32[m, 3], indices int32[k], prim)
`command` is the BEZIER or SPLINE command word (its op says which); control points are
row-major, u across: `pos` float32[n, 3], `color` float32[n, 4] (RGBA, 0..255), `uv`
float32[n, 2] (ignored unless `has_uv`). `prim` is the GE primitive type to draw the
result as: 3 triangles, 1 lines, 0 points (PATCHPRIMITIVE 0, 1, 2; 3 draws points too,
as the PSP does: gpu/primitives/bezier). Fewer than 4 points in either direction draws
nothing (m = k = 0).

Rules (PPSSPP's GPU/Common/SplineCommon states them; gpu/primitives bezier/spline
screenshots show them):
- PATCHDIVISION: u divisions in bits 0-6, v in bits 8-14, per patch; 0 counts as 1.
- Bezier: (count - 1) / 3 patches each way of 4x4 points sharing their edge points;
  each patch gets its own (du + 1) x (dv + 1) vertices, Bernstein weights at i / d.
- Spline: count - 3 patches each way of a cubic B-spline; the shared grid has
  patches * d + 1 vertices each way at t = i / d. SPLINE bits 16-17 (u) and 18-19 (v):
  bit 0 set = the first edge open (knots clamped: the curve starts on the first point),
  bit 1 = the last edge open.
- Without texture coordinates a vertex gets (patch_u + i / du, patch_v + j / dv).
- Normals: cross(d/du, d/dv) of the surface, unit length, negated when PATCHFACING bit 0.
- Each grid cell (a, b = a + 1 in u, c = a one row down in v, d = c + 1) gives the
  triangles (a, c, b), (b, c, d), or the lines (a, c), (b, d), (b, c); points list every
  vertex once.
- Absurd divisions: the divisions shrink together until the vertices fit MAX_VERTICES
  (ASSUMPTION: the PSP's own limit is unknown; PPSSPP does the same with its buffer).
"""

import numpy as np
from numba import njit

from allegrex.ge import regs

MAX_VERTICES = 65536
PRIM_POINTS, PRIM_LINES, PRIM_TRIANGLES = 0, 1, 3


@njit(cache=True)
def bernstein(t, w, d):
    """Cubic Bernstein weights and their derivatives at t."""
    s = 1.0 - t
    w[0] = s * s * s
    w[1] = 3.0 * t * s * s
    w[2] = 3.0 * t * t * s
    w[3] = t * t * t
    d[0] = -3.0 * s * s
    d[1] = 3.0 * s * s - 6.0 * t * s
    d[2] = 6.0 * t * s - 3.0 * t * t
    d[3] = 3.0 * t * t


@njit(cache=True)
def spline_knots(count, edge_type):
    """The knot vector of a cubic B-spline over `count` points: uniform (knot j at
    j - 3, so patch p spans [p, p + 1]) with the open ends clamped to 0 and to the
    number of patches."""
    patches = count - 3
    knots = np.empty(count + 4, dtype=np.float64)
    for j in range(count + 4):
        k = float(j - 3)
        if edge_type & 1 and k < 0.0:
            k = 0.0
        if edge_type & 2 and k > patches:
            k = float(patches)
        knots[j] = k
    return knots


@njit(cache=True)
def spline_weights(knots, patch, t, w, d):
    """The four non-zero cubic B-spline basis values (for points patch..patch+3) and
    their derivatives at parameter t inside [patch, patch + 1], by de Boor's triangle."""
    span = patch + 3  # knots[span] <= t < knots[span + 1]
    n = np.zeros((4, 4), dtype=np.float64)  # n[p][r]: degree p, function span-p+r
    n[0, 0] = 1.0
    for p in range(1, 4):
        for r in range(p + 1):
            i = span - p + r
            value = 0.0
            if r > 0:
                den = knots[i + p] - knots[i]
                if den != 0.0:
                    value += (t - knots[i]) / den * n[p - 1, r - 1]
            if r < p:
                den = knots[i + p + 1] - knots[i + 1]
                if den != 0.0:
                    value += (knots[i + p + 1] - t) / den * n[p - 1, r]
            n[p, r] = value
    for r in range(4):
        w[r] = n[3, r]
        i = span - 3 + r
        deriv = 0.0
        if r > 0:
            den = knots[i + 3] - knots[i]
            if den != 0.0:
                deriv += 3.0 / den * n[2, r - 1]
        if r < 3:
            den = knots[i + 4] - knots[i + 1]
            if den != 0.0:
                deriv -= 3.0 / den * n[2, r]
        d[r] = deriv


@njit(cache=True)
def weights_along(spline, count, edge_type, patches, div):
    """Basis weights and derivatives at every tessellated parameter of one direction:
    (patch index, weights[4], derivatives[4]) per sample. Bezier samples each patch's
    0..div; spline samples the shared grid 0..patches*div."""
    samples = patches * div + 1 if spline else patches * (div + 1)
    patch_of = np.empty(samples, dtype=np.int64)
    w = np.empty((samples, 4), dtype=np.float64)
    d = np.empty((samples, 4), dtype=np.float64)
    if spline:
        knots = spline_knots(count, edge_type)
        for s in range(samples):
            p = min(s // div, patches - 1)
            patch_of[s] = p
            spline_weights(knots, p, s / div, w[s], d[s])
    else:
        for p in range(patches):
            for i in range(div + 1):
                s = p * (div + 1) + i
                patch_of[s] = p
                bernstein(i / div, w[s], d[s])
    return patch_of, w, d


@njit(cache=True, inline="always")
def channel(value):
    """A float colour channel as the GE stores it: truncated and clamped to 0..255."""
    if not value > 0.0:
        return 0
    return 255 if value >= 255.0 else int(value)


@njit(cache=True)
def tessellate(command, cmds, pos, color, uv, has_uv):
    op = (np.int64(command) >> 24) & 0xFF
    arg = np.int64(command) & 0xFFFFFF
    spline = op == regs.SPLINE
    count_u = arg & 0xFF
    count_v = (arg >> 8) & 0xFF
    type_u = (arg >> 16) & 3
    type_v = (arg >> 18) & 3
    division = np.int64(cmds[regs.PATCHDIVISION])
    div_u = max(division & 0x7F, 1)
    div_v = max((division >> 8) & 0x7F, 1)
    mode = np.int64(cmds[regs.PATCHPRIMITIVE]) & 3
    prim = PRIM_TRIANGLES if mode == 0 else (PRIM_LINES if mode == 1 else PRIM_POINTS)
    flip = np.int64(cmds[regs.PATCHFACING]) & 1

    if count_u < 4 or count_v < 4 or pos.shape[0] < count_u * count_v:
        return (np.zeros((0, 3), np.float32), np.zeros(0, np.uint32), np.zeros((0, 2), np.float32),
                np.zeros((0, 3), np.float32), np.zeros(0, np.int32), prim)
    patches_u = count_u - 3 if spline else (count_u - 1) // 3
    patches_v = count_v - 3 if spline else (count_v - 1) // 3
    while True:  # shrink absurd divisions until the vertices fit
        if spline:
            total = (patches_u * div_u + 1) * (patches_v * div_v + 1)
        else:
            total = patches_u * (div_u + 1) * patches_v * (div_v + 1)
        if total <= MAX_VERTICES or (div_u == 1 and div_v == 1):
            break
        div_u = max(div_u - 1, 1)
        div_v = max(div_v - 1, 1)

    pu, wu, du = weights_along(spline, count_u, type_u, patches_u, div_u)
    pv, wv, dv = weights_along(spline, count_v, type_v, patches_v, div_v)
    nu = wu.shape[0]
    nv = wv.shape[0]
    out_pos = np.empty((nu * nv, 3), dtype=np.float32)
    out_col = np.empty(nu * nv, dtype=np.uint32)
    out_uv = np.empty((nu * nv, 2), dtype=np.float32)
    out_nrm = np.empty((nu * nv, 3), dtype=np.float32)
    step = 1 if spline else 3  # first point of patch p: p * step
    for j in range(nv):
        for i in range(nu):
            v = j * nu + i
            row0 = pv[j] * step
            col0 = pu[i] * step
            px = py = pz = 0.0
            ux = uy = uz = 0.0
            vx = vy = vz = 0.0
            cr = cg = cb = ca = 0.0
            s = t = 0.0
            for b in range(4):
                for a in range(4):
                    k = (row0 + b) * count_u + col0 + a
                    weight = wu[i, a] * wv[j, b]
                    along_u = du[i, a] * wv[j, b]
                    along_v = wu[i, a] * dv[j, b]
                    x, y, z = pos[k, 0], pos[k, 1], pos[k, 2]
                    px += x * weight
                    py += y * weight
                    pz += z * weight
                    ux += x * along_u
                    uy += y * along_u
                    uz += z * along_u
                    vx += x * along_v
                    vy += y * along_v
                    vz += z * along_v
                    cr += color[k, 0] * weight
                    cg += color[k, 1] * weight
                    cb += color[k, 2] * weight
                    ca += color[k, 3] * weight
                    if has_uv:
                        s += uv[k, 0] * weight
                        t += uv[k, 1] * weight
            out_pos[v, 0] = px
            out_pos[v, 1] = py
            out_pos[v, 2] = pz
            out_col[v] = channel(cr) | (channel(cg) << 8) | (channel(cb) << 16) | (channel(ca) << 24)
            if not has_uv:  # the patch index plus the fraction of it
                s = pu[i] + (i - pu[i] * (div_u if spline else div_u + 1)) / div_u
                t = pv[j] + (j - pv[j] * (div_v if spline else div_v + 1)) / div_v
            out_uv[v, 0] = s
            out_uv[v, 1] = t
            nx = uy * vz - uz * vy
            ny = uz * vx - ux * vz
            nz = ux * vy - uy * vx
            length = np.sqrt(nx * nx + ny * ny + nz * nz)
            if length > 0.0:
                nx, ny, nz = nx / length, ny / length, nz / length
            if flip:
                nx, ny, nz = -nx, -ny, -nz
            out_nrm[v, 0] = nx
            out_nrm[v, 1] = ny
            out_nrm[v, 2] = nz

    if prim == PRIM_POINTS:
        indices = np.arange(nu * nv).astype(np.int32)
        return out_pos, out_col, out_uv, out_nrm, indices, prim
    # cells in the GE's drawing order: a spline row by row; bezier patch by patch (u
    # outer, then v), each patch row by row
    indices = np.empty(patches_u * div_u * patches_v * div_v * 6, dtype=np.int32)
    n = 0
    blocks_u = 1 if spline else patches_u
    blocks_v = 1 if spline else patches_v
    rows = patches_v * div_v if spline else div_v
    cols = patches_u * div_u if spline else div_u
    for bu in range(blocks_u):
        for bv in range(blocks_v):
            for cv in range(rows):
                for cu in range(cols):
                    a = (bv * (div_v + 1) + cv) * nu + bu * (div_u + 1) + cu
                    b = a + 1
                    c = a + nu
                    d = c + 1
                    if prim == PRIM_LINES:
                        indices[n:n + 6] = (a, c, b, d, b, c)
                    else:
                        indices[n:n + 6] = (a, c, b, b, c, d)
                    n += 6
    return out_pos, out_col, out_uv, out_nrm, indices, prim
