"""Tokenizer files and the named shapes the benchmarks use."""

import pytest

from allegrex.cli import main
from allegrex.llama.checkpoint import read_checkpoint
from allegrex.llama.errors import LlamaError
from allegrex.llama.shapes import SHAPES, shape_config
from allegrex.llama.tokenizer import read_tokenizer, synthetic_tokenizer, write_tokenizer


def test_real_tokenizer_reads_and_rewrites_byte_exact(shared_models, tmp_path):
    tok = read_tokenizer(shared_models / "tok512.bin", 512)
    assert tok.pieces[:3] == [b"<unk>", b"\n<s>\n", b"\n</s>\n"] and tok.pieces[3] == b"<0x00>"
    write_tokenizer(tok, tmp_path / "t.bin")
    assert (tmp_path / "t.bin").read_bytes() == (shared_models / "tok512.bin").read_bytes()


def test_synthetic_tokenizer_layout():
    tok = synthetic_tokenizer(512)
    assert len(tok.pieces) == len(set(tok.pieces)) == 512
    assert tok.pieces[3 + 0x41] == b"<0x41>"
    pieces = set(tok.pieces)
    for p in tok.pieces[259:]:  # every multi-byte piece can be reached by merges
        assert len(p) == 1 or p[:-1] in pieces
    assert synthetic_tokenizer(512).pieces == tok.pieces


def test_shapes_match_the_published_models():
    assert shape_config("stories15M").n_params() == pytest.approx(15.2e6, rel=0.01)
    assert shape_config("stories42M").n_params() == pytest.approx(41.7e6, rel=0.01)
    assert shape_config("stories110M").n_params() == pytest.approx(109.5e6, rel=0.01)
    assert shape_config("stories90M").n_params() == pytest.approx(90e6, rel=0.02)
    assert shape_config("custom:16,32,1,2,1,300,8").kv_dim == 8
    with pytest.raises(LlamaError, match="unknown shape"):
        shape_config("stories7B")


def test_cli_make_is_deterministic(tmp_path, capsys):
    assert main(["llama", "make", "--shape", "stories260K", "--q80", str(tmp_path / "a")]) == 0
    assert main(["llama", "make", "--shape", "stories260K", "--q80", str(tmp_path / "b")]) == 0
    for name in ("model.bin", "tokenizer.bin"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    ckpt = read_checkpoint(tmp_path / "a" / "model.bin")
    assert ckpt.config == SHAPES["stories260K"] and ckpt.group_size == 4
    read_tokenizer(tmp_path / "a" / "tokenizer.bin", 512)


def test_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    (tmp_path / "x.bin").write_bytes(b"\1\2")
    assert main(["llama", "convert", str(tmp_path / "x.bin"), str(tmp_path / "y.bin")]) == 2
    assert "too short" in capsys.readouterr().err


def test_cli_run_on_the_host_build(shared_models, capsys):
    code = main(["llama", "run", "--model", str(shared_models / "stories260K.bin"),
                 "--tokenizer", str(shared_models / "tok512.bin"), "--steps", "20", "--host"])
    out = capsys.readouterr().out
    assert code == 0 and "Once upon a time" in out and "20 tokens in" in out


def test_cli_run_reports_a_missing_model(tmp_path, capsys):
    assert main(["llama", "run", "--model", str(tmp_path / "none.bin"), "--tokenizer", str(tmp_path / "t.bin")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_run_refuses_damaged_model_files_before_building_or_running(tmp_path, capsys):
    """A cut checkpoint or a tokenizer short of the model's vocabulary is one clear line
    and exit 2 on the host, not the program's message and exit 1 after a simulated boot."""
    assert main(["llama", "make", "--shape", "stories260K", str(tmp_path / "m")]) == 0
    model, tok = tmp_path / "m" / "model.bin", tmp_path / "m" / "tokenizer.bin"
    cut_model, cut_tok = tmp_path / "cut_model.bin", tmp_path / "cut_tok.bin"
    cut_model.write_bytes(model.read_bytes()[:-100])
    cut_tok.write_bytes(tok.read_bytes()[:2000])
    capsys.readouterr()
    for m, t, bad, why in ((cut_model, tok, cut_model, "truncated"), (model, cut_tok, cut_tok, "bad length")):
        assert main(["llama", "run", "--model", str(m), "--tokenizer", str(t)]) == 2
        captured = capsys.readouterr()
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and f"{bad}: " in lines[0] and why in lines[0] and not captured.out


@pytest.mark.parametrize("argv", [["--steps", "-5"], ["--steps", "0"], ["--context", "0"], ["--heap-kb", "-1"],
                                  ["--max-seconds", "nan"], ["--timeout", "-1"], ["--clock", "500"]])
def test_cli_run_refuses_limits_that_are_not_positive(shared_models, capsys, argv):
    """`--steps -5` used to generate the whole context; now every count and limit must be
    a positive number (the clock one the PSP has)."""
    with pytest.raises(SystemExit) as exited:
        main(["llama", "run", "--model", str(shared_models / "stories260K.bin"),
              "--tokenizer", str(shared_models / "tok512.bin"), *argv])
    assert exited.value.code == 2 and f"argument {argv[0]}" in capsys.readouterr().err
