"""allegrex/ge/fragment.py: the per-pixel stage, checked against pspautotests' real-PSP
output (each program's drawing replayed through fragment.process, the pixel it reads back
compared with its .expected line) and against the equations written out here."""

import numpy as np
import pytest

from allegrex.ge import fragment, regs
from tests.ge import gu
from tests.ge.gu import Ge


def blend_ge(psm):
    ge = Ge()
    ge.draw_buffer(psm, 0, 512)
    ge.depth_buffer(512 * 272 * 4, 512)
    ge.depth_range(65535, 0)
    ge.vertex_type(through=True)
    return ge


@pytest.mark.parametrize("name, psm", [("blend", gu.PSM_8888), ("blend565", gu.PSM_5650)])
def test_blend_equations_and_factors_match_psp(pspautotests, name, psm):
    """commands/blend(565): every equation, every factor incl. the doubled alphas and
    fixed colours, on a buffer filled with `prev`, stencil REPLACE 0xAA (8888 alpha)."""
    expected = gu.expected_lines(pspautotests, f"gpu/commands/{name}")
    ge = blend_ge(psm)
    calls = gu.program_calls(pspautotests, f"gpu/commands/{name}.cpp", "testBlendFunc")
    assert len(calls) > 60
    wide = psm == gu.PSM_8888
    for section, title, (prev, color, op, src, dst, fix_a, fix_b) in calls:
        if wide:
            ge.fill_fb(prev)
        else:
            ge.fill_fb(prev, size=2)
        ge.enable("BLEND")
        ge.blend_func(op, src, dst, fix_a, fix_b)
        ge.enable("STENCIL_TEST")
        ge.stencil_func(gu.ALWAYS, 0xAA, 0xFF)
        ge.stencil_op(gu.REPLACE, gu.REPLACE, gu.REPLACE)
        ge.draw_pixel(0, 0, color)
        got = f"COLOR={ge.fb_word():08x}" if wide else f"COLOR={ge.fb_half():04x}"
        ge.disable("BLEND")
        assert got == expected[(section, title)], (section, title)


def test_fog_matches_psp(pspautotests):
    """commands/fog: the vertex fog factor from sceGuFog's end and 1/(end - start) (view
    z = 0 here), and the per-pixel blend with FOGCOLOR for every 8-bit fog weight (the
    immediate vertex's fog byte f is the factor f / 255)."""
    expected = gu.expected_lines(pspautotests, "gpu/commands/fog")
    ge = Ge()
    gu.autotest_init(ge)
    ge.vertex_type(through=False)
    ge.enable("FOG")

    def draw(prev, color, fog):
        ge.fill_fb(prev, count=32)
        ge.draw_pixel(0, 0, color, fog=fog)
        got = f"COLOR={ge.fb_word():08x}"
        ge.fill_fb(0x44444444, count=32)
        return got

    for section, title, (prev, color, fogc, near, far) in gu.program_calls(pspautotests, "gpu/commands/fog.cpp", "testFog"):
        ge.fog(near, far, fogc)
        fog = fragment.fog_depth(ge.cmds, 0.0)
        assert draw(prev, color, fog) == expected[(section, title)], title
    imm = gu.program_calls(pspautotests, "gpu/commands/fog.cpp", "testImmFog")
    imm += [("Rounding", f"  Fog value {i:02x}", [0x44444444, 0x11881100, 0xFFFF33FF, i]) for i in range(256)]
    for section, title, (prev, color, fogc, factor) in imm:
        ge.fog(0.0, 1.0, fogc)
        assert draw(prev, color, factor / 255.0) == expected[(section, title)], title


def test_fog_depth_rules():
    """Hand-computed: (z + end) * slope; a zero slope fogs fully; exponent-255 arguments
    are huge numbers (an 'infinite' end with a positive slope means no fog)."""
    ge = Ge()
    ge.fog(10.0, 20.0, 0)
    assert fragment.fog_depth(ge.cmds, -15.0) == pytest.approx(0.5, abs=1e-4)  # 1/10 loses bits as a 24-bit float
    assert fragment.fog_depth(ge.cmds, -25.0) == pytest.approx(-0.5, abs=1e-4)
    ge.fog(20.0, 20.0, 0)
    assert fragment.fog_depth(ge.cmds, -5.0) == 0.0
    ge.send(regs.FOG1, 0x7F8000)  # +inf as an IEEE single
    ge.sendf(regs.FOG2, 0.25)
    assert fragment.fog_depth(ge.cmds, -1e6) == 262144.0


def format_dither_row(title, row, fmt, words):
    """printRow of gpu/dither: 16-bit pixels and the program's own (unreplicated) expansion."""
    def expand(c):
        if fmt == gu.PSM_5650:
            return ((c & 0x1F) << 3) | ((c & 0x07E0) << 5) | ((c & 0xF800) << 8)
        if fmt == gu.PSM_5551:
            return ((c & 0x1F) << 3) | ((c & 0x03E0) << 6) | ((c & 0x7C00) << 9) | ((c & 0x8000) << 16)
        return ((c & 0xF) << 4) | ((c & 0xF0) << 8) | ((c & 0xF00) << 12) | ((c & 0xF000) << 16)
    if fmt == gu.PSM_8888:
        return f"  {title} {row}", " ".join(f"{w:08x}" for w in words)
    return f"  {title} {row}", " ".join(f"{w:04x}" for w in words) + " / " + " ".join(f"{expand(w):08x}" for w in words)


def test_dither_matches_psp(pspautotests):
    """gpu/dither: DITH0-3's signed 4-bit values added to RGB before the clamp and the
    truncation to 565/5551/4444/8888, by x & 3 and y & 3 of the screen position; with
    stencil, write masks, a logic op and clear mode on top."""
    import re
    source = (pspautotests / "tests" / "gpu" / "dither" / "dither.cpp").read_text()
    main = source[source.index("int main"):]
    matrices = {name: [int(v, 16) for v in values.split(",") if v.strip()]
                for name, values in re.findall(r"ScePspIVector4 (\w+) = \{([^}]*)\}", main)}
    expected = gu.expected_lines(pspautotests, "gpu/dither/dither")
    draws = re.findall(r'draw\("([^"]*)", &(\w+), (GU_PSM_\w+)((?:, [^,)]+)*)\);', main)
    assert len(draws) == 39
    for title, matrix, psm, rest in draws:
        args = [gu.c_value(a.strip()) for a in rest.split(",")[1:]]
        xoff, yoff, stencil, cmask, logic, clear = (args + [0, 0, False, 0, False, False][len(args):])
        fmt = gu.c_value(psm)
        ge = Ge()
        ge.draw_buffer(fmt, 0, 512)
        ge.vertex_type(through=True)
        ge.enable("DITHER")
        if stencil:
            ge.enable("STENCIL_TEST")
            ge.stencil_func(gu.ALWAYS, 0xF0, 0xFF)
            ge.stencil_op(gu.REPLACE, gu.REPLACE, gu.REPLACE)
        ge.pixel_mask(cmask)
        if logic:
            ge.enable("COLOR_LOGIC_OP")
            ge.logical_op(1)  # GU_AND
        ge.clear_fb(0x77777777 if logic else 0)
        ge.send(regs.CLEARMODE, 0xFFFF if clear else 0)
        for y, row in enumerate(matrices[matrix]):
            ge.send(regs.DITH0 + y, row)
        for y in range(4):
            words = []
            for x in range(4):
                ge.draw_pixel(xoff + x, yoff + y, 0xFF1FF088)
                words.append(ge.fb_word(xoff + x, yoff + y) if fmt == gu.PSM_8888 else ge.fb_half(xoff + x, yoff + y))
            key, value = format_dither_row(title, y, fmt, words)
            assert value == expected[(title, key)], key
