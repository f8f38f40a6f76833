"""Checkpoints: llama2.c's legacy fp32 file (version 0) and int8 "q80" version 2, and
this project's 4-bit "q40" (ak42 version 40, allegrex/llama/q40.py).

Legacy: 7 x int32 header (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
seq_len; a negative vocab_size means the classifier is a separate tensor), then fp32
tensors in the order of LEGACY_ORDER, two RoPE tables, and the classifier if unshared.

q80 v2: a 256-byte header (magic "ak42", version 2, the 7 ints, a shared-classifier
byte, int32 group size, zero padding), the fp32 norm weights, then every matrix as int8
values followed by one fp32 scale per group of `group_size` values.

q40: the q80 header with version 40, the fp32 norms, then the matrices in the order a
forward pass uses them: the token embedding (the classifier when shared), the classifier
if not shared, then per layer wq, wk, wv, wo, w1, w3, w2, each in q40's blocked layout.
"""

from __future__ import annotations

import struct
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable

import numpy as np

from allegrex.llama import q40
from allegrex.llama.errors import LlamaError

MAGIC = 0x616B3432  # "ak42" as a little-endian uint32
Q80_VERSION = 2
Q40_VERSION = 40
Q80_HEADER_BYTES = 256
DEFAULT_GROUP_SIZE = 64

# Tensors per layer are stored stacked: (n_layers, rows, cols).
LEGACY_ORDER = ("token_embedding", "rms_att", "wq", "wk", "wv", "wo",
                "rms_ffn", "w1", "w2", "w3", "rms_final", "freq_cis_real", "freq_cis_imag")
Q80_NORMS = ("rms_att", "rms_ffn", "rms_final")
Q80_MATRICES = ("token_embedding", "wq", "wk", "wv", "wo", "w1", "w2", "w3")
Q40_LAYER_ORDER = ("wq", "wk", "wv", "wo", "w1", "w3", "w2")  # as forward() uses them
FORMATS = ("fp32", "q80", "q40")


@dataclass(frozen=True)
class Config:
    dim: int
    hidden_dim: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    vocab_size: int
    seq_len: int

    def __post_init__(self):
        for name in ("dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"):
            if getattr(self, name) <= 0:
                raise LlamaError(f"config {name} must be positive, got {getattr(self, name)}")
        if self.dim % self.n_heads or self.n_heads % self.n_kv_heads:
            raise LlamaError(f"dim {self.dim}, n_heads {self.n_heads}, n_kv_heads {self.n_kv_heads}: "
                             "heads must divide dim and kv heads must divide heads")
        if self.head_size % 2:
            raise LlamaError(f"head size {self.head_size} must be even for RoPE")

    @property
    def head_size(self) -> int:
        return self.dim // self.n_heads

    @property
    def kv_dim(self) -> int:
        return self.dim * self.n_kv_heads // self.n_heads

    def shape(self, name: str) -> tuple[int, ...]:
        """The array shape of tensor `name` (layer tensors carry n_layers first)."""
        L, d, h, kv = self.n_layers, self.dim, self.hidden_dim, self.kv_dim
        shapes = {
            "token_embedding": (self.vocab_size, d), "wcls": (self.vocab_size, d),
            "rms_att": (L, d), "rms_ffn": (L, d), "rms_final": (d,),
            "wq": (L, d, d), "wk": (L, kv, d), "wv": (L, kv, d), "wo": (L, d, d),
            "w1": (L, h, d), "w2": (L, d, h), "w3": (L, h, d),
            "freq_cis_real": (self.seq_len, self.head_size // 2),
            "freq_cis_imag": (self.seq_len, self.head_size // 2),
        }
        if name not in shapes:
            raise LlamaError(f"unknown tensor {name!r}")
        return shapes[name]

    def n_params(self, shared_classifier: bool = True) -> int:
        names = list(Q80_MATRICES) + list(Q80_NORMS) + ([] if shared_classifier else ["wcls"])
        return sum(int(np.prod(self.shape(n))) for n in names)

    def header_ints(self, shared_classifier: bool) -> tuple[int, ...]:
        vocab = self.vocab_size if shared_classifier else -self.vocab_size
        return (self.dim, self.hidden_dim, self.n_layers, self.n_heads, self.n_kv_heads, vocab, self.seq_len)


def rope_tables(config: Config) -> tuple[np.ndarray, np.ndarray]:
    """The cos/sin tables legacy files carry (llama2.c's run.c skips them)."""
    hs = config.head_size
    freqs = 1.0 / (10000.0 ** (np.arange(0, hs, 2, dtype=np.float32) / np.float32(hs)))
    angles = np.outer(np.arange(config.seq_len, dtype=np.float32), freqs.astype(np.float32))
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


@dataclass
class Checkpoint:
    """A model: its config, fp32 tensors by name, and (if read from q80) the int8 data.

    `tensors` may be filled lazily through `source`, a function name -> float32 array,
    so writers can stream models too large to hold twice in memory. `quantized` holds
    the int8 data read from a q80 or q40 file (`quantized_format`): per matrix name, the
    q80 values and scales, or the q40 (q, fp16 scales) with one row per matrix row.
    """
    config: Config
    shared_classifier: bool = True
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    quantized: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    group_size: int = 0
    source: Callable[[str], np.ndarray] | None = None
    quantized_format: str = "q80"

    def tensor(self, name: str) -> np.ndarray:
        """The fp32 tensor `name`, reshaped to its shape (dequantized if only int8 is known)."""
        if name not in self.tensors:
            if name in ("freq_cis_real", "freq_cis_imag"):
                cos, sin = rope_tables(self.config)
                return cos if name == "freq_cis_real" else sin
            if name in self.quantized:
                q, s = self.quantized[name]
                if self.quantized_format == "q40":
                    return q40.dequantize(q, s, self.group_size).reshape(self.config.shape(name))
                return dequantize_q80(q, s, self.group_size).reshape(self.config.shape(name))
            if self.source is None:
                raise LlamaError(f"checkpoint has no tensor {name!r}")
            return np.asarray(self.source(name), dtype=np.float32).reshape(self.config.shape(name))
        return self.tensors[name]

    def matrices(self) -> list[str]:
        return list(Q80_MATRICES) + ([] if self.shared_classifier else ["wcls"])


# ----------------------------------------------------------------------------- q80 math

def pick_group_size(config: Config, wanted: int = DEFAULT_GROUP_SIZE) -> int:
    """Halve `wanted` until it divides dim and hidden_dim: every matmul input length is one
    of them, so groups must never straddle two rows (llama2.c's export checks dim only)."""
    gs = wanted
    while gs > 1 and (config.dim % gs or config.hidden_dim % gs):
        gs //= 2
    return gs


def quantize_q80(w: np.ndarray, group_size: int) -> tuple[np.ndarray, np.ndarray]:
    """llama2.c's Q8_0: per group scale = max|w| / 127, q = round(w / scale) (half to even).
    An all-zero group gets scale 0 and q 0 (the reference would divide by zero)."""
    flat = np.ascontiguousarray(w, dtype=np.float32).reshape(-1)
    if flat.size % group_size:
        raise LlamaError(f"tensor of {flat.size} values is not a multiple of group size {group_size}")
    groups = flat.reshape(-1, group_size)
    scale = (np.abs(groups).max(axis=1) / np.float32(127.0)).astype(np.float32)
    safe = np.where(scale == 0, np.float32(1.0), scale).astype(np.float32)
    q = np.round(groups / safe[:, None]).astype(np.int8)
    return q.reshape(-1), scale


def dequantize_q80(q: np.ndarray, scale: np.ndarray, group_size: int) -> np.ndarray:
    return (q.reshape(-1, group_size).astype(np.float32) * scale[:, None]).reshape(-1)


# ----------------------------------------------------------------------------- reading

def _read_exact(f: BinaryIO, count: int, dtype, what: str, path) -> np.ndarray:
    dtype = np.dtype(dtype)
    data = f.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise LlamaError(f"{path}: truncated while reading {what} "
                         f"(wanted {count * dtype.itemsize} bytes, got {len(data)})")
    return np.frombuffer(data, dtype=dtype).copy()


def _config_from_ints(ints, path) -> tuple[Config, bool]:
    dim, hidden, layers, heads, kv, vocab, seq = ints
    try:
        return Config(dim, hidden, layers, heads, kv, abs(vocab), seq), vocab > 0
    except LlamaError as exc:
        raise LlamaError(f"{path}: bad header: {exc}") from None


def _open_checkpoint(path) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise LlamaError(f"cannot open checkpoint {path}: {exc.strerror}") from None


def _format(f, path) -> str:
    """The file's format ("fp32" legacy, "q80", "q40") from its start; leaves f after the
    magic and version of an ak42 file, at the start of a legacy one."""
    head = f.read(8)
    if len(head) < 8:
        raise LlamaError(f"{path}: too short to be a checkpoint ({len(head)} bytes)")
    magic, version = struct.unpack("<Ii", head)
    if magic != MAGIC:
        f.seek(0)
        return "fp32"
    if version not in (Q80_VERSION, Q40_VERSION):
        raise LlamaError(f"{path}: ak42 checkpoint version {version}; only version 2 (q80) and 40 (q40) are supported")
    return "q80" if version == Q80_VERSION else "q40"


def read_checkpoint(path) -> Checkpoint:
    """Read a legacy fp32, q80 v2 or q40 checkpoint (told apart by the magic and version)."""
    path = Path(path)
    with _open_checkpoint(path) as f:
        fmt = _format(f, path)
        ckpt = {"fp32": _read_legacy, "q80": _read_q80, "q40": _read_q40}[fmt](f, path)
        rest = f.read(1)
        if rest:
            raise LlamaError(f"{path}: unexpected data after the last tensor")
    return ckpt


def checkpoint_format(path) -> str:
    """"fp32", "q80" or "q40": what the file's header says it is."""
    path = Path(path)
    with _open_checkpoint(path) as f:
        return _format(f, path)


def check_checkpoint(path) -> Config:
    """The config of the checkpoint at `path` from its header alone, after checking that
    the file is as long as that header says (read_checkpoint's errors, without reading
    the weights)."""
    path = Path(path)
    with _open_checkpoint(path) as f:
        fmt = _format(f, path)
        if fmt == "fp32":
            (config, shared), group_size = _config_from_ints(_read_exact(f, 7, "<i4", "header", path), path), 0
        else:
            config, shared, group_size = _quantized_header(f, path, fmt)
    want, have = checkpoint_bytes(config, shared, group_size, fmt), path.stat().st_size
    if have != want:
        raise LlamaError(f"{path}: {have} bytes, but its header ({'legacy fp32' if fmt == 'fp32' else fmt}, "
                         f"dim {config.dim}, {config.n_layers} layers, vocab {config.vocab_size}) "
                         f"makes a {want}-byte file: {'truncated' if have < want else 'data after the last tensor'}")
    return config


def checkpoint_bytes(config: Config, shared: bool, group_size: int = 0, fmt: str | None = None) -> int:
    """The size of a checkpoint file: legacy fp32, q80 v2 or q40 (fmt; by default q80
    when a group size is given, else fp32)."""
    fmt = fmt or ("q80" if group_size else "fp32")

    def values(name):
        return int(np.prod(config.shape(name)))
    if fmt == "fp32":
        return 7 * 4 + 4 * sum(values(n) for n in list(LEGACY_ORDER) + ([] if shared else ["wcls"]))
    matrices = list(Q80_MATRICES) + ([] if shared else ["wcls"])
    if fmt == "q40":
        body = sum(values(n) // config.shape(n)[-1] * q40.row_bytes(config.shape(n)[-1], group_size) for n in matrices)
    else:
        body = sum(values(n) + values(n) // group_size * 4 for n in matrices)
    return Q80_HEADER_BYTES + 4 * sum(values(n) for n in Q80_NORMS) + body


def _read_legacy(f, path) -> Checkpoint:
    config, shared = _config_from_ints(_read_exact(f, 7, "<i4", "header", path), path)
    ckpt = Checkpoint(config, shared)
    names = list(LEGACY_ORDER) + ([] if shared else ["wcls"])
    for name in names:
        shape = config.shape(name)
        ckpt.tensors[name] = _read_exact(f, int(np.prod(shape)), "<f4", name, path).reshape(shape)
    return ckpt


def _quantized_header(f, path, fmt: str) -> tuple[Config, bool, int]:
    """The rest of a q80 v2 or q40 header: (config, shared classifier, group size)."""
    rest = f.read(Q80_HEADER_BYTES - 8)
    if len(rest) != Q80_HEADER_BYTES - 8:
        raise LlamaError(f"{path}: truncated {fmt} header")
    config, _ = _config_from_ints(struct.unpack_from("<7i", rest, 0), path)
    shared = bool(rest[28])
    group_size = struct.unpack_from("<i", rest, 29)[0]
    if group_size <= 0 or config.dim % group_size or config.hidden_dim % group_size:
        raise LlamaError(f"{path}: group size {group_size} must divide dim {config.dim} "
                         f"and hidden_dim {config.hidden_dim}")
    if fmt == "q40" and group_size % 2:
        raise LlamaError(f"{path}: q40 group size {group_size} must be even (two weights a byte)")
    return config, shared, group_size


def _read_q80(f, path) -> Checkpoint:
    config, shared, group_size = _quantized_header(f, path, "q80")
    ckpt = Checkpoint(config, shared, group_size=group_size)
    for name in Q80_NORMS:
        shape = config.shape(name)
        ckpt.tensors[name] = _read_exact(f, int(np.prod(shape)), "<f4", name, path).reshape(shape)
    for name in ckpt.matrices():
        parts = _layer_count(config, name)
        n = int(np.prod(config.shape(name))) // parts
        qs, ss = [], []
        for _ in range(parts):
            qs.append(_read_exact(f, n, "i1", name, path))
            ss.append(_read_exact(f, n // group_size, "<f4", name + " scales", path))
        ckpt.quantized[name] = (np.concatenate(qs), np.concatenate(ss))
    return ckpt


def _read_q40(f, path) -> Checkpoint:
    config, shared, group_size = _quantized_header(f, path, "q40")
    ckpt = Checkpoint(config, shared, group_size=group_size, quantized_format="q40")
    for name in Q80_NORMS:
        shape = config.shape(name)
        ckpt.tensors[name] = _read_exact(f, int(np.prod(shape)), "<f4", name, path).reshape(shape)
    parts: dict[str, list] = {}
    for name, rows, cols in _q40_matrices(config, shared):
        data = _read_exact(f, rows * q40.row_bytes(cols, group_size), np.uint8, name, path).tobytes()
        parts.setdefault(name, []).append(q40.unpack(data, rows, cols, group_size))
    for name, mats in parts.items():
        ckpt.quantized[name] = (np.concatenate([q for q, _ in mats]), np.concatenate([d for _, d in mats]))
    return ckpt


def _q40_matrices(config: Config, shared: bool):
    """(name, rows, cols) of each matrix of a q40 file in file order (a layer's at a time)."""
    for name in ("token_embedding",) + (() if shared else ("wcls",)):
        yield (name, *config.shape(name))
    for _ in range(config.n_layers):
        for name in Q40_LAYER_ORDER:
            yield (name, *config.shape(name)[1:])


# ----------------------------------------------------------------------------- writing

@contextmanager
def _writing(path):
    """The file opened for writing; removed again if writing it fails (nothing half-written
    is left behind)."""
    try:
        f = open(path, "wb")
    except OSError as exc:
        raise LlamaError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with f:
            yield f
    except BaseException:
        Path(path).unlink(missing_ok=True)
        raise


def write_legacy(ckpt: Checkpoint, path) -> None:
    """Write llama2.c's legacy fp32 file (what run.c reads)."""
    c = ckpt.config
    with _writing(path) as f:
        f.write(struct.pack("<7i", *c.header_ints(ckpt.shared_classifier)))
        names = list(LEGACY_ORDER) + ([] if ckpt.shared_classifier else ["wcls"])
        for name in names:
            f.write(np.ascontiguousarray(ckpt.tensor(name), dtype="<f4").tobytes())


def write_q80(ckpt: Checkpoint, path, group_size: int = DEFAULT_GROUP_SIZE) -> int:
    """Write the q80 v2 file (what runq.c reads); returns the group size used."""
    c = ckpt.config
    keep = ckpt.quantized_format == "q80" and ckpt.quantized
    gs = ckpt.group_size if keep and ckpt.group_size else pick_group_size(c, group_size)
    header = struct.pack("<Ii7iBi", MAGIC, Q80_VERSION, *c.header_ints(True),
                         int(ckpt.shared_classifier), gs)
    with _writing(path) as f:
        f.write(header + b"\0" * (Q80_HEADER_BYTES - len(header)))
        for name in Q80_NORMS:
            f.write(np.ascontiguousarray(ckpt.tensor(name), dtype="<f4").tobytes())
        for name in ckpt.matrices():
            if keep and name in ckpt.quantized and ckpt.group_size == gs:
                q, s = ckpt.quantized[name]
            else:
                q, s = quantize_q80(ckpt.tensor(name), gs)
            # Each layer's matrix is its own tensor: its int8 values, then its scales.
            parts = _layer_count(c, name)
            for qq, ss in zip(np.split(q, parts), np.split(s, parts)):
                f.write(qq.astype(np.int8).tobytes())
                f.write(ss.astype("<f4").tobytes())
    return gs


def write_q40(ckpt: Checkpoint, path, group_size: int = q40.DEFAULT_GROUP_SIZE) -> int:
    """Write the q40 file (this project's 4-bit format); returns the group size used: the
    file's own when re-writing a q40 checkpoint, else `group_size` halved until it
    divides dim and hidden_dim."""
    c = ckpt.config
    keep = ckpt.quantized_format == "q40" and ckpt.quantized
    gs = ckpt.group_size if keep else pick_group_size(c, group_size)
    if gs < 2 or gs % 2:
        raise LlamaError(f"q40 needs an even group size dividing dim {c.dim} and hidden_dim {c.hidden_dim}; "
                         f"{group_size} halves to {gs}")
    header = struct.pack("<Ii7iBi", MAGIC, Q40_VERSION, *c.header_ints(True), int(ckpt.shared_classifier), gs)
    layer_of: dict[str, int] = {}
    with _writing(path) as f:
        f.write(header + b"\0" * (Q80_HEADER_BYTES - len(header)))
        for name in Q80_NORMS:
            f.write(np.ascontiguousarray(ckpt.tensor(name), dtype="<f4").tobytes())
        for name, rows, cols in _q40_matrices(c, ckpt.shared_classifier):
            layer = layer_of[name] = layer_of.get(name, -1) + 1
            if keep:
                q, d = ckpt.quantized[name]
                q, d = q[layer * rows:(layer + 1) * rows], d[layer * rows:(layer + 1) * rows]
            else:
                w = ckpt.tensor(name)
                q, d = q40.quantize(w[layer] if w.ndim == 3 else w, gs)
            f.write(q40.pack(q, d, gs))
    return gs


def _layer_count(config: Config, name: str) -> int:
    """How many separately stored tensors `name` is made of (one per layer for layer weights)."""
    return config.n_layers if len(config.shape(name)) == 3 else 1
