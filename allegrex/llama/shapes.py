"""Named model shapes and deterministic random checkpoints for them.

The random weights are only for measuring speed and memory: same shape, same bytes on
every machine (each tensor drawn from its own seeded generator)."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np

from allegrex.llama.checkpoint import FORMATS, Checkpoint, Config, write_legacy, write_q40, write_q80
from allegrex.llama.errors import LlamaError
from allegrex.llama.tokenizer import synthetic_tokenizer, write_tokenizer

SHAPES: dict[str, Config] = {
    "stories260K": Config(64, 172, 5, 8, 4, 512, 512),
    "stories15M": Config(288, 768, 6, 6, 6, 32000, 256),
    "stories42M": Config(512, 1376, 8, 8, 8, 32000, 1024),
    "stories110M": Config(768, 2048, 12, 12, 12, 32000, 1024),
    # Between 42M and 110M: about 89.5M parameters (dim 768, 10 layers, hidden 1792).
    "stories90M": Config(768, 1792, 10, 12, 12, 32000, 1024),
}


def shape_config(name: str) -> Config:
    """A named shape, or "custom:dim,hidden,layers,heads,kv_heads,vocab,seq"."""
    if name in SHAPES:
        return SHAPES[name]
    if name.startswith("custom:"):
        try:
            ints = [int(v) for v in name[len("custom:"):].split(",")]
        except ValueError:
            ints = []
        if len(ints) != 7:
            raise LlamaError(f"custom shape wants 7 integers: custom:dim,hidden,layers,heads,kv_heads,vocab,seq; got {name!r}")
        return Config(*ints)
    raise LlamaError(f"unknown shape {name!r}; known: {', '.join(SHAPES)} or custom:dim,hidden,layers,heads,kv,vocab,seq")


def random_checkpoint(config: Config, seed: int = 0, shared_classifier: bool = True) -> Checkpoint:
    """A lazily generated checkpoint: tensor `name` always gets the same values."""

    def source(name: str) -> np.ndarray:
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        shape = config.shape(name)
        if name.startswith("rms"):
            return (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        fan_in = shape[-1]
        return (rng.standard_normal(shape, dtype=np.float32) / np.float32(np.sqrt(fan_in))).astype(np.float32)

    return Checkpoint(config, shared_classifier, source=source)


WRITERS = {"fp32": write_legacy, "q80": write_q80, "q40": write_q40}


def make_model(shape: str, directory, fmt: str = "fp32", seed: int = 0) -> tuple[Path, Path]:
    """Write model.bin (`fmt`: legacy fp32, q80 v2 or q40) and tokenizer.bin for `shape`
    into `directory`."""
    if fmt not in FORMATS:
        raise LlamaError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    config = shape_config(shape)
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = random_checkpoint(config, seed)
    model_path = out / "model.bin"
    WRITERS[fmt](ckpt, model_path)
    tok_path = out / "tokenizer.bin"
    write_tokenizer(synthetic_tokenizer(config.vocab_size, seed), tok_path)
    return model_path, tok_path
