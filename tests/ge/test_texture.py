"""allegrex/ge/texture.py: texel formats, CLUT, DXT, swizzle, levels, LOD, filtering and
the texture functions, checked against pspautotests' real-PSP output (each program's
drawing replayed through sample -> combine -> fragment.process, the printed pixel compared
with its .expected line) and against independent numpy decoders written here."""

import re

import numpy as np
import pytest

from allegrex.ge import regs, texture
from tests.ge import gu
from tests.ge.gu import Ge

ALPHA_DISABLE, ALPHA_NORMAL, ALPHA_TO_RGB, ALPHA_DISABLE_TO_RGB = -1, 0, 1, 2
ALPHA_MODES = {"ALPHA_DISABLE": ALPHA_DISABLE, "ALPHA_NORMAL": ALPHA_NORMAL,
               "ALPHA_TO_RGB": ALPHA_TO_RGB, "ALPHA_DISABLE_TO_RGB": ALPHA_DISABLE_TO_RGB}


# ---------------------------------------------------------------- gpu/texfunc


def texfunc_cases(pspautotests, name):
    """(section, title, texc, prim, texenv, doubling, alpha) of every testTexFunc call the
    program makes: the straight calls read from its source, its loops written out here."""
    source = (pspautotests / "tests" / "gpu" / "texfunc" / f"{name}.cpp").read_text()
    main = source[source.index("int main"):]
    cases = []
    section = ""
    call = re.compile(r'testTexFunc\("([^"]*)", (0x[0-9A-Fa-f]+), (0x[0-9A-Fa-f]+), (?:(0x[0-9A-Fa-f]+), )?(true|false), (\w+)\)')
    for line in main.splitlines():
        heading = re.search(r'checkpointNext\("(.*):"\)', line)
        if heading:
            section = heading.group(1)
        m = call.search(line)
        if m:
            env = int(m.group(4), 16) if m.group(4) else 0
            cases.append((section, m.group(1), int(m.group(2), 16), int(m.group(3), 16), env,
                          m.group(5) == "true", ALPHA_MODES[m.group(6)]))

    def ramp(title):
        return [(i, title % (i, i * 127.0 / 255.0, (i * 127) % 255)) for i in range(256)]

    if name == "modulate":
        cases += [("Rounding", t, (i << 24) | 0xFF0000 | (i << 8) | i, 0x7F7F7F7F, 0, False, ALPHA_NORMAL)
                  for i, t in ramp("  0x7F * 0x%02X (%f / %d)")]
    elif name in ("decal", "replace"):
        cases += [("Rounding", t, 0x7F000000 | 0xFF0000 | (i << 8) | i, 0, 0, False, ALPHA_NORMAL)
                  for i, t in ramp("  0x7F * 0x%02X + Zero (%f / %d)")]
    elif name == "add":
        cases += [("Alpha rounding", t, i * 0x01010101, 0x7F7F7F7F, 0, False, ALPHA_TO_RGB)
                  for i, t in ramp("  0x7F * 0x%02X (%f / %d)")]
    elif name == "blend":
        cases += [("Prim Rounding", t, 0x00808080, 0x5F000000 | 0xFF0000 | (i << 8) | i, 0, False, ALPHA_NORMAL)
                  for i, t in ramp("  Prim: 0x5F * 0x%02X + Zero (%f / %d)")]
        cases += [("Env Rounding", t, 0x5F000000 | 0xFF0000 | (i << 8) | i, 0, 0x7F7F7F7F, False, ALPHA_NORMAL)
                  for i, t in ramp("  Texenv: 0x7F * 0x%02X + Zero (%f / %d)")]
        cases += [("Alpha Rounding", t, i * 0x01010101, 0x7F7F7F7F, 0, False, ALPHA_TO_RGB)
                  for i, t in ramp("  Alpha: 0x7F * 0x%02X + Zero (%f / %d)")]
    return cases


def texfunc_pixel(ge, tfx, texc, prim, texenv, doubling, alpha):
    """testTexFunc: a sprite over pixel (0, 0) of a 1x1 8888 texture; with ALPHA_TO_RGB
    the texel alpha is blended onto white (FIX 0 * src + SRC_ALPHA * dst)."""
    if alpha in (ALPHA_TO_RGB, ALPHA_DISABLE_TO_RGB):
        ge.fill_fb(0xFFFFFFFF)
        ge.enable("BLEND")
        ge.blend_func(gu.ADD, gu.FIX, gu.SRC_ALPHA, 0, 0)
        ge.tex_func(tfx, gu.TCC_RGB if alpha == ALPHA_DISABLE_TO_RGB else gu.TCC_RGBA)
    else:
        ge.disable("BLEND")
        ge.tex_func(tfx, gu.TCC_RGB if alpha == ALPHA_DISABLE else gu.TCC_RGBA)
    ge.tex_env_color(texenv)
    (ge.enable if doubling else ge.disable)("FRAGMENT_2X")
    ge.write_words(gu.TEX_ADDR, [texc] * 16)
    ge.tex_image(0, 1, 1, 1, gu.TEX_ADDR)
    ge.draw_pixel(0, 0, prim, u=0.25, v=0.75)
    color = ge.fb_word()
    ge.fill_fb(0x44444444)
    ge.disable("BLEND")
    return f"COLOR={color:08x}"


@pytest.mark.parametrize("name, tfx", [("modulate", gu.TFX_MODULATE), ("decal", gu.TFX_DECAL),
                                       ("blend", gu.TFX_BLEND), ("replace", gu.TFX_REPLACE),
                                       ("add", gu.TFX_ADD)])
def test_texture_functions_match_psp(pspautotests, name, tfx):
    expected = gu.expected_lines(pspautotests, f"gpu/texfunc/{name}")
    ge = Ge()
    gu.autotest_init(ge)
    ge.enable("TEXTURE_2D")
    ge.tex_filter(gu.NEAREST, gu.NEAREST)
    ge.tex_mode(gu.PSM_8888)
    ge.fill_fb(0x44444444)
    cases = texfunc_cases(pspautotests, name)
    assert len(cases) > 256
    mismatches = []
    for section, title, texc, prim, env, doubling, alpha in cases:
        got = texfunc_pixel(ge, tfx, texc, prim, env, doubling, alpha)
        want = expected[(section, title)]
        if got != want:
            mismatches.append(f"{section}/{title}: {got} != {want}")
    assert not mismatches, "\n".join(mismatches[:20])


# ---------------------------------------------------------------- gpu/texcolors


def draw_8x8_texel(ge, psm, tfx, tcc, expose_alpha=False):
    """drawTexFlush of the texcolors programs: an 8x8 texture (clamped, nearest) on a
    through-mode sprite at (0, 0)-(2, 2) with uv (0, 0)-(2, 2); pixel (0, 0) shows texel
    (0, 0). exposeAlpha blends FIX 0 * src + SRC_ALPHA * dst onto a white buffer."""
    ge.enable("TEXTURE_2D")
    ge.tex_mode(psm)
    ge.tex_wrap(gu.CLAMP, gu.CLAMP)
    ge.tex_func(tfx, tcc)
    ge.tex_slope(2.0)
    ge.tex_image(0, 8, 8, 8, gu.TEX_ADDR)
    if expose_alpha:
        ge.enable("BLEND")
        ge.blend_func(gu.ADD, gu.FIX, gu.SRC_ALPHA, 0, 0xFFFFFF)
    else:
        ge.disable("BLEND")
    ge.vertex_type(through=True)
    ge.draw_pixel(0, 0, 0xFFFFFFFF, u=0.0, v=0.0)


def texcolor_ge():
    ge = Ge()
    gu.autotest_init(ge)
    ge.depth_range(65535, 65500)
    ge.tex_filter(gu.NEAREST, gu.NEAREST)
    ge.fill_fb(0)
    return ge


@pytest.mark.parametrize("name, psm, texels", [
    ("rgb565", gu.PSM_5650, {"White": 0xFFFF, "Red": 0x000E, "Gray": 0x8410, "Brown": 0x2825}),
    ("rgba4444", gu.PSM_4444, {"White": 0xFFFF, "Red": 0x000F, "Gray": 0x8888, "Brown": 0x0525}),
    ("rgba5551", gu.PSM_5551, {"White": 0xFFFF, "Red": 0x000E, "Gray": 0x4210, "Brown": 0x9425}),
])
def test_16bit_texel_formats_match_psp(pspautotests, name, psm, texels):
    expected = gu.expected_lines(pspautotests, f"gpu/texcolors/{name}")
    ge = texcolor_ge()
    for title, texel in texels.items():
        ge.write_words(gu.TEX_ADDR, [texel] * 64, "<H")
        draw_8x8_texel(ge, psm, gu.TFX_DECAL, gu.TCC_RGB)
        assert f"{ge.fb_word() & 0xFFFFFF:06x}" == expected[("", title)], title
        ge.fill_fb(0)


def dxt_color_block(c1, c2, lines):
    return bytes(lines) + c1.to_bytes(2, "little") + c2.to_bytes(2, "little")


DXT_IMAGES = [  # (title, color1, color2, line byte) as the texcolors programs fill them
    ("White 0", 0xFFFF, 0xFFFF, 0), ("White 1", 0xFFFF, 0xFFFF, 0x55),
    ("White 2", 0xFFFF, 0xFFFF, 0xAA), ("White 3", 0xFFFF, 0xFFFF, 0xFF),
    ("First greater 0", 0xFFE3, 0x8410, 0), ("First greater 1", 0xFFE3, 0x8410, 0x55),
    ("First greater 2", 0xFFE3, 0x8410, 0xAA), ("First greater 3", 0xFFE3, 0x8410, 0xFF),
    ("First lesser 0", 0x8410, 0xF85F, 0), ("First lesser 1", 0x8410, 0xF85F, 0x55),
    ("First lesser 2", 0x8410, 0xF85F, 0xAA), ("First lesser 3", 0x8410, 0xF85F, 0xFF),
    ("Color mix 2", 0x7890, 0x1234, 0xAA), ("Color mix 3", 0x7890, 0x1234, 0xFF),
]
TOP_LEFT_LINES = [0x02, 0, 0, 0]


def dxt_pixel_pair(ge, psm, blocks):
    """The programs' testDrawingBox: colour drawn on black, then alpha shown on white."""
    ge.memory.write(gu.TEX_ADDR, b"".join(blocks))
    draw_8x8_texel(ge, psm, gu.TFX_REPLACE, gu.TCC_RGBA)
    color = ge.fb_word() & 0xFFFFFF
    ge.fill_fb(0xFFFFFFFF)
    draw_8x8_texel(ge, psm, gu.TFX_REPLACE, gu.TCC_RGBA, expose_alpha=True)
    alpha = ge.fb_word() & 0xFFFFFF
    ge.fill_fb(0)
    return f"{color:06x} / {alpha:06x}"


def test_dxt1_matches_psp(pspautotests):
    expected = gu.expected_lines(pspautotests, "gpu/texcolors/dxt1")
    ge = texcolor_ge()
    images = [(t, dxt_color_block(c1, c2, [line] * 4)) for t, c1, c2, line in DXT_IMAGES]
    images.append(("Top left pixel only", dxt_color_block(0x7777, 0x1356, TOP_LEFT_LINES)))
    for title, block in images:
        assert dxt_pixel_pair(ge, gu.PSM_DXT1, [block] * 4) == expected[("", title)], title


def test_dxt3_matches_psp(pspautotests):
    expected = gu.expected_lines(pspautotests, "gpu/texcolors/dxt3")
    ge = texcolor_ge()
    images = [(t, dxt_color_block(c1, c2, [line] * 4), 0x5555) for t, c1, c2, line in DXT_IMAGES]
    images += [("Alpha 0", dxt_color_block(0x7890, 0x1234, [0xAA] * 4), 0x0000),
               ("Alpha F", dxt_color_block(0x7890, 0x1234, [0xFF] * 4), 0xFFFF)]
    for title, color, alpha_line in images:
        block = color + alpha_line.to_bytes(2, "little") * 4
        assert dxt_pixel_pair(ge, gu.PSM_DXT3, [block] * 4) == expected[("", title)], title
    top_left = dxt_color_block(0x7777, 0x1356, TOP_LEFT_LINES) + bytes([0xF, 0, 0, 0, 0, 0, 0, 0])
    assert dxt_pixel_pair(ge, gu.PSM_DXT3, [top_left] * 4) == expected[("", "Top left pixel only")]


def dxt5_block(color, a1, a2, bits48):
    return color + (bits48 & 0xFFFFFFFF).to_bytes(4, "little") + (bits48 >> 32).to_bytes(2, "little") + bytes([a1, a2])


def test_dxt5_matches_psp(pspautotests):
    """Every alpha index 0-7 for the programs' images and for alpha 1 = 0xFF against all
    256 alpha 2 values (8-step and 6-step ramps with their rounding)."""
    expected = gu.expected_lines(pspautotests, "gpu/texcolors/dxt5")
    ge = texcolor_ge()
    images = [(t, dxt_color_block(c1, c2, [line] * 4), 0x55, 0xFF) for t, c1, c2, line in DXT_IMAGES]
    mix = dxt_color_block(0x7890, 0x1234, [0xAA] * 4)
    images += [("Alpha greater", mix, 0xFF, 0x00), ("Alpha equal", mix, 0x00, 0xFF)]
    images += [(f"Alpha {a2:02x}", mix, 0xFF, a2) for a2 in range(256)]
    for title, color, a1, a2 in images:
        for index in range(8):
            bits = sum(index << (3 * k) for k in range(16))
            got = dxt_pixel_pair(ge, gu.PSM_DXT5, [dxt5_block(color, a1, a2, bits)] * 4)
            key = ("", f"{title} (alpha={index})")
            assert got == expected[key], key
    top_left = dxt_color_block(0x7777, 0x1356, TOP_LEFT_LINES)
    for index in range(8):
        got = dxt_pixel_pair(ge, gu.PSM_DXT5, [dxt5_block(top_left, 0xE1, 0x59, index)] * 4)
        assert got == expected[("", f"Top left pixel only (alpha={index})")]


# ---------------------------------------------------------------- gpu/clut


def clut_pattern(pspautotests, name):
    """The clutPattern words of a gpu/clut program, read from its source."""
    source = (pspautotests / "tests" / "gpu" / "clut" / f"{name}.cpp").read_text()
    body = source[source.index("clutPattern[] = {"):]
    body = body[:body.index("};")]
    return [int(w, 16) for w in re.findall(r"0x[0-9A-Fa-f]{8}", body)]


CLUT_ADDR = gu.TEX_ADDR + 0x1000


def clut_pixel(ge, index_bytes, clutfmt, blocks=0xFF, shift=0, mask=0xFF, start=0, clut_addr=CLUT_ADDR):
    """drawTexFlush of the clut programs: a 1x1 T32 texture (buffer width 16) whose
    texel is `index_bytes`, DECAL/RGB, the CLUT loaded then its mode set; the sprite
    covers the screen and pixel (0, 0) is read without its alpha, then cleared."""
    ge.memory.write(gu.TEX_ADDR, bytes(index_bytes).ljust(16, b"\0"))
    ge.enable("TEXTURE_2D")
    ge.tex_mode(gu.PSM_T32)
    ge.tex_func(gu.TFX_DECAL, gu.TCC_RGB)
    ge.tex_image(0, 1, 1, 16, gu.TEX_ADDR)
    ge.clut_load(blocks, clut_addr)
    ge.clut_mode(clutfmt, shift, mask, start)
    ge.vertex_type(through=True)
    ge.draw_pixel(0, 0, 0xFFFFFFFF)
    value = ge.fb_word() & 0xFFFFFF
    ge.fill_fb(0)
    return f"{value:06x}"


def clut_ge(pspautotests, name):
    ge = Ge()
    ge.draw_buffer(gu.PSM_8888, 0, 512)
    ge.tex_filter(gu.NEAREST, gu.NEAREST)
    ge.write_words(CLUT_ADDR, clut_pattern(pspautotests, name))
    return ge


FORMATS = [("8888", gu.PSM_8888), ("4444", gu.PSM_4444)]


def test_clut_index_shifts_match_psp(pspautotests):
    """Shifts 0-33 (5 bits: 32 and 33 wrap to 0 and 1) of a 32-bit index."""
    expected = gu.expected_lines(pspautotests, "gpu/clut/shifts")
    ge = clut_ge(pspautotests, "shifts")
    for fmt_name, fmt in FORMATS:
        for shift in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 20, 21, 24, 28, 30, 31, 32, 33]:
            for texel in (0xFFFFFFFF, 0x12345678):
                got = clut_pixel(ge, texel.to_bytes(4, "little"), fmt, shift=shift)
                key = (f"Index shifts {fmt_name}", f"  Index shift {shift} ({texel:08X})")
                assert got == expected[key], key


def test_clut_index_masks_match_psp(pspautotests):
    expected = gu.expected_lines(pspautotests, "gpu/clut/masks")
    ge = clut_ge(pspautotests, "masks")
    for fmt_name, fmt in FORMATS:
        for mask in [0x00, 0x01, 0x02, 0x0F, 0xF0, 0x77, 0x80, 0x55]:
            got = clut_pixel(ge, [255], fmt, mask=mask)
            key = (f"Index shifts {fmt_name}", f"  Index mask {mask:02x}")
            assert got == expected[key], key


def test_clut_start_offsets_match_psp(pspautotests):
    """The start position (in 16-entry steps) ORs into the index and wraps inside the
    1024-byte CLUT (256 entries of 8888, 512 of 16-bit colours)."""
    expected = gu.expected_lines(pspautotests, "gpu/clut/offset")
    ge = clut_ge(pspautotests, "offset")
    for fmt_name, fmt in FORMATS:
        for start in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 21, 30, 31]:
            for index in (0, 1, 15, 16, 255):
                got = clut_pixel(ge, [index], fmt, start=start)
                key = (f"Index offsets {fmt_name}", f"  Index offset {start} ({index})")
                assert got == expected[key], key


def test_clut_load_address_and_size_match_psp(pspautotests):
    """CLUTADDR is 16-byte aligned; 0 blocks loads nothing (the previous CLUT stays); a
    load from outside memory reads zeros."""
    expected = gu.expected_lines(pspautotests, "gpu/clut/address")
    ge = clut_ge(pspautotests, "address")
    for offset in [0, 1, 2, 3, 4, 8, 9, 12, 15, 16]:
        got = clut_pixel(ge, [0], gu.PSM_8888, blocks=1, clut_addr=CLUT_ADDR + offset)
        assert got == expected[("", f"Offset {offset}")], offset
    vram_end = 0x04000000 + 0x200000  # the program uses the last mirror; the plain view here
    ge.write_words(vram_end - 16, clut_pattern(pspautotests, "address")[:4])
    for blocks in [0, 1, 2, 3, 4, 8, 9, 12, 15, 16, 63]:
        got = clut_pixel(ge, [0], gu.PSM_8888, blocks=blocks, clut_addr=vram_end - 16)
        assert got == expected[("", f"Blocks near edge {blocks}")], blocks
    assert clut_pixel(ge, [0], gu.PSM_8888, blocks=1, clut_addr=0x04800010) == expected[("", "Outside VRAM")]
    assert clut_pixel(ge, [0], gu.PSM_8888, blocks=1, clut_addr=vram_end - 16) == expected[("", "Reset")]


def test_clut4_and_clut8_and_clut16_index_widths():
    """Hand-computed: CLUT4 takes the low nibble for even u and the high one for odd u;
    CLUT8 a byte; CLUT16 a little-endian halfword; 5650 palette entries expand."""
    ge = Ge()
    palette = [0xF800 | i for i in range(256)]  # 5650: blue 0x1F, red = i & 0x1F, green = i >> 5
    ge.write_words(CLUT_ADDR, palette, "<H")
    ge.clut_load(16, CLUT_ADDR)
    ge.clut_mode(gu.PSM_5650, 0, 0xFF, 0)
    ge.memory.write(gu.TEX_ADDR, bytes([0x21, 0x43, 0x65, 0x87]) + bytes(28))

    def expect(i):
        r, g = i & 0x1F, (i >> 5) & 0x3F
        return 0xFF000000 | (0xFF << 16) | ((g << 2 | g >> 4) << 8) | (r << 3 | r >> 2)

    ge.tex_mode(gu.PSM_T4)
    ge.tex_image(0, 8, 1, 32, gu.TEX_ADDR)
    assert [ge.texel((u + 0.5) / 8, 0.5) for u in range(8)] == [expect(n) for n in (1, 2, 3, 4, 5, 6, 7, 8)]
    ge.tex_mode(gu.PSM_T8)
    ge.tex_image(0, 4, 1, 16, gu.TEX_ADDR)
    assert [ge.texel((u + 0.5) / 4, 0.5) for u in range(4)] == [expect(n) for n in (0x21, 0x43, 0x65, 0x87)]
    ge.tex_mode(gu.PSM_T16)
    ge.tex_image(0, 2, 1, 8, gu.TEX_ADDR)
    # 16-bit indices 0x4321 and 0x8765 masked to 8 bits by the 0xFF index mask
    assert [ge.texel((u + 0.5) / 2, 0.5) for u in range(2)] == [expect(0x21), expect(0x65)]


# ---------------------------------------------------------------- gpu/textures/mipmap


MIP_VERTS = {  # through-mode sprite: (title, lod = log2 of level-0 texels per pixel)
    "  1:1": 0.0, "  Magnify": -2.0, "  Minify 2x WH": 1.0, "  Minify 4x W": 2.0,
    "  Minify 4x H": 2.0, "  Minify 64x": 6.0, "  Minify 256x": 8.0,
}


def test_mip_levels_and_lod_modes_match_psp(pspautotests):
    """Eight 8888 levels 256..2 of flat grey 0x00..0x70, NEAREST_MIPMAP_LINEAR, under
    TEXLEVEL auto/const/slope/3 with biases -8..+7.5 levels: the level chosen and the
    blend between two levels (1/16 steps) as the PSP shows them."""
    expected = gu.expected_lines(pspautotests, "gpu/textures/mipmap")
    ge = Ge()
    gu.autotest_init(ge)
    ge.depth_range(65535, 65500)
    ge.fill_fb(0)
    ge.tex_filter(gu.NEAREST_MIPMAP_LINEAR, gu.NEAREST_MIPMAP_LINEAR)
    offset, width = 0, 256
    for level in range(8):  # getTexturePtr(IMG_HALVES, level) and the program's fill
        bufw = max(width, 4)
        ge.write_words(gu.TEX_ADDR + 4 * offset, [0xFF000000 | level * 0x101010] * (bufw * width))
        offset += width * width
        offset += (-offset) % 4
        width >>= 1
    for mode_name, mode in [("AUTO", 0), ("CONST", 1), ("SLOPE", 2), ("3", 3)]:
        for bias in [0x00, 0x07, 0x08, 0x10, 0x70, 0x77, 0x78, 0x80, 0x87, 0x88, 0xF0]:
            section = f"Typical mips ({mode_name}) +{bias:02x}"
            ge.enable("TEXTURE_2D")
            ge.tex_level_raw((bias << 16) | mode)
            ge.tex_mode(gu.PSM_8888, 7)
            ge.tex_wrap(gu.CLAMP, gu.CLAMP)
            ge.tex_func(gu.TFX_DECAL, gu.TCC_RGB)
            ge.tex_slope(2.0)
            offset, width = 0, 256
            for level in range(8):
                ge.tex_image(level, width, width, max(width, 4), gu.TEX_ADDR + 4 * offset)
                offset += width * width
                offset += (-offset) % 4
                width >>= 1
            ge.vertex_type(through=True)
            for title, lod in MIP_VERTS.items():
                if mode == gu.TEXTURE_SLOPE:  # the raster's measure: gelog2(2 * w * slope), w = 1
                    lod = texture.gelog2(2.0 * 1.0 * 2.0)
                ge.draw_pixel(0, 0, 0xFFFFFFFF, lod=lod)
                got = f"{ge.fb_word() & 0xFFFFFF:06x}"
                ge.fill_fb(0)
                assert got == expected[(section, title)], (section, title)


# ---------------------------------------------------------------- gpu/filtering


PRECISION_TEXELS = [0xFFFFFFFF, 0xFF000000, 0xFFFFFFFF, 0xFFFFFFFF,
                    0xFF0000FF, 0xFF00FF00, 0xFFFFFFFF, 0xFFFFFFFF] + [0xFFFFFFFF] * 8


def magnify_sprite(w, h, xoff, yoff, subx=0.0, suby=0.0):
    """testTexMagnify's two through-mode vertices ((u, v), (x, y)): uv (0, 0)-(2, 2) plus
    the offset, the screen corners swapped for negative sizes (the orientations)."""
    uv0, uv1 = (xoff, yoff), (2.0 + xoff, 2.0 + yoff)
    x0, x1 = (subx, w + subx) if w >= 0 else (-w + subx, subx)
    y0, y1 = (suby, h + suby) if h >= 0 else (-h + suby, suby)
    return (uv0, (x0, y0)), (uv1, (x1, y1))


def sprite_uv(sprite, px, py):
    """The raster's texture coordinate (texels) at pixel (px, py)'s centre, or None when
    the sprite does not cover it (covered: min <= centre < max on each axis). The test's
    stand-in for ge-core's sprite raster: linear between the corners, and a sprite
    flipped on one axis only maps rotated (u runs down the screen, v across), as the PSP
    draws it (the expected output of these orientations shows it)."""
    ((u0, v0), (x0, y0)), ((u1, v1), (x1, y1)) = sprite
    cx, cy = px + 0.5, py + 0.5
    if not (min(x0, x1) <= cx < max(x0, x1) and min(y0, y1) <= cy < max(y0, y1)):
        return None
    fx = (cx - min(x0, x1)) / abs(x1 - x0)
    fy = (cy - min(y0, y1)) / abs(y1 - y0)
    if (x0 < x1) == (y0 < y1):  # TL -> BR, or BR -> TL from the other corner
        if x0 > x1:
            (u0, v0), (u1, v1) = (u1, v1), (u0, v0)
        return u0 + fx * (u1 - u0), v0 + fy * (v1 - v0)
    if x0 < x1:  # BL -> TR
        return u1 + fy * (u0 - u1), v0 + fx * (v1 - v0)
    return u0 + fy * (u1 - u0), v1 + fx * (v0 - v1)  # TR -> BL


def precision_readout(ge, sprite):
    """displayBuffer of the precision programs: pixel (0, 0), then the first pixel down
    column 0 and along row 0 that differs from it (drawn on a 0x44444444 buffer)."""
    ge.clear_fb(0x44444444)

    def pixel(px, py):
        uv = sprite_uv(sprite, px, py)
        if uv is not None:
            ge.draw_pixel(px, py, 0xFFFFFFFF, u=uv[0] / 2, v=uv[1] / 2)
        return ge.fb_word(px, py)

    tl = pixel(0, 0)
    left = next(((y, c) for y in range(1, 272) if (c := pixel(0, y)) != tl), (-1, 0))
    top = next(((x, c) for x in range(1, 480) if (c := pixel(x, 0)) != tl), (-1, 0))
    return f"COLOR={tl:08x}, left={left[0]}, {left[1]:08x}, top={top[0]}, {top[1]:08x}"


@pytest.mark.parametrize("name, filt", [("precisionlinear2d", gu.LINEAR), ("precisionnearest2d", gu.NEAREST)])
def test_filter_precision_matches_psp(pspautotests, name, filt):
    """A 2x2 texture magnified on through-mode sprites (clamped): where each texel starts
    and the 1/16-step bilinear weights, in every orientation, with texel offsets and
    1/16-pixel screen offsets. The raster is stood in for by pixel-centre sampling."""
    expected = gu.expected_lines(pspautotests, f"gpu/filtering/{name}")
    ge = Ge()
    gu.autotest_init(ge)
    ge.enable("TEXTURE_2D")
    ge.tex_mode(gu.PSM_8888)
    ge.tex_func(gu.TFX_REPLACE, gu.TCC_RGBA)
    ge.tex_filter(filt, filt)
    ge.write_words(gu.TEX_ADDR, PRECISION_TEXELS)
    ge.tex_image(0, 2, 2, 4, gu.TEX_ADDR)
    ge.tex_wrap(gu.CLAMP, gu.CLAMP)
    ge.vertex_type(through=True)
    cases = [
        ("Orientations", "  TL -> BR", (256, 256, 0, 0)), ("Orientations", "  BR -> TL", (-256, -256, 0, 0)),
        ("Orientations", "  TR -> BL", (-256, 256, 0, 0)), ("Orientations", "  BL -> TR", (256, -256, 0, 0)),
        ("Orientations", "  TL -> BR (small)", (2, 2, 0, 0)),
        ("Offsets", "  One texel", (256, 256, 1, 1)), ("Offsets", "  Half texel", (256, 256, 0.5, 0.5)),
        ("Offsets", "  Negative half texel", (256, 256, -0.5, -0.5)),
        ("Offsets", "  Half texel (small)", (2, 2, 0.5, 0.5)),
    ]
    for i in range(16):
        cases += [("Pos X offsets", f"  Pos X offset {i}", (2, 2, 0, 0, -i / 16, 0)),
                  ("Pos X offsets", f"  Pos X offset (256x) {i}", (512, 512, 0, 0, -i / 16, 0)),
                  ("Pos Y offsets", f"  Pos Y offset {i}", (2, 2, 0, 0, 0, -i / 16)),
                  ("Pos Y offsets", f"  Pos Y offset (256x) {i}", (512, 512, 0, 0, 0, -i / 16))]
    mismatches = []
    for section, title, args in cases:
        got = precision_readout(ge, magnify_sprite(*args))
        if got != expected[(section, title)]:
            mismatches.append(f"{title}: {got} != {expected[(section, title)]}")
    assert not mismatches, "\n".join(mismatches)


def test_mip_blend_by_lod_slope_matches_psp(pspautotests):
    """filtering/mipmaplinear (slope mode, w = 1): level = gelog2(2 * slope), 4 bits of
    fraction taken from the float's mantissa, the two levels blended in 1/16 steps."""
    import struct
    expected = gu.expected_lines(pspautotests, "gpu/filtering/mipmaplinear")
    ge = Ge()
    gu.autotest_init(ge)
    ge.enable("TEXTURE_2D")
    ge.tex_func(gu.TFX_REPLACE, gu.TCC_RGBA)
    level1 = gu.TEX_ADDR + 0x100
    ge.fill_fb(0x44444444)
    cases = [("Common", "  Even", 0xFF0000FF, 0xFF00FF00, 0.0),
             ("Common", "  One level offset", 0xFF0000FF, 0xFF00FF00, 1.0)]
    for off in [1.0625, 1.001953125, 1.0009765625, 1.00048828125, 1.000244140625, 1.0001220703125,
                0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.001953125]:
        cases.append(("Offsets", f"  Offset {off:f}", 0xFF0000FF, 0xFF00FF00, off))
    for i in range(256):
        bits = struct.unpack("<I", struct.pack("<f", (i / 256.0) / 2.0))[0]
        cases.append(("Offsets", f"  Blend at {i} - {bits >> 23:02x} / {bits & 0x07FFFFFF:08x}",
                      0xFFFDFEFF, 0, i / 256.0))
    cases += [("Half blends", f"  {i} * half", 0xFF000000 | i * 0x010101, 0, 0.5) for i in range(256)]
    for section, title, c1, c2, slope in cases:
        ge.tex_filter(gu.NEAREST_MIPMAP_LINEAR, gu.NEAREST_MIPMAP_LINEAR)
        ge.tex_mode(gu.PSM_8888, 1)
        ge.tex_level_raw(gu.TEXTURE_SLOPE)
        ge.tex_slope(slope)
        ge.write_words(gu.TEX_ADDR, [c1] * 16)
        ge.write_words(level1, [c2] * 16)
        ge.tex_image(0, 2, 2, 4, gu.TEX_ADDR)
        ge.tex_image(1, 1, 1, 4, level1)
        # the raster's slope-mode measure at w = 1 (transform mode, identity matrices)
        ge.draw_pixel(0, 0, 0xFFFFFFFF, u=0.25, v=0.25, lod=texture.gelog2(2.0 * 1.0 * slope))
        got = f"COLOR={ge.fb_word():08x}"
        ge.fill_fb(0x44444444)
        assert got == expected[(section, title)], (section, title)


# ---------------------------------------------------------------- independent references


def numpy_expand(fmt, p):
    """RGBA8888 words of 16-bit texels, written from the format definitions."""
    p = p.astype(np.uint32)
    if fmt == gu.PSM_5650:
        r, g, b, a = p & 31, (p >> 5) & 63, (p >> 11) & 31, np.full_like(p, 255)
        r, g, b = (r << 3) | (r >> 2), (g << 2) | (g >> 4), (b << 3) | (b >> 2)
    elif fmt == gu.PSM_5551:
        r, g, b, a = p & 31, (p >> 5) & 31, (p >> 10) & 31, (p >> 15) * 255
        r, g, b = (r << 3) | (r >> 2), (g << 3) | (g >> 2), (b << 3) | (b >> 2)
    else:
        r, g, b, a = (p & 15) * 17, ((p >> 4) & 15) * 17, ((p >> 8) & 15) * 17, (p >> 12) * 17
    return r | (g << 8) | (b << 16) | (a << 24)


def sample_grid(ge, width, height):
    """Nearest samples at every texel centre of level 0."""
    return np.array([[ge.texel((x + 0.5) / width, (y + 0.5) / height) for x in range(width)]
                     for y in range(height)], dtype=np.uint32)


@pytest.mark.parametrize("fmt", [gu.PSM_5650, gu.PSM_5551, gu.PSM_4444])
def test_16bit_texels_expand_like_the_format_definition(fmt):
    rng = np.random.default_rng(fmt)
    texels = rng.integers(0, 65536, size=(16, 32), dtype=np.uint16)
    ge = Ge()
    ge.memory.write(gu.TEX_ADDR, texels.tobytes())
    ge.tex_mode(fmt)
    ge.tex_image(0, 32, 16, 32, gu.TEX_ADDR)
    np.testing.assert_array_equal(sample_grid(ge, 32, 16), numpy_expand(fmt, texels))


def swizzle(data, row_bytes):
    """A linear image (rows of `row_bytes`) in the GE's swizzled layout: 16-byte x 8-row
    blocks stored block after block, left to right, then the next band of 8 rows."""
    rows = data.reshape(-1, row_bytes)
    h = rows.shape[0]
    blocks = rows.reshape(h // 8, 8, row_bytes // 16, 16).transpose(0, 2, 1, 3)
    return blocks.reshape(-1)


@pytest.mark.parametrize("fmt, bits", [(gu.PSM_8888, 32), (gu.PSM_5650, 16), (gu.PSM_T8, 8), (gu.PSM_T4, 4)])
def test_swizzled_textures_read_like_their_linear_image(fmt, bits):
    width, height, bufw = 32, 16, 64  # buffer wider than the texture
    row_bytes = bufw * bits // 8
    rng = np.random.default_rng(bits)
    data = rng.integers(0, 256, size=height * row_bytes, dtype=np.uint8)
    ge = Ge()
    ge.write_words(CLUT_ADDR, [0xFF000000 | (i * 0x010203) for i in range(256)])
    ge.clut_load(32, CLUT_ADDR)
    ge.clut_mode(gu.PSM_8888, 0, 0xFF, 0)
    ge.memory.write(gu.TEX_ADDR, data.tobytes())
    ge.tex_mode(fmt, 0, 0, 0)
    ge.tex_image(0, width, height, bufw, gu.TEX_ADDR)
    linear = sample_grid(ge, width, height)
    ge.memory.write(gu.TEX_ADDR, swizzle(data, row_bytes).tobytes())
    ge.tex_mode(fmt, 0, 0, 1)
    np.testing.assert_array_equal(sample_grid(ge, width, height), linear)


def numpy_dxt(fmt, blocks, width, height):
    """RGBA8888 of a DXT texture from its blocks (row-major, width/4 per row), written from
    the PSP's block layout: 4 index rows, colour 0, colour 1 (565, channels shifted, not
    replicated); DXT3 alpha 4 bits (x16); DXT5 alpha 8-step/6-step ramps in 8.8 fixed point."""
    out = np.zeros((height, width), dtype=np.uint32)
    size = 8 if fmt == gu.PSM_DXT1 else 16
    for n in range(len(blocks) // size):
        b = blocks[n * size:(n + 1) * size]
        c0, c1 = int(b[4]) | int(b[5]) << 8, int(b[6]) | int(b[7]) << 8
        rgb = [((c >> 8) & 0xF8, (c >> 3) & 0xFC, (c << 3) & 0xF8) for c in (c0, c1)]
        if c0 > c1:
            rgb += [tuple((2 * x + y) // 3 for x, y in zip(rgb[0], rgb[1])),
                    tuple((x + 2 * y) // 3 for x, y in zip(rgb[0], rgb[1]))]
        else:
            rgb += [tuple((x + y) // 2 for x, y in zip(rgb[0], rgb[1])), (0, 0, 0)]
        if fmt == gu.PSM_DXT5:
            a0, a1 = int(b[14]), int(b[15])
            ramp = [a0, a1]
            if a0 > a1:
                ramp += [((a0 * ((7 - k) << 8)) // 7 + (a1 * (k << 8)) // 7 + 31) >> 8 for k in range(1, 7)]
            else:
                ramp += [((a0 * ((5 - k) << 8)) // 5 + (a1 * (k << 8)) // 5 + 31) >> 8 for k in range(1, 5)]
                ramp += [0, 255]
            abits = int.from_bytes(bytes(b[8:14]), "little")
        bx, by = n % (width // 4), n // (width // 4)
        for y in range(4):
            for x in range(4):
                index = (int(b[y]) >> (2 * x)) & 3
                r, g, bl = rgb[index]
                if fmt == gu.PSM_DXT1:
                    a = 0 if (index == 3 and c0 <= c1) else 255
                elif fmt == gu.PSM_DXT3:
                    a = ((int(b[8 + 2 * y]) | int(b[9 + 2 * y]) << 8) >> (4 * x) & 15) << 4
                else:
                    a = ramp[(abits >> (12 * y + 3 * x)) & 7]
                out[by * 4 + y, bx * 4 + x] = r | g << 8 | bl << 16 | a << 24
    return out


@pytest.mark.parametrize("fmt", [gu.PSM_DXT1, gu.PSM_DXT3, gu.PSM_DXT5])
def test_dxt_textures_decode_like_a_numpy_decoder(fmt):
    width, height = 16, 8
    size = 8 if fmt == gu.PSM_DXT1 else 16
    rng = np.random.default_rng(fmt)
    blocks = rng.integers(0, 256, size=(width // 4) * (height // 4) * size, dtype=np.uint8)
    blocks[4:8] = [0x00, 0x10, 0x00, 0x80]  # block 0: colour 0 < colour 1 (3 colours + black)
    ge = Ge()
    ge.memory.write(gu.TEX_ADDR, blocks.tobytes())
    ge.tex_mode(fmt)
    ge.tex_image(0, width, height, width, gu.TEX_ADDR)
    np.testing.assert_array_equal(sample_grid(ge, width, height), numpy_dxt(fmt, blocks, width, height))


def test_wrap_and_clamp_per_axis():
    """Repeat wraps by the size (a power of two); clamp pins to the edge texels; each axis
    on its own (TEXWRAP bit 0 for u, bit 8 for v)."""
    ge = Ge()
    ge.write_words(gu.TEX_ADDR, [y * 16 + x for y in range(8) for x in range(16)])
    ge.tex_mode(gu.PSM_8888)
    ge.tex_image(0, 16, 8, 16, gu.TEX_ADDR)
    ge.tex_wrap(gu.REPEAT, gu.CLAMP)
    assert ge.texel(-0.25 + 0.5 / 16, 1.5) == 7 * 16 + 12  # u wraps to 12, v clamps to 7
    assert ge.texel(2.0 + 0.5 / 16, -3.0) == 0
    ge.tex_wrap(gu.CLAMP, gu.REPEAT)
    assert ge.texel(-0.25, 1.0 + 2.5 / 8) == 2 * 16
    assert ge.texel(1.75, 0.5 / 8) == 15


def test_texels_outside_memory_read_as_zero():
    ge = Ge()
    ge.tex_mode(gu.PSM_8888)
    ge.tex_image(0, 16, 16, 16, 0x0BFFFFC0)  # the last 64 bytes of 64 MiB RAM, then nothing
    ge.write_words(0x0BFFFFC0, [0xAABBCCDD] * 16)
    assert ge.texel(0.5 / 16, 0.5 / 16) == 0xAABBCCDD
    assert ge.texel(0.5 / 16, 1.5 / 16) == 0


def test_clut4_mip_levels_can_use_their_own_palettes():
    """With mipmaps and TEXMODE bit 8 (multi-CLUT), CLUT4 level n reads entries 16n..;
    without it every level shares the first 16."""
    ge = Ge()
    ge.write_words(CLUT_ADDR, [0xFF000000 | i for i in range(64)])
    ge.clut_load(8, CLUT_ADDR)
    ge.clut_mode(gu.PSM_8888, 0, 0xFF, 0)
    ge.memory.write(gu.TEX_ADDR, bytes([0x33] * 64))
    ge.tex_filter(gu.NEAREST_MIPMAP_NEAREST, gu.NEAREST)
    ge.tex_level_raw(gu.TEXTURE_CONST | (0x10 << 16))  # bias +1: level 1
    ge.tex_image(0, 8, 8, 32, gu.TEX_ADDR)
    ge.tex_image(1, 4, 4, 32, gu.TEX_ADDR)
    ge.tex_mode(gu.PSM_T4, 1, 1)
    assert ge.texel(0.1, 0.1) == 0xFF000000 | (16 + 3)
    ge.tex_mode(gu.PSM_T4, 1, 0)
    assert ge.texel(0.1, 0.1) == 0xFF000000 | 3


def test_gelog2_is_exponent_plus_top_mantissa_bits():
    """The GE's LOD measure: exact at powers of two, linear in between, truncated."""
    assert texture.gelog2(1.5) == 0.5
    assert texture.gelog2(2.0 * 0.75) == 0.5
    assert texture.log2_fixed4(1.0) == 0
    assert texture.log2_fixed4(4.0) == 32
    assert texture.log2_fixed4(0.25) == -32
    assert texture.log2_fixed4(1.5) == 8  # true log2 would give 9.36
    assert texture.log2_fixed4(3.0) == 16 + 8
    assert texture.log2_fixed4(1.0 + 1.0 / 17) == 0
    assert texture.log2_fixed4(0.0) == -127 * 16


def test_texture_sizes_match_psp(pspautotests):
    """textures/size: 1..32768-texel wide and tall textures of every format on a 256x256
    sprite (clamped): texel coordinates use the full size, clamping stops at texel 511;
    rows past the data read whatever the buffer holds (the program's earlier textures,
    replayed in order). Pixel centres map to texels as in the filtering tests."""
    import struct
    expected = gu.expected_list(pspautotests, "gpu/textures/size")
    ge = Ge()
    gu.autotest_init(ge)
    ge.enable("TEXTURE_2D")
    ge.tex_func(gu.TFX_REPLACE, gu.TCC_RGBA)
    ge.tex_filter(gu.NEAREST, gu.NEAREST)
    ge.tex_level_raw(gu.TEXTURE_CONST)
    ge.tex_wrap(gu.CLAMP, gu.CLAMP)
    texbuf, clut_addr = gu.TEX_ADDR, gu.TEX_ADDR + 32768 * 16
    got = []
    for section, axis in (("Texture widths", "w"), ("Texture heights", "h")):
        for fmt, fname in ((gu.PSM_8888, "8888"), (gu.PSM_4444, "4444"), (gu.PSM_T8, "CLUT8"), (gu.PSM_T4, "CLUT4")):
            for through in (False, True):
                for shift in range(16):
                    wf, hf = (shift, 0) if axis == "w" else (0, shift)
                    w, h = 1 << wf, 1 << hf
                    if fmt == gu.PSM_8888:
                        bufw = max(w, 4)
                        ge.memory.write(texbuf, b"".join(struct.pack("<I", 0xFFF00000 | i) for i in range(w * h)))
                    elif fmt == gu.PSM_4444:
                        bufw = max(w, 8)
                        ge.memory.write(texbuf, b"".join(struct.pack("<H", 0xF000 | (i & 0xFFF)) for i in range(w * h)))
                    elif fmt == gu.PSM_T8:
                        bufw = max(w, 16)
                        ge.memory.write(texbuf, bytes((i % w) & 0xFF for i in range(w * h)))
                    else:
                        bufw = max(w, 32)
                        ge.memory.write(texbuf, bytes((i & 0xF) | (((i + 1) << 4) & 0xF0) for i in range(0, w * h, 2)))
                    if fmt in (gu.PSM_T8, gu.PSM_T4):
                        ge.write_words(clut_addr, [0xFF000000 | i for i in range(256)])
                        ge.clut_load(32, clut_addr)
                        ge.clut_mode(gu.PSM_8888, 0, 0xFF, 0)
                    ge.tex_mode(fmt)
                    ge.send(regs.TEXADDR0, texbuf & 0xFFFFFF)
                    ge.send(regs.TEXBUFWIDTH0, ((texbuf & 0xFF000000) >> 8) | bufw)
                    ge.send(regs.TEXSIZE0, (hf << 8) | wf)
                    ge.vertex_type(through)
                    ge.clear_fb(0)
                    pixels = {}
                    # The sprite spans the texture over 256 pixels, sampled at pixel centres.
                    # In transform mode its top edge, y = 32767/32768 of the viewport's 128,
                    # lands at 0.0039 px, which the raster's 1/16-pixel positions round to 1/16.
                    top = 0.0 if through else 1 / 16
                    for name, (x, y) in (("TL", (0, 0)), ("TC", (127, 0)), ("TR", (255, 0)),
                                         ("CL", (0, 127)), ("BL", (0, 255)), ("BR", (255, 255))):
                        ge.draw_pixel(x, y, 0xFFFFFFFF, u=(x + 0.5) / 256, v=(y + 0.5 - top) / (256 - top), z=0x8000)
                        pixels[name] = f"{ge.fb_word(x, y):06x}"
                    title = f"  Texture {axis}={1 << shift} {fname} {'through' if through else 'transform'}"
                    if hf == 0:
                        value = f"TL={pixels['TL']} TC={pixels['TC']}, TR={pixels['TR']}, BR={pixels['BR']}"
                    else:
                        value = f"TL={pixels['TL']} CL={pixels['CL']}, BL={pixels['BL']}, BR={pixels['BR']}"
                    got.append((section, title, value))
    assert got == expected


def test_random_settings_never_fail():
    """Any command words (sizes up to 32768, odd formats 11-15, wild buffer widths and
    addresses), any coordinates incl. NaN/inf: a texel comes back, no exception."""
    rng = np.random.default_rng(7)
    ge = Ge()
    ge.clut[:] = rng.integers(0, 256, texture.CLUT_BYTES, dtype=np.uint8)
    for _ in range(300):
        ge.cmds[:] = (np.arange(256, dtype=np.uint32) << 24) | rng.integers(0, 1 << 24, 256, dtype=np.uint32)
        for u, v, lod in [(rng.uniform(-3, 3), rng.uniform(-3, 3), rng.uniform(-10, 10)),
                          (np.nan, np.inf, np.nan), (-np.inf, 1e30, 1e30)]:
            texel = texture.sample(*ge.space, ge.cmds, ge.clut, u, v, lod)
            assert 0 <= int(texel) <= 0xFFFFFFFF
        assert 0 <= int(texture.combine(ge.cmds, int(rng.integers(0, 1 << 32)), int(rng.integers(0, 1 << 32)))) <= 0xFFFFFFFF
