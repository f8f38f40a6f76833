"""GE command opcodes by name and the field accessors shared by the GE modules.

A GE command word is `op << 24 | argument` (24 bits); `state.cmds[op]` keeps the last
word written for each op. The numbers are the PSP's (as pspsdk's libgu emits them); the
per-pixel and per-vertex modules (texture, fragment, lighting, curves) read their
settings through these names. Fields inside an argument are decoded where they are
used; the helpers here are the ones several modules need.
"""

import math

import numpy as np

from numba import njit

# --- list control, vertices, primitives ---
NOP = 0x00
VADDR = 0x01
IADDR = 0x02
PRIM = 0x04
BEZIER = 0x05
SPLINE = 0x06
BOUNDINGBOX = 0x07
JUMP = 0x08
BJUMP = 0x09
CALL = 0x0A
RET = 0x0B
END = 0x0C
SIGNAL = 0x0E
FINISH = 0x0F
BASE = 0x10
VERTEXTYPE = 0x12
OFFSETADDR = 0x13
ORIGIN = 0x14
REGION1 = 0x15
REGION2 = 0x16

# --- enables (bit 0 of the argument) ---
LIGHTINGENABLE = 0x17
LIGHTENABLE0 = 0x18  # ..0x1B, one per light
DEPTHCLIPENABLE = 0x1C
CULLFACEENABLE = 0x1D
TEXTUREMAPENABLE = 0x1E
FOGENABLE = 0x1F
DITHERENABLE = 0x20
ALPHABLENDENABLE = 0x21
ALPHATESTENABLE = 0x22
ZTESTENABLE = 0x23
STENCILTESTENABLE = 0x24
ANTIALIASENABLE = 0x25
PATCHCULLENABLE = 0x26
COLORTESTENABLE = 0x27
LOGICOPENABLE = 0x28

# --- matrices, morphing, patches ---
BONEMATRIXNUMBER = 0x2A
BONEMATRIXDATA = 0x2B
MORPHWEIGHT0 = 0x2C  # ..0x33
PATCHDIVISION = 0x36
PATCHPRIMITIVE = 0x37
PATCHFACING = 0x38
WORLDMATRIXNUMBER = 0x3A
WORLDMATRIXDATA = 0x3B
VIEWMATRIXNUMBER = 0x3C
VIEWMATRIXDATA = 0x3D
PROJMATRIXNUMBER = 0x3E
PROJMATRIXDATA = 0x3F
TGENMATRIXNUMBER = 0x40
TGENMATRIXDATA = 0x41

# --- viewport, texture scale/offset, screen offset ---
VIEWPORTXSCALE = 0x42
VIEWPORTYSCALE = 0x43
VIEWPORTZSCALE = 0x44
VIEWPORTXCENTER = 0x45
VIEWPORTYCENTER = 0x46
VIEWPORTZCENTER = 0x47
TEXSCALEU = 0x48
TEXSCALEV = 0x49
TEXOFFSETU = 0x4A
TEXOFFSETV = 0x4B
OFFSETX = 0x4C
OFFSETY = 0x4D

# --- shading, material, lights ---
SHADEMODE = 0x50
REVERSENORMAL = 0x51
MATERIALUPDATE = 0x53
MATERIALEMISSIVE = 0x54
MATERIALAMBIENT = 0x55
MATERIALDIFFUSE = 0x56
MATERIALSPECULAR = 0x57
MATERIALALPHA = 0x58
MATERIALSPECULARCOEF = 0x5B
AMBIENTCOLOR = 0x5C
AMBIENTALPHA = 0x5D
LIGHTMODE = 0x5E
LIGHTTYPE0 = 0x5F  # ..0x62
LX0 = 0x63  # position x, y, z of light 0; light n at LX0 + 3n
LDX0 = 0x6F  # direction, same layout
LKA0 = 0x7B  # attenuation constant, linear, quadratic; light n at LKA0 + 3n
LKS0 = 0x87  # spot exponent, one per light
LKO0 = 0x8B  # spot cutoff, one per light
LAC0 = 0x8F  # ambient, diffuse, specular colour; light n at LAC0 + 3n
CULL = 0x9B

# --- buffers, textures ---
FRAMEBUFPTR = 0x9C
FRAMEBUFWIDTH = 0x9D
ZBUFPTR = 0x9E
ZBUFWIDTH = 0x9F
TEXADDR0 = 0xA0  # ..0xA7, one per mip level
TEXBUFWIDTH0 = 0xA8  # ..0xAF
CLUTADDR = 0xB0
CLUTADDRUPPER = 0xB1
TRANSFERSRC = 0xB2
TRANSFERSRCW = 0xB3
TRANSFERDST = 0xB4
TRANSFERDSTW = 0xB5
TEXSIZE0 = 0xB8  # ..0xBF
TEXMAPMODE = 0xC0
TEXSHADELS = 0xC1
TEXMODE = 0xC2
TEXFORMAT = 0xC3
LOADCLUT = 0xC4
CLUTFORMAT = 0xC5
TEXFILTER = 0xC6
TEXWRAP = 0xC7
TEXLEVEL = 0xC8
TEXFUNC = 0xC9
TEXENVCOLOR = 0xCA
TEXFLUSH = 0xCB
TEXSYNC = 0xCC
FOG1 = 0xCD
FOG2 = 0xCE
FOGCOLOR = 0xCF
TEXLODSLOPE = 0xD0

# --- fragment operations ---
FRAMEBUFPIXFORMAT = 0xD2
CLEARMODE = 0xD3
SCISSOR1 = 0xD4
SCISSOR2 = 0xD5
MINZ = 0xD6
MAXZ = 0xD7
COLORTEST = 0xD8
COLORREF = 0xD9
COLORTESTMASK = 0xDA
ALPHATEST = 0xDB
STENCILTEST = 0xDC
STENCILOP = 0xDD
ZTEST = 0xDE
BLENDMODE = 0xDF
BLENDFIXEDA = 0xE0
BLENDFIXEDB = 0xE1
DITH0 = 0xE2  # ..0xE5, one row of the 4x4 dither matrix each
LOGICOP = 0xE6
ZWRITEDISABLE = 0xE7
MASKRGB = 0xE8
MASKALPHA = 0xE9

# --- block transfer ---
TRANSFERSTART = 0xEA
TRANSFERSRCPOS = 0xEB
TRANSFERDSTPOS = 0xEC
TRANSFERSIZE = 0xEE

# --- immediate vertex ---
VSCX = 0xF0
VSCY = 0xF1
VSCZ = 0xF2
VTCS = 0xF3
VTCT = 0xF4
VTCQ = 0xF5
VCV = 0xF6
VAP = 0xF7
VFC = 0xF8
VSCV = 0xF9

THROUGH_BIT = 1 << 23  # VERTEXTYPE: coordinates are screen pixels, no transform


@njit(cache=True, inline="always")
def argument(word):
    """The 24-bit argument of a command word."""
    return np.int64(word) & 0xFFFFFF


@njit(cache=True)
def float24(word):
    """The float a command's 24-bit argument holds: the top 24 bits of an IEEE single
    (sign, 8-bit exponent, 15 mantissa bits); the low 8 mantissa bits are zero."""
    bits = np.int64(word) & 0xFFFFFF
    exponent = (bits >> 15) & 0xFF
    mantissa = bits & 0x7FFF
    if exponent == 0xFF:
        value = math.inf if mantissa == 0 else math.nan
    elif exponent == 0:
        value = math.ldexp(float(mantissa), -141)  # denormal: mantissa * 2^(-126-15)
    else:
        value = math.ldexp(float(mantissa | 0x8000), exponent - 142)
    return -value if bits & 0x800000 else value


@njit(cache=True)
def float24_finite(word):
    """`float24` with exponent 255 read as an ordinary (huge) number, not inf/NaN: how
    the GE itself treats such arguments where it computes with them (fog)."""
    bits = np.int64(word) & 0xFFFFFF
    exponent = (bits >> 15) & 0xFF
    if exponent != 0xFF:
        return float24(bits)
    value = math.ldexp(float((bits & 0x7FFF) | 0x8000), exponent - 142)
    return -value if bits & 0x800000 else value


@njit(cache=True, inline="always")
def is_through(cmds):
    """Through mode: vertices are screen coordinates (no transform, no fog, no depth range)."""
    return (np.int64(cmds[VERTEXTYPE]) & THROUGH_BIT) != 0
