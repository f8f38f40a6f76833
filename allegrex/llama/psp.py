"""The PSP build of the llama2 port and running it in the simulator.

    eboot = build_eboot()                                    # cached by the SDK
    run = run_psp(workdir, {"prompt": "Once upon a time", "steps": 64, "temperature": 0},
                  model="stories260K.bin", tokenizer="tok512.bin", psp_model="psp-2000")
    run.text, run.stats["tok_per_s"], run.budget["weights"], run.report["cycles"]

The memory-stick folder is laid out as a PSP owner would: ms0:/PSP/GAME/LLAMA2/ holds
EBOOT.PBP, llama2.cfg, model.bin and tokenizer.bin; the program writes its state file
(the exact text), budget and stats beside them."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from allegrex.errors import AllegrexError
from allegrex.llama.checkpoint import check_checkpoint
from allegrex.llama.errors import LlamaError
from allegrex.llama.host import APP_DIR, ENGINE_SOURCES, OUTPUT_FILES, _key_values, write_config
from allegrex.llama.tokenizer import read_tokenizer

PSP_SOURCES = ENGINE_SOURCES + ("kernels_vfpu.c", "matmul_vfpu.S", "plat_psp.c")
GAME_FOLDER = ("PSP", "GAME", "LLAMA2")


def build_eboot(output: Path | None = None) -> Path:
    """Build (or take from the SDK's cache) the llama2 EBOOT.PBP; large-memory mode on."""
    try:
        from allegrex.sdk.build import build, cache_root
    except ImportError:
        raise LlamaError("the PSP build needs the SDK (allegrex.sdk), which this checkout lacks") from None
    out = output or cache_root() / "llama2" / "EBOOT.PBP"
    out.parent.mkdir(parents=True, exist_ok=True)
    return build([APP_DIR / s for s in PSP_SOURCES], out, title="llama2", large_memory=True, opt="-O2")


@dataclass
class PspRun:
    text: bytes                      # the state file: the exact generated text
    stats: dict[str, str]            # llama2_stats.txt: tokens, seconds, tok_per_s (simulated time)
    budget: dict[str, str]           # llama2_budget.txt
    report: dict = field(default_factory=dict)  # the simulator's run report (cycles, instructions...)
    exit_kind: str = ""
    exit_message: str = ""
    folder: Path | None = None


def _place(src: Path, dst: Path) -> None:
    """Put a model file in the memory-stick folder: a hard link when possible (models are big)."""
    src = Path(src)
    if not src.is_file():
        raise LlamaError(f"{src}: no such file")
    if dst.exists():
        if dst.stat().st_size == src.stat().st_size and dst.stat().st_mtime >= src.stat().st_mtime:
            return
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def layout_ms0(workdir, settings: dict, model, tokenizer, eboot: Path) -> Path:
    """The ms0 folder tree for one run; returns the game folder."""
    game = Path(workdir, "ms0", *GAME_FOLDER)
    game.mkdir(parents=True, exist_ok=True)
    _place(eboot, game / "EBOOT.PBP")
    _place(model, game / "model.bin")
    _place(tokenizer, game / "tokenizer.bin")
    for name in OUTPUT_FILES.values():
        (game / name).unlink(missing_ok=True)
    write_config(game / "llama2.cfg", {**settings, "model": "model.bin", "tokenizer": "tokenizer.bin"})
    return game


def run_psp(workdir, settings: dict, model, tokenizer, psp_model: str = "psp-2000", osk_text: str = "",
            max_seconds: float | None = None, timeout: float | None = None, progress=None,
            eboot: Path | None = None, started: float | None = None) -> PspRun:
    """Build if needed, lay out ms0:, run the EBOOT in the simulator, read back its files.
    The limits are Kernel.run's (`started`: where the timeout counts from)."""
    try:
        from allegrex.commands.run import load_program
        from allegrex.hle.kernel import RunOptions
    except ImportError:
        raise LlamaError("running on the simulated PSP needs the HLE (allegrex run), which this checkout lacks") from None
    eboot = eboot or build_eboot()
    game = layout_ms0(workdir, settings, model, tokenizer, eboot)
    program = game / "EBOOT.PBP"
    options = RunOptions(ms0=str(Path(workdir, "ms0")), program_path=str(program), osk_text=osk_text)
    machine, kernel = load_program(str(program), psp_model, options)
    stop = kernel.run(max_seconds=max_seconds, timeout=timeout, progress=progress, started=started)
    out = game / OUTPUT_FILES["out"]
    return PspRun(out.read_bytes() if out.exists() else b"",
                  _key_values(game / OUTPUT_FILES["stats"]), _key_values(game / OUTPUT_FILES["budget"]),
                  kernel.stats(), stop.kind, stop.message, game)


def check_model_files(model, tokenizer) -> None:
    """Refuse on the host, before building or running anything, a model or tokenizer file
    the program would refuse: missing, a checkpoint whose header and size disagree, a
    tokenizer that does not hold the model's vocabulary."""
    for path, what in ((model, "model"), (tokenizer, "tokenizer")):
        if not Path(path).is_file():
            raise AllegrexError(f"{what} {path}: no such file")
    read_tokenizer(tokenizer, check_checkpoint(model).vocab_size)
