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
    # q40: 4 bits and one fp16 scale per 32
    assert weight_bytes_per_token(c, "q40") == elements // 2 + 2 * elements // 32 + 4 * (2 * 6 * 288 + 288)


def test_memory_budget_against_ram(report):
    m = report["memory"]
    assert m["ram"] == 64 * 1024 * 1024 and 54 << 20 < m["heap"] < 56 << 20 and m["volatile"] == 4 << 20
    assert (m["weights"] + m["kv_cache"] + m["run_state"] + m["tokenizer"] + m["stream_buffer"] + m["free"]
            == m["heap"] + m["volatile"])


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
    (["--sweep", "--shapes", "stories15M,stories7B"], "unknown shape"),
    (["--sweep", "--kernels", "neon"], "unknown kernel neon"),
    (["--cache-kb", "70000"], "--cache-kb 70000 is more than a psp-2000 has: 65536 KB of RAM"),
])
def test_bad_arguments_get_clear_errors(argv, message, capsys):
    assert main(["bench", "llama", "--quiet", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_cache_budget_must_be_positive(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["bench", "llama", "--quiet", "--cache-kb", "-5"])
    assert exited.value.code == 2 and "'-5' is not a whole number of at least 1" in capsys.readouterr().err


def test_bench_error_is_an_allegrex_error():
    from allegrex.errors import AllegrexError
    assert issubclass(BenchError, AllegrexError)


class FakeProgram:
    """What the program reports, as a stand-in for the simulator: stories260K in q40 with
    an fp32 KV cache "does not fit" anywhere, q80 streams on a psp-1000, the rest is in RAM."""

    def __init__(self):
        self.calls = []

    def __call__(self, job):
        kv = dict(job.settings)["kv"]
        self.calls.append((job.fmt, job.kernel, job.psp_model, kv))
        return fake_result(job.fmt, job.kernel, job.psp_model, kv)


def fake_result(fmt, kernel, psp_model, kv):
    if fmt == "q40" and kv == "fp32":
        return {"kernel": kernel, "ok": False, "budget": {}, "error": "does not fit: the KV cache (320 KB) after ..."}
    mode = "stream" if (fmt == "q80" and psp_model == "psp-1000") else "ram"
    budget = {"mode": mode, "weights": 400_000, "weights_all": 530_000, "streamed": 130_000 if mode == "stream" else 0,
              "kv_cache": 81_920, "free": 1_000_000, "heap": 23 << 20, "volatile": 4 << 20, "cache": "prefix"}
    speed = {"scalar": 30.0, "scalar-madd": 45.0, "vfpu": 150.0}[kernel] * (2 if fmt == "q40" else 1)
    return {"kernel": kernel, "ok": True, "budget": budget, "mode": mode, "tok_per_s": speed / (3 if mode == "stream" else 1),
            "load_seconds": 0.3}


def test_sweep_rows_fits_and_the_fastest_configuration():
    from allegrex.bench.report import format_sweep
    from allegrex.bench.sweep import sweep_llama
    program = FakeProgram()
    report = sweep_llama(shapes=("stories260K",), show_progress=False, run=program)
    calls = program.calls
    rows = {(r["psp_model"], r["format"], r["kv"]): r for r in report["rows"]}
    assert len(rows) == 3 * 2 * 2
    # the psp-3000 is the psp-2000 (same RAM, same timing): its rows are those runs, not run again
    assert not any(c[2] == "psp-3000" for c in calls) and rows[("psp-3000", "q80", "int8")]["same_as"] == "psp-2000"
    # q40 has no madd kernel; a run that does not fit is not repeated with the other kernels
    assert [c[1] for c in calls if c[0] == "q40" and c[3] == "int8" and c[2] == "psp-2000"] == ["scalar", "vfpu"]
    assert [c[1] for c in calls if c[0] == "q40" and c[3] == "fp32" and c[2] == "psp-2000"] == ["scalar"]
    no, stream, ram = rows[("psp-1000", "q40", "fp32")], rows[("psp-1000", "q80", "int8")], rows[("psp-2000", "q80", "int8")]
    assert no["fits"] == "no" and no["why"].startswith("does not fit: the KV cache")
    assert stream["fits"] == "stream" and stream["streamed_per_token"] == 130_000 and "MB read per token" in stream["why"]
    assert ram["fits"] == "ram" and ram["why"].startswith("all in RAM")
    fastest = {(b["psp_model"]): b for b in report["fastest"]}
    assert fastest["psp-2000"]["format"] == "q40" and fastest["psp-2000"]["kernel"] == "vfpu"
    assert fastest["psp-2000"]["tok_per_s"] == 300.0 and fastest["psp-1000"]["tok_per_s"] == 300.0
    text = format_sweep(report)
    assert "fastest configuration per model and PSP:" in text and "psp-3000=" in text


def simulated(run: dict) -> dict:
    """A run's figures without the host's wall-clock ones."""
    return {k: v for k, v in run.items() if k != "wall_seconds"}


def test_sweep_runs_the_port_alike_in_two_processes_and_draws_it(tmp_path):
    from allegrex.bench.plot import plot_sweep
    from allegrex.bench.sweep import sweep_llama
    from allegrex.jobs import Engine
    sweep = dict(kernels=("vfpu",), tokens=1, shapes=("stories260K",), psp_models=("psp-1000", "psp-2000"),
                 kvs=("int8",), show_progress=False)
    serial, parallel = sweep_llama(**sweep), sweep_llama(**sweep, engine=Engine(workers=2))
    assert [(r["psp_model"], r["format"]) for r in parallel["rows"]] == [
        ("psp-1000", "q80"), ("psp-1000", "q40"), ("psp-2000", "q80"), ("psp-2000", "q40")]
    for s, p in zip(serial["rows"], parallel["rows"]):
        run = p["kernels"]["vfpu"]
        assert run["ok"] and p["fits"] == s["fits"] == "ram" and run["tokens"] == 1 and run["cycles"] > 0
        assert run["budget"]["kv"] == "int8" and run["budget"]["format"] == p["format"]
        assert simulated(s["kernels"]["vfpu"]) == simulated(run)
    out_png = tmp_path / "s.png"
    plot_sweep(parallel, out_png)
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
