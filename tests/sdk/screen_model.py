"""A second implementation of the debug-screen console, in Python: what 480x272 pixels
the text should produce, from the generated font table."""

import re

import numpy as np

from sdk_paths import SDK


def read_font():
    text = (SDK / "screen" / "font8x8.c").read_text()
    rows = re.findall(r"\{(0x[0-9a-f]{2}(?:, 0x[0-9a-f]{2}){7})\}", text)
    return [[int(b, 16) for b in row.split(", ")] for row in rows]


def expected_screen(text, fg, bg, columns=60, rows=34):
    """A second implementation of the console: character grid with wrap and scroll."""
    grid, line = [], []
    for ch in text:
        if ch == "\n":
            grid.append(line)
            line = []
            continue
        if len(line) == columns:
            grid.append(line)
            line = []
        line.append(ch)
    grid.append(line)
    grid = grid[-rows:]
    font = read_font()
    pixels = np.full((272, 480), bg, dtype=np.uint32)
    for r, chars in enumerate(grid):
        for c, ch in enumerate(chars):
            glyph = font[ord(ch) - 0x20]
            for y in range(8):
                for x in range(8):
                    pixels[r * 8 + y, c * 8 + x] = fg if glyph[y] & (0x80 >> x) else bg
    return pixels
