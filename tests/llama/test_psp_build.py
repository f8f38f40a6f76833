"""The llama2 EBOOT on the simulated PSP against the host build of the same C.

Needs the SDK (PSP build), the CPU, the VFPU and the HLE (allegrex run); each test runs
the real program on stories260K. The four 64-position runs are the acceptance figure;
the others use as few positions as show their point (the simulator runs some millions of
instructions per second, and the q80 scalar kernel at group size 4 needs ~5M per position)."""

import numpy as np
import pytest

pytest.importorskip("allegrex.sdk.build", reason="the SDK has not landed on this branch")
pytest.importorskip("allegrex.hle.kernel", reason="the HLE has not landed on this branch")
pytest.importorskip("vfpu.exec", reason="the VFPU has not landed on this branch")

from allegrex.llama.checkpoint import read_checkpoint, write_q80  # noqa: E402
from allegrex.llama.host import run_host  # noqa: E402
from allegrex.llama.psp import build_eboot, run_psp  # noqa: E402


@pytest.fixture(scope="module")
def eboot():
    return build_eboot()


@pytest.fixture
def models(shared_models, tmp_path):
    q80 = tmp_path / "stories260K_q80.bin"
    write_q80(read_checkpoint(shared_models / "stories260K.bin"), q80)
    return {"fp32": shared_models / "stories260K.bin", "q80": q80, "tok": shared_models / "tok512.bin"}


def both(tmp_path, models, fmt, eboot, psp_model="psp-2000", **settings):
    """(PSP run, host run) of the same settings."""
    psp = run_psp(tmp_path / "psp", settings, models[fmt], models["tok"], psp_model=psp_model, eboot=eboot)
    host = run_host(tmp_path / "host", {**settings, "model": models[fmt], "tokenizer": models["tok"]})
    return psp, host


@pytest.mark.parametrize("prompt", ["", "Once upon a time"])
@pytest.mark.parametrize("fmt", ["fp32", "q80"])
def test_psp_state_file_equals_the_host_build(tmp_path, models, eboot, fmt, prompt):
    psp, host = both(tmp_path, models, fmt, eboot, prompt=prompt, steps=64, temperature=0, kernel="scalar")
    assert psp.exit_kind in ("exit", "threads-ended"), psp.exit_message
    assert psp.text == host.text and len(psp.text) > 100
    assert psp.stats["tokens"] == "64" and float(psp.stats["tok_per_s"]) > 0


@pytest.mark.parametrize("fmt", ["fp32", "q80"])
def test_vfpu_kernels_agree_with_scalar(tmp_path, models, eboot, fmt):
    runs = {}
    for kernel in ("scalar", "vfpu"):
        runs[kernel] = run_psp(tmp_path / kernel, {"prompt": "Once upon a time", "steps": 24, "temperature": 0,
                                                   "kernel": kernel, "logits": "logits.bin", "logits_steps": 8},
                               models[fmt], models["tok"], eboot=eboot)
    assert runs["vfpu"].stats["kernel"] == "vfpu" and runs["vfpu"].text == runs["scalar"].text
    logits = {k: np.fromfile(r.folder / "logits.bin", dtype="<f4").reshape(8, 512) for k, r in runs.items()}
    if fmt == "q80":  # integer group sums are exact in floats: the same logits bit for bit
        assert np.array_equal(logits["vfpu"], logits["scalar"])
    else:             # fp32 sums run in another order: equal to rounding
        assert np.max(np.abs(logits["vfpu"] - logits["scalar"])) < 1e-4 * np.abs(logits["scalar"]).max()
    assert int(runs["vfpu"].report["cycles"]) < int(runs["scalar"].report["cycles"])


def test_group32_vfpu_kernels_agree_with_scalar_and_the_host(tmp_path, eboot):
    # group size 32 (dim 96 is no multiple of 64): the VFPU build re-lays every matrix in
    # blocks of four rows for vfpu_q80_block32 (rows of 96: 3 groups, 256: 8 groups), and
    # each position's embedding row comes out of that layout; vfpu_quantize, and
    # vfpu_argmax_chunk over 512 logits
    from allegrex.llama.shapes import make_model
    model, tok = make_model("custom:96,256,2,4,4,512,64", tmp_path / "m", q80=True, seed=3)
    assert read_checkpoint(model).group_size == 32
    settings = {"prompt": "", "steps": 12, "temperature": 0, "logits": "logits.bin", "logits_steps": 12}
    runs = {k: run_psp(tmp_path / k, {**settings, "kernel": k}, model, tok, eboot=eboot) for k in ("scalar", "vfpu")}
    host = run_host(tmp_path / "host", {**settings, "model": model, "tokenizer": tok})
    logits = {k: np.fromfile(r.folder / "logits.bin", dtype="<f4").reshape(12, 512) for k, r in runs.items()}
    assert np.array_equal(logits["vfpu"], logits["scalar"])  # bit for bit
    assert runs["vfpu"].text == runs["scalar"].text == host.text and runs["vfpu"].stats["tokens"] == "12"
    # the shared embedding/classifier and 7 matrices in each of the 2 layers; the scalar build keeps the file's layout
    assert runs["vfpu"].stats["blocked_matrices"] == "15" and runs["scalar"].stats["blocked_matrices"] == "0"


def test_two_turns_on_the_psp_equal_the_host(tmp_path, models, eboot):
    psp, host = both(tmp_path, models, "q80", eboot, prompt="Once upon a time", prompt2="The dog", mode="chat",
                     steps=16, temperature=0)
    assert psp.text == host.text and psp.stats["turns"] == "2"
    assert int(psp.stats["turn2_prompt_tokens"]) < 6 and psp.stats["turn2_first_pos"] == host.stats["turn2_first_pos"]


def test_streaming_on_the_psp(tmp_path, models, eboot):
    ram = run_psp(tmp_path / "ram", {"prompt": "Once upon a time", "steps": 16, "temperature": 0},
                  models["fp32"], models["tok"], eboot=eboot)
    streamed = run_psp(tmp_path / "stream", {"prompt": "Once upon a time", "steps": 16, "temperature": 0,
                                             "heap_kb": 900}, models["fp32"], models["tok"], eboot=eboot)
    assert streamed.budget["mode"] == "stream" and streamed.text == ram.text
    assert float(streamed.stats["stream_seconds"]) > 0 and int(streamed.stats["stream_bytes"]) > 16 * 900_000
    assert float(streamed.stats["seconds"]) > float(ram.stats["seconds"])


def test_psp1000_reports_that_the_24mb_heap_does_not_fit(tmp_path, models, eboot):
    run = run_psp(tmp_path, {"steps": 8}, models["q80"], models["tok"], psp_model="psp-1000", eboot=eboot)
    assert run.exit_kind in ("exit", "threads-ended")
    assert run.text.startswith(b"error: does not fit: the 24576 KB heap")
    assert run.budget["heap"] == "0"


def test_a_heap_too_small_reports_nothing_free(tmp_path, models, eboot):
    """With --heap-kb 1 the budget's free figure was whatever the stack held (the PSP fills
    a new thread's stack with 0xFF: 4194304 KB); nothing is free when the model does not
    fit, in both builds."""
    psp, host = both(tmp_path, models, "q80", eboot, steps=8, heap_kb=1)
    assert psp.text.startswith(b"error: does not fit") and psp.budget["free"] == host.budget["free"] == "0"


def test_the_run_stops_at_its_time_limits_with_exit_3(models, eboot, capsys):
    from allegrex.cli import main
    argv = ["llama", "run", "--model", str(models["q80"]), "--tokenizer", str(models["tok"])]
    assert main([*argv, "--max-seconds", "0.05"]) == 3  # loading the model alone takes longer
    assert "stopped at the --max-seconds limit (0.05 simulated s)" in capsys.readouterr().err


def test_bad_checkpoint_on_the_psp_is_a_message_not_a_fault(tmp_path, models, eboot):
    cut = tmp_path / "cut.bin"
    cut.write_bytes(models["fp32"].read_bytes()[:5000])
    run = run_psp(tmp_path / "w", {"steps": 8}, cut, models["tok"], eboot=eboot)
    assert run.exit_kind in ("exit", "threads-ended")
    assert run.text.startswith(b"error: model model.bin is truncated")


def test_prompt_from_the_on_screen_keyboard(tmp_path, models, eboot):
    run = run_psp(tmp_path, {"osk": 1, "steps": 16, "temperature": 0}, models["q80"], models["tok"],
                  osk_text="Once upon a time", eboot=eboot)
    assert run.text.startswith(b"Once upon a time")


def test_sampled_text_is_bit_identical_to_the_host(tmp_path, models, eboot):
    # temperature and top-p go through expf and the xorshift generator: one differing
    # rounding anywhere in the libm would change the sampled story
    psp, host = both(tmp_path, models, "fp32", eboot, prompt="Once upon", steps=48, temperature=0.8, topp=0.9, seed=7)
    assert psp.text == host.text and len(psp.text) > 100
