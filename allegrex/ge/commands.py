"""The GE command table: the one source of truth for the GE's command words.

A display list is a sequence of 32-bit words `op << 24 | argument`. Each row below names
a command, says what kind it is (how the list processor treats it) and splits its 24-bit
argument into fields with their bit ranges and meanings. The list processor
(`allegrex.ge.processor`) takes its opcodes and kinds from here, the list dumper
(`allegrex.ge.dump`) prints the fields, and docs/ge.md lists the table
(`python -m allegrex.ge.commands` prints it as Markdown).

Facts (encodings, field layouts) come from pspsdk's pspgu.h/pspge.h and PPSSPP's
GPU/ge_constants.h, GPUState.h and GeDisasm.cpp, read for facts only.
"""

import struct
import sys
from dataclasses import dataclass, field

import numpy as np

# Kinds: how the list processor treats a command.
STATE = "state"  # stores its argument; drawing reads it from cmds[]
MATRIX = "matrix"  # matrix index / matrix data upload
DRAW = "draw"  # draws (primitives, patches, immediate vertices)
FLOW = "flow"  # changes where the list goes or how it ends (jumps, calls, signals, bounding box)
TRANSFER = "transfer"  # moves memory (block transfer, CLUT load)
IGNORED = "ignored"  # no effect the simulator models (cache syncs, unknown opcodes)
KINDS = (STATE, MATRIX, DRAW, FLOW, TRANSFER, IGNORED)


@dataclass(frozen=True)
class Field:
    name: str
    lo: int  # first bit of the 24-bit argument
    width: int
    fmt: str = "int"  # int, hex, addr, flag, float24, signed, enum, rgb
    values: tuple = ()  # enum names by value
    doc: str = ""

    def value(self, arg: int) -> int:
        return (arg >> self.lo) & ((1 << self.width) - 1)

    def text(self, arg: int) -> str:
        v = self.value(arg)
        if self.fmt == "flag":
            return "on" if v else "off"
        if self.fmt == "enum":
            return self.values[v] if v < len(self.values) and self.values[v] else str(v)
        if self.fmt == "float24":
            return f"{float24(v):g}"
        if self.fmt == "signed":
            return str(v - (1 << self.width) if v >> (self.width - 1) else v)
        if self.fmt in ("hex", "addr"):
            return f"0x{v:0{(self.width + 3) // 4}x}"
        if self.fmt == "rgb":
            return f"#{v & 0xFF:02x}{(v >> 8) & 0xFF:02x}{v >> 16:02x}"
        return str(v)


@dataclass(frozen=True)
class Command:
    op: int
    name: str
    kind: str
    doc: str
    fields: tuple = field(default_factory=tuple)

    def describe(self, word: int) -> str:
        """`NAME field=value ...` for one command word."""
        arg = word & 0xFFFFFF
        parts = [f"{f.name}={f.text(arg)}" for f in self.fields]
        return " ".join([self.name] + parts)


def float24(arg: int) -> float:
    """The float a 24-bit argument holds: the top 24 bits of an IEEE single."""
    return struct.unpack("<f", struct.pack("<I", (arg & 0xFFFFFF) << 8))[0]


# --- field shorthands ---
def _flag(name="on", doc=""):
    return (Field(name, 0, 1, "flag", doc=doc),)


def _f24(name="value", doc=""):
    return (Field(name, 0, 24, "float24", doc=doc),)


def _rgb(name="color"):
    return (Field(name, 0, 24, "rgb", doc="red in bits 0-7, green 8-15, blue 16-23"),)


def _u(name, lo, width, doc="", fmt="int"):
    return Field(name, lo, width, fmt, doc=doc)


def _enum(name, lo, width, values, doc=""):
    return Field(name, lo, width, "enum", tuple(values), doc)


def _xy10(xname="x", yname="y", doc=""):
    return (_u(xname, 0, 10, doc), _u(yname, 10, 10, doc))


ADDR24 = (_u("addr", 0, 24, "low 24 bits; BASE gives bits 24-27, OFFSETADDR/ORIGIN is added", "addr"),)
COMPARISONS = ("never", "always", "equal", "notequal", "less", "lequal", "greater", "gequal")
PRIMITIVES = ("points", "lines", "line_strip", "triangles", "triangle_strip", "triangle_fan", "sprites",
              "continue")
STENCIL_OPS = ("keep", "zero", "replace", "invert", "incr", "decr")
PIXEL_FORMATS = ("565", "5551", "4444", "8888")
TEXTURE_FORMATS = ("565", "5551", "4444", "8888", "clut4", "clut8", "clut16", "clut32", "dxt1", "dxt3", "dxt5")
BLEND_SRC = ("dst_color", "one_minus_dst_color", "src_alpha", "one_minus_src_alpha", "dst_alpha",
             "one_minus_dst_alpha", "double_src_alpha", "one_minus_double_src_alpha", "double_dst_alpha",
             "one_minus_double_dst_alpha", "fixed_a")
BLEND_DST = ("src_color", "one_minus_src_color", "src_alpha", "one_minus_src_alpha", "dst_alpha",
             "one_minus_dst_alpha", "double_src_alpha", "one_minus_double_src_alpha", "double_dst_alpha",
             "one_minus_double_dst_alpha", "fixed_b")
LOGIC_OPS = ("clear", "and", "and_reverse", "copy", "and_inverted", "noop", "xor", "or", "nor", "equiv",
             "inverted", "or_reverse", "copy_inverted", "or_inverted", "nand", "set")
SIGNAL_BEHAVIOURS = {0x01: "handler_suspend", 0x02: "handler_continue", 0x03: "handler_pause", 0x08: "sync",
                     0x10: "jump", 0x11: "call", 0x12: "ret", 0x13: "rjump", 0x14: "rcall", 0x15: "ojump",
                     0x16: "ocall", 0x30: "rcbp", 0x38: "ocbp", 0xF0: "break1", 0xFF: "break2"}
SIGNAL_BEHAVIOURS.update({0x20 + i: f"rtbp{i}" for i in range(8)})
SIGNAL_BEHAVIOURS.update({0x28 + i: f"otbp{i}" for i in range(8)})

VERTEX_TYPE = (
    _enum("tc", 0, 2, ("none", "u8", "u16", "float"), "texture coordinate format"),
    _enum("color", 2, 3, ("none", "", "", "", "565", "5551", "4444", "8888"), "vertex colour format"),
    _enum("normal", 5, 2, ("none", "s8", "s16", "float"), "normal format"),
    _enum("pos", 7, 2, ("", "s8", "s16", "float"), "position format"),
    _enum("weight", 9, 2, ("none", "u8", "u16", "float"), "skinning weight format"),
    _enum("index", 11, 2, ("none", "u8", "u16", "u32"), "index format"),
    _u("weights", 14, 3, "skinning weights - 1"),
    _u("morphs", 18, 3, "morph targets - 1"),
    _u("through", 23, 1, "1: 2D through mode (screen coordinates, no transform or lighting)"),
)

_ROWS = [
    # --- vertex and primitive ---
    Command(0x00, "NOP", IGNORED, "no operation"),
    Command(0x01, "VADDR", STATE, "vertex address", ADDR24),
    Command(0x02, "IADDR", STATE, "index address", ADDR24),
    Command(0x04, "PRIM", DRAW, "draw count vertices from VADDR (through IADDR if indexed)",
            (_u("count", 0, 16), _enum("type", 16, 3, PRIMITIVES))),
    Command(0x05, "BEZIER", DRAW, "draw a Bezier patch of ucount x vcount control points",
            (_u("ucount", 0, 8), _u("vcount", 8, 8))),
    Command(0x06, "SPLINE", DRAW, "draw a spline surface of ucount x vcount control points",
            (_u("ucount", 0, 8), _u("vcount", 8, 8),
             _enum("uedges", 16, 2, ("close_close", "open_close", "close_open", "open_open")),
             _enum("vedges", 18, 2, ("close_close", "open_close", "close_open", "open_open")))),
    Command(0x07, "BOUNDINGBOX", FLOW, "test count vertices (a box) against the screen; BJUMP jumps when outside",
            (_u("count", 0, 16),)),
    Command(0x08, "JUMP", FLOW, "continue the list at the address", (_u("addr", 0, 24, "", "addr"),)),
    Command(0x09, "BJUMP", FLOW, "jump if the last BOUNDINGBOX was outside the screen",
            (_u("addr", 0, 24, "", "addr"),)),
    Command(0x0A, "CALL", FLOW, "call a sub-list (the hardware nests 2 deep)", (_u("addr", 0, 24, "", "addr"),)),
    Command(0x0B, "RET", FLOW, "return from CALL"),
    Command(0x0C, "END", FLOW, "stop; after FINISH or SIGNAL the firmware takes over",
            (_u("data", 0, 24, "", "hex"),)),
    Command(0x0E, "SIGNAL", FLOW, "raise a signal interrupt; the next END tells the firmware what to do",
            (_u("data", 0, 16, "", "hex"), _enum("behaviour", 16, 8,
                                                [SIGNAL_BEHAVIOURS.get(i, "") for i in range(256)]))),
    Command(0x0F, "FINISH", FLOW, "raise the finish interrupt; the list completes at the next END",
            (_u("data", 0, 24, "", "hex"),)),
    Command(0x10, "BASE", STATE, "bits 24-27 of the addresses that follow",
            (_u("high", 16, 4, "address bits 24-27", "hex"),)),
    Command(0x12, "VERTEXTYPE", STATE, "vertex format", VERTEX_TYPE),
    Command(0x13, "OFFSETADDR", FLOW, "offset added to relative addresses (argument << 8)",
            (_u("offset", 0, 24, "shifted left by 8", "hex"),)),
    Command(0x14, "ORIGIN", FLOW, "the offset becomes this command's own address"),
    Command(0x15, "REGION1", STATE, "drawing region start (kept for compatibility)", _xy10()),
    Command(0x16, "REGION2", STATE, "drawing region end", _xy10()),
    # --- enables ---
    Command(0x17, "LIGHTINGENABLE", STATE, "vertex lighting", _flag()),
    *[Command(0x18 + i, f"LIGHTENABLE{i}", STATE, f"light {i}", _flag()) for i in range(4)],
    Command(0x1C, "DEPTHCLIPENABLE", STATE, "clamp depth instead of clipping at the near/far planes", _flag()),
    Command(0x1D, "CULLFACEENABLE", STATE, "back-face culling", _flag()),
    Command(0x1E, "TEXTUREMAPENABLE", STATE, "texturing", _flag()),
    Command(0x1F, "FOGENABLE", STATE, "fog", _flag()),
    Command(0x20, "DITHERENABLE", STATE, "dithering", _flag()),
    Command(0x21, "ALPHABLENDENABLE", STATE, "blending", _flag()),
    Command(0x22, "ALPHATESTENABLE", STATE, "alpha test", _flag()),
    Command(0x23, "ZTESTENABLE", STATE, "depth test", _flag()),
    Command(0x24, "STENCILTESTENABLE", STATE, "stencil test", _flag()),
    Command(0x25, "ANTIALIASENABLE", STATE, "line anti-aliasing", _flag()),
    Command(0x26, "PATCHCULLENABLE", STATE, "cull patch faces", _flag()),
    Command(0x27, "COLORTESTENABLE", STATE, "colour test", _flag()),
    Command(0x28, "LOGICOPENABLE", STATE, "logical operation", _flag()),
    # --- matrices and morphing ---
    Command(0x2A, "BONEMATRIXNUMBER", MATRIX, "bone matrix upload index (0-95)", (_u("index", 0, 7),)),
    Command(0x2B, "BONEMATRIXDATA", MATRIX, "one bone matrix value; the index advances", _f24()),
    *[Command(0x2C + i, f"MORPHWEIGHT{i}", STATE, f"morph weight {i}", _f24()) for i in range(8)],
    Command(0x36, "PATCHDIVISION", STATE, "patch tessellation", (_u("u", 0, 7), _u("v", 8, 7))),
    Command(0x37, "PATCHPRIMITIVE", STATE, "what patches draw",
            (_enum("type", 0, 2, ("triangles", "lines", "points")),)),
    Command(0x38, "PATCHFACING", STATE, "patch normals reversed", _flag("reversed")),
    Command(0x3A, "WORLDMATRIXNUMBER", MATRIX, "world matrix upload index (0-11)", (_u("index", 0, 4),)),
    Command(0x3B, "WORLDMATRIXDATA", MATRIX, "one world matrix value", _f24()),
    Command(0x3C, "VIEWMATRIXNUMBER", MATRIX, "view matrix upload index (0-11)", (_u("index", 0, 4),)),
    Command(0x3D, "VIEWMATRIXDATA", MATRIX, "one view matrix value", _f24()),
    Command(0x3E, "PROJMATRIXNUMBER", MATRIX, "projection matrix upload index (0-15)", (_u("index", 0, 4),)),
    Command(0x3F, "PROJMATRIXDATA", MATRIX, "one projection matrix value", _f24()),
    Command(0x40, "TGENMATRIXNUMBER", MATRIX, "texture matrix upload index (0-11)", (_u("index", 0, 4),)),
    Command(0x41, "TGENMATRIXDATA", MATRIX, "one texture matrix value", _f24()),
    # --- viewport, texture scale, screen offset ---
    Command(0x42, "VIEWPORTXSCALE", STATE, "viewport x scale", _f24()),
    Command(0x43, "VIEWPORTYSCALE", STATE, "viewport y scale", _f24()),
    Command(0x44, "VIEWPORTZSCALE", STATE, "viewport z scale", _f24()),
    Command(0x45, "VIEWPORTXCENTER", STATE, "viewport x centre", _f24()),
    Command(0x46, "VIEWPORTYCENTER", STATE, "viewport y centre", _f24()),
    Command(0x47, "VIEWPORTZCENTER", STATE, "viewport z centre", _f24()),
    Command(0x48, "TEXSCALEU", STATE, "texture u scale", _f24()),
    Command(0x49, "TEXSCALEV", STATE, "texture v scale", _f24()),
    Command(0x4A, "TEXOFFSETU", STATE, "texture u offset", _f24()),
    Command(0x4B, "TEXOFFSETV", STATE, "texture v offset", _f24()),
    Command(0x4C, "OFFSETX", STATE, "screen offset x (1/16 pixel)", (_u("x16", 0, 16),)),
    Command(0x4D, "OFFSETY", STATE, "screen offset y (1/16 pixel)", (_u("y16", 0, 16),)),
    Command(0x50, "SHADEMODE", STATE, "shading", (_enum("mode", 0, 1, ("flat", "gouraud")),)),
    Command(0x51, "REVERSENORMAL", STATE, "negate normals", _flag()),
    # --- lighting ---
    Command(0x53, "MATERIALUPDATE", STATE, "material colours taken from the vertex colour",
            (_u("ambient", 0, 1), _u("diffuse", 1, 1), _u("specular", 2, 1))),
    Command(0x54, "MATERIALEMISSIVE", STATE, "material emissive colour", _rgb()),
    Command(0x55, "MATERIALAMBIENT", STATE, "material ambient colour", _rgb()),
    Command(0x56, "MATERIALDIFFUSE", STATE, "material diffuse colour", _rgb()),
    Command(0x57, "MATERIALSPECULAR", STATE, "material specular colour", _rgb()),
    Command(0x58, "MATERIALALPHA", STATE, "material ambient alpha", (_u("alpha", 0, 8),)),
    Command(0x5B, "MATERIALSPECULARCOEF", STATE, "specular power", _f24()),
    Command(0x5C, "AMBIENTCOLOR", STATE, "global ambient colour", _rgb()),
    Command(0x5D, "AMBIENTALPHA", STATE, "global ambient alpha", (_u("alpha", 0, 8),)),
    Command(0x5E, "LIGHTMODE", STATE, "lighting colour mode",
            (_enum("mode", 0, 1, ("single_color", "separate_specular")),)),
    *[Command(0x5F + i, f"LIGHTTYPE{i}", STATE, f"light {i} type",
              (_enum("computation", 0, 2, ("diffuse", "diffuse_specular", "powered_diffuse")),
               _enum("type", 8, 2, ("directional", "point", "spot")))) for i in range(4)],
    *[Command(0x63 + 3 * i + j, f"L{'XYZ'[j]}{i}", STATE, f"light {i} position {'xyz'[j]}", _f24())
      for i in range(4) for j in range(3)],
    *[Command(0x6F + 3 * i + j, f"LD{'XYZ'[j]}{i}", STATE, f"light {i} direction {'xyz'[j]}", _f24())
      for i in range(4) for j in range(3)],
    *[Command(0x7B + 3 * i + j, f"LK{'ABC'[j]}{i}", STATE, f"light {i} attenuation {'constant linear quadratic'.split()[j]}",
              _f24()) for i in range(4) for j in range(3)],
    *[Command(0x87 + i, f"LKS{i}", STATE, f"light {i} spot exponent", _f24()) for i in range(4)],
    *[Command(0x8B + i, f"LKO{i}", STATE, f"light {i} spot cutoff", _f24()) for i in range(4)],
    *[Command(0x8F + 3 * i + j, f"L{'ADS'[j]}C{i}", STATE, f"light {i} {('ambient', 'diffuse', 'specular')[j]} colour",
              _rgb()) for i in range(4) for j in range(3)],
    Command(0x9B, "CULL", STATE, "winding culled when culling is on",
            (_enum("face", 0, 1, ("clockwise", "counter_clockwise")),)),
    # --- buffers and textures ---
    Command(0x9C, "FRAMEBUFPTR", STATE, "frame buffer address (VRAM offset bits 0-23)", ADDR24[:1]),
    Command(0x9D, "FRAMEBUFWIDTH", STATE, "frame buffer stride",
            (_u("stride", 0, 11, "pixels"), _u("high", 16, 8, "address bits 24-31", "hex"))),
    Command(0x9E, "ZBUFPTR", STATE, "depth buffer address (VRAM offset)", ADDR24[:1]),
    Command(0x9F, "ZBUFWIDTH", STATE, "depth buffer stride", (_u("stride", 0, 11, "pixels"),)),
    *[Command(0xA0 + i, f"TEXADDR{i}", STATE, f"texture level {i} address bits 0-23", ADDR24[:1]) for i in range(8)],
    *[Command(0xA8 + i, f"TEXBUFWIDTH{i}", STATE, f"texture level {i} stride and high address",
              (_u("stride", 0, 11, "texels"), _u("high", 16, 4, "address bits 24-27", "hex"))) for i in range(8)],
    Command(0xB0, "CLUTADDR", STATE, "CLUT address bits 0-23", ADDR24[:1]),
    Command(0xB1, "CLUTADDRUPPER", STATE, "CLUT address bits 24-27", (_u("high", 16, 4, "", "hex"),)),
    Command(0xB2, "TRANSFERSRC", STATE, "block transfer source bits 0-23", ADDR24[:1]),
    Command(0xB3, "TRANSFERSRCW", STATE, "block transfer source stride",
            (_u("stride", 0, 11, "pixels"), _u("high", 16, 4, "address bits 24-27", "hex"))),
    Command(0xB4, "TRANSFERDST", STATE, "block transfer destination bits 0-23", ADDR24[:1]),
    Command(0xB5, "TRANSFERDSTW", STATE, "block transfer destination stride",
            (_u("stride", 0, 11, "pixels"), _u("high", 16, 4, "address bits 24-27", "hex"))),
    *[Command(0xB8 + i, f"TEXSIZE{i}", STATE, f"texture level {i} size",
              (_u("log2w", 0, 4), _u("log2h", 8, 4))) for i in range(8)],
    Command(0xC0, "TEXMAPMODE", STATE, "how texture coordinates are made",
            (_enum("mode", 0, 2, ("uv", "texture_matrix", "environment_map")),
             _enum("projection", 8, 2, ("position", "uv", "normalized_normal", "normal")))),
    Command(0xC1, "TEXSHADELS", STATE, "lights used by environment mapping", (_u("u_light", 0, 2), _u("v_light", 8, 2))),
    Command(0xC2, "TEXMODE", STATE, "texture storage",
            (_u("swizzled", 0, 1), _u("separate_cluts", 8, 1), _u("max_level", 16, 3))),
    Command(0xC3, "TEXFORMAT", STATE, "texture format", (_enum("format", 0, 4, TEXTURE_FORMATS),)),
    Command(0xC4, "LOADCLUT", TRANSFER, "load the CLUT from CLUTADDR", (_u("blocks", 0, 6, "32-byte blocks"),)),
    Command(0xC5, "CLUTFORMAT", STATE, "CLUT entry format and index transform",
            (_enum("format", 0, 2, PIXEL_FORMATS), _u("shift", 2, 5), _u("mask", 8, 8, "", "hex"),
             _u("start", 16, 5, "x 16 entries"))),
    Command(0xC6, "TEXFILTER", STATE, "texture filtering",
            (_enum("min", 0, 3, ("nearest", "linear", "", "", "nearest_mip_nearest", "linear_mip_nearest",
                                 "nearest_mip_linear", "linear_mip_linear")),
             _enum("mag", 8, 1, ("nearest", "linear")))),
    Command(0xC7, "TEXWRAP", STATE, "texture wrapping",
            (_enum("u", 0, 1, ("repeat", "clamp")), _enum("v", 8, 1, ("repeat", "clamp")))),
    Command(0xC8, "TEXLEVEL", STATE, "mipmap level selection",
            (_enum("mode", 0, 2, ("auto", "const", "slope")), Field("bias", 16, 8, "signed", doc="levels x 16"))),
    Command(0xC9, "TEXFUNC", STATE, "texture function",
            (_enum("func", 0, 3, ("modulate", "decal", "blend", "replace", "add")), _u("alpha", 8, 1),
             _u("double", 16, 1))),
    Command(0xCA, "TEXENVCOLOR", STATE, "colour for the blend texture function", _rgb()),
    Command(0xCB, "TEXFLUSH", IGNORED, "flush the texture cache (no cache is simulated)"),
    Command(0xCC, "TEXSYNC", IGNORED, "wait for texture transfers (they finish at once here)"),
    Command(0xCD, "FOG1", STATE, "fog end", _f24()),
    Command(0xCE, "FOG2", STATE, "fog scale (1 / (end - start))", _f24()),
    Command(0xCF, "FOGCOLOR", STATE, "fog colour", _rgb()),
    Command(0xD0, "TEXLODSLOPE", STATE, "mipmap slope for the slope level mode", _f24()),
    Command(0xD2, "FRAMEBUFPIXFORMAT", STATE, "frame buffer format", (_enum("format", 0, 2, PIXEL_FORMATS),)),
    Command(0xD3, "CLEARMODE", STATE, "clear mode: primitives write colour/stencil/depth directly",
            (_u("on", 0, 1), _u("color", 8, 1), _u("stencil", 9, 1), _u("depth", 10, 1))),
    Command(0xD4, "SCISSOR1", STATE, "scissor top-left", _xy10("x1", "y1")),
    Command(0xD5, "SCISSOR2", STATE, "scissor bottom-right (inclusive)", _xy10("x2", "y2")),
    Command(0xD6, "MINZ", STATE, "depth range minimum", (_u("z", 0, 16),)),
    Command(0xD7, "MAXZ", STATE, "depth range maximum", (_u("z", 0, 16),)),
    Command(0xD8, "COLORTEST", STATE, "colour test function", (_enum("func", 0, 2, COMPARISONS[:4]),)),
    Command(0xD9, "COLORREF", STATE, "colour test reference", _rgb()),
    Command(0xDA, "COLORTESTMASK", STATE, "colour test mask", (_u("mask", 0, 24, "", "hex"),)),
    Command(0xDB, "ALPHATEST", STATE, "alpha test",
            (_enum("func", 0, 3, COMPARISONS), _u("ref", 8, 8, "", "hex"), _u("mask", 16, 8, "", "hex"))),
    Command(0xDC, "STENCILTEST", STATE, "stencil test",
            (_enum("func", 0, 3, COMPARISONS), _u("ref", 8, 8, "", "hex"), _u("mask", 16, 8, "", "hex"))),
    Command(0xDD, "STENCILOP", STATE, "stencil operations",
            (_enum("sfail", 0, 3, STENCIL_OPS), _enum("zfail", 8, 3, STENCIL_OPS), _enum("zpass", 16, 3, STENCIL_OPS))),
    Command(0xDE, "ZTEST", STATE, "depth test function", (_enum("func", 0, 3, COMPARISONS),)),
    Command(0xDF, "BLENDMODE", STATE, "blending",
            (_enum("src", 0, 4, BLEND_SRC), _enum("dst", 4, 4, BLEND_DST),
             _enum("op", 8, 3, ("add", "subtract", "reverse_subtract", "min", "max", "abs")))),
    Command(0xE0, "BLENDFIXEDA", STATE, "fixed source blend colour", _rgb()),
    Command(0xE1, "BLENDFIXEDB", STATE, "fixed destination blend colour", _rgb()),
    *[Command(0xE2 + i, f"DITH{i}", STATE, f"dither matrix row {i} (4 signed 4-bit values)",
              (_u("row", 0, 16, "", "hex"),)) for i in range(4)],
    Command(0xE6, "LOGICOP", STATE, "logical operation", (_enum("op", 0, 4, LOGIC_OPS),)),
    Command(0xE7, "ZWRITEDISABLE", STATE, "depth writes off", _flag("disabled")),
    Command(0xE8, "MASKRGB", STATE, "colour bits not written", (_u("mask", 0, 24, "", "hex"),)),
    Command(0xE9, "MASKALPHA", STATE, "alpha/stencil bits not written", (_u("mask", 0, 8, "", "hex"),)),
    Command(0xEA, "TRANSFERSTART", TRANSFER, "start the block transfer",
            (_enum("bpp", 0, 1, ("16-bit", "32-bit")),)),
    Command(0xEB, "TRANSFERSRCPOS", STATE, "block transfer source x, y", _xy10()),
    Command(0xEC, "TRANSFERDSTPOS", STATE, "block transfer destination x, y", _xy10()),
    Command(0xEE, "TRANSFERSIZE", STATE, "block transfer size", _xy10("width_minus_1", "height_minus_1")),
    # --- immediate vertices ---
    Command(0xF0, "VSCX", STATE, "immediate vertex screen x (1/16 pixel)", (_u("x16", 0, 16),)),
    Command(0xF1, "VSCY", STATE, "immediate vertex screen y (1/16 pixel)", (_u("y16", 0, 16),)),
    Command(0xF2, "VSCZ", STATE, "immediate vertex depth", (_u("z", 0, 16),)),
    Command(0xF3, "VTCS", STATE, "immediate vertex texture s", _f24()),
    Command(0xF4, "VTCT", STATE, "immediate vertex texture t", _f24()),
    Command(0xF5, "VTCQ", STATE, "immediate vertex texture q", _f24()),
    Command(0xF6, "VCV", STATE, "immediate vertex colour", _rgb()),
    Command(0xF7, "VAP", DRAW, "immediate vertex alpha and primitive: emits the vertex",
            (_u("alpha", 0, 8, "", "hex"), _enum("prim", 8, 3, PRIMITIVES), _u("antialias", 11, 1),
             _u("clip", 12, 6, "", "hex"), _u("gouraud", 18, 1), _u("cull", 19, 1), _u("ccw", 20, 1),
             _u("texture", 21, 1), _u("fog", 22, 1), _u("dither", 23, 1))),
    Command(0xF8, "VFC", STATE, "immediate vertex fog", (_u("fog", 0, 8),)),
    Command(0xF9, "VSCV", STATE, "immediate vertex secondary colour", _rgb()),
]

_KNOWN = {row.op for row in _ROWS}
TABLE = tuple(sorted(_ROWS + [Command(op, f"UNKNOWN{op:02X}", IGNORED, "unused opcode: ignored")
                              for op in range(256) if op not in _KNOWN], key=lambda c: c.op))
assert [c.op for c in TABLE] == list(range(256))

OPS = {c.name: c.op for c in TABLE}  # name -> opcode, for the processor's constants
KIND_IDS = {k: i for i, k in enumerate(KINDS)}
KIND = np.array([KIND_IDS[c.kind] for c in TABLE], dtype=np.uint8)  # per opcode, for numba


def describe(word: int) -> str:
    return TABLE[(word >> 24) & 0xFF].describe(word)


def markdown() -> str:
    """The table as Markdown rows (docs/ge.md)."""
    lines = ["| op | name | kind | what | argument fields |", "|---|---|---|---|---|"]
    for c in TABLE:
        if c.name.startswith("UNKNOWN"):
            continue
        fields = ", ".join(f"`{f.name}` {f.lo}-{f.lo + f.width - 1}" for f in c.fields)
        lines.append(f"| 0x{c.op:02X} | {c.name} | {c.kind} | {c.doc} | {fields} |")
    unknown = ", ".join(f"0x{c.op:02X}" for c in TABLE if c.name.startswith("UNKNOWN"))
    lines.append(f"\nUnused opcodes (ignored, shown as UNKNOWNxx): {unknown}.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(markdown() + "\n")
