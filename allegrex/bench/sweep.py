"""`allegrex bench llama --sweep`: every model shape on every PSP model, in each weight
format, KV cache type and kernel: whether it fits in RAM, runs with part of its weights
read from the memory stick per token (how much), or does not fit (the program's reason);
tok/s and load time; and the fastest configuration per shape and PSP.

The simulator's psp-3000 is its psp-2000 (64 MB, the same timing model), so the sweep
runs the psp-2000 once and reports the psp-3000 rows as the same runs (`same_as`). The
q80 scalar-madd kernel has no q40 counterpart: q40 rows run scalar and vfpu."""

from __future__ import annotations

from dataclasses import dataclass, replace

from allegrex.bench import published as pub
from allegrex.bench.llama import KERNELS, SWEEP_TOKENS, KernelRun, check_arguments, run_kernel_job, run_kernels
from allegrex.bench.progress import note
from allegrex.jobs import Engine
from allegrex.llama.shapes import shape_config

SWEEP_SHAPES = ("stories15M", "stories42M", "stories90M", "stories110M")
SWEEP_MODELS = ("psp-1000", "psp-2000", "psp-3000")
SWEEP_FORMATS = ("q80", "q40")
SWEEP_KV = ("fp32", "int8")
SAME_MACHINE = {"psp-3000": "psp-2000"}  # the same RAM and timing model in the simulator
FORMAT_KERNELS = {"q80": KERNELS, "q40": ("scalar", "vfpu")}


@dataclass(frozen=True)
class Cell:
    """One configuration of the sweep: a model shape in a format, on a PSP, with a KV cache."""
    shape: str
    psp_model: str
    fmt: str
    kv: str

    def kernels(self, wanted) -> list[str]:
        return [k for k in wanted if k in FORMAT_KERNELS[self.fmt]]

    def simulated(self) -> Cell:
        """The configuration the simulator runs for this one (a psp-3000's is the psp-2000's)."""
        return replace(self, psp_model=SAME_MACHINE.get(self.psp_model, self.psp_model))


def sweep_llama(kernels=KERNELS, tokens: int = SWEEP_TOKENS, clock: int = 333, shapes=SWEEP_SHAPES,
                psp_models=SWEEP_MODELS, formats=SWEEP_FORMATS, kvs=SWEEP_KV, show_progress: bool = True,
                engine: Engine = Engine(), run=run_kernel_job) -> dict:
    """The sweep as a dict (report.format_sweep prints it). The runs are jobs on `engine`
    (`run(KernelRun)` makes one: the simulated PSP by default): first one kernel per
    configuration, then the other kernels of those that fit (whether a model fits does not
    depend on the kernel). The models are made here first; a cluster's workers make their
    own, the same bytes from the same seed."""
    from allegrex.bench.models import bundled_model
    check_arguments(kernels, tokens, "psp-2000", clock)
    for s in shapes:
        shape_config(s)
    files = {(s, f): bundled_model(s, note if show_progress else None, f) for s in shapes for f in formats}
    cells = [Cell(s, p, f, kv) for s in shapes for p in psp_models for f in formats for kv in kvs]
    simulated = list(dict.fromkeys(c.simulated() for c in cells if c.kernels(kernels)))

    def jobs(pairs):
        return [KernelRun(c.shape, k, tokens, "", c.psp_model, clock, fmt=c.fmt, settings=(("kv", c.kv),))
                for c, k in pairs]

    first = [(c, c.kernels(kernels)[0]) for c in simulated]
    done = dict(zip(first, run_kernels(jobs(first), engine, show_progress, run)))
    rest = [(c, k) for c, k0 in first if done[(c, k0)].get("ok") for k in c.kernels(kernels)[1:]]
    done.update(zip(rest, run_kernels(jobs(rest), engine, show_progress, run)))
    rows = []
    for cell in cells:
        sim = cell.simulated()
        runs = {k: done[(sim, k)] for k in cell.kernels(kernels) if (sim, k) in done}
        rows.append(_row(cell, sim.psp_model, files[(cell.shape, cell.fmt)][0].stat().st_size, runs))
    return {"benchmark": "llama-sweep", "clock_mhz": clock, "tokens_per_run": tokens,
            "extrapolated": f"tok/s from {tokens} positions per run (empty prompt), as a per-token figure",
            "rows": rows, "fastest": fastest(rows), "published": pub.published()}


def _row(cell: Cell, machine: str, model_bytes: int, runs: dict) -> dict:
    ok = [r for r in runs.values() if r.get("ok")]
    budget = ok[0]["budget"] if ok else {}
    row = {"shape": cell.shape, "params": shape_config(cell.shape).n_params(), "psp_model": cell.psp_model,
           "format": cell.fmt, "kv": cell.kv, "model_bytes": model_bytes, "kernels": runs,
           "same_as": machine if machine != cell.psp_model else None,
           "fits": ("ram" if budget.get("mode") == "ram" else "stream") if ok else "no",
           "weights_in_ram": budget.get("weights"), "streamed_per_token": budget.get("streamed", 0) if ok else None,
           "load_seconds": ok[0]["load_seconds"] if ok else None}
    row["why"] = _why(row, budget) if ok else next(iter(runs.values()), {}).get("error", "the program failed")
    return row


def _why(row: dict, b: dict) -> str:
    mb = 1 << 20
    memory = f"{b.get('heap', 0) / mb:.1f} MB heap + {b.get('volatile', 0) / mb:.0f} MB volatile"
    if row["fits"] == "stream":
        return (f"{b['weights'] / mb:.1f} of {b['weights_all'] / mb:.1f} MB of weights in RAM ({b.get('cache')}), "
                f"{b['streamed'] / mb:.1f} MB read per token; KV {b['kv_cache'] / mb:.1f} MB; {memory}")
    return f"all in RAM: weights {b['weights'] / mb:.1f} MB, KV {b['kv_cache'] / mb:.1f} MB, {b['free'] / mb:.1f} MB of {memory} free"


def fastest(rows: list[dict]) -> list[dict]:
    """Per shape and PSP model, the configuration (format, KV cache, kernel) with the most tok/s."""
    best: dict[tuple, dict] = {}
    for row in rows:
        for kernel, r in row["kernels"].items():
            if not r.get("ok"):
                continue
            key = (row["shape"], row["psp_model"])
            if key not in best or r["tok_per_s"] > best[key]["tok_per_s"]:
                best[key] = {"shape": row["shape"], "psp_model": row["psp_model"], "format": row["format"],
                             "kv": row["kv"], "kernel": kernel, "tok_per_s": r["tok_per_s"], "fits": row["fits"],
                             "streamed_per_token": row["streamed_per_token"]}
    order = {(row["shape"], row["psp_model"]): i for i, row in enumerate(rows)}
    return sorted(best.values(), key=lambda b: order[(b["shape"], b["psp_model"])])
