"""Checkpoint files: llama2.c's legacy fp32 and q80 v2 layouts, read and written."""

import struct

import numpy as np
import pytest

from allegrex.llama.checkpoint import (
    Config, MAGIC, check_checkpoint, pick_group_size, quantize_q80, read_checkpoint, write_legacy, write_q80)
from allegrex.llama.errors import LlamaError
from allegrex.llama.shapes import random_checkpoint, shape_config

TINY = Config(dim=32, hidden_dim=48, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=300, seq_len=16)


def reference_q80(w, gs):
    """The export algorithm as llama2.c's export.py documents it, written out plainly."""
    w = np.asarray(w, dtype=np.float32).reshape(-1, gs)
    q = np.empty(w.shape, dtype=np.int8)
    s = np.empty(w.shape[0], dtype=np.float32)
    for g in range(w.shape[0]):
        s[g] = np.float32(np.max(np.abs(w[g]))) / np.float32(127.0)
        for i in range(gs):
            q[g, i] = int(np.round(np.float32(w[g, i]) / s[g]))
    return q.reshape(-1), s


def test_quantize_matches_the_documented_export_algorithm():
    w = np.random.default_rng(1).standard_normal(64 * 12).astype(np.float32)
    q, s = quantize_q80(w, 64)
    rq, rs = reference_q80(w, 64)
    assert np.array_equal(q, rq) and np.array_equal(s, rs)
    assert np.abs(q).max() == 127


@pytest.mark.parametrize("shared", [True, False])
def test_legacy_round_trip_is_byte_exact(tmp_path, shared):
    ckpt = random_checkpoint(TINY, seed=3, shared_classifier=shared)
    write_legacy(ckpt, tmp_path / "a.bin")
    back = read_checkpoint(tmp_path / "a.bin")
    assert back.config == TINY and back.shared_classifier == shared
    header = struct.unpack("<7i", (tmp_path / "a.bin").read_bytes()[:28])
    assert header[5] == (300 if shared else -300)
    write_legacy(back, tmp_path / "b.bin")
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    assert np.array_equal(back.tensor("w2"), ckpt.tensor("w2"))


@pytest.mark.parametrize("shared", [True, False])
def test_q80_layout_and_round_trip(tmp_path, shared):
    ckpt = random_checkpoint(TINY, seed=4, shared_classifier=shared)
    gs = write_q80(ckpt, tmp_path / "q.bin", group_size=64)
    assert gs == 16  # halved until it divides dim 32 and hidden 48
    raw = (tmp_path / "q.bin").read_bytes()
    magic, version, *ints = struct.unpack_from("<Ii7i", raw)
    assert (magic, version, tuple(ints)) == (MAGIC, 2, (32, 48, 2, 4, 2, 300, 16))
    assert raw[36] == int(shared) and struct.unpack_from("<i", raw, 37)[0] == 16
    norms = (2 * 32 + 2 * 32 + 32) * 4
    assert np.array_equal(np.frombuffer(raw[256:256 + 2 * 32 * 4], "<f4"), ckpt.tensor("rms_att").reshape(-1))
    emb_q, emb_s = reference_q80(ckpt.tensor("token_embedding"), 16)
    n = 300 * 32
    assert raw[256 + norms:256 + norms + n] == emb_q.tobytes()
    assert raw[256 + norms + n:256 + norms + n + n // 16 * 4] == emb_s.tobytes()
    wq0_q, wq0_s = reference_q80(ckpt.tensor("wq")[0], 16)  # layer 0's wq: values, then scales
    at = 256 + norms + n + n // 16 * 4
    assert raw[at:at + 32 * 32] == wq0_q.tobytes()
    assert raw[at + 32 * 32:at + 32 * 32 + 32 * 32 // 16 * 4] == wq0_s.tobytes()
    back = read_checkpoint(tmp_path / "q.bin")
    assert back.group_size == 16 and back.shared_classifier == shared
    write_q80(back, tmp_path / "q2.bin")
    assert (tmp_path / "q2.bin").read_bytes() == raw
    err = np.abs(back.tensor("w1") - ckpt.tensor("w1")).max()
    assert 0 < err < np.abs(ckpt.tensor("w1")).max() / 127


def test_real_stories260K(shared_models, tmp_path):
    ckpt = read_checkpoint(shared_models / "stories260K.bin")
    assert ckpt.config == shape_config("stories260K") and ckpt.shared_classifier
    assert ckpt.config.n_params() == 260_032
    assert pick_group_size(ckpt.config) == 4  # hidden_dim 172 = 4 * 43
    write_q80(ckpt, tmp_path / "q.bin")
    q = read_checkpoint(tmp_path / "q.bin")
    w = ckpt.tensor("wq")
    assert np.abs(q.tensor("wq") - w).max() <= np.abs(w).max() / 254 * 1.0001


def test_bad_files_give_clear_errors(tmp_path):
    write_legacy(random_checkpoint(TINY), tmp_path / "m.bin")
    data = (tmp_path / "m.bin").read_bytes()
    (tmp_path / "cut.bin").write_bytes(data[:-10])
    with pytest.raises(LlamaError, match="truncated"):
        read_checkpoint(tmp_path / "cut.bin")
    (tmp_path / "v3.bin").write_bytes(struct.pack("<Ii", MAGIC, 3) + bytes(300))
    with pytest.raises(LlamaError, match="version 3"):
        read_checkpoint(tmp_path / "v3.bin")
    (tmp_path / "junk.bin").write_bytes(struct.pack("<7i", 10, 20, 1, 3, 1, 5, 5))
    with pytest.raises(LlamaError, match="bad header"):
        read_checkpoint(tmp_path / "junk.bin")
    with pytest.raises(LlamaError, match="cannot open"):
        read_checkpoint(tmp_path / "absent.bin")


@pytest.mark.parametrize("q80", [False, True], ids=["legacy", "q80"])
@pytest.mark.parametrize("shared", [True, False])
def test_the_header_check_accepts_exactly_what_the_reader_accepts(tmp_path, q80, shared):
    """check_checkpoint reads only the header and the file's size, yet accepts the files
    read_checkpoint reads and refuses a byte short or a byte over, as it does."""
    path = tmp_path / "m.bin"
    (write_q80 if q80 else write_legacy)(random_checkpoint(TINY, seed=5, shared_classifier=shared), path)
    data = path.read_bytes()
    assert check_checkpoint(path) == read_checkpoint(path).config == TINY
    for name, damaged, wrong in (("short", data[:-1], "truncated"), ("long", data + b"\0", "after the last tensor")):
        (tmp_path / name).write_bytes(damaged)
        with pytest.raises(LlamaError):
            read_checkpoint(tmp_path / name)
        with pytest.raises(LlamaError, match=wrong):
            check_checkpoint(tmp_path / name)
