"""Test helpers for the GE's per-pixel and per-vertex functions: a GE state (cmds, guest
memory, CLUT) set up by methods named after the sceGu calls the pspautotests programs make,
with the arguments encoded as pspsdk's libgu encodes them, and a one-pixel pipeline
(texture sample -> texture function -> fragment stage) that stands in for the raster.

The pspautotests .expected files are the truth the tests compare with; `expected_lines`
reads one into {title: value} the way the programs print them."""

import re
import struct
from pathlib import Path

import numpy as np

from allegrex.ge import fragment, regs, texture
from allegrex.memory import Memory

FB_ADDR = 0x04000000
TEX_ADDR = 0x08900000  # where the tests put texture and CLUT data (user RAM)

# pspgu.h values
PSM_5650, PSM_5551, PSM_4444, PSM_8888 = 0, 1, 2, 3
PSM_T4, PSM_T8, PSM_T16, PSM_T32, PSM_DXT1, PSM_DXT3, PSM_DXT5 = 4, 5, 6, 7, 8, 9, 10
TFX_MODULATE, TFX_DECAL, TFX_BLEND, TFX_REPLACE, TFX_ADD = 0, 1, 2, 3, 4
TCC_RGB, TCC_RGBA = 0, 1
NEAREST, LINEAR = 0, 1
NEAREST_MIPMAP_NEAREST, LINEAR_MIPMAP_NEAREST, NEAREST_MIPMAP_LINEAR, LINEAR_MIPMAP_LINEAR = 4, 5, 6, 7
REPEAT, CLAMP = 0, 1
TEXTURE_AUTO, TEXTURE_CONST, TEXTURE_SLOPE = 0, 1, 2
ADD, SUBTRACT, REVERSE_SUBTRACT, MIN, MAX, ABS = range(6)
OTHER_COLOR, ONE_MINUS_OTHER_COLOR, SRC_ALPHA, ONE_MINUS_SRC_ALPHA = 0, 1, 2, 3
DST_ALPHA, ONE_MINUS_DST_ALPHA, DOUBLE_SRC_ALPHA, ONE_MINUS_DOUBLE_SRC_ALPHA = 4, 5, 6, 7
DOUBLE_DST_ALPHA, ONE_MINUS_DOUBLE_DST_ALPHA, FIX = 8, 9, 10
SRC_COLOR, ONE_MINUS_SRC_COLOR, DST_COLOR, ONE_MINUS_DST_COLOR = 0, 1, 0, 1
NEVER, ALWAYS, EQUAL, NOTEQUAL, LESS, LEQUAL, GREATER, GEQUAL = range(8)
KEEP, ZERO, REPLACE, INVERT, INCR, DECR = range(6)

# sceGuEnable states -> the enable command they send
ENABLES = {
    "ALPHA_TEST": regs.ALPHATESTENABLE, "DEPTH_TEST": regs.ZTESTENABLE,
    "STENCIL_TEST": regs.STENCILTESTENABLE, "BLEND": regs.ALPHABLENDENABLE,
    "DITHER": regs.DITHERENABLE, "FOG": regs.FOGENABLE, "TEXTURE_2D": regs.TEXTUREMAPENABLE,
    "LIGHTING": regs.LIGHTINGENABLE, "COLOR_TEST": regs.COLORTESTENABLE,
    "COLOR_LOGIC_OP": regs.LOGICOPENABLE,
    "LIGHT0": regs.LIGHTENABLE0, "LIGHT1": regs.LIGHTENABLE0 + 1,
    "LIGHT2": regs.LIGHTENABLE0 + 2, "LIGHT3": regs.LIGHTENABLE0 + 3,
}


def float_arg(value: float) -> int:
    """A float command's argument: the single's top 24 bits (libgu's sendCommandf)."""
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 8


class Ge:
    """GE state + guest memory, driven like libgu drives the real one."""

    def __init__(self):
        self.memory = Memory()
        self.mem = self.memory.mem
        self.ram_size = self.memory.ram_size
        self.cmds = np.zeros(256, dtype=np.uint32)
        self.clut = np.zeros(texture.CLUT_BYTES, dtype=np.uint8)
        self.texfunc = 0  # libgu keeps TEXFUNC's function bits and the doubling bit apart
        self.fragment_2x = 0

    @property
    def space(self) -> tuple:
        """The GE functions' first arguments: memory, RAM size, address mapping (the translation now)."""
        return self.mem, self.ram_size, self.memory.mapping

    def send(self, op: int, arg: int) -> None:
        self.cmds[op] = (op << 24) | (arg & 0xFFFFFF)

    def sendf(self, op: int, value: float) -> None:
        self.send(op, float_arg(value))

    # --- sceGu* ---
    def vertex_type(self, through: bool) -> None:
        """The transform bit of the vertex type sceGuDrawArray sends (GU_TRANSFORM_2D =
        through mode); the other fields only matter to the vertex decoder."""
        self.send(regs.VERTEXTYPE, regs.THROUGH_BIT if through else 0)

    def enable(self, state: str) -> None:
        if state == "FRAGMENT_2X":
            self.fragment_2x = 0x10000
            self.send(regs.TEXFUNC, self.texfunc | self.fragment_2x)
        else:
            self.send(ENABLES[state], 1)

    def disable(self, state: str) -> None:
        if state == "FRAGMENT_2X":
            self.fragment_2x = 0
            self.send(regs.TEXFUNC, self.texfunc)
        else:
            self.send(ENABLES[state], 0)

    def draw_buffer(self, psm: int, fbp: int, width: int) -> None:
        self.send(regs.FRAMEBUFPIXFORMAT, psm)
        self.send(regs.FRAMEBUFPTR, fbp)
        self.send(regs.FRAMEBUFWIDTH, ((fbp & 0xFF000000) >> 8) | width)

    def depth_buffer(self, zbp: int, width: int) -> None:
        self.send(regs.ZBUFPTR, zbp)
        self.send(regs.ZBUFWIDTH, ((zbp & 0xFF000000) >> 8) | width)

    def depth_range(self, near: int, far: int) -> None:
        self.send(regs.MINZ, min(near, far))
        self.send(regs.MAXZ, max(near, far))

    def depth_func(self, func: int) -> None:
        self.send(regs.ZTEST, func)

    def depth_mask(self, mask: int) -> None:
        self.send(regs.ZWRITEDISABLE, mask)

    def tex_mode(self, psm: int, maxmips: int = 0, multiclut: int = 0, swizzle: int = 0) -> None:
        self.send(regs.TEXMODE, (maxmips << 16) | (multiclut << 8) | swizzle)
        self.send(regs.TEXFORMAT, psm)

    def tex_image(self, level: int, width: int, height: int, bufw: int, addr: int) -> None:
        self.send(regs.TEXADDR0 + level, addr)
        self.send(regs.TEXBUFWIDTH0 + level, ((addr >> 8) & 0x0F0000) | bufw)
        self.send(regs.TEXSIZE0 + level, ((height.bit_length() - 1) << 8) | (width.bit_length() - 1))

    def tex_func(self, tfx: int, tcc: int) -> None:
        self.texfunc = tfx | (tcc << 8)
        self.send(regs.TEXFUNC, self.texfunc | self.fragment_2x)

    def tex_env_color(self, color: int) -> None:
        self.send(regs.TEXENVCOLOR, color)

    def tex_filter(self, minf: int, magf: int) -> None:
        self.send(regs.TEXFILTER, minf | (magf << 8))

    def tex_wrap(self, u: int, v: int) -> None:
        self.send(regs.TEXWRAP, u | (v << 8))

    def tex_level_raw(self, arg: int) -> None:
        self.send(regs.TEXLEVEL, arg)

    def tex_slope(self, slope: float) -> None:
        self.sendf(regs.TEXLODSLOPE, slope)

    def clut_mode(self, cpsm: int, shift: int, mask: int, start: int) -> None:
        self.send(regs.CLUTFORMAT, cpsm | (shift << 2) | (mask << 8) | (start << 16))

    def clut_load(self, blocks: int, addr: int) -> None:
        self.send(regs.CLUTADDR, addr)
        self.send(regs.CLUTADDRUPPER, (addr >> 8) & 0xF0000)
        self.send(regs.LOADCLUT, blocks)
        texture.load_clut(*self.space, self.cmds, self.clut)

    def blend_func(self, op: int, src: int, dst: int, fix_a: int, fix_b: int) -> None:
        self.send(regs.BLENDMODE, src | (dst << 4) | (op << 8))
        self.send(regs.BLENDFIXEDA, fix_a)
        self.send(regs.BLENDFIXEDB, fix_b)

    def alpha_func(self, func: int, ref: int, mask: int) -> None:
        self.send(regs.ALPHATEST, func | ((ref & 0xFF) << 8) | ((mask & 0xFF) << 16))

    def color_func(self, func: int, color: int, mask: int) -> None:
        self.send(regs.COLORTEST, func & 3)
        self.send(regs.COLORREF, color)
        self.send(regs.COLORTESTMASK, mask)

    def stencil_func(self, func: int, ref: int, mask: int) -> None:
        self.send(regs.STENCILTEST, func | ((ref & 0xFF) << 8) | ((mask & 0xFF) << 16))

    def stencil_op(self, fail: int, zfail: int, zpass: int) -> None:
        self.send(regs.STENCILOP, fail | (zfail << 8) | (zpass << 16))

    def pixel_mask(self, mask: int) -> None:
        self.send(regs.MASKRGB, mask)
        self.send(regs.MASKALPHA, mask >> 24)

    def logical_op(self, op: int) -> None:
        self.send(regs.LOGICOP, op & 0xF)

    def set_dither(self, rows) -> None:
        for y, row in enumerate(rows):
            self.send(regs.DITH0 + y, sum((v & 0xF) << (4 * x) for x, v in enumerate(row)))

    def fog(self, near: float, far: float, color: int) -> None:
        distance = far - near
        self.send(regs.FOGCOLOR, color)
        self.sendf(regs.FOG1, far)
        self.sendf(regs.FOG2, 1.0 / distance if distance else 0.0)

    def clear_mode(self, flags: int) -> None:
        """CLEARMODE on, as sceGuClear sends it before its rectangle (flags: 1 colour,
        2 stencil, 4 depth)."""
        self.send(regs.CLEARMODE, (flags << 8) | 1)

    def clear_mode_off(self) -> None:
        self.send(regs.CLEARMODE, 0)

    # --- memory ---
    def write_words(self, addr: int, words, fmt: str = "<I") -> None:
        self.memory.write(addr, b"".join(struct.pack(fmt, w) for w in words))

    def fb_word(self, x: int = 0, y: int = 0, stride: int = 512) -> int:
        return struct.unpack("<I", self.memory.read(FB_ADDR + (y * stride + x) * 4, 4))[0]

    def fb_half(self, x: int = 0, y: int = 0, stride: int = 512) -> int:
        return struct.unpack("<H", self.memory.read(FB_ADDR + (y * stride + x) * 2, 2))[0]

    def clear_fb(self, word: int, rows: int = 272, stride: int = 512) -> None:
        """Every pixel of a 32-bit buffer at VRAM 0 set to `word` (the programs' DMA fill)."""
        start = self.ram_size
        self.mem[start:start + rows * stride * 4].view(np.uint32)[:] = word

    def fill_fb(self, word: int, count: int = 512, size: int = 4) -> None:
        self.memory.write(FB_ADDR, struct.pack("<I" if size == 4 else "<H", word) * count)

    # --- one pixel through the pipeline ---
    def texel(self, u: float, v: float, lod: float = 0.0) -> int:
        return int(texture.sample(*self.space, self.cmds, self.clut, u, v, lod))

    def draw_pixel(self, x: int, y: int, color: int, u: float = 0.0, v: float = 0.0, lod: float = 0.0,
                   z: int = 0, fog: float = 1.0, spec: int = 0) -> int:
        """What the raster does for one covered pixel: texture (when enabled), then the
        fragment stage. Returns process's result (1 = written)."""
        if self.cmds[regs.TEXTUREMAPENABLE] & 1 and not self.cmds[regs.CLEARMODE] & 1:
            color = int(texture.combine(self.cmds, color, self.texel(u, v, lod)))
        return int(fragment.process(*self.space, self.cmds, x, y, z, color, spec, fog))


def autotest_init(ge: Ge, scissor_small: bool = True) -> None:
    """The common initDisplay of the gpu tests: 8888 buffer at VRAM 0 (stride 512), depth
    buffer after it, depth range 65535..0, depth writes on (the test is off)."""
    ge.draw_buffer(PSM_8888, 0, 512)
    ge.depth_buffer(512 * 272 * 4, 512)
    ge.depth_range(65535, 0)
    ge.depth_mask(0)


def program_calls(pspautotests: Path, source: str, function: str, start: str = "int main") -> list:
    """(section, title, [arguments]) of each `function("title", ...)` call in a program
    from `start` (its main() unless told), in order, with the checkpointNext heading it
    falls under. Arguments are evaluated: hex/decimal/float literals, true/false and GU_
    names (pspgu.h values, from this module); other names stay strings. The tests then
    replay the programs' drawing."""
    text = (pspautotests / "tests" / source).read_text()
    text = text[text.index(start):]
    calls = []
    section = ""
    pattern = re.compile(r'(checkpointNext\("(.*?):?"\))|(\b' + function + r'\("([^"]*)",([^;]*)\);)')
    for m in pattern.finditer(text):
        if m.group(1):
            section = m.group(2)
            continue
        args = [a.strip() for a in m.group(5).split(",")]
        calls.append((section, m.group(4), [c_value(a) for a in args]))
    return calls


def c_value(token: str):
    if token in ("true", "false"):
        return token == "true"
    if token.startswith("GU_"):
        return globals()[token[3:]]
    number = token.rstrip("fF") if not token.startswith("0x") else token
    try:
        return int(number, 0)
    except ValueError:
        try:
            return float(number)
        except ValueError:
            return token


SECTION = re.compile(r"^\[[a-z]\] (.*?):?$")
LINE = re.compile(r"^\[[a-z]\] (.*): (.*)$")


def expected_list(pspautotests: Path, test: str) -> list:
    """[(section, title, printed value)] of a pspautotests .expected file, in order: a
    section is the last checkpointNext heading ("Doubling:" -> "Doubling"); titles keep
    their indent."""
    out = []
    section = ""
    for line in (pspautotests / "tests" / f"{test}.expected").read_text().splitlines():
        m = LINE.match(line)
        if m:
            out.append((section, m.group(1), m.group(2)))
            continue
        heading = SECTION.match(line)
        if heading:
            section = heading.group(1)
    return out


def expected_lines(pspautotests: Path, test: str) -> dict:
    """{(section, title): printed value} of `expected_list` (the first of equal keys)."""
    out = {}
    for section, title, value in expected_list(pspautotests, test):
        out.setdefault((section, title), value)
    return out
