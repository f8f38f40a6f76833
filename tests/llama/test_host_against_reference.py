"""The host build's logits against a float64 numpy forward pass (tests/llama/reference.py)
on the same weights: the q40 kernels compute the dequantized matrices' products (to the
rounding of runq.c's int8 activations), and the int8 KV cache holds what it is defined to
(each head's keys and values rounded to int8 with one scale)."""

import numpy as np
import pytest

from allegrex.llama.checkpoint import read_checkpoint
from allegrex.llama.host import run_host
from tests.llama import reference

POSITIONS = 8


@pytest.fixture
def models(stories260K):
    return stories260K


def host_logits(models, fmt, tmp_path, **settings):
    run = run_host(tmp_path, {"model": models[fmt], "tokenizer": models["tok"], "steps": POSITIONS, "temperature": 0,
                              "prompt": "", "logits": "logits.bin", "logits_steps": POSITIONS, **settings})
    assert run.returncode == 0, run.stdout
    got = np.fromfile(tmp_path / "logits.bin", "<f4").reshape(POSITIONS, -1)
    tokens = [1] + [int(np.argmax(row)) for row in got[:-1]]  # BOS, then what it generated
    return got, tokens


def relative_error(got, ref):
    return np.abs(got - ref).max() / np.abs(ref).max()


@pytest.mark.parametrize("fmt,bound", [("fp32", 1e-5), ("q80", 0.01), ("q40", 0.015)])
def test_logits_follow_the_models_weights(models, tmp_path, fmt, bound):
    got, tokens = host_logits(models, fmt, tmp_path)
    assert relative_error(got, reference.logits(read_checkpoint(models[fmt]), tokens)) < bound


def test_the_int8_kv_cache_holds_each_heads_values_rounded_to_int8(models, tmp_path):
    got, tokens = host_logits(models, "fp32", tmp_path, kv="int8")
    ckpt = read_checkpoint(models["fp32"])
    assert relative_error(got, reference.logits(ckpt, tokens, kv_int8=True)) < 1e-5
    assert relative_error(got, reference.logits(ckpt, tokens)) > 1e-3  # and it is not the fp32 cache
