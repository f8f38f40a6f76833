"""The tutorial's examples as data: docs/vfpu-tutorial.md pairs each example block with the
output block after it.

    ```vfpu OPTIONS        a snippet, run as `allegrex vfpu OPTIONS snippet.s`
    ...
    ```
    ```explain             a register name, run as `allegrex vfpu --explain NAME`
    C010.t
    ```
    ```output              exactly what the command prints
    ...
    ```

`python tests/lab/lab_tutorial.py --update` rewrites the output blocks from the simulator
(then read the diff: the prose around them must still be true)."""

import contextlib
import io
import re
import shlex
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "vfpu-tutorial.md"
_FENCE = re.compile(r"^```(\w[\w-]*)?(.*)$")


@dataclass
class Example:
    kind: str  # vfpu | explain
    options: list
    body: str
    expected: str
    line: int  # 1-based line of the example's fence
    out_start: int  # line indices (0-based) of the output block's content
    out_end: int

    @property
    def title(self) -> str:
        return f"line {self.line}: {self.kind} {' '.join(self.options)}".strip()


def blocks(text: str):
    """(info word, rest of info, body, first content line index, end line index) per fence."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m and lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield (m.group(1) or ""), m.group(2).strip(), "\n".join(lines[i + 1:j]), i + 1, j
            i = j + 1
        else:
            i += 1


def examples(text: str) -> list:
    out, pending = [], None
    for word, rest, body, start, end in blocks(text):
        if word in ("vfpu", "explain"):
            pending = (word, shlex.split(rest), body, start)
        elif word == "output" and pending is not None:
            kind, opts, src, line = pending
            out.append(Example(kind, opts, src, body + "\n", line, start, end))
            pending = None
        else:
            pending = None
    return out


def run_example(ex: Example) -> str:
    """What `allegrex vfpu` prints for the example (colours off)."""
    from allegrex.cli import main
    buf = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        if ex.kind == "explain":
            argv = ["vfpu", "--explain", ex.body.strip(), *ex.options]
        else:
            path = Path(tmp, "snippet.s")
            path.write_text(ex.body + "\n")
            argv = ["vfpu", *ex.options, str(path)]
        with contextlib.redirect_stdout(buf):
            rc = main(argv + ["--color", "never"])
    if rc:
        raise AssertionError(f"{ex.title}: allegrex vfpu exited with {rc}")
    return buf.getvalue()


def update(path: Path = TUTORIAL) -> int:
    lines = path.read_text().split("\n")
    exs = examples("\n".join(lines))
    for ex in reversed(exs):
        got = run_example(ex).rstrip("\n").split("\n")
        lines[ex.out_start:ex.out_end] = got
    path.write_text("\n".join(lines))
    return len(exs)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if "--update" in sys.argv:
        print(f"updated {update()} examples in {TUTORIAL}")
