"""The bundled benchmark models: deterministic random q80 checkpoints and tokenizers of
named shapes, generated on first use and cached under the allegrex cache folder."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from allegrex.llama.shapes import make_model, shape_config

SEED = 0


def cache_dir() -> Path:
    from allegrex.sdk.build import cache_root
    return cache_root() / "bench" / "models"


def bundled_model(shape: str, progress=None, fmt: str = "q80") -> tuple[Path, Path]:
    """(model.bin, tokenizer.bin) of the random `shape` model in `fmt` (q80, q40); made
    once, then cached."""
    shape_config(shape)  # a clear error for an unknown shape before any work
    folder = cache_dir() / f"{shape.replace(':', '_').replace(',', '-')}-{fmt}-seed{SEED}"
    model, tok = folder / "model.bin", folder / "tokenizer.bin"
    if model.is_file() and tok.is_file():
        return model, tok
    if progress:
        progress(f"generating the random {shape} {fmt} model (first use, cached in {folder})")
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".make-", dir=folder.parent))
    try:
        make_model(shape, tmp, fmt, seed=SEED)
        try:
            os.replace(tmp, folder)  # atomic: a half-written model is never seen
        except OSError:
            if not (model.is_file() and tok.is_file()):  # another process won the race
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return model, tok
