"""Real time: simulated seconds per wall second for programs built with our SDK.

    PYTHONPATH=. python benchmarks/realtime.py [--repeat R] [--only NAME,...] [--json F]

A ratio of 1.0 means the simulated PSP keeps pace with a real one. The programs:
  game-loop       psp/apps/game_loop: per frame a pad read (waits for the frame's sample),
                  256 sprites moved and tested pair by pair, GU sprites drawn, a vblank wait;
                  an audio thread feeding a channel with sceAudioOutputBlocking; the pad's
                  RIGHT pressed from 1 s to 2 s (5 simulated s)
  gu-cube         psp/apps/gu_cube: a lit, textured cube through the GU, its matrices made
                  by GUM on the VFPU, double buffered, a vblank wait per frame (5 s)
  vfpu-transform  psp/apps/vfpu_transform: 16384 points turned with vtfm4.q per frame, then
                  a vblank wait (5 s)
  llama2-vfpu     the llama2 port's PSP build (allegrex.llama.psp) with its VFPU kernels, on
                  the random stories260K q80 model (allegrex.bench.models), 32 positions at 333 MHz
  llama2-vfpu-15m the same on the random stories15M q80 model, 8 positions (bench llama's
                  default run; only with --only: its warm-up compiles ~12 min on empty caches)
Each program is built (the SDK caches builds), run once to warm up, then `--repeat` times;
the figure is the median: the speed of a program run again, once its hot loops are
compiled. The warm-up run compiles every hot loop it meets (compile_after 0: by default a
loop waits for COMPILE_AFTER iterations, more than a short program such as this llama2
run makes) and stores them; later runs load them from the cache. Times are process CPU
time (time.process_time) and wall time of Kernel.run alone (not loading): the machine is
shared, so wall time is noisy. `busy` is the share of simulated cycles the CPU was not
idle (waiting for vblank, audio, the pad): a program that idles most of a frame is easy
to keep in real time; the MIPS column is guest instructions per CPU second; `interp.` the
share of them the interpreter ran (the rest ran in compiled regions) and `regions` how
many times a compiled region was entered (each a call from Python: after the interpreter,
or after the region before it when that one left at its entry). The first (warm-up) run's wall time is shown too: it includes compiling
the program's hot loops. `VRAM` is a digest of VRAM when the program ends (for the GE
programs their last frames and depth buffer): every run must give the same, and a
faster renderer must not change it.
"""

import argparse
import hashlib
import io
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 5
FRAMES = 300  # 5 s at 59.94 Hz
LLAMA_SHAPE, LLAMA_TOKENS, LLAMA_CLOCK = "stories260K", 32, 333


# Run only when named (--only): their warm-up compiles for minutes on empty caches.
ONLY_WHEN_NAMED = {"llama2-vfpu-15m"}


@dataclass
class Program:
    name: str
    eboot: Path
    ms0: Path | None = None
    presses: list = field(default_factory=list)  # allegrex.hle.ctrl.parse_press specs


def build_sdk_app(name: str, folder: Path, sources: list, defines=()) -> Program:
    from allegrex.sdk import build
    app = ROOT / "psp" / "apps" / name
    out = folder / name / "EBOOT.PBP"
    out.parent.mkdir(parents=True, exist_ok=True)
    return Program(name, build([app / s for s in sources], out, defines=list(defines)))


def build_llama(folder: Path, shape: str = LLAMA_SHAPE, tokens: int = LLAMA_TOKENS) -> Program:
    from allegrex.bench.models import bundled_model
    from allegrex.llama.psp import build_eboot, layout_ms0
    model, tokenizer = bundled_model(shape)
    settings = {"prompt": "", "steps": tokens, "temperature": 0.0, "topp": 0.9, "seed": 42, "kernel": "vfpu",
                "context": tokens, "clock": LLAMA_CLOCK}  # heap: all the PSP gives, as bench llama
    work = folder / f"llama2-{shape}"
    game = layout_ms0(work, settings, model, tokenizer, build_eboot())
    return Program("llama2-vfpu", game / "EBOOT.PBP", ms0=work / "ms0")


def programs(folder: Path, only) -> list[Program]:
    makers = {
        "game-loop": lambda: build_sdk_app("game_loop", folder, ["main.c"], [f"FRAMES={FRAMES}"]),
        "gu-cube": lambda: build_sdk_app("gu_cube", folder, ["main.c"], [f"FRAMES={FRAMES}"]),
        "vfpu-transform": lambda: build_sdk_app("vfpu_transform", folder, ["main.c", "transform.S"],
                                                [f"FRAMES={FRAMES}"]),
        "llama2-vfpu": lambda: build_llama(folder),
        "llama2-vfpu-15m": lambda: build_llama(folder, "stories15M", 8),
    }
    unknown = set(only or ()) - set(makers)
    if unknown:
        sys.exit(f"unknown program(s) {', '.join(sorted(unknown))}: choose from {', '.join(makers)}")
    out = []
    for name, make in makers.items():
        if (only and name not in only) or (not only and name in ONLY_WHEN_NAMED):
            continue
        program = make()
        program.name = name
        if name == "game-loop":
            program.presses = ["RIGHT@1s"]
        out.append(program)
    return out


def run_once(program: Program, compile_all: bool = False, instrument=None) -> dict:
    """Load and run `program` to its end; the figures of Kernel.run. compile_all: compile
    every hot loop met, not only those that ran COMPILE_AFTER iterations (the warm-up);
    instrument(kernel), if given, is called before the run (benchmarks/hle_speed.py)."""
    from allegrex.commands.run import load_program
    from allegrex.hle import ctrl
    from allegrex.hle.kernel import RunOptions
    from allegrex.memory import VRAM_SIZE
    text = io.StringIO()
    options = RunOptions(ms0=str(program.ms0) if program.ms0 else None, program_path=str(program.eboot),
                         input_events=[ctrl.parse_press(p) for p in program.presses], stdout=text,
                         stderr=io.StringIO())
    machine, kernel = load_program(str(program.eboot), "psp-2000", options)
    if compile_all:
        machine.jit.compile_after = 0
    if instrument:
        instrument(kernel)
    cpu, wall = time.process_time(), time.perf_counter()
    stop = kernel.run(max_seconds=120)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if stop.kind not in ("exit", "threads-ended"):
        sys.exit(f"{program.name} did not finish: {stop.kind}: {stop.message}\n{text.getvalue()}")
    s = kernel.stats()
    memory = machine.memory
    vram = memory.mem[memory.ram_size:memory.ram_size + VRAM_SIZE]
    return {"vram": hashlib.sha256(vram.tobytes()).hexdigest()[:12],"simulated_s": s["simulated_seconds"], "cpu_s": cpu, "wall_s": wall, "cycles": s["cycles"],
            "instructions": s["instructions"], "busy": 1 - s["idle_cycles"] / s["cycles"],
            "interpreted": s["instructions"] - machine.jit.instructions, "regions_entered": machine.jit.entered,
            "output": text.getvalue()}


def measure(program: Program, repeat: int) -> dict:
    first = run_once(program, compile_all=True)
    runs = [run_once(program) for _ in range(repeat)]
    for r in runs:  # deterministic: every run the same simulation
        if (r["cycles"], r["output"], r["vram"]) != (first["cycles"], first["output"], first["vram"]):
            sys.exit(f"{program.name}: runs differ ({first['cycles']} vs {r['cycles']} cycles)")
    cpu, wall = statistics.median(r["cpu_s"] for r in runs), statistics.median(r["wall_s"] for r in runs)
    sim = first["simulated_s"]
    return {"program": program.name, "simulated_s": sim, "cpu_s": cpu, "wall_s": wall,
            "realtime_cpu": sim / cpu, "realtime_wall": sim / wall, "busy": first["busy"],
            "mips": first["instructions"] / cpu / 1e6, "first_wall_s": first["wall_s"],
            "cycles": first["cycles"], "instructions": first["instructions"], "vram": first["vram"],
            "interpreted": runs[-1]["interpreted"] / first["instructions"], "regions_entered": runs[-1]["regions_entered"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", help="comma-separated program names")
    ap.add_argument("--json", metavar="F", help="write the figures as JSON")
    args = ap.parse_args()
    only = args.only.split(",") if args.only else None
    rows = []
    with tempfile.TemporaryDirectory(prefix="realtime-") as tmp:
        for program in programs(Path(tmp), only):
            rows.append(measure(program, args.repeat))
            r = rows[-1]
            print(f"{r['program']:15s} done: {r['realtime_cpu']:.2f}x real time (CPU)", file=sys.stderr, flush=True)
    print(f"simulated seconds per second, median of {args.repeat} runs after a warm-up run\n")
    print(f"{'program':15s} {'sim s':>6s} {'CPU s':>6s} {'x real (CPU)':>12s} {'x real (wall)':>13s} "
          f"{'busy':>5s} {'MIPS':>6s} {'interp.':>7s} {'regions':>8s} {'1st run wall s':>14s} {'VRAM':>12s}")
    for r in rows:
        print(f"{r['program']:15s} {r['simulated_s']:6.2f} {r['cpu_s']:6.2f} {r['realtime_cpu']:12.2f} "
              f"{r['realtime_wall']:13.2f} {100 * r['busy']:4.0f}% {r['mips']:6.1f} {100 * r['interpreted']:6.1f}% "
              f"{r['regions_entered']:8d} {r['first_wall_s']:14.1f} "
              f"{r['vram']:>12s}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
