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


def test_depth_functions_match_psp(pspautotests):
    """depth/precision, through mode: the buffer cleared to a depth by clear mode, then a
    sprite at z 0x1234 under each depth function (z func stored) draws or not."""
    expected = gu.expected_lines(pspautotests, "gpu/depth/precision")
    calls = gu.program_calls(pspautotests, "gpu/depth/precision.cpp", "testDepthBox", "void testDepthPrecision")
    assert len(calls) == 13  # testDepthPrecision's body, replayed for "Through mode"
    ge = Ge()
    ge.draw_buffer(gu.PSM_8888, 0, 512)
    ge.depth_buffer(512 * 272 * 4, 512)
    ge.depth_mask(0)
    ge.send(regs.MINZ, 0)
    ge.send(regs.MAXZ, 65535)
    ge.enable("DEPTH_TEST")
    ge.write_words(gu.TEX_ADDR, [0x000000FF, 0x000000FF, 0, 0, 0x000000FF, 0x000000FF, 0, 0])
    for _, title, (through, init_z, zfunc) in calls:
        ge.vertex_type(through=True)
        ge.clear_mode(1 | 4)  # sceGuClear(GU_DEPTH_BUFFER_BIT | GU_COLOR_BUFFER_BIT)
        ge.draw_pixel(0, 0, 0, z=init_z)
        ge.clear_mode_off()
        ge.enable("TEXTURE_2D")
        ge.tex_mode(gu.PSM_8888)
        ge.tex_func(gu.TFX_DECAL, gu.TCC_RGB)
        ge.tex_image(0, 2, 2, 4, gu.TEX_ADDR)
        ge.depth_func(zfunc)
        ge.draw_pixel(0, 0, 0xFFFFFFFF, u=0.25, v=0.25, z=0x1234)
        ge.disable("TEXTURE_2D")
        assert f"{ge.fb_word() & 0xFF:02x}" == expected[("Through mode", title)], title


# ---------------------------------------------------------------- the rules, hand-computed


def spec_ge(psm=gu.PSM_8888, through=True):
    ge = Ge()
    ge.draw_buffer(psm, 0, 512)
    ge.depth_buffer(0x88000, 512)
    ge.depth_range(0, 65535)
    ge.vertex_type(through=through)
    return ge


COMPARE = {gu.NEVER: lambda a, b: False, gu.ALWAYS: lambda a, b: True,
           gu.EQUAL: lambda a, b: a == b, gu.NOTEQUAL: lambda a, b: a != b,
           gu.LESS: lambda a, b: a < b, gu.LEQUAL: lambda a, b: a <= b,
           gu.GREATER: lambda a, b: a > b, gu.GEQUAL: lambda a, b: a >= b}


@pytest.mark.parametrize("func", range(8))
def test_alpha_test_compares_masked_alpha_with_masked_ref(func):
    ge = spec_ge()
    ge.enable("ALPHA_TEST")
    for alpha in (0x00, 0x3F, 0x40, 0x41, 0xC0, 0xFF):
        ge.alpha_func(func, 0x40, 0x7F)
        written = ge.draw_pixel(0, 0, (alpha << 24) | 0x123456)
        assert written == COMPARE[func](alpha & 0x7F, 0x40 & 0x7F), (func, alpha)


def test_color_test_compares_masked_rgb():
    ge = spec_ge()
    ge.enable("COLOR_TEST")
    ge.color_func(gu.EQUAL, 0x00AB00CD, 0x00FF00FF)
    assert ge.draw_pixel(0, 0, 0xFF12AB34) == 0  # masked 0x00120034 (r, b) vs 0x00AB00CD
    assert ge.draw_pixel(0, 0, 0xFFAB77CD) == 1  # green is masked out
    ge.color_func(gu.NOTEQUAL, 0x00AB00CD, 0x00FF00FF)
    assert ge.draw_pixel(0, 0, 0x00AB55CD) == 0
    ge.color_func(gu.NEVER, 0, 0)
    assert ge.draw_pixel(0, 0, 0) == 0


def test_depth_range_rejects_outside_minz_maxz_except_in_through_mode():
    ge = spec_ge(through=False)
    ge.send(regs.MINZ, 100)
    ge.send(regs.MAXZ, 200)
    assert [ge.draw_pixel(0, 0, -1, z=z) for z in (99, 100, 200, 201)] == [0, 1, 1, 0]
    ge.vertex_type(through=True)
    assert ge.draw_pixel(0, 0, -1, z=99) == 1


def test_depth_write_needs_the_depth_test_and_no_write_disable():
    ge = spec_ge()

    def depth():
        return int.from_bytes(ge.memory.read(0x04088000, 2), "little")

    ge.draw_pixel(0, 0, -1, z=0x1111)
    assert depth() == 0  # depth test off: no write
    ge.enable("DEPTH_TEST")
    ge.depth_func(gu.ALWAYS)
    ge.draw_pixel(0, 0, -1, z=0x2222)
    assert depth() == 0x2222
    ge.depth_mask(1)
    ge.draw_pixel(0, 0, -1, z=0x3333)
    assert depth() == 0x2222


@pytest.mark.parametrize("psm, stored, ops", [
    # (format, stencil read back as 8 bits, [(op, result)])
    (gu.PSM_8888, 0x80, [(gu.KEEP, 0x80), (gu.ZERO, 0), (gu.REPLACE, 0x5A), (gu.INVERT, 0x7F),
                         (gu.INCR, 0x81), (gu.DECR, 0x7F)]),
    (gu.PSM_4444, 0x88, [(gu.KEEP, 0x88), (gu.ZERO, 0), (gu.REPLACE, 0x55), (gu.INVERT, 0x77),
                         (gu.INCR, 0x99), (gu.DECR, 0x77)]),
    (gu.PSM_5551, 0xFF, [(gu.KEEP, 0xFF), (gu.ZERO, 0), (gu.REPLACE, 0x00), (gu.INVERT, 0x00),
                         (gu.INCR, 0xFF), (gu.DECR, 0x00)]),
])
def test_stencil_ops_per_format(psm, stored, ops):
    """Each op as zpass (pixel written: the colour keeps its bits, alpha = the new
    stencil), as sfail (only the stencil bits change) and saturation at the ends."""
    raw = {gu.PSM_8888: stored << 24, gu.PSM_4444: (stored >> 4) << 12, gu.PSM_5551: (stored >> 7) << 15}[psm]

    def stencil_of(ge):
        if psm == gu.PSM_8888:
            return ge.fb_word() >> 24
        half = ge.fb_half()
        return (half >> 12) * 17 if psm == gu.PSM_4444 else (0xFF if half & 0x8000 else 0)

    for op, result in ops:
        for fail in (False, True):
            ge = spec_ge(psm)
            if psm == gu.PSM_8888:
                ge.fill_fb(raw | 0x123456)
            else:
                ge.fill_fb(raw | 0x0123, size=2)
            ge.enable("STENCIL_TEST")
            ge.stencil_func(gu.NEVER if fail else gu.ALWAYS, 0x5A, 0xFF)
            ge.stencil_op(op if fail else gu.KEEP, gu.KEEP, gu.KEEP if fail else op)
            ge.draw_pixel(0, 0, 0xFF000000)
            assert stencil_of(ge) == result, (op, fail)
            colour = ge.fb_word() & 0xFFFFFF if psm == gu.PSM_8888 else ge.fb_half() & 0x0FFF
            assert colour == ((0x123456 if psm == gu.PSM_8888 else 0x0123) if fail else 0), (op, fail)
    ge = spec_ge(psm)
    ge.fill_fb(0xFF000000 if psm == gu.PSM_8888 else 0xF000 if psm == gu.PSM_4444 else 0x8000,
               size=4 if psm == gu.PSM_8888 else 2)
    ge.enable("STENCIL_TEST")
    ge.stencil_func(gu.ALWAYS, 0, 0xFF)
    ge.stencil_op(gu.KEEP, gu.KEEP, gu.INCR)
    ge.draw_pixel(0, 0, 0)
    assert stencil_of(ge) == 0xFF  # saturates


def test_stencil_test_compares_masked_ref_with_masked_stencil():
    """ref & mask OP stencil & mask, the reference on the left (ref < stencil for LESS)."""
    for func in range(8):
        for stored in (0x10, 0x33, 0x50):
            ge = spec_ge()
            ge.fill_fb(stored << 24)
            ge.enable("STENCIL_TEST")
            ge.stencil_func(func, 0x33, 0x3F)
            ge.stencil_op(gu.KEEP, gu.KEEP, gu.KEEP)
            assert ge.draw_pixel(0, 0, 0) == COMPARE[func](0x33 & 0x3F, stored & 0x3F), (func, stored)


def test_stencil_with_depth_fail_runs_zfail_and_without_stencil_keeps_alpha():
    ge = spec_ge()
    ge.fill_fb(0x40000000)
    ge.memory.write(0x04088000, (0x8000).to_bytes(2, "little"))
    ge.enable("DEPTH_TEST")
    ge.depth_func(gu.LESS)
    ge.enable("STENCIL_TEST")
    ge.stencil_func(gu.ALWAYS, 0x77, 0xFF)
    ge.stencil_op(gu.ZERO, gu.REPLACE, gu.INVERT)
    assert ge.draw_pixel(0, 0, 0xFF00FF00, z=0x9000) == 0
    assert ge.fb_word() == 0x77000000
    assert ge.draw_pixel(0, 0, 0xFF00FF00, z=0x1000) == 1
    assert ge.fb_word() == 0x8800FF00
    ge.disable("STENCIL_TEST")
    assert ge.draw_pixel(0, 0, 0x12345678, z=0x0800) == 1
    assert ge.fb_word() == 0x88345678  # alpha is the stored stencil


LOGIC = [lambda s, d: 0, lambda s, d: s & d, lambda s, d: s & ~d, lambda s, d: s,
         lambda s, d: ~s & d, lambda s, d: d, lambda s, d: s ^ d, lambda s, d: s | d,
         lambda s, d: ~(s | d), lambda s, d: ~(s ^ d), lambda s, d: ~d, lambda s, d: s | ~d,
         lambda s, d: ~s, lambda s, d: ~s | d, lambda s, d: ~(s & d), lambda s, d: -1]


@pytest.mark.parametrize("op", range(16))
def test_logic_ops_act_on_rgb(op):
    """GU_CLEAR..GU_SET on the colour bits; alpha is the stencil as without a logic op."""
    rng = np.random.default_rng(op)
    ge = spec_ge()
    ge.enable("COLOR_LOGIC_OP")
    ge.logical_op(op)
    for src, dst in rng.integers(0, 1 << 32, size=(8, 2), dtype=np.uint64):
        src, dst = int(src), int(dst)
        ge.fill_fb(dst)
        ge.draw_pixel(0, 0, src)
        assert ge.fb_word() == (dst & 0xFF000000) | (LOGIC[op](src, dst) & 0xFFFFFF)


def test_write_masks_keep_the_masked_bits_in_every_format():
    for psm, old, mask, new, expected in [
        (gu.PSM_8888, 0x11223344, 0x00F0F00F, 0xFFAABBCC, 0x112A3BC4),  # mask bits set = kept
        (gu.PSM_5650, 0xFFFF, 0x000000F8, 0xFF000000, 0x001F),  # red kept (top 5 bits of r)
        (gu.PSM_4444, 0xFFFF, 0x0000F0F0, 0xFF000000, 0xF0FF),  # stencil off: alpha kept too
    ]:
        ge = spec_ge(psm)
        if psm == gu.PSM_8888:
            ge.fill_fb(old)
        else:
            ge.fill_fb(old, size=2)
        ge.pixel_mask(mask)
        ge.draw_pixel(0, 0, new)
        assert (ge.fb_word() if psm == gu.PSM_8888 else ge.fb_half()) == expected, psm


def test_clear_mode_writes_only_the_chosen_parts():
    """CLEARMODE flags: 1 colour, 2 stencil (the vertex alpha), 4 depth; no tests, no
    blending, no fog; the depth range still applies outside through mode."""
    for flags, fb, depth in [(1, 0x11ABCDEF, 0x5555), (2, 0x66445566, 0x5555),
                             (4, 0x11445566, 0x2468), (7, 0x66ABCDEF, 0x2468)]:
        ge = spec_ge()
        ge.fill_fb(0x11445566)
        ge.memory.write(0x04088000, (0x5555).to_bytes(2, "little"))
        ge.enable("ALPHA_TEST")
        ge.alpha_func(gu.NEVER, 0, 0xFF)
        ge.enable("BLEND")
        ge.blend_func(gu.ADD, gu.FIX, gu.FIX, 0, 0)
        ge.clear_mode(flags)
        assert ge.draw_pixel(0, 0, 0x66ABCDEF, z=0x2468) == 1
        assert ge.fb_word() == fb, flags
        assert int.from_bytes(ge.memory.read(0x04088000, 2), "little") == depth, flags


def test_secondary_colour_is_added_and_clamped():
    ge = spec_ge()
    ge.draw_pixel(0, 0, 0xFF80F010, spec=0x00202030)
    assert ge.fb_word() & 0xFFFFFF == 0xA0FF40


def test_frame_buffer_address_and_stride():
    ge = spec_ge(gu.PSM_5551)
    ge.draw_buffer(gu.PSM_5551, 0x44000, 256)
    ge.draw_pixel(3, 2, 0xFF0000FF)
    addr = 0x04044000 + (2 * 256 + 3) * 2
    assert int.from_bytes(ge.memory.read(addr, 2), "little") == 0x001F


def test_random_settings_never_fail():
    """Any command words, any depth and colour, NaN fog: the pixel is stored or not."""
    rng = np.random.default_rng(8)
    ge = Ge()
    for _ in range(300):
        ge.cmds[:] = (np.arange(256, dtype=np.uint32) << 24) | rng.integers(0, 1 << 24, 256, dtype=np.uint32)
        x, y = int(rng.integers(0, 480)), int(rng.integers(0, 272))
        for fog in (rng.uniform(-2, 2), np.nan, np.inf):
            written = fragment.process(*ge.space, ge.cmds, x, y, int(rng.integers(0, 65536)),
                                       int(rng.integers(0, 1 << 32)), int(rng.integers(0, 1 << 24)), fog)
            assert written in (0, 1)
        assert np.isfinite(fragment.fog_depth(ge.cmds, rng.uniform(-1e6, 1e6)))
