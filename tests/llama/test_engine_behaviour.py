"""The engine's own behaviour on the host build: bad input, memory budget, streaming, chat."""

import struct

import pytest

from allegrex.llama.checkpoint import MAGIC, write_q80
from allegrex.llama.host import run_host
from allegrex.llama.shapes import random_checkpoint, shape_config
from allegrex.llama.tokenizer import synthetic_tokenizer, write_tokenizer
from allegrex.llama.checkpoint import write_legacy


@pytest.fixture
def model(stories260K):
    return stories260K


def base(paths, fmt="fp32", **kw):
    s = {"model": paths[fmt], "tokenizer": paths["tok"], "steps": 64, "temperature": 0, "prompt": "Once upon a time"}
    s.update(kw)
    return s


def expect_error(run, words):
    assert run.returncode == 1
    last = run.text.decode().splitlines()[-1]
    assert last.startswith("error: ") and all(w in last for w in words), last
    assert last in run.stdout


def test_truncated_checkpoint(model, tmp_path):
    data = model["fp32"].read_bytes()
    (tmp_path / "cut.bin").write_bytes(data[:len(data) // 2])
    expect_error(run_host(tmp_path / "w", base(model, model=tmp_path / "cut.bin")), ["truncated", "1056540"])


def test_wrong_magic(model, tmp_path):
    (tmp_path / "bad.bin").write_bytes(struct.pack("<Ii", MAGIC + 1, 2) + bytes(4000))
    expect_error(run_host(tmp_path / "w", base(model, model=tmp_path / "bad.bin")), ["not a llama2.c checkpoint"])
    (tmp_path / "v1.bin").write_bytes(struct.pack("<Ii", MAGIC, 1) + bytes(4000))
    expect_error(run_host(tmp_path / "w", base(model, model=tmp_path / "v1.bin")), ["version 1"])


def test_tokenizer_vocabulary_disagrees(model, tmp_path):
    write_tokenizer(synthetic_tokenizer(600), tmp_path / "t600.bin")
    expect_error(run_host(tmp_path / "w", base(model, tokenizer=tmp_path / "t600.bin")), ["more tokens", "512"])
    write_tokenizer(synthetic_tokenizer(400), tmp_path / "t400.bin")
    expect_error(run_host(tmp_path / "w", base(model, tokenizer=tmp_path / "t400.bin")), ["fewer tokens", "512"])


def test_prompt_longer_than_the_context(model, tmp_path):
    run = run_host(tmp_path, base(model, context=16, prompt="Once upon a time there was a big dog " * 3))
    expect_error(run, ["longer than the context of 16"])


def test_missing_files(model, tmp_path):
    expect_error(run_host(tmp_path, base(model, model=tmp_path / "none.bin")), ["cannot open model"])
    expect_error(run_host(tmp_path, base(model, tokenizer=tmp_path / "none.bin")), ["cannot open tokenizer"])


def test_does_not_fit_names_the_part(model, tmp_path):
    # tokenizer, norms, run state and KV cache fit 400 KB; the 509 KB of weights do not
    run = run_host(tmp_path, base(model, "q80", heap_kb=400, volatile=0, stream="off"))
    expect_error(run, ["does not fit: the weights (", "of the 400 KB heap;"])
    assert run.budget["heap"] == str(400 * 1024) and run.budget["volatile"] == "0"
    run = run_host(tmp_path, base(model, "q80", heap_kb=100))
    expect_error(run, ["does not fit: the KV cache", "even reading the weights from the memory stick"])


def test_the_volatile_partition_holds_weights_the_heap_cannot(model, tmp_path):
    full = run_host(tmp_path / "full", base(model, "q80"))
    run = run_host(tmp_path / "vol", base(model, "q80", heap_kb=400, stream="off"))
    assert run.returncode == 0 and run.text == full.text
    b = {k: int(v) for k, v in run.budget.items() if v.isdigit()}
    assert b["volatile"] == 4 << 20 and b["weights"] == b["weights_all"]
    assert b["weights"] + b["kv_cache"] + b["run_state"] + b["tokenizer"] + b["free"] == b["heap"] + b["volatile"]


def streamed_run(model, tmp_path, fmt, **kw):
    run = run_host(tmp_path, base(model, fmt, volatile=0, **kw))
    assert run.returncode == 0, run.stdout
    return run, {k: int(v) for k, v in run.budget.items() if v.isdigit()}


@pytest.mark.parametrize("fmt", ["fp32", "q80", "q40"])
def test_weights_read_from_the_memory_stick_give_the_same_text_as_ram(model, tmp_path, fmt):
    ram = run_host(tmp_path / "ram", base(model, fmt))
    half = int(ram.budget["weights"]) // 2048  # KB: half of the weights stay in RAM
    runs = {"all": streamed_run(model, tmp_path / "all", fmt, stream="on"),
            "prefix": streamed_run(model, tmp_path / "prefix", fmt, cache_kb=half),
            "striped": streamed_run(model, tmp_path / "striped", fmt, cache_kb=half, cache="striped")}
    assert ram.budget["mode"] == "ram"
    row = {"fp32": 64 * 4, "q80": 64 + 64 // 4 * 4, "q40": 32 + 64 // 4 * 2}[fmt]  # a row of the embedding
    for name, (run, b) in runs.items():
        assert b["streamed"] > 0 and run.budget["mode"] == "stream" and run.text == ram.text, name
        assert b["weights"] + b["kv_cache"] + b["run_state"] + b["tokenizer"] + b["stream_buffer"] + b["free"] == b["heap"]
        # every position reads what the budget says, and at most a block of embedding rows besides
        assert 64 * b["streamed"] <= int(run.stats["stream_bytes"]) <= 64 * (b["streamed"] + 8 * row), name
        assert "memory stick:" in run.stdout
    assert runs["all"][1]["weights"] == runs["all"][1]["weights_all"] - runs["all"][1]["streamed"] == \
        2 * 5 * 64 * 4 + 64 * 4  # only the norms
    for name in ("prefix", "striped"):
        assert runs[name][1]["weights"] <= half * 1024 + 2 * 5 * 64 * 4 + 64 * 4
    if fmt == "q40":  # its file is in forward order: the prefix's rest is one sequential read a position
        assert int(runs["prefix"][0].stats["stream_seeks"]) <= 64  # (the first continues the load)
        assert int(runs["striped"][0].stats["stream_seeks"]) >= 64 * 5 * 7  # a seek for every matrix


def test_two_turn_chat_keeps_the_cache(model, tmp_path):
    one = run_host(tmp_path / "one", base(model, steps=40))
    chat = run_host(tmp_path / "chat", base(model, steps=40, mode="chat", prompt2="The dog"))
    assert chat.returncode == 0
    assert chat.text.startswith(one.text + b"\n")          # the first turn is the plain run
    s = {k: int(v) for k, v in chat.stats.items() if v.isdigit()}
    assert s["turns"] == 2 and s["turn2_first_pos"] == s["turn1_prompt_tokens"] + s["turn1_generated"] - 1
    # the second turn feeds the last sampled token and its own 3 tokens (" The", " dog": 1 + dummy " " merges)
    assert s["turn2_prompt_tokens"] < 6
    assert s["tokens"] == 80 and s["turn2_first_pos"] + s["turn2_prompt_tokens"] + s["turn2_generated"] - 1 == 80
    again = run_host(tmp_path / "again", base(model, steps=40, mode="chat", prompt2="The dog"))
    assert again.text == chat.text


def test_chat_stops_when_the_context_is_full(model, tmp_path):
    run = run_host(tmp_path, base(model, steps=40, context=60, mode="chat", prompt2="The dog", prompt3="A cat"))
    assert run.returncode == 0 and run.stats["context_full"] == "1" and run.stats["tokens"] == "60"
    assert "context of 60 tokens is full" in run.stdout


def test_random_model_runs_and_custom_shapes_work(tmp_path):
    config = shape_config("custom:32,64,2,4,2,300,32")
    write_legacy(random_checkpoint(config, seed=5), tmp_path / "m.bin")
    write_q80(random_checkpoint(config, seed=5), tmp_path / "q.bin")
    write_tokenizer(synthetic_tokenizer(300), tmp_path / "t.bin")
    for name in ("m.bin", "q.bin"):
        run = run_host(tmp_path / name[0], {"model": tmp_path / name, "tokenizer": tmp_path / "t.bin",
                                            "steps": 20, "temperature": 0.9, "prompt": "the girl"})
        assert run.returncode == 0 and run.stats["tokens"] == "20", run.stdout
        assert run.text.startswith(b"the girl")
