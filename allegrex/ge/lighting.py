"""Vertex lighting: material colours and their sources, emissive and global ambient, four
lights (directional, point, spot) with ambient/diffuse/specular colours, attenuation,
spot exponent and cutoff, the light kinds (diffuse, diffuse + specular, powered diffuse)
and the light mode (separate specular colour).

Entry points (numba; ge-core's vertex stage calls them when LIGHTINGENABLE is on):
- `prepare(cmds) -> float64[LIGHT_WORDS]`: the lighting settings decoded once per draw.
- `light_vertex_prepared(lp, pos, normal, color, has_color) -> (primary, secondary)`.
- `light_vertex(cmds, pos, normal, color, has_color=True)`: the same from `cmds`.

Space: `pos` and `normal` are in WORLD space (the world matrix applied, the view matrix
not), as the PSP gives light positions and directions: the half vector for specular uses
(0, 0, 1) as the eye direction in that space, as the PSP does. The normal need not be
unit length (it is normalized here; a zero normal counts as (0, 0, 1)); REVERSENORMAL is
ge-core's to apply before calling. `color` is the vertex colour (RGBA8888); `has_color`
says whether the vertex format has one: without it MATERIALUPDATE is ignored (ge-core
passes the material ambient colour and alpha as `color` then, as the unlit path uses).

Result: primary RGBA8888 and secondary RGB (the specular sum when LIGHTMODE selects a
separate specular colour, else 0 with specular added into primary), each channel clamped.

Light and material floats with exponent 255 count as huge numbers, not inf/NaN (gpu/
commands/light: an "infinite" spot direction lights like (1, 1, 1), a "NaN" exponent
like a huge one). Powers (specular and spot exponents, powered diffuse) are
2 ** (e * log2 v) with log2 and exp2 piecewise linear between powers of two. Vector
lengths (normalizing, the light distance) come from the squared length cut to a 24-bit
float. A light term is (light * material * floor(256 * weight)) >> 16 with each colour
channel c taken as c + (c >> 7); the global ambient term is ((2m + 1)(2a + 1)) >> 10
(PPSSPP's software renderer's rounding). These light rules are read off
gpu/commands/light's output: the tests replay its 211 boxes and 202 match exactly
(PPSSPP's rounding with an exact pow and exact lengths gives 173); the 9 left are listed
in tests/ge/test_lighting.py.
"""

import math

import numpy as np
from numba import njit

from allegrex.ge import regs

# light kinds (LIGHTTYPEn bits 0-1) and types (bits 8-9; 3 acts as spot)
KIND_DIFFUSE, KIND_BOTH, KIND_POWERED = 0, 1, 2
TYPE_DIRECTIONAL, TYPE_POINT, TYPE_SPOT = 0, 1, 2

# Packed form (prepare): global fields, then LW per light.
G_MATERIAL_UPDATE = 0
G_SEPARATE_SPECULAR = 1
G_SPECULAR_EXP = 2
G_EMISSIVE = 3  # RGB (alpha 0)
G_MAT_AMBIENT = 4  # RGBA: MATERIALAMBIENT + MATERIALALPHA
G_MAT_DIFFUSE = 5
G_MAT_SPECULAR = 6
G_AMBIENT = 7  # global ambient RGBA
G_LIGHTS = 8
L_ENABLED, L_KIND, L_TYPE = 0, 1, 2
L_X, L_Y, L_Z = 3, 4, 5  # position, or the (normalized) direction of a directional light
L_DX, L_DY, L_DZ = 6, 7, 8  # spot direction (normalized)
L_KA, L_KB, L_KC = 9, 10, 11
L_SPOT_EXP, L_SPOT_CUTOFF = 12, 13
L_AMBIENT, L_DIFFUSE, L_SPECULAR = 14, 15, 16  # RGB
LW = 17
LIGHT_WORDS = G_LIGHTS + 4 * LW


@njit(cache=True)
def unit_or_001(x, y, z):
    """(x, y, z) normalized and its length; a zero vector becomes (0, 0, 1). The length
    is the square root of the squared length cut to a 24-bit float (16 significant
    bits), as the GE's lighting shows: a light 2.0000055 away counts as 2 away
    (gpu/commands/light; any cut between 10 and 18 bits fits its boxes)."""
    d2 = x * x + y * y + z * z
    if d2 == 0.0:
        return 0.0, 0.0, 1.0, 0.0
    m, e = math.frexp(d2)  # d2 = m * 2^e, 0.5 <= m < 1
    length = math.sqrt(math.ldexp(math.floor(m * 65536.0) / 65536.0, e))
    if not 0.0 < length < math.inf:  # NaN or overflowing inputs: the plain length
        length = math.sqrt(d2)
    return x / length, y / length, z / length, length


@njit(cache=True)
def nonnegative(value):
    """Exponents: <= 0 count as 0."""
    return value if value > 0.0 else 0.0


@njit(cache=True)
def prepare_into(cmds, lp):
    """Fill `lp` (float64[LIGHT_WORDS]) with the lighting settings of `cmds`."""
    lp[:] = 0.0
    lp[G_MATERIAL_UPDATE] = np.int64(cmds[regs.MATERIALUPDATE]) & 7
    lp[G_SEPARATE_SPECULAR] = np.int64(cmds[regs.LIGHTMODE]) & 1
    lp[G_SPECULAR_EXP] = nonnegative(regs.float24_finite(cmds[regs.MATERIALSPECULARCOEF]))
    lp[G_EMISSIVE] = np.int64(cmds[regs.MATERIALEMISSIVE]) & 0xFFFFFF
    lp[G_MAT_AMBIENT] = (np.int64(cmds[regs.MATERIALAMBIENT]) & 0xFFFFFF) | ((np.int64(cmds[regs.MATERIALALPHA]) & 0xFF) << 24)
    lp[G_MAT_DIFFUSE] = np.int64(cmds[regs.MATERIALDIFFUSE]) & 0xFFFFFF
    lp[G_MAT_SPECULAR] = np.int64(cmds[regs.MATERIALSPECULAR]) & 0xFFFFFF
    lp[G_AMBIENT] = (np.int64(cmds[regs.AMBIENTCOLOR]) & 0xFFFFFF) | ((np.int64(cmds[regs.AMBIENTALPHA]) & 0xFF) << 24)
    for n in range(4):
        base = G_LIGHTS + n * LW
        ltype = np.int64(cmds[regs.LIGHTTYPE0 + n])
        lp[base + L_ENABLED] = np.int64(cmds[regs.LIGHTENABLE0 + n]) & 1
        lp[base + L_KIND] = ltype & 3
        kind_type = (ltype >> 8) & 3
        lp[base + L_TYPE] = TYPE_SPOT if kind_type >= TYPE_SPOT else kind_type
        x = regs.float24_finite(cmds[regs.LX0 + 3 * n])
        y = regs.float24_finite(cmds[regs.LX0 + 3 * n + 1])
        z = regs.float24_finite(cmds[regs.LX0 + 3 * n + 2])
        if kind_type == TYPE_DIRECTIONAL:
            x, y, z, _ = unit_or_001(x, y, z)
        lp[base + L_X] = x
        lp[base + L_Y] = y
        lp[base + L_Z] = z
        dx = regs.float24_finite(cmds[regs.LDX0 + 3 * n])
        dy = regs.float24_finite(cmds[regs.LDX0 + 3 * n + 1])
        dz = regs.float24_finite(cmds[regs.LDX0 + 3 * n + 2])
        length = math.sqrt(dx * dx + dy * dy + dz * dz)
        if length != 0.0:  # a zero spot direction lights nothing (unless the exponent is 0)
            dx, dy, dz = dx / length, dy / length, dz / length
        lp[base + L_DX] = dx
        lp[base + L_DY] = dy
        lp[base + L_DZ] = dz
        lp[base + L_KA] = regs.float24_finite(cmds[regs.LKA0 + 3 * n])
        lp[base + L_KB] = regs.float24_finite(cmds[regs.LKA0 + 3 * n + 1])
        lp[base + L_KC] = regs.float24_finite(cmds[regs.LKA0 + 3 * n + 2])
        lp[base + L_SPOT_EXP] = nonnegative(regs.float24_finite(cmds[regs.LKS0 + n]))
        lp[base + L_SPOT_CUTOFF] = regs.float24_finite(cmds[regs.LKO0 + n])
        lp[base + L_AMBIENT] = np.int64(cmds[regs.LAC0 + 3 * n]) & 0xFFFFFF
        lp[base + L_DIFFUSE] = np.int64(cmds[regs.LAC0 + 3 * n + 1]) & 0xFFFFFF
        lp[base + L_SPECULAR] = np.int64(cmds[regs.LAC0 + 3 * n + 2]) & 0xFFFFFF


@njit(cache=True)
def prepare(cmds):
    """The packed lighting settings (float64[LIGHT_WORDS]) for one draw."""
    lp = np.zeros(LIGHT_WORDS, dtype=np.float64)
    prepare_into(cmds, lp)
    return lp


@njit(cache=True, inline="always")
def factor(c, shift):
    """A colour channel as the lighting unit's 9-bit factor 2c + 1."""
    return ((c >> shift) & 0xFF) * 2 + 1


@njit(cache=True)
def light_pow(v, e):
    """v ** e as the GE takes it: e <= 0 gives 1 (even for v <= 0); v <= 0 stays v;
    otherwise 2 ** (e * log2 v) with both taken piecewise linear between powers of two
    (the float's exponent plus its mantissa as the fraction)."""
    if e <= 0.0:
        return 1.0
    if not v > 0.0:
        return v
    m, ex = math.frexp(v)
    y = e * ((ex - 1) + (2.0 * m - 1.0))
    if y < -1000.0:
        return 0.0
    if y > 1000.0:
        return math.inf
    whole = math.floor(y)
    return math.ldexp(1.0 + (y - whole), int(whole))


@njit(cache=True, inline="always")
def weight256(w):
    """A light term's weight in 8 fraction bits: floor(256 * w), 0 to 256."""
    scaled = 256.0 * w
    if scaled != scaled or scaled <= 0.0:
        return 0
    return 256 if scaled >= 256.0 else int(scaled)


@njit(cache=True, inline="always")
def scaled(light_color, material, weight, shift):
    """One channel of a light term: light x material x weight with each colour channel
    taken as c + (c >> 7) (0..256) and the weight in 256ths, >> 16. The light colours
    have no alpha (0)."""
    l = (light_color >> shift) & 0xFF
    m = (material >> shift) & 0xFF
    return ((l + (l >> 7)) * (m + (m >> 7)) * weight) >> 16


@njit(cache=True, inline="always")
def clamp255(v):
    return 0 if v < 0 else (255 if v > 255 else v)


@njit(cache=True)
def light_vertex_prepared(lp, pos, normal, color, has_color):
    """(primary RGBA8888, secondary RGB) of one vertex; see the module docstring."""
    c = np.int64(color)
    update = np.int64(lp[G_MATERIAL_UPDATE]) if has_color else 0
    mat_ambient = c if update & 1 else np.int64(lp[G_MAT_AMBIENT])
    mat_diffuse = c if update & 2 else np.int64(lp[G_MAT_DIFFUSE])
    mat_specular = c if update & 4 else np.int64(lp[G_MAT_SPECULAR])
    emissive = np.int64(lp[G_EMISSIVE])
    ambient = np.int64(lp[G_AMBIENT])
    spec_exp = lp[G_SPECULAR_EXP]

    # primary r, g, b, a and specular r, g, b
    r = (emissive & 0xFF) + ((factor(mat_ambient, 0) * factor(ambient, 0)) >> 10)
    g = ((emissive >> 8) & 0xFF) + ((factor(mat_ambient, 8) * factor(ambient, 8)) >> 10)
    b = ((emissive >> 16) & 0xFF) + ((factor(mat_ambient, 16) * factor(ambient, 16)) >> 10)
    a = (factor(mat_ambient, 24) * factor(ambient, 24)) >> 10
    sr = sg = sb = 0

    px, py, pz = float(pos[0]), float(pos[1]), float(pos[2])
    nx, ny, nz, _ = unit_or_001(float(normal[0]), float(normal[1]), float(normal[2]))
    for n in range(4):
        base = G_LIGHTS + n * LW
        if lp[base + L_ENABLED] == 0.0:
            continue
        kind = np.int64(lp[base + L_KIND])
        ltype = np.int64(lp[base + L_TYPE])
        lx, ly, lz = lp[base + L_X], lp[base + L_Y], lp[base + L_Z]
        attspot = 1.0
        if ltype != TYPE_DIRECTIONAL:
            dx, dy, dz = lx - px, ly - py, lz - pz
            lx, ly, lz, d = unit_or_001(dx, dy, dz)
            # the quadratic term takes the exact squared distance (the light program's
            # 1/d^2 box shows 0x3f where a cut length would give 0x40)
            denominator = lp[base + L_KA] + lp[base + L_KB] * d + lp[base + L_KC] * (dx * dx + dy * dy + dz * dz)
            # all-zero constants (the state after sceGuInit) divide by zero: full light
            att = 1.0 / denominator if denominator != 0.0 else math.inf
            attspot = 0.0 if not att > 0.0 else min(att, 1.0)
        if ltype == TYPE_SPOT:
            raw = lp[base + L_DX] * lx + lp[base + L_DY] * ly + lp[base + L_DZ] * lz
            spot = 0.0
            if raw >= lp[base + L_SPOT_CUTOFF]:
                spot = light_pow(raw, lp[base + L_SPOT_EXP])
                if spot != spot:
                    spot = 0.0
            attspot *= spot
        light = np.int64(lp[base + L_AMBIENT])
        scale = weight256(attspot)
        r += scaled(light, mat_ambient, scale, 0)
        g += scaled(light, mat_ambient, scale, 8)
        b += scaled(light, mat_ambient, scale, 16)
        a += scaled(light, mat_ambient, scale, 24)
        diffuse = lx * nx + ly * ny + lz * nz
        if kind == KIND_POWERED:
            diffuse = light_pow(diffuse, spec_exp)
        if diffuse > 0.0:
            light = np.int64(lp[base + L_DIFFUSE])
            scale = weight256(attspot * diffuse)
            r += scaled(light, mat_diffuse, scale, 0)
            g += scaled(light, mat_diffuse, scale, 8)
            b += scaled(light, mat_diffuse, scale, 16)
            a += scaled(light, mat_diffuse, scale, 24)
        if kind == KIND_BOTH and diffuse >= 0.0:
            hx, hy, hz, _ = unit_or_001(lx, ly, lz + 1.0)
            spec = light_pow(hx * nx + hy * ny + hz * nz, spec_exp)
            if spec > 0.0:
                light = np.int64(lp[base + L_SPECULAR])
                scale = weight256(attspot * spec)
                sr += scaled(light, mat_specular, scale, 0)
                sg += scaled(light, mat_specular, scale, 8)
                sb += scaled(light, mat_specular, scale, 16)

    if lp[G_SEPARATE_SPECULAR] == 0.0:
        r, g, b = r + sr, g + sg, b + sb
        sr = sg = sb = 0
    primary = clamp255(r) | (clamp255(g) << 8) | (clamp255(b) << 16) | (clamp255(a) << 24)
    secondary = clamp255(sr) | (clamp255(sg) << 8) | (clamp255(sb) << 16)
    return np.uint32(primary), np.uint32(secondary)


@njit(cache=True)
def light_vertex(cmds, pos, normal, color, has_color=True):
    """`light_vertex_prepared` straight from `cmds` (decodes the settings every call)."""
    return light_vertex_prepared(prepare(cmds), pos, normal, color, has_color)
