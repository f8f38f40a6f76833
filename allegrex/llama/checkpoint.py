"""llama2.c checkpoints: the legacy fp32 file (version 0) and the int8 "q80" version 2.

Legacy: 7 x int32 header (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
seq_len; a negative vocab_size means the classifier is a separate tensor), then fp32
tensors in the order of LEGACY_ORDER, two RoPE tables, and the classifier if unshared.

q80 v2: a 256-byte header (magic "ak42", version 2, the 7 ints, a shared-classifier
byte, int32 group size, zero padding), the fp32 norm weights, then every matrix as int8
values followed by one fp32 scale per group of `group_size` values.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable

import numpy as np

from allegrex.llama.errors import LlamaError

MAGIC = 0x616B3432  # "ak42" as a little-endian uint32
Q80_VERSION = 2
Q80_HEADER_BYTES = 256
DEFAULT_GROUP_SIZE = 64

# Tensors per layer are stored stacked: (n_layers, rows, cols).
LEGACY_ORDER = ("token_embedding", "rms_att", "wq", "wk", "wv", "wo",
                "rms_ffn", "w1", "w2", "w3", "rms_final", "freq_cis_real", "freq_cis_imag")
Q80_NORMS = ("rms_att", "rms_ffn", "rms_final")
Q80_MATRICES = ("token_embedding", "wq", "wk", "wv", "wo", "w1", "w2", "w3")


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
    so writers can stream models too large to hold twice in memory.
    """
    config: Config
    shared_classifier: bool = True
    tensors: dict[str, np.ndarray] = field(default_factory=dict)
    quantized: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    group_size: int = 0
    source: Callable[[str], np.ndarray] | None = None

    def tensor(self, name: str) -> np.ndarray:
        """The fp32 tensor `name`, reshaped to its shape (dequantized if only int8 is known)."""
        if name not in self.tensors:
            if name in ("freq_cis_real", "freq_cis_imag"):
                cos, sin = rope_tables(self.config)
                return cos if name == "freq_cis_real" else sin
            if name in self.quantized:
                q, s = self.quantized[name]
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


def _is_q80(f, path) -> bool:
    """Whether the file (at its start) is q80 v2 rather than legacy; leaves f after the magic
    and version of a q80 file, at the start of a legacy one."""
    head = f.read(8)
    if len(head) < 8:
        raise LlamaError(f"{path}: too short to be a checkpoint ({len(head)} bytes)")
    magic, version = struct.unpack("<Ii", head)
    if magic != MAGIC:
        f.seek(0)
        return False
    if version != Q80_VERSION:
        raise LlamaError(f"{path}: ak42 checkpoint version {version}; only version 2 (q80) is supported")
    return True


def read_checkpoint(path) -> Checkpoint:
    """Read a legacy fp32 or q80 v2 checkpoint (told apart by the magic number)."""
    path = Path(path)
    with _open_checkpoint(path) as f:
        ckpt = _read_q80(f, path) if _is_q80(f, path) else _read_legacy(f, path)
        rest = f.read(1)
        if rest:
            raise LlamaError(f"{path}: unexpected data after the last tensor")
    return ckpt


def check_checkpoint(path) -> Config:
    """The config of the checkpoint at `path` from its header alone, after checking that
    the file is as long as that header says (read_checkpoint's errors, without reading
    the weights)."""
    path = Path(path)
    with _open_checkpoint(path) as f:
        if _is_q80(f, path):
            config, shared, group_size = _q80_header(f, path)
        else:
            (config, shared), group_size = _config_from_ints(_read_exact(f, 7, "<i4", "header", path), path), 0
    want, have = checkpoint_bytes(config, shared, group_size), path.stat().st_size
    if have != want:
        raise LlamaError(f"{path}: {have} bytes, but its header ({'q80' if group_size else 'legacy fp32'}, "
                         f"dim {config.dim}, {config.n_layers} layers, vocab {config.vocab_size}) "
                         f"makes a {want}-byte file: {'truncated' if have < want else 'data after the last tensor'}")
    return config


def checkpoint_bytes(config: Config, shared: bool, group_size: int = 0) -> int:
    """The size of a checkpoint file: legacy fp32 (group_size 0) or q80 v2."""
    def values(name):
        return int(np.prod(config.shape(name)))
    if not group_size:
        return 7 * 4 + 4 * sum(values(n) for n in list(LEGACY_ORDER) + ([] if shared else ["wcls"]))
    matrices = list(Q80_MATRICES) + ([] if shared else ["wcls"])
    return (Q80_HEADER_BYTES + 4 * sum(values(n) for n in Q80_NORMS)
            + sum(values(n) + values(n) // group_size * 4 for n in matrices))


def _read_legacy(f, path) -> Checkpoint:
    config, shared = _config_from_ints(_read_exact(f, 7, "<i4", "header", path), path)
    ckpt = Checkpoint(config, shared)
    names = list(LEGACY_ORDER) + ([] if shared else ["wcls"])
    for name in names:
        shape = config.shape(name)
        ckpt.tensors[name] = _read_exact(f, int(np.prod(shape)), "<f4", name, path).reshape(shape)
    return ckpt


def _q80_header(f, path) -> tuple[Config, bool, int]:
    """The rest of a q80 v2 header: (config, shared classifier, group size)."""
    rest = f.read(Q80_HEADER_BYTES - 8)
    if len(rest) != Q80_HEADER_BYTES - 8:
        raise LlamaError(f"{path}: truncated q80 header")
    config, _ = _config_from_ints(struct.unpack_from("<7i", rest, 0), path)
    shared = bool(rest[28])
    group_size = struct.unpack_from("<i", rest, 29)[0]
    if group_size <= 0 or config.dim % group_size or config.hidden_dim % group_size:
        raise LlamaError(f"{path}: group size {group_size} must divide dim {config.dim} "
                         f"and hidden_dim {config.hidden_dim}")
    return config, shared, group_size


def _read_q80(f, path) -> Checkpoint:
    config, shared, group_size = _q80_header(f, path)
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


# ----------------------------------------------------------------------------- writing

def _open_for_write(path):
    try:
        return open(path, "wb")
    except OSError as exc:
        raise LlamaError(f"cannot write {path}: {exc.strerror}") from None


def write_legacy(ckpt: Checkpoint, path) -> None:
    """Write llama2.c's legacy fp32 file (what run.c reads)."""
    c = ckpt.config
    with _open_for_write(path) as f:
        f.write(struct.pack("<7i", *c.header_ints(ckpt.shared_classifier)))
        names = list(LEGACY_ORDER) + ([] if ckpt.shared_classifier else ["wcls"])
        for name in names:
            f.write(np.ascontiguousarray(ckpt.tensor(name), dtype="<f4").tobytes())


def write_q80(ckpt: Checkpoint, path, group_size: int = DEFAULT_GROUP_SIZE) -> int:
    """Write the q80 v2 file (what runq.c reads); returns the group size used."""
    c = ckpt.config
    gs = ckpt.group_size if ckpt.quantized and ckpt.group_size else pick_group_size(c, group_size)
    header = struct.pack("<Ii7iBi", MAGIC, Q80_VERSION, *c.header_ints(True),
                         int(ckpt.shared_classifier), gs)
    with _open_for_write(path) as f:
        f.write(header + b"\0" * (Q80_HEADER_BYTES - len(header)))
        for name in Q80_NORMS:
            f.write(np.ascontiguousarray(ckpt.tensor(name), dtype="<f4").tobytes())
        for name in ckpt.matrices():
            if name in ckpt.quantized and ckpt.group_size == gs:
                q, s = ckpt.quantized[name]
            else:
                q, s = quantize_q80(ckpt.tensor(name), gs)
            # Each layer's matrix is its own tensor: its int8 values, then its scales.
            parts = _layer_count(c, name)
            for qq, ss in zip(np.split(q, parts), np.split(s, parts)):
                f.write(qq.astype(np.int8).tobytes())
                f.write(ss.astype("<f4").tobytes())
    return gs


def _layer_count(config: Config, name: str) -> int:
    """How many separately stored tensors `name` is made of (one per layer for layer weights)."""
    return config.n_layers if len(config.shape(name)) == 3 else 1
