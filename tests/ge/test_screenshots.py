"""Frames the GE draws, compared pixel by pixel with screenshots a real PSP took
(pspautotests .expected.bmp, 512 x 272). These programs' frames must be identical: no
tolerance, since geometry (coverage, fill rules, interpolation) decides every pixel and
these match exactly. `allegrex test $PSPAUTOTESTS/tests gpu` reports the others."""

import pytest

IDENTICAL = ["gpu/primitives/triangles", "gpu/primitives/trianglefan", "gpu/primitives/trianglestrip",
             "gpu/primitives/lines", "gpu/primitives/linestrip", "gpu/primitives/points", "gpu/primitives/indices",
             "gpu/primitives/continue", "gpu/primitives/invalidprim", "gpu/primitives/rectangles", "gpu/commands/basic",
             "gpu/commands/cull", "gpu/texmtx/uvs", "gpu/vertices/colors", "gpu/vertices/texcoords"]


@pytest.mark.parametrize("name", IDENTICAL)
def test_frame_matches_the_psp_screenshot(pspautotests, name):
    pytest.importorskip("allegrex.machine")
    from allegrex.commands.test import compare_image, run_program
    prx = pspautotests / "tests" / f"{name}.prx"
    _text, stop, _cycles, screenshot = run_program(str(prx), max_seconds=10, timeout=600)
    assert stop.kind == "exit"
    match = compare_image(screenshot, str(prx.with_suffix(".expected.bmp")))
    assert match is not None, "the program asked for a screenshot and none was captured"
    assert (match.identical, match.max_difference) == (1.0, 0), f"{name}: {match}"


def test_allegrex_test_compiles_the_ge_first_only_for_programs_that_use_it(pspautotests):
    from allegrex.commands.test import uses_ge
    assert uses_ge(str(pspautotests / "tests" / "gpu" / "primitives" / "triangles.prx"))
    assert not uses_ge(str(pspautotests / "tests" / "cpu" / "cpu_alu" / "cpu_alu.prx"))
