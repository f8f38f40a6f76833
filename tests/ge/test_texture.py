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
