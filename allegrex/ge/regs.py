"""GE command opcodes by name and the field accessors shared by the GE modules.

A GE command word is `op << 24 | argument` (24 bits); `state.cmds[op]` keeps the last
word written for each op. The numbers come from the one command table
(`allegrex.ge.commands`); the GE modules read their settings through these names.
Fields inside an argument are decoded where they are used; the helpers here are the
ones several modules need.
"""

import math

import numpy as np

from numba import njit

from allegrex.ge.commands import OPS

# --- list control, vertices, primitives ---
NOP = OPS["NOP"]
VADDR = OPS["VADDR"]
IADDR = OPS["IADDR"]
PRIM = OPS["PRIM"]
BEZIER = OPS["BEZIER"]
SPLINE = OPS["SPLINE"]
BOUNDINGBOX = OPS["BOUNDINGBOX"]
JUMP = OPS["JUMP"]
BJUMP = OPS["BJUMP"]
CALL = OPS["CALL"]
RET = OPS["RET"]
END = OPS["END"]
SIGNAL = OPS["SIGNAL"]
FINISH = OPS["FINISH"]
BASE = OPS["BASE"]
VERTEXTYPE = OPS["VERTEXTYPE"]
OFFSETADDR = OPS["OFFSETADDR"]
ORIGIN = OPS["ORIGIN"]
REGION1 = OPS["REGION1"]
REGION2 = OPS["REGION2"]

# --- enables (bit 0 of the argument) ---
LIGHTINGENABLE = OPS["LIGHTINGENABLE"]
LIGHTENABLE0 = OPS["LIGHTENABLE0"]  # ..0x1B (consecutive), one per light
DEPTHCLIPENABLE = OPS["DEPTHCLIPENABLE"]
CULLFACEENABLE = OPS["CULLFACEENABLE"]
TEXTUREMAPENABLE = OPS["TEXTUREMAPENABLE"]
FOGENABLE = OPS["FOGENABLE"]
DITHERENABLE = OPS["DITHERENABLE"]
ALPHABLENDENABLE = OPS["ALPHABLENDENABLE"]
ALPHATESTENABLE = OPS["ALPHATESTENABLE"]
ZTESTENABLE = OPS["ZTESTENABLE"]
STENCILTESTENABLE = OPS["STENCILTESTENABLE"]
ANTIALIASENABLE = OPS["ANTIALIASENABLE"]
PATCHCULLENABLE = OPS["PATCHCULLENABLE"]
COLORTESTENABLE = OPS["COLORTESTENABLE"]
LOGICOPENABLE = OPS["LOGICOPENABLE"]

# --- matrices, morphing, patches ---
BONEMATRIXNUMBER = OPS["BONEMATRIXNUMBER"]
BONEMATRIXDATA = OPS["BONEMATRIXDATA"]
MORPHWEIGHT0 = OPS["MORPHWEIGHT0"]  # ..0x33 (consecutive)
PATCHDIVISION = OPS["PATCHDIVISION"]
PATCHPRIMITIVE = OPS["PATCHPRIMITIVE"]
PATCHFACING = OPS["PATCHFACING"]
WORLDMATRIXNUMBER = OPS["WORLDMATRIXNUMBER"]
WORLDMATRIXDATA = OPS["WORLDMATRIXDATA"]
VIEWMATRIXNUMBER = OPS["VIEWMATRIXNUMBER"]
VIEWMATRIXDATA = OPS["VIEWMATRIXDATA"]
PROJMATRIXNUMBER = OPS["PROJMATRIXNUMBER"]
PROJMATRIXDATA = OPS["PROJMATRIXDATA"]
TGENMATRIXNUMBER = OPS["TGENMATRIXNUMBER"]
TGENMATRIXDATA = OPS["TGENMATRIXDATA"]

# --- viewport, texture scale/offset, screen offset ---
VIEWPORTXSCALE = OPS["VIEWPORTXSCALE"]
VIEWPORTYSCALE = OPS["VIEWPORTYSCALE"]
VIEWPORTZSCALE = OPS["VIEWPORTZSCALE"]
VIEWPORTXCENTER = OPS["VIEWPORTXCENTER"]
VIEWPORTYCENTER = OPS["VIEWPORTYCENTER"]
VIEWPORTZCENTER = OPS["VIEWPORTZCENTER"]
TEXSCALEU = OPS["TEXSCALEU"]
TEXSCALEV = OPS["TEXSCALEV"]
TEXOFFSETU = OPS["TEXOFFSETU"]
TEXOFFSETV = OPS["TEXOFFSETV"]
OFFSETX = OPS["OFFSETX"]
OFFSETY = OPS["OFFSETY"]

# --- shading, material, lights ---
SHADEMODE = OPS["SHADEMODE"]
REVERSENORMAL = OPS["REVERSENORMAL"]
MATERIALUPDATE = OPS["MATERIALUPDATE"]
MATERIALEMISSIVE = OPS["MATERIALEMISSIVE"]
MATERIALAMBIENT = OPS["MATERIALAMBIENT"]
MATERIALDIFFUSE = OPS["MATERIALDIFFUSE"]
MATERIALSPECULAR = OPS["MATERIALSPECULAR"]
MATERIALALPHA = OPS["MATERIALALPHA"]
MATERIALSPECULARCOEF = OPS["MATERIALSPECULARCOEF"]
AMBIENTCOLOR = OPS["AMBIENTCOLOR"]
AMBIENTALPHA = OPS["AMBIENTALPHA"]
LIGHTMODE = OPS["LIGHTMODE"]
LIGHTTYPE0 = OPS["LIGHTTYPE0"]  # ..0x62 (consecutive)
LX0 = OPS["LX0"]  # position x, y, z of light 0; light n at LX0 + 3n
LDX0 = OPS["LDX0"]  # direction, same layout
LKA0 = OPS["LKA0"]  # attenuation constant, linear, quadratic; light n at LKA0 + 3n
LKS0 = OPS["LKS0"]  # spot exponent, one per light
LKO0 = OPS["LKO0"]  # spot cutoff, one per light
LAC0 = OPS["LAC0"]  # ambient, diffuse, specular colour; light n at LAC0 + 3n
CULL = OPS["CULL"]

# --- buffers, textures ---
FRAMEBUFPTR = OPS["FRAMEBUFPTR"]
FRAMEBUFWIDTH = OPS["FRAMEBUFWIDTH"]
ZBUFPTR = OPS["ZBUFPTR"]
ZBUFWIDTH = OPS["ZBUFWIDTH"]
TEXADDR0 = OPS["TEXADDR0"]  # ..0xA7 (consecutive), one per mip level
TEXBUFWIDTH0 = OPS["TEXBUFWIDTH0"]  # ..0xAF (consecutive)
CLUTADDR = OPS["CLUTADDR"]
CLUTADDRUPPER = OPS["CLUTADDRUPPER"]
TRANSFERSRC = OPS["TRANSFERSRC"]
TRANSFERSRCW = OPS["TRANSFERSRCW"]
TRANSFERDST = OPS["TRANSFERDST"]
TRANSFERDSTW = OPS["TRANSFERDSTW"]
TEXSIZE0 = OPS["TEXSIZE0"]  # ..0xBF (consecutive)
TEXMAPMODE = OPS["TEXMAPMODE"]
TEXSHADELS = OPS["TEXSHADELS"]
TEXMODE = OPS["TEXMODE"]
TEXFORMAT = OPS["TEXFORMAT"]
LOADCLUT = OPS["LOADCLUT"]
CLUTFORMAT = OPS["CLUTFORMAT"]
TEXFILTER = OPS["TEXFILTER"]
TEXWRAP = OPS["TEXWRAP"]
TEXLEVEL = OPS["TEXLEVEL"]
TEXFUNC = OPS["TEXFUNC"]
TEXENVCOLOR = OPS["TEXENVCOLOR"]
TEXFLUSH = OPS["TEXFLUSH"]
TEXSYNC = OPS["TEXSYNC"]
FOG1 = OPS["FOG1"]
FOG2 = OPS["FOG2"]
FOGCOLOR = OPS["FOGCOLOR"]
TEXLODSLOPE = OPS["TEXLODSLOPE"]

# --- fragment operations ---
FRAMEBUFPIXFORMAT = OPS["FRAMEBUFPIXFORMAT"]
CLEARMODE = OPS["CLEARMODE"]
SCISSOR1 = OPS["SCISSOR1"]
SCISSOR2 = OPS["SCISSOR2"]
MINZ = OPS["MINZ"]
MAXZ = OPS["MAXZ"]
COLORTEST = OPS["COLORTEST"]
COLORREF = OPS["COLORREF"]
COLORTESTMASK = OPS["COLORTESTMASK"]
ALPHATEST = OPS["ALPHATEST"]
STENCILTEST = OPS["STENCILTEST"]
STENCILOP = OPS["STENCILOP"]
ZTEST = OPS["ZTEST"]
BLENDMODE = OPS["BLENDMODE"]
BLENDFIXEDA = OPS["BLENDFIXEDA"]
BLENDFIXEDB = OPS["BLENDFIXEDB"]
DITH0 = OPS["DITH0"]  # ..0xE5 (consecutive), one row of the 4x4 dither matrix each
LOGICOP = OPS["LOGICOP"]
ZWRITEDISABLE = OPS["ZWRITEDISABLE"]
MASKRGB = OPS["MASKRGB"]
MASKALPHA = OPS["MASKALPHA"]

# --- block transfer ---
TRANSFERSTART = OPS["TRANSFERSTART"]
TRANSFERSRCPOS = OPS["TRANSFERSRCPOS"]
TRANSFERDSTPOS = OPS["TRANSFERDSTPOS"]
TRANSFERSIZE = OPS["TRANSFERSIZE"]

# --- immediate vertex ---
VSCX = OPS["VSCX"]
VSCY = OPS["VSCY"]
VSCZ = OPS["VSCZ"]
VTCS = OPS["VTCS"]
VTCT = OPS["VTCT"]
VTCQ = OPS["VTCQ"]
VCV = OPS["VCV"]
VAP = OPS["VAP"]
VFC = OPS["VFC"]
VSCV = OPS["VSCV"]

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
