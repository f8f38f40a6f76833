"""A document's examples as data: docs/vfpu-tutorial.md (and docs/benchmarking.md) pair
each example block with the output block after it.

    ```vfpu OPTIONS        a snippet, run as `allegrex vfpu OPTIONS snippet.s`
    ...
    ```
    ```explain             a register name, run as `allegrex vfpu --explain NAME`
    C010.t
    ```
    ```console             `$ allegrex ...` command lines, run in order in one workspace
    $ allegrex cc ...      folder (psp/ of the checkout linked in; stdout and stderr kept)
    ```
    ```python              code run in that folder (what it prints is kept)
    ```
    ```output              exactly what the command prints
    ...
    ```

`python tests/lab/lab_tutorial.py --update [DOC]` rewrites the output blocks from the
simulator (then read the diff: the prose around them must still be true)."""

import contextlib
import io
import os
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


KINDS = ("vfpu", "explain", "console", "python")


def examples(text: str) -> list:
    out, pending = [], None
    for word, rest, body, start, end in blocks(text):
        if word in KINDS:
            pending = (word, shlex.split(rest), body, start)
        elif word == "output" and pending is not None:
            kind, opts, src, line = pending
            out.append(Example(kind, opts, src, body + "\n", line, start, end))
            pending = None
        else:
            pending = None
    return out


def workspace(folder: Path) -> Path:
    """A folder for console and python examples: the checkout's psp/ linked in; what the
    commands write (build/...) lands here."""
    (folder / "psp").symlink_to(ROOT / "psp")
    return folder


@contextlib.contextmanager
def _chdir(folder):  # contextlib.chdir is Python 3.11+
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def run_in(ex: Example, folder: Path) -> str:
    """What a console or python example prints (stdout and stderr), run in `folder`."""
    from allegrex.cli import main
    buf = io.StringIO()
    with _chdir(folder), contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        if ex.kind == "python":
            exec(compile(ex.body, ex.title, "exec"), {"__name__": "__doc_example__"})  # noqa: S102 (the doc's code)
            return buf.getvalue()
        for line in ex.body.splitlines():
            argv = shlex.split(line[2:]) if line.startswith("$ ") else []
            if argv[:1] != ["allegrex"]:
                raise AssertionError(f"{ex.title}: {line!r} is not a `$ allegrex ...` command line")
            main(argv[1:])
    return buf.getvalue()


def run_example(ex: Example, folder: Path | None = None) -> str:
    """What the example prints: `allegrex vfpu` (colours off), or a console or python
    example run in `folder` (see run_in)."""
    if ex.kind in ("console", "python"):
        return run_in(ex, folder)
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
    with tempfile.TemporaryDirectory() as tmp:
        folder = workspace(Path(tmp))
        outputs = [run_example(ex, folder) for ex in exs]  # in order: later commands use earlier ones' files
    for ex, got in reversed(list(zip(exs, outputs))):
        lines[ex.out_start:ex.out_end] = got.rstrip("\n").split("\n")
    path.write_text("\n".join(lines))
    return len(exs)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if "--update" in sys.argv:
        docs = [Path(a) for a in sys.argv[1:] if a != "--update"] or [TUTORIAL]
        for doc in docs:
            print(f"updated {update(doc.resolve())} examples in {doc}")
