"""`allegrex bench llama` on the stories260K shape, few positions: the report's structure
and its internal consistency (tok/s = tokens / seconds, breakdown sums to the total,
the roofline's bandwidth is the timing model's own lv.q streaming figure)."""

import json

import pytest

from allegrex.bench.breakdown import GROUP_NAMES, breakdown, group_of
from allegrex.bench.llama import BenchError, bench_llama
from allegrex.bench.roofline import STREAM_FIGURE, STREAM_ITERS, weight_bytes_per_token
from allegrex.cli import main
from allegrex.llama.shapes import shape_config

TOKENS = 6


@pytest.fixture(scope="module")
def report():
    return bench_llama("stories260K", ("scalar", "vfpu"), TOKENS, "Once", show_progress=False)


def test_each_kernel_ran_and_reports_its_figures(report):
    assert [k["kernel"] for k in report["kernels"]] == ["scalar", "vfpu"]
    for k in report["kernels"]:
        assert k["ok"], k.get("error")
        assert k["tokens"] == TOKENS
        for key in ("tok_per_s", "seconds", "ttft_seconds", "cycles_per_token", "cpi", "breakdown"):
            assert key in k
        assert k["seconds"] > 0 and k["cpi"] >= 1.0


def test_tok_per_s_is_tokens_over_seconds_and_agrees_with_the_program(report):
    for k in report["kernels"]:
        assert k["tok_per_s"] == pytest.approx(k["tokens"] / k["seconds"])
        assert k["tok_per_s"] == pytest.approx(k["guest_tok_per_s"], rel=1e-4)  # the program's own footer


def test_cycles_per_token_agree_with_the_programs_clock(report):
    # the profiler's window (from the "model" line to exit) vs the program's sceRtc timing
    for k in report["kernels"]:
        rtc_cycles = k["seconds"] * report["clock_mhz"] * 1e6 / k["tokens"]
        assert k["cycles_per_token"] == pytest.approx(rtc_cycles, rel=0.05)


def test_breakdown_sums_to_the_profiled_total(report):
    for k in report["kernels"]:
        b = k["breakdown"]
        assert list(b) == list(GROUP_NAMES)
        assert sum(g["cycles"] for g in b.values()) == k["cycles"]
        assert sum(g["share"] for g in b.values()) == pytest.approx(1.0)
        assert b["matmul"]["share"] > 0.3  # a forward pass is mostly matmul on any kernel


def test_vfpu_kernel_functions_land_in_matmul(report):
    vfpu = report["kernels"][1]["breakdown"]["matmul"]["functions"]
    assert any(f.startswith("vfpu_q80_rows") for f in vfpu)
    assert group_of("vfpu_q80_group32") == "matmul" and group_of("vfpu_quantize") == "matmul"
    assert group_of("attention") == "attention" and group_of("softmax") == "rmsnorm/softmax"
    assert group_of("(HLE calls)") == "HLE/I-O" and group_of("forward") == "other"


def test_breakdown_of_a_hand_made_profile():
    rows = [{"function": f, "cycles": c} for f, c in
            (("matmul_q80", 70), ("vfpu_q80_rows16", 5), ("attention", 10), ("rmsnorm", 3), ("softmax", 2),
             ("forward", 4), ("(HLE calls)", 6))]
    b = breakdown({"cycles": 100, "functions": rows})
    assert {g: v["cycles"] for g, v in b.items()} == {"matmul": 75, "attention": 10, "rmsnorm/softmax": 5,
                                                       "other": 4, "HLE/I-O": 6}


def test_roofline_uses_the_timing_models_streaming_figure(report):
    from allegrex.timing.fidelity import run_figure
    roof = report["roofline"]
    assert roof["stream_figure"] == STREAM_FIGURE
    assert roof["stream_cycles_per_lvq"] == run_figure(STREAM_FIGURE, iters=STREAM_ITERS)
    # the reference's loop reads each 1024-byte step twice: 8 new bytes per 16-byte lv.q
    bandwidth = 8 / roof["stream_cycles_per_lvq"] * report["clock_mhz"] * 1e6
    assert roof["bandwidth_bytes_per_s"] == pytest.approx(bandwidth)
    assert roof["tok_per_s"] == pytest.approx(bandwidth / roof["weight_bytes_per_token"])
    for k in report["kernels"]:
        assert k["roofline_share"] == pytest.approx(k["tok_per_s"] / roof["tok_per_s"])
        assert k["roofline_share"] < 1.0  # nothing beats the memory bus


def test_roofline_streams_no_faster_than_one_line_fill_per_64_bytes(report):
    from allegrex.timing.memory_model import BUS_FILL_CYCLES, MISS_CPU_CYCLES
    fill = MISS_CPU_CYCLES + BUS_FILL_CYCLES * 2  # CPU cycles of one open-row fill at 333/166 MHz
    per_cycle = report["roofline"]["bytes_per_cycle"]
    assert 0.8 * 64 / fill < per_cycle < 64 / fill


def test_weight_bytes_per_token_of_stories15M_by_hand():
    # 6 layers x (4 x 288^2 + 3 x 288 x 768) + 32000 x 288 classifier + one embedding row,
    # int8 with one fp32 scale per 32 values (288 is not a multiple of 64), plus fp32 norms
    c = shape_config("stories15M")
    elements = 6 * (4 * 288 * 288 + 3 * 288 * 768) + 32000 * 288 + 288
    assert weight_bytes_per_token(c) == elements + 4 * elements // 32 + 4 * (2 * 6 * 288 + 288)


def test_memory_budget_against_ram(report):
    m = report["memory"]
    assert m["ram"] == 64 * 1024 * 1024 and m["heap"] == 24 * 1024 * 1024
    assert m["weights"] + m["kv_cache"] + m["run_state"] + m["tokenizer"] + m["free"] == m["heap"]


def test_published_figures_are_beside_ours(report):
    p = report["published"]
    assert p["scalar"]["tok_per_s"] == 1.5 and p["scalar"]["seconds"] == 42.6 and p["scalar"]["tokens"] == 64
    assert p["vfpu"]["tok_per_s_range"] == [5.0, 15.0]


def test_cli_writes_text_json_and_plot(tmp_path, capsys):
    out_json, out_png = tmp_path / "r.json", tmp_path / "r.png"
    code = main(["bench", "llama", "--shape", "stories260K", "--kernels", "vfpu", "--tokens", "3", "--quiet",
                 "--json", str(out_json), "--plot", str(out_png)])
    assert code == 0
    text = capsys.readouterr().out
    assert "tok/s (projected)" in text and "roofline:" in text and "42.6 s" in text
    data = json.loads(out_json.read_text())
    assert data["kernels"][0]["kernel"] == "vfpu" and data["kernels"][0]["tokens"] == 3
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, message", [
    (["--kernels", "neon"], "unknown kernel neon"),
    (["--tokens", "0"], "--tokens must be"),
    (["--clock", "100"], "--clock must be"),
    (["--shape", "stories7B"], "unknown shape"),
])
def test_bad_arguments_get_clear_errors(argv, message, capsys):
    assert main(["bench", "llama", "--quiet", *argv]) == 2
    assert message in capsys.readouterr().err


def test_bench_error_is_an_allegrex_error():
    from allegrex.errors import AllegrexError
    assert issubclass(BenchError, AllegrexError)


def simulated(run: dict) -> dict:
    """A run's figures without the host's wall-clock ones."""
    return {k: v for k, v in run.items() if k != "wall_seconds"}


def test_sweep_gives_the_same_figures_in_two_processes():
    from allegrex.bench.llama import sweep_llama
    from allegrex.jobs import Engine
    sweep = dict(kernels=("vfpu",), tokens=1, shapes=("stories260K",), show_progress=False)
    serial, parallel = sweep_llama(**sweep), sweep_llama(**sweep, engine=Engine(workers=2))
    assert [(r["shape"], r["psp_model"]) for r in parallel["rows"]] == [("stories260K", "psp-1000"),
                                                                       ("stories260K", "psp-2000")]
    for s, p in zip(serial["rows"], parallel["rows"]):
        assert s["fits"] == p["fits"] == "ram"
        assert simulated(s["kernels"]["vfpu"]) == simulated(p["kernels"]["vfpu"])
        assert p["kernels"]["vfpu"]["cycles"] > 0
