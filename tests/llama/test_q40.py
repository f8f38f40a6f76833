"""The q40 format (allegrex/llama/q40.py and checkpoint.write_q40): Q4_0's quantization
rule, the nibble and record layout the kernels read, file round trips and size checks."""

import struct

import numpy as np
import pytest

from allegrex.llama import q40
from allegrex.llama.checkpoint import (MAGIC, Q40_VERSION, Config, check_checkpoint, checkpoint_format,
                                       read_checkpoint, write_q40, write_q80)
from allegrex.llama.errors import LlamaError
from allegrex.llama.shapes import random_checkpoint

TINY = Config(dim=64, hidden_dim=96, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=300, seq_len=16)


def reference_q4_0(group):
    """Q4_0 as ggml documents it, one group, plainly: d = max / -8 (max: the value of
    largest magnitude), q = min(15, trunc(x / d + 8.5)) - 8, d stored as fp16."""
    m = 0.0
    for x in group:
        if abs(x) > abs(m):
            m = float(x)
    d = np.float32(m) / np.float32(-8.0)
    inv = np.float32(1.0) / d if d else np.float32(0.0)
    q = [min(15, int(np.float32(x) * inv + np.float32(8.5))) - 8 for x in group]
    return q, np.float16(d)


def test_quantize_follows_q4_0():
    w = np.random.default_rng(2).standard_normal((16, 64)).astype(np.float32)
    q, d = q40.quantize(w, 32)
    for r in range(16):
        for g in range(2):
            rq, rd = reference_q4_0(w[r, 32 * g:32 * g + 32])
            assert q[r, 32 * g:32 * g + 32].tolist() == rq and d[r, g] == rd
    assert q.min() == -8 and q.max() <= 7


def test_a_group_of_zeros_and_a_subnormal_scale_become_zero():
    w = np.zeros((1, 64), np.float32)
    w[0, 40] = 1e-6  # its scale would be a half subnormal: the VFPU reads those as zero
    q, d = q40.quantize(w, 32)
    assert not q.any() and not d.astype(np.float32).any()


def test_records_hold_eight_rows_then_their_half_scales_and_nibbles_as_the_kernels_read_them():
    q = (np.arange(20 * 64).reshape(20, 64) % 16 - 8).astype(np.int8)
    d = np.arange(40, dtype=np.float16).reshape(20, 2)
    data = np.frombuffer(q40.pack(q, d, 32), np.uint8)
    assert data.size == 20 * q40.row_bytes(64, 32) == 20 * (32 + 4)
    # block 1 (rows 8-15), group 1: the second 144-byte record of that block
    rec = data[2 * 144 + 144:2 * 144 + 288]
    for r in range(8):
        for k in range(16):
            b = int(rec[16 * r + k])
            assert (b & 0xF) - 8 == q[8 + r, 32 + k]                       # low nibble: q + 8
            assert (b if b < 128 else b - 256) >> 4 == q[8 + r, 32 + 16 + k]  # high: 4-bit two's complement
    assert rec[128:].view("<f2").tolist() == [float(d[8 + r, 1]) for r in range(8)]
    # the last block holds the 4 rows left: records of 4 x 16 bytes + 4 scales
    assert len(data) - 4 * 144 == 2 * (4 * 16 + 4 * 2)


def test_a_signed_byte_gives_both_weights_as_the_vfpu_kernel_takes_them():
    # the kernel converts each byte b (signed) and takes high = floor(b / 16), then
    # low = b - 16 * high - 8: every pair of values in -8..7 comes back
    for lo in range(-8, 8):
        for hi in range(-8, 8):
            q = np.array([[lo, hi]], np.int8)
            b = np.frombuffer(q40.pack(q, np.ones((1, 1), np.float16), 2), np.int8)[0]
            assert (int(b) // 16, int(b) - 16 * (int(b) // 16) - 8) == (hi, lo)


@pytest.mark.parametrize("shared", [True, False])
def test_file_round_trip_and_layer_order(tmp_path, shared):
    ckpt = random_checkpoint(TINY, seed=5, shared_classifier=shared)
    assert write_q40(ckpt, tmp_path / "a.bin") == 32
    raw = (tmp_path / "a.bin").read_bytes()
    magic, version, *ints = struct.unpack_from("<Ii7i", raw)
    assert (magic, version, tuple(ints)) == (MAGIC, Q40_VERSION, (64, 96, 2, 4, 2, 300, 16))
    assert raw[36] == int(shared) and struct.unpack_from("<i", raw, 37)[0] == 32
    assert checkpoint_format(tmp_path / "a.bin") == "q40" and check_checkpoint(tmp_path / "a.bin") == TINY
    # after the norms and the embedding (and classifier), layer 0's wq then wk ... w1, w3, w2
    at = 256 + 4 * (2 * 2 * 64 + 64) + (1 if shared else 2) * 300 * q40.row_bytes(64, 32)
    for name in ("wq", "wk", "wv", "wo", "w1", "w3"):
        w = ckpt.tensor(name)[0]
        size = w.shape[0] * q40.row_bytes(w.shape[1], 32)
        assert raw[at:at + size] == q40.pack(*q40.quantize(w, 32), 32)
        at += size
    back = read_checkpoint(tmp_path / "a.bin")
    assert back.quantized_format == "q40" and back.group_size == 32
    write_q40(back, tmp_path / "b.bin")
    assert (tmp_path / "b.bin").read_bytes() == raw
    w1 = ckpt.tensor("w1")
    assert 0 < np.abs(back.tensor("w1") - w1).max() <= np.abs(w1).max() / 8


def test_q40_converts_to_q80_through_its_dequantized_weights(tmp_path):
    write_q40(random_checkpoint(TINY, seed=6), tmp_path / "a.bin")
    back = read_checkpoint(tmp_path / "a.bin")
    write_q80(back, tmp_path / "q80.bin")
    assert np.allclose(read_checkpoint(tmp_path / "q80.bin").tensor("wo"), back.tensor("wo"), atol=0.01)


def test_a_q40_file_of_the_wrong_size_is_refused(tmp_path):
    write_q40(random_checkpoint(TINY, seed=7), tmp_path / "a.bin")
    data = (tmp_path / "a.bin").read_bytes()
    for name, cut in (("short.bin", data[:-18]), ("long.bin", data + bytes(18))):
        (tmp_path / name).write_bytes(cut)
        with pytest.raises(LlamaError, match="q40, dim 64.*(truncated|after the last tensor)"):
            check_checkpoint(tmp_path / name)
        with pytest.raises(LlamaError):
            read_checkpoint(tmp_path / name)


def test_an_odd_group_size_cannot_hold_nibble_pairs(tmp_path):
    odd = Config(dim=4, hidden_dim=9, n_layers=1, n_heads=2, n_kv_heads=2, vocab_size=300, seq_len=8)
    with pytest.raises(LlamaError, match="even group size"):
        write_q40(random_checkpoint(odd), tmp_path / "odd.bin")
    assert not (tmp_path / "odd.bin").exists()  # nothing written
