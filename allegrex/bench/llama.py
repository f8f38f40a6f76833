"""`allegrex bench llama`: the llama2 port on the simulated PSP, scalar vs VFPU.

    report = bench_llama(shape="stories15M", kernels=("scalar", "vfpu"), tokens=64)
    print(format_report(report))            # the same dict goes to --json

Per kernel, the figures come from three places, none recomputed here: the program's
own stats file (tokens, seconds of the generation loop by sceRtc ticks, time to first
token, load time), the budget file it writes, and the profiler
(allegrex.timing.profile) started when the program begins generating (its "model ..."
line) and read when it prints its footer ("N tokens in X s"), so the cycle breakdown
and CPI cover the generation loop alone (not the load nor the final file writes).
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

from allegrex.bench import published as pub
from allegrex.bench.breakdown import breakdown
from allegrex.bench.progress import ProgressBar, note
from allegrex.bench.roofline import roofline
from allegrex.errors import AllegrexError
from allegrex.jobs import Engine, run_jobs
from allegrex.llama.shapes import shape_config

KERNELS = ("scalar", "vfpu")
PSP_MODELS = ("psp-1000", "psp-2000", "psp-3000")
SWEEP_SHAPES = ("stories260K", "stories15M", "stories42M", "stories90M", "stories110M")
SWEEP_MODELS = ("psp-1000", "psp-2000")
SWEEP_TOKENS = 2  # positions per sweep run: a per-token figure, extrapolated
# Empty (BOS only): with the synthetic tokenizer a text prompt can fill a short run with
# prefill alone, and the bench measures generation.
DEFAULT_PROMPT = ""
HEAP_KB = {"psp-1000": 20 * 1024, "psp-2000": 24 * 1024, "psp-3000": 24 * 1024}  # 24 MB: the real port's arena
GENERATION_LINE = r"(^|\n)model [^\n]*\n$"  # printed by the program just before its generation loop
FOOTER_LINE = r"\n\d+ tokens in [0-9.]+s [^\n]*\n$"  # printed just after it


class BenchError(AllegrexError):
    pass


class GuestText:
    """The program's stdout: kept, and watched for the start of generation (then
    `on_start()`) and for the pieces printed per position (one per forward pass)."""

    def __init__(self, on_start, on_end):
        self.text = []
        self.on_start, self.on_end = on_start, on_end
        self.started = self.ended = False
        self.pieces = 0

    def write(self, s: str) -> None:
        self.text.append(s)
        if self.started and not self.ended:
            self.pieces += 1
            if s.endswith("\n") and re.search(FOOTER_LINE, "".join(self.text[-8:])):
                self.ended = True
                self.on_end()
        elif s.endswith("\n") and re.search(GENERATION_LINE, "".join(self.text[-8:])):
            self.started = True
            self.on_start()

    def flush(self) -> None:
        pass

    def value(self) -> str:
        return "".join(self.text)


def _number(d: dict, key: str, cast=float):
    try:
        return cast(d[key])
    except (KeyError, ValueError):
        return None


def run_kernel(model: Path, tokenizer: Path, kernel: str, tokens: int, prompt: str = DEFAULT_PROMPT,
               psp_model: str = "psp-2000", clock: int = 333, heap_kb: int | None = None,
               show_progress: bool = True, workdir: Path | None = None) -> dict:
    """Run the llama2 EBOOT once with `kernel`; the per-kernel part of the report."""
    from allegrex.commands.run import load_program
    from allegrex.hle.kernel import RunOptions
    from allegrex.llama.host import OUTPUT_FILES, _key_values
    from allegrex.llama.psp import build_eboot, layout_ms0
    from allegrex.timing.profile import Profile

    heap_kb = heap_kb or HEAP_KB[psp_model]
    settings = {"prompt": prompt, "steps": tokens, "temperature": 0.0, "topp": 0.9, "seed": 42,
                "kernel": kernel, "context": min(256, shape_context(model)), "heap_kb": heap_kb, "clock": clock}
    with tempfile.TemporaryDirectory(prefix="allegrex-bench-") as tmp:
        work = Path(workdir or tmp)
        game = layout_ms0(work, settings, model, tokenizer, build_eboot())
        program = game / "EBOOT.PBP"
        state = {}
        text = GuestText(lambda: _start_profile(state), lambda: _end_profile(state))
        options = RunOptions(ms0=str(work / "ms0"), program_path=str(program), stdout=text, stderr=text)
        machine, kern = load_program(str(program), psp_model, options)
        state.update(machine=machine, kernel=kern, Profile=Profile)
        bar = ProgressBar(f"{kernel:>6}", tokens) if show_progress else None

        def progress(k):
            if bar:
                bar.update(text.pieces, k.clock.seconds(), int(machine.instructions))

        wall0 = time.monotonic()
        stop = kern.run(progress=progress)
        wall = time.monotonic() - wall0
        if bar:
            bar.update(text.pieces, kern.clock.seconds(), int(machine.instructions), force=True)
            bar.close()
        stats = _key_values(game / OUTPUT_FILES["stats"])
        budget = _key_values(game / OUTPUT_FILES["budget"])
    result = {"kernel": kernel, "psp_model": psp_model, "clock_mhz": clock, "heap_kb": heap_kb,
              "exit": stop.kind, "wall_seconds": wall, "instructions_simulated": int(machine.instructions),
              "budget": {k: (int(v) if v.isdigit() else v) for k, v in budget.items()}}
    guest = text.value()
    if not stats or "report" not in state:
        result["ok"] = False
        result["error"] = _guest_error(guest) or f"the program stopped ({stop.kind}: {stop.message.splitlines()[0]})"
        return result
    report = state["report"]
    n, secs = _number(stats, "tokens", int), _number(stats, "seconds")
    result.update(ok=True, tokens=n, generated=_number(stats, "generated", int), seconds=secs,
                  tok_per_s=n / secs if secs else 0.0, guest_tok_per_s=_number(stats, "tok_per_s"),
                  ttft_seconds=_number(stats, "ttft_seconds"), load_seconds=_number(stats, "load_seconds"),
                  stream_seconds=_number(stats, "stream_seconds"), mode=budget.get("mode", "ram"),
                  cycles=report["cycles"], instructions=report["instructions"], cpi=report["cpi"],
                  cycles_per_token=report["cycles"] / n if n else 0.0,
                  stalls=report["stalls"], caches=report["caches"], breakdown=breakdown(report),
                  functions=[{k: r[k] for k in ("function", "cycles", "instructions", "stalls")}
                             for r in report["functions"][:12]])
    return result


def _start_profile(state: dict) -> None:
    """At the start of generation: profile from here on (counters and per-address rows)."""
    m, k = state["machine"], state["kernel"]
    state["profile"] = state["Profile"].start(m, k.image)
    state["hle0"], state["idle0"] = k.hle_cycles, k.idle_cycles


def _end_profile(state: dict) -> None:
    """At the end of generation (the footer line): the profile of the loop alone."""
    k = state["kernel"]
    state["report"] = state["profile"].report(hle_cycles=k.hle_cycles - state["hle0"],
                                              idle_cycles=k.idle_cycles - state["idle0"])


def _guest_error(text: str) -> str | None:
    for line in text.splitlines():
        if line.startswith("error:") or "does not fit" in line:
            return line.removeprefix("error:").strip()
    return None


def shape_context(model: Path) -> int:
    from allegrex.llama.checkpoint import read_checkpoint
    return read_checkpoint(model).config.seq_len


def budget_view(budget: dict, psp_model: str) -> dict:
    """The program's memory budget against the PSP model's RAM."""
    from allegrex.memory import RAM_SIZE
    keys = ("weights", "kv_cache", "run_state", "tokenizer", "stream_buffer", "free", "heap")
    out = {k: budget.get(k) for k in keys if isinstance(budget.get(k), int)}
    out["ram"] = RAM_SIZE[psp_model]
    out["mode"] = budget.get("mode")
    return out


@dataclass(frozen=True)
class KernelRun:
    """One run of the port, as a picklable job for allegrex.jobs: the bundled model of
    `shape` (made or found in the cache where the job runs) unless model paths are given."""
    shape: str
    kernel: str
    tokens: int
    prompt: str = DEFAULT_PROMPT
    psp_model: str = "psp-2000"
    clock: int = 333
    model: str | None = None
    tokenizer: str | None = None
    show_progress: bool = False  # a live bar: only when the runs go one after another here


def run_kernel_job(job: KernelRun) -> dict:
    from allegrex.bench.models import bundled_model
    model, tok = (Path(job.model), Path(job.tokenizer)) if job.model else bundled_model(job.shape)
    if job.show_progress:
        note(f"{job.shape} on {job.psp_model}, {job.kernel}:")
    return run_kernel(model, tok, job.kernel, job.tokens, job.prompt, job.psp_model, job.clock,
                      show_progress=job.show_progress)


def run_kernels(runs: list[KernelRun], engine: Engine, show_progress: bool) -> list[dict]:
    """Every run on `engine`, in order; a line as each finishes when they run in parallel,
    and a failed job (a crash in the simulator) as a failed run of its kernel."""
    serial = not engine.dask and engine.workers == 1
    runs = [replace(r, show_progress=show_progress and serial) for r in runs]

    def finished(i: int, outcome) -> None:
        if show_progress and not serial:
            r, v = runs[i], outcome.value or {}
            state = (f"{v['tok_per_s']:.3f} tok/s, {v['wall_seconds']:.0f} s of wall time" if v.get("ok")
                     else f"failed: {v.get('error') or outcome.failure}")
            note(f"{r.shape} on {r.psp_model}, {r.kernel}: {state}")

    if show_progress and not serial:
        note(f"{len(runs)} run(s) on {engine.describe()}; a line as each finishes")
    outcomes = run_jobs(run_kernel_job, runs, engine, on_done=finished)
    return [o.value if o.ok else {"kernel": r.kernel, "psp_model": r.psp_model, "clock_mhz": r.clock, "ok": False,
                                  "error": o.failure, "budget": {}}
            for r, o in zip(runs, outcomes)]


def bench_llama(shape: str = "stories15M", kernels=KERNELS, tokens: int = 64, prompt: str = DEFAULT_PROMPT,
                psp_model: str = "psp-2000", clock: int = 333, show_progress: bool = True,
                model: Path | None = None, tokenizer: Path | None = None, engine: Engine = Engine()) -> dict:
    """The whole `allegrex bench llama` report as a dict; the kernels run on `engine`."""
    from allegrex.bench.models import bundled_model
    _check(kernels, tokens, psp_model, clock)
    config = shape_config(shape)
    files = (str(model), str(tokenizer)) if model is not None else (None, None)  # None: the job's own cache
    if model is None:
        bundled_model(shape, note if show_progress else None)  # made once here, before the runs
    wall0 = time.monotonic()
    runs = run_kernels([KernelRun(shape, k, tokens, prompt, psp_model, clock, *files) for k in kernels],
                       engine, show_progress)
    roof = roofline(config, clock)
    for r in runs:
        if r.get("ok"):
            r["roofline_share"] = r["tok_per_s"] / roof["tok_per_s"]
    first = next((r for r in runs if r.get("budget")), {"budget": {}})
    return {"benchmark": "llama", "shape": shape, "params": config.n_params(), "format": "q80",
            "psp_model": psp_model, "clock_mhz": clock, "tokens_requested": tokens, "prompt": prompt,
            "kernels": runs, "memory": budget_view(first["budget"], psp_model), "roofline": roof,
            "published": pub.published(), "wall_seconds": time.monotonic() - wall0}


def sweep_llama(kernels=KERNELS, tokens: int = SWEEP_TOKENS, clock: int = 333, shapes=SWEEP_SHAPES,
                psp_models=SWEEP_MODELS, show_progress: bool = True, engine: Engine = Engine()) -> dict:
    """Each shape on each PSP model: fits (RAM, streamed, or not and why), load time, tok/s.
    The runs are independent jobs on `engine`; the models are made here first (a cluster's
    workers make their own, the same bytes from the same seed)."""
    from allegrex.bench.models import bundled_model
    from allegrex.timing import memstick_cycles
    _check(kernels, tokens, "psp-2000", clock)
    files = {shape: bundled_model(shape, note if show_progress else None) for shape in shapes}
    cells = [(shape, psp_model) for shape in shapes for psp_model in psp_models]
    runs = run_kernels([KernelRun(shape, k, tokens, "", psp_model, clock) for shape, psp_model in cells
                        for k in kernels], engine, show_progress)
    rows = []
    for n, (shape, psp_model) in enumerate(cells):
        config, model = shape_config(shape), files[shape][0]
        row = {"shape": shape, "params": config.n_params(), "psp_model": psp_model,
               "model_bytes": model.stat().st_size, "heap_kb": HEAP_KB[psp_model],
               "memstick_load_seconds_model": memstick_cycles(model.stat().st_size, clock) / (clock * 1e6),
               "roofline_tok_per_s": roofline(config, clock)["tok_per_s"],
               "kernels": dict(zip(kernels, runs[n * len(kernels):(n + 1) * len(kernels)]))}
        ok = [r for r in row["kernels"].values() if r.get("ok")]
        row["fits"] = "ram" if ok and ok[0]["mode"] == "ram" else ("stream" if ok else "no")
        row["why"] = (_fit_reason(ok[0]) if ok else
                      next(iter(row["kernels"].values())).get("error", "the program failed"))
        row["load_seconds"] = ok[0]["load_seconds"] if ok else None
        rows.append(row)
    return {"benchmark": "llama-sweep", "clock_mhz": clock, "tokens_per_run": tokens,
            "extrapolated": f"tok/s from {tokens} positions per run (empty prompt), as a per-token figure",
            "rows": rows, "published": pub.published()}


def _fit_reason(run: dict) -> str:
    b = run["budget"]
    kb = 1024
    if run["mode"] == "stream":
        return (f"weights streamed from the memory stick (layer buffer {b.get('stream_buffer', 0) // kb} KB; "
                f"{b.get('free', 0) // kb} KB of the {b.get('heap', 0) // kb} KB heap free)")
    return f"all in RAM: weights {b.get('weights', 0) // kb} KB, {b.get('free', 0) // kb} KB of the heap free"


def _check(kernels, tokens, psp_model, clock):
    bad = [k for k in kernels if k not in KERNELS]
    if bad or not kernels:
        raise BenchError(f"unknown kernel {', '.join(bad) or '(none)'}; choose from {', '.join(KERNELS)}")
    if tokens < 1 or tokens > 256:
        raise BenchError(f"--tokens must be 1..256 (the port's context), got {tokens}")
    if psp_model not in PSP_MODELS:
        raise BenchError(f"unknown PSP model {psp_model!r}; choose from {', '.join(PSP_MODELS)}")
    if clock not in (222, 266, 333):
        raise BenchError(f"--clock must be one of the PSP's CPU clocks 222, 266, 333 MHz, got {clock}")
