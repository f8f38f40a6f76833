"""The lab's HTML page in a real headless browser (Debian's chromium, driven over the
DevTools pipe): it loads without console errors, the arrow keys and clicks step through
the run and move the source/destination highlights, and a screenshot is saved."""

import os
from pathlib import Path

import pytest

from lab_browser import Browser, find_chromium
from vfpu import lab, lab_html

SNIPPET = """
    la $a0, v
    lv.q C000, 0($a0)
    vpfxs [w, z, y, x]
    vmov.q C010, C000
    vmul.q R200, C000, C010
    vmmul.q M100, M000, E000
.data
v: .float 1, 2, 3, 4
"""


@pytest.fixture(scope="module")
def browser():
    binary = find_chromium()
    if binary is None:
        pytest.skip("no chromium: install Debian's package (apt-get install -y chromium) to run the browser test")
    b = Browser(binary)
    yield b
    b.close()


def highlighted(b, cls):
    return b.evaluate(f"[...document.querySelectorAll('td.{cls}')].map(e => e.id.slice(5)).sort()")


def test_page_steps_and_highlights(browser, tmp_path):
    trace = lab.run_snippet(SNIPPET)
    page = tmp_path / "lab.html"
    page.write_text(lab_html.render(trace))
    browser.open(page.as_uri())
    b = browser
    assert b.evaluate("document.body.dataset.step") == "0"
    assert b.evaluate("document.querySelectorAll('table.m').length") == 8
    assert b.evaluate("document.querySelectorAll('#tl .row').length") == len(trace.steps)
    seen = []
    for _ in range(len(trace.steps) - 1):
        b.key("ArrowRight", keycode=39)
        step = int(b.evaluate("document.body.dataset.step"))
        seen.append((step, highlighted(b, "src"), highlighted(b, "dst")))
    # each step's highlights are the cells that instruction read and wrote
    for step, src, dst in seen:
        s = trace.steps[step]
        assert dst == sorted({lab.cell_name(c) for a in s.writes if a.kind == "vpr" for c in a.cells})
        assert src == sorted({lab.cell_name(c) for a in s.reads if a.kind == "vpr" for c in a.cells})
    assert [s for s, _, _ in seen] == list(range(1, len(trace.steps)))
    vmov = next(x for x in seen if trace.steps[x[0]].text.startswith("vmov.q"))
    assert vmov[1] == ["S000", "S001", "S002", "S003"] and vmov[2] == ["S010", "S011", "S012", "S013"]
    b.key("ArrowLeft", keycode=37)
    assert b.evaluate("document.body.dataset.step") == str(len(trace.steps) - 2)
    b.evaluate("document.getElementById('ins-2').click()")
    assert b.evaluate("document.body.dataset.step") == "2"
    assert b.evaluate("document.getElementById('cell-S010').textContent") == "0"  # before the vmov.q ran
    b.key("ArrowRight", keycode=39)  # vpfxs
    b.key("ArrowRight", keycode=39)  # vmov.q C010, C000 under [w, z, y, x]
    assert b.evaluate("document.getElementById('cell-S010').textContent") == "4"  # w of (1, 2, 3, 4)
    shot = Path(os.environ.get("LAB_SCREENSHOT_DIR", tmp_path)) / "vfpu-lab.png"
    b.screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")
    assert b.errors() == []
