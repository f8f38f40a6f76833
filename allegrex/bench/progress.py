"""A one-line progress bar on stderr for simulated runs."""

from __future__ import annotations

import sys
import time

BAR = 24
REDRAW_S = 0.5  # on a terminal
LINE_S = 10.0  # when stderr is a file or pipe: a line every so often


class ProgressBar:
    def __init__(self, label: str, total: int, stream=None):
        self.label, self.total = label, max(1, total)
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = self.last = time.monotonic()
        self.drawn = False

    def update(self, done: int, sim_seconds: float, instructions: int, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < (REDRAW_S if self.tty else LINE_S):
            return
        self.last = now
        wall = now - self.start
        done = min(done, self.total)
        frac = done / self.total
        bar = "#" * int(frac * BAR) + "-" * (BAR - int(frac * BAR))
        text = (f"{self.label} [{bar}] {done}/{self.total} tokens, {sim_seconds:.2f} simulated s, "
                f"{instructions / max(wall, 1e-9) / 1e6:.1f} MIPS, {wall:.0f} s")
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.tty and self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
