"""The vertex stage: decoded vertices to screen vertices.

Transform mode: model -> world (WORLD) -> view (VIEW) -> clip (PROJ), then the viewport
(VIEWPORT*SCALE/CENTER) and the screen offset (OFFSETX/Y) give screen coordinates in
1/16 pixel, rounded as the GE does (+0.375 of a sub-pixel). Lighting (lighting.py) gets
world-space position and normal; texture coordinates come from the vertex (scaled by
TEXSCALE/TEXOFFSET), the texture matrix (TEXMAPMODE 1, with the projection source), or
environment mapping (TEXMAPMODE 2, from the TEXSHADELS lights' directions); fog depth is
fragment.fog_depth of the view-space z. A vertex outside the 4096x4096 screen space or the 0-65535
depth range (without depth clamp) is flagged: primitives using it are not drawn.
Through mode: positions are screen pixels and depth, texture coordinates texels.

A screen vertex is a float64[S_SIZE] record (S_* below).
"""

import numpy as np
from numba import njit

from allegrex.ge.fragment import fog_depth
from allegrex.ge.lighting import light_vertex_prepared
from allegrex.ge.state import PROJ, TGEN, VIEW, WORLD
from allegrex.ge.vertex import V_NX, V_NY, V_NZ, V_R, V_S, V_T, V_X, V_Y, V_Z
from allegrex.ge.regs import (LIGHTINGENABLE, FOGENABLE, TEXMAPMODE, TEXSHADELS, TEXSCALEU,
                             TEXSCALEV, TEXOFFSETU, TEXOFFSETV, VIEWPORTXSCALE, VIEWPORTXCENTER, OFFSETX,
                             OFFSETY, DEPTHCLIPENABLE, REVERSENORMAL, MATERIALAMBIENT, MATERIALALPHA, LX0,
                             CLEARMODE)

S_X, S_Y, S_Z = 0, 1, 2  # screen x, y in 1/16 pixel (offset applied), depth 0-65535
S_CX, S_CY, S_CZ, S_W = 3, 4, 5, 6  # clip coordinates (through mode: w = 1)
S_S, S_T, S_Q = 7, 8, 9  # texture coordinates (through mode: texels)
S_R, S_G, S_B, S_A = 10, 11, 12, 13  # primary colour 0-255
S_SR, S_SG, S_SB = 14, 15, 16  # secondary (specular) colour
S_FOG = 17  # fog factor (1 = no fog)
S_OUT = 18  # 1: outside the drawable range (primitives using it are dropped)
S_SIZE = 20

SCREEN_BOUND = 4095.0 + 15.5 / 16.0


# transform setup record (float64[X_SIZE]) computed once per draw by `setup`
X_WORLD = 0  # 16: world as 4x4 (row-major, acts on column vectors)
X_VIEWPROJ = 16  # 16: projection x view
X_WORLDVIEW = 32  # 16
X_SCALE = 48  # 3: viewport scale
X_CENTER = 51  # 3: viewport centre
X_OFFSET = 54  # 2: screen offset in 1/16 pixel
X_UVSCALE = 58  # 4: u scale, v scale, u offset, v offset
X_SIZE = 64


@njit(cache=True, error_model="numpy")
def f24(word):
    """The float a command word's 24-bit argument holds."""
    bits = np.zeros(1, dtype=np.uint32)
    bits[0] = (np.uint32(word) & np.uint32(0xFFFFFF)) << np.uint32(8)
    return np.float64(bits.view(np.float32)[0])


@njit(cache=True, error_model="numpy", inline="always")
def _mat43(mtx, start, out, o):
    """A 4x3 upload-order matrix as a 4x4 (row-major, column vectors) at out[o:o+16]."""
    for r in range(3):
        for c in range(4):
            out[o + r * 4 + c] = mtx[start + c * 3 + r]
    out[o + 12], out[o + 13], out[o + 14], out[o + 15] = 0.0, 0.0, 0.0, 1.0


@njit(cache=True, error_model="numpy", inline="always")
def _mul44(a, ao, b, bo, out, o):
    """out = A x B (4x4, row-major)."""
    tmp = np.zeros(16, dtype=np.float64)
    for r in range(4):
        for c in range(4):
            s = 0.0
            for k in range(4):
                s += a[ao + r * 4 + k] * b[bo + k * 4 + c]
            tmp[r * 4 + c] = s
    for i in range(16):
        out[o + i] = tmp[i]


@njit(cache=True, error_model="numpy")
def setup(cmds, mtx):
    """Matrices and viewport figures for one draw."""
    x = np.zeros(X_SIZE, dtype=np.float64)
    m = np.zeros(48, dtype=np.float64)
    _mat43(mtx, WORLD, x, X_WORLD)
    _mat43(mtx, VIEW, m, 0)
    for r in range(4):
        for c in range(4):
            m[16 + r * 4 + c] = mtx[PROJ + c * 4 + r]  # projection: 4 columns of 4
    _mul44(m, 16, m, 0, x, X_VIEWPROJ)
    _mul44(m, 0, x, X_WORLD, x, X_WORLDVIEW)
    for i in range(3):
        x[X_SCALE + i] = f24(cmds[VIEWPORTXSCALE + i])
        x[X_CENTER + i] = f24(cmds[VIEWPORTXCENTER + i])
    x[X_OFFSET] = cmds[OFFSETX] & 0xFFFF
    x[X_OFFSET + 1] = cmds[OFFSETY] & 0xFFFF
    x[X_UVSCALE] = f24(cmds[TEXSCALEU])
    x[X_UVSCALE + 1] = f24(cmds[TEXSCALEV])
    x[X_UVSCALE + 2] = f24(cmds[TEXOFFSETU])
    x[X_UVSCALE + 3] = f24(cmds[TEXOFFSETV])
    return x


@njit(cache=True, error_model="numpy", inline="always")
def _apply(m, o, x, y, z, w, r):
    return m[o + r * 4] * x + m[o + r * 4 + 1] * y + m[o + r * 4 + 2] * z + m[o + r * 4 + 3] * w


@njit(cache=True, error_model="numpy")
def to_screen(cmds, xf, sv):
    """Screen position of sv's clip coordinates (viewport, offset, GE rounding); sets S_OUT."""
    w = sv[S_W]
    sx = sv[S_CX] * xf[X_SCALE] / w + xf[X_CENTER]
    sy = sv[S_CY] * xf[X_SCALE + 1] / w + xf[X_CENTER + 1]
    sz = sv[S_CZ] * xf[X_SCALE + 2] / w + xf[X_CENTER + 2]
    outside = False
    if cmds[DEPTHCLIPENABLE] & 1:
        # depth clamp: the range check applies on or in front of the near plane
        # (MEASURED: gpu/clipping/guardband drops x = -1 px at z = -w)
        if sv[S_CZ] >= -w and (sx >= SCREEN_BOUND or sy >= SCREEN_BOUND or sx < 0 or sy < 0):
            outside = True
        sz = min(65535.0, max(0.0, sz))
    elif sx > SCREEN_BOUND or sy >= SCREEN_BOUND or sx < 0 or sy < 0 or sz < 0.0 or sz >= 65536.0:
        outside = True
    if not (sx == sx and sy == sy and sz == sz):
        outside = True
        sx, sy, sz = 0.0, 0.0, 0.0
    sv[S_X] = np.floor(sx * 16.0 + 0.375 - xf[X_OFFSET])
    sv[S_Y] = np.floor(sy * 16.0 + 0.375 - xf[X_OFFSET + 1])
    sv[S_Z] = np.floor(min(65535.0, max(0.0, sz)) + 0.5)  # nearest (MEASURED: gpu/depth/precision)
    sv[S_OUT] = 1.0 if outside else 0.0


@njit(cache=True, error_model="numpy")
def pack_rgba(r, g, b, a):
    return (np.uint32(min(255, max(0, int(r)))) | (np.uint32(min(255, max(0, int(g)))) << np.uint32(8))
            | (np.uint32(min(255, max(0, int(b)))) << np.uint32(16)) | (np.uint32(min(255, max(0, int(a)))) << np.uint32(24)))


@njit(cache=True, error_model="numpy")
def transform(cmds, mtx, xf, lp, vtype, v, sv):
    """Screen vertex sv from decoded vertex v (transform or through mode); lp: the
    lighting stage's prepared state for this draw."""
    for i in range(S_SIZE):
        sv[i] = 0.0
    has_color = (vtype >> 2) & 7
    if has_color:
        for i in range(4):
            sv[S_R + i] = v[V_R + i]
    else:  # no vertex colour: the material ambient colour and alpha
        amb = cmds[MATERIALAMBIENT]
        sv[S_R], sv[S_G], sv[S_B] = amb & 0xFF, (amb >> 8) & 0xFF, (amb >> 16) & 0xFF
        sv[S_A] = cmds[MATERIALALPHA] & 0xFF
    sv[S_FOG] = 1.0
    if (vtype >> 23) & 1:  # through mode
        sv[S_X] = np.floor(v[V_X] * 16.0)
        sv[S_Y] = np.floor(v[V_Y] * 16.0)
        sv[S_Z] = v[V_Z]
        sv[S_W] = 1.0
        sv[S_S], sv[S_T], sv[S_Q] = v[V_S], v[V_T], 1.0
        return
    x, y, z = v[V_X], v[V_Y], v[V_Z]
    wx = _apply(xf, X_WORLD, x, y, z, 1.0, 0)
    wy = _apply(xf, X_WORLD, x, y, z, 1.0, 1)
    wz = _apply(xf, X_WORLD, x, y, z, 1.0, 2)
    for r in range(4):
        sv[S_CX + r] = _apply(xf, X_VIEWPROJ, wx, wy, wz, 1.0, r)
    to_screen(cmds, xf, sv)
    if sv[S_OUT] != 0.0:
        return
    nx, ny, nz = v[V_NX], v[V_NY], v[V_NZ]
    if cmds[REVERSENORMAL] & 1:
        nx, ny, nz = -nx, -ny, -nz
    wnx = _apply(xf, X_WORLD, nx, ny, nz, 0.0, 0)
    wny = _apply(xf, X_WORLD, nx, ny, nz, 0.0, 1)
    wnz = _apply(xf, X_WORLD, nx, ny, nz, 0.0, 2)
    if cmds[FOGENABLE] & 1:
        sv[S_FOG] = fog_depth(cmds, _apply(xf, X_WORLDVIEW, x, y, z, 1.0, 2))
    _texcoords(cmds, mtx, xf, v, sv, nx, ny, nz, wnx, wny, wnz)
    if cmds[LIGHTINGENABLE] & 1 and not cmds[CLEARMODE] & 1:
        pos = np.array([wx, wy, wz])
        length = np.sqrt(wnx * wnx + wny * wny + wnz * wnz)
        normal = np.array([0.0, 0.0, 1.0]) if length == 0.0 else np.array([wnx, wny, wnz]) / length
        primary, secondary = light_vertex_prepared(lp, pos, normal, pack_rgba(sv[S_R], sv[S_G], sv[S_B], sv[S_A]),
                                                   has_color != 0)
        for i in range(4):
            sv[S_R + i] = (primary >> np.uint32(8 * i)) & np.uint32(0xFF)
        for i in range(3):
            sv[S_SR + i] = (secondary >> np.uint32(8 * i)) & np.uint32(0xFF)


@njit(cache=True, error_model="numpy")
def _texcoords(cmds, mtx, xf, v, sv, nx, ny, nz, wnx, wny, wnz):
    mode = cmds[TEXMAPMODE] & 3
    sv[S_Q] = 1.0
    if mode == 1:  # texture matrix, from the projection source
        proj = (cmds[TEXMAPMODE] >> 8) & 3
        if proj == 0:
            a, b, c = v[V_X], v[V_Y], v[V_Z]
        elif proj == 1:
            a, b, c = v[V_S], v[V_T], 0.0
        else:
            a, b, c = nx, ny, nz
            if proj == 2:
                length = np.sqrt(a * a + b * b + c * c)
                if length != 0.0:
                    a, b, c = a / length, b / length, c / length
        sv[S_S] = mtx[TGEN] * a + mtx[TGEN + 3] * b + mtx[TGEN + 6] * c + mtx[TGEN + 9]
        sv[S_T] = mtx[TGEN + 1] * a + mtx[TGEN + 4] * b + mtx[TGEN + 7] * c + mtx[TGEN + 10]
        sv[S_Q] = mtx[TGEN + 2] * a + mtx[TGEN + 5] * b + mtx[TGEN + 8] * c + mtx[TGEN + 11]
    elif mode == 2:  # environment map: a light's direction against the world normal
        length = np.sqrt(wnx * wnx + wny * wny + wnz * wnz)
        if length != 0.0:
            wnx, wny, wnz = wnx / length, wny / length, wnz / length
        else:
            wnx, wny, wnz = 0.0, 0.0, 1.0
        for axis in range(2):
            light = (cmds[TEXSHADELS] >> (8 * axis)) & 3
            lx = f24(cmds[LX0 + 3 * light])
            ly = f24(cmds[LX0 + 3 * light + 1])
            lz = f24(cmds[LX0 + 3 * light + 2])
            length = np.sqrt(lx * lx + ly * ly + lz * lz)
            if length == 0.0:
                lx, ly, lz, length = 0.0, 0.0, 1.0, 1.0
            sv[S_S + axis] = ((lx * wnx + ly * wny + lz * wnz) / length + 1.0) * 0.5
    else:  # vertex coordinates, scaled and offset
        sv[S_S] = v[V_S] * xf[X_UVSCALE] + xf[X_UVSCALE + 2]
        sv[S_T] = v[V_T] * xf[X_UVSCALE + 1] + xf[X_UVSCALE + 3]
