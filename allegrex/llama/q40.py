"""q40: this project's 4-bit weight format for the llama2 port (Q4_0-like).

Per group of `group_size` weights (32 unless dim or hidden_dim forbid it) one scale,
stored as IEEE half (fp16): 18 bytes per 32 weights, 0.5625 bytes per weight. The
weights are q = round-down(w / d + 0.5) in -8..7 with d = m / -8, m the group's value
of largest magnitude (Q4_0's rule: that value becomes exactly -8 d); w ~ q * d.

In the file, a matrix is stored as the port's kernels read it: rows in blocks of
BLOCK_ROWS (the last block holds the rows left), and per block and group one record of
the block's rows' packed weights (gs/2 bytes a row, row after row), then their fp16
scales. Byte k of a row's group holds weight k in its low nibble as q + 8 and weight
k + gs/2 in its high nibble as 4-bit two's complement, so that a signed byte b gives
the high weight as floor(b / 16) and the low one as b - 16 floor(b / 16) - 8 (the VFPU
kernel's conversion, psp/apps/llama2/matmul_vfpu.S). Every row takes cols/2 + 2 cols/gs
bytes, so rows r0.. of a matrix start at r0 times that from its start.

A scale whose half is subnormal is written as 0 (the VFPU reads half subnormals as zero;
the C does likewise), with its weights 0.
"""

from __future__ import annotations

import numpy as np

from allegrex.llama.errors import LlamaError

BLOCK_ROWS = 8  # rows per block (llama2.h BLOCK_ROWS)
DEFAULT_GROUP_SIZE = 32
HALF_MIN_NORMAL = np.float32(2.0 ** -14)


def row_bytes(cols: int, group_size: int) -> int:
    """Bytes of one row: packed weights and one fp16 scale per group."""
    return cols // 2 + 2 * (cols // group_size)


def quantize(w: np.ndarray, group_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(q int8 in -8..7, d float16 per group) of a row-major (rows, cols) matrix."""
    rows, cols = w.shape
    g = np.ascontiguousarray(w, dtype=np.float32).reshape(rows, cols // group_size, group_size)
    idx = np.abs(g).argmax(axis=2)
    m = np.take_along_axis(g, idx[..., None], axis=2)[..., 0]
    d = (m / np.float32(-8.0)).astype(np.float32)
    with np.errstate(divide="ignore"):
        inv = np.where(d == 0, np.float32(0.0), np.float32(1.0) / d).astype(np.float32)
    q = np.minimum(np.float32(15), np.floor(g * inv[..., None] + np.float32(8.5))).astype(np.int8) - 8
    half = d.astype(np.float16)
    tiny = np.abs(half.astype(np.float32)) < HALF_MIN_NORMAL
    half[tiny] = 0
    q[tiny] = 0
    return q.reshape(rows, cols), half


def dequantize(q: np.ndarray, d: np.ndarray, group_size: int) -> np.ndarray:
    """The weights the kernels use: q * d (fp16 scales read as the VFPU reads them)."""
    rows, cols = q.shape
    scale = d.astype(np.float32)
    scale[np.abs(scale) < HALF_MIN_NORMAL] = 0
    return (q.reshape(rows, -1, group_size).astype(np.float32) * scale[..., None]).reshape(rows, cols)


def pack(q: np.ndarray, d: np.ndarray, group_size: int) -> bytes:
    """The matrix's bytes in the file (and in RAM): blocks of rows, records per group."""
    rows, cols = q.shape
    if group_size % 2 or cols % group_size:
        raise LlamaError(f"q40 needs an even group size dividing the row length, got {group_size} for {cols}")
    half = group_size // 2
    g = q.astype(np.int16).reshape(rows, cols // group_size, group_size)
    packed = ((g[..., :half] + 8) | ((g[..., half:] & 0xF) << 4)).astype(np.uint8)  # (rows, groups, half)
    scales = np.ascontiguousarray(d.astype("<f2")).view(np.uint8).reshape(rows, cols // group_size, 2)
    out = []
    for b0 in range(0, rows, BLOCK_ROWS):
        b1 = min(rows, b0 + BLOCK_ROWS)
        values = packed[b0:b1].transpose(1, 0, 2).reshape(cols // group_size, -1)
        out.append(np.concatenate([values, scales[b0:b1].transpose(1, 0, 2).reshape(cols // group_size, -1)],
                                  axis=1).tobytes())
    return b"".join(out)


def unpack(data: bytes, rows: int, cols: int, group_size: int) -> tuple[np.ndarray, np.ndarray]:
    """pack's inverse: (q, d)."""
    if len(data) != rows * row_bytes(cols, group_size):
        raise LlamaError(f"a {rows} x {cols} q40 matrix takes {rows * row_bytes(cols, group_size)} bytes, "
                         f"got {len(data)}")
    half, groups = group_size // 2, cols // group_size
    raw = np.frombuffer(data, np.uint8)
    q = np.empty((rows, groups, group_size), np.int8)
    d = np.empty((rows, groups), np.float16)
    at = 0
    for b0 in range(0, rows, BLOCK_ROWS):
        n = min(rows, b0 + BLOCK_ROWS) - b0
        rec = raw[at:at + n * groups * (half + 2)].reshape(groups, n * (half + 2))
        at += rec.size
        packed = rec[:, :n * half].reshape(groups, n, half).transpose(1, 0, 2).astype(np.int16)
        q[b0:b0 + n, :, :half] = (packed & 0xF) - 8
        q[b0:b0 + n, :, half:] = packed.astype(np.uint8).view(np.int8) >> 4
        d[b0:b0 + n] = np.ascontiguousarray(rec[:, n * half:]).view("<f2").reshape(groups, n).T
    return q.reshape(rows, cols), d
