"""The host build of psp/apps/llama2 against llama2.c's own run.c and runq.c.

At temperature 0 the text must equal run.c's (fp32) and runq.c's (q80) byte for byte.
Sampling is compared with llama2.c built against the same libm as our host build:
glibc's libm rounds a few expf results differently, which changes sampled text."""

import pytest

from allegrex.llama.checkpoint import read_checkpoint, write_q80
from allegrex.llama.host import run_host
from tests.llama.conftest import run_reference

PROMPTS = ["", "Once upon a time"]


@pytest.fixture
def models(shared_models, tmp_path):
    q80 = tmp_path / "stories260K_q80.bin"
    write_q80(read_checkpoint(shared_models / "stories260K.bin"), q80)
    return {"fp32": shared_models / "stories260K.bin", "q80": q80, "tok": shared_models / "tok512.bin"}


def settings(models, fmt, **kw):
    base = {"model": models[fmt], "tokenizer": models["tok"], "steps": 64, "temperature": 0}
    base.update(kw)
    return base


@pytest.mark.parametrize("prompt", PROMPTS)
@pytest.mark.parametrize("fmt,oracle", [("fp32", "run-gcc"), ("q80", "runq-gcc")])
def test_temperature_0_text_equals_llama2c(models, llama2c, tmp_path, fmt, oracle, prompt):
    if oracle not in llama2c:
        pytest.skip("gcc is not available")
    ours = run_host(tmp_path, settings(models, fmt, prompt=prompt))
    assert ours.returncode == 0, ours.stdout
    assert ours.text == run_reference(llama2c[oracle], models[fmt], models["tok"], prompt, 64)
    assert ours.stats["tokens"] == "64"


def test_fp32_text_begins_as_the_readme_quotes(models, tmp_path):
    ours = run_host(tmp_path, settings(models, "fp32"))
    readme = (models["fp32"].parent / "README.md").read_text()
    quoted = " ".join(readme.split("begins: ")[1].split())
    assert quoted.startswith('"Once upon a time, there was a little girl named Lily.')
    assert ours.text.decode().startswith(quoted.strip('"'))


@pytest.mark.parametrize("fmt,oracle", [("fp32", "run-musl"), ("q80", "runq-musl")])
def test_sampled_text_equals_llama2c_on_the_same_libm(models, llama2c, tmp_path, fmt, oracle):
    if oracle not in llama2c:
        pytest.skip(f"{oracle} did not build")
    for temperature, topp, seed in [(0.8, 0.9, 7), (1.0, 1.0, 9)]:
        ours = run_host(tmp_path, settings(models, fmt, prompt="Once upon", steps=200,
                                           temperature=temperature, topp=topp, seed=seed))
        ref = run_reference(llama2c[oracle], models[fmt], models["tok"], "Once upon", 200, temperature, topp, seed)
        assert ours.text == ref


def test_budget_is_reported_and_sums_up(models, tmp_path):
    ours = run_host(tmp_path, settings(models, "q80", heap_kb=2048))
    b = {k: int(v) for k, v in ours.budget.items() if v.isdigit()}
    assert ours.budget["mode"] == "ram" and ours.budget["format"] == "q80" and ours.budget["kv"] == "fp32"
    assert b["heap"] == 2048 * 1024 and b["volatile"] == 4 << 20  # the host lends a PSP's volatile 4 MB too
    assert (b["weights"] + b["kv_cache"] + b["run_state"] + b["tokenizer"] + b["stream_buffer"] + b["free"]
            == b["heap"] + b["volatile"])
    # int8 weights with one fp32 scale per 4 values (group size 4): 2 bytes per parameter
    assert b["weights"] == b["weights_all"] == pytest.approx(260_032 * 2, rel=0.02) and b["streamed"] == 0
    assert b["kv_cache"] == 2 * 5 * 256 * 32 * 4  # layers x context x kv_dim floats, keys and values
    assert "memory (KB): weights" in ours.stdout
