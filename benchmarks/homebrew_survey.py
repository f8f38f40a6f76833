"""Run a corpus of real homebrew headless, as a new user would, and print how far each got.

    PYTHONPATH=. python benchmarks/homebrew_survey.py CORPUS [-j N] [--max-seconds S] [--timeout S]
                 [--press CROSS@2s ...] [--only NAME ...] [--keep DIR] [--json FILE]

CORPUS is a folder with one folder per program (the program and the data files beside it):
its EBOOT.PBP, or else the one .prx/.elf in it. Each program runs as `python -m allegrex run`
(this checkout) in its own process, from a copy of its folder as ms0:/PSP/GAME/<NAME>/ on a
scratch memory stick, so the corpus is never written to; with --screenshot, --audio, --json and
a few scripted button presses (by default CROSS and START at a few seconds, so title screens
and menus move on). The runs go through allegrex.jobs (`-j N`, `--dask ADDRESS`).

Per program the table gives:
  end       how the run ended: exit (the program exited, its threads ended or all sleep waiting
            for HOME), max-s (--max-seconds reached), timeout (--timeout reached), fault (a guest
            fault), import (an unimplemented import was called: which one is in the notes),
            codec (that import is a codec/media library's, outside allegrex's scope),
            deadlock, hle-error (an internal error of an HLE function: a bug), crash (allegrex
            died with a traceback: a bug), hang (the process outlived --timeout by HANG_GRACE_S),
            refused (exit 2: the file or an option was refused)
  sim s     simulated seconds reached
  wall s    wall-clock seconds of the simulation (Kernel.run, loading excluded)
  cpu s     process CPU seconds of the whole command (start-up and loading included); the
            machine is shared, so CPU time is the steadier figure
  MIPS      guest instructions per wall second of the simulation
  HLE%      HLE cycles as a share of the non-idle cycles (cycles the CPU was not waiting)
  screen    share of the displayed frame at the end that is not black (a pixel counts when a
            channel exceeds NON_BLACK), '-' when nothing was displayed
  audio s   seconds of sound the speaker played (audio_seconds of the run's report)
  GE        display lists enqueued (sceGeListEnQueue/EnQueueHead calls): the program draws with the GE
  unk       imported functions allegrex does not provide (their names are in the notes)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from allegrex import jobs  # noqa: E402
from allegrex.hle.linker import MEDIA_LIBRARIES  # noqa: E402

DEFAULT_PRESSES = ("CROSS@2s", "START@3s", "CROSS@5s", "CROSS@8s")
DEFAULT_MAX_SECONDS = 20.0
DEFAULT_TIMEOUT = 90.0
# beyond --timeout before the process counts as hung and is killed: compiling a hot loop
# (allegrex/cpu/jit) is not cut short by --timeout and took up to ~4 minutes per region on
# this project's shared 2-core machine; killed mid-compile, the region is compiled again next time
HANG_GRACE_S = 300.0
NON_BLACK = 16  # a pixel channel above this is not black
NOTES_IMPORTS = 6  # unknown imports named per program in the notes (--json has them all)
PROGRAM_SUFFIXES = (".prx", ".elf", ".pbp")
GE_ENQUEUE = ("sceGeListEnQueue", "sceGeListEnQueueHead")
ENDS = {"exit": "exit", "threads-ended": "exit", "sleeping": "exit", "max-seconds": "max-s",
        "timeout": "timeout", "fault": "fault", "break": "fault", "halt": "fault",
        "unknown-import": "import", "deadlock": "deadlock", "hle-error": "hle-error"}


@dataclass(frozen=True)
class SurveyRun:
    name: str
    folder: str  # the program's folder in the corpus
    program: str  # its file name in that folder
    max_seconds: float
    timeout: float
    presses: tuple
    out_dir: str  # where the screenshot, WAV and JSON report go


def find_programs(corpus: str) -> list[tuple[str, str, str]]:
    """(name, folder, program file) for each program folder of the corpus."""
    found = []
    for name in sorted(os.listdir(corpus)):
        folder = os.path.join(corpus, name)
        if not os.path.isdir(folder):
            continue
        files = sorted(os.listdir(folder))
        if "EBOOT.PBP" in files:
            found.append((name, folder, "EBOOT.PBP"))
            continue
        candidates = [f for f in files if f.lower().endswith(PROGRAM_SUFFIXES)]
        if len(candidates) == 1:
            found.append((name, folder, candidates[0]))
    return found


def survey_one(run: SurveyRun) -> dict:
    """Run one program with `allegrex run` in a child process; its results as plain data."""
    with tempfile.TemporaryDirectory(prefix="allegrex-survey-") as scratch:
        ms0 = os.path.join(scratch, "ms0")
        game = os.path.join(ms0, "PSP", "GAME", run.name)
        shutil.copytree(run.folder, game)
        for sub in ("SAVEDATA", "COMMON"):
            os.makedirs(os.path.join(ms0, "PSP", sub), exist_ok=True)
        out = {kind: os.path.join(run.out_dir, f"{run.name}.{kind}") for kind in ("png", "wav", "json", "out", "err")}
        for path in out.values():
            if os.path.exists(path):
                os.remove(path)
        cmd = [sys.executable, "-m", "allegrex", "run", os.path.join(game, run.program), "--ms0", ms0,
               "--max-seconds", str(run.max_seconds), "--timeout", str(run.timeout), "--quiet",
               "--screenshot", out["png"], "--audio", out["wav"], "--json", out["json"]]
        for press in run.presses:
            cmd += ["--press", press]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            proc = subprocess.run(cmd, cwd=str(ROOT), env=env, capture_output=True, text=True,
                                  errors="replace", timeout=run.timeout + HANG_GRACE_S)
            code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            code, stdout, stderr = None, _text(exc.stdout), _text(exc.stderr)
        for kind, text in (("out", stdout), ("err", stderr)):  # the guest's text and allegrex's messages
            with open(out[kind], "w", encoding="utf-8") as f:
                f.write(text)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        report = None
        if os.path.exists(out["json"]):
            with open(out["json"], encoding="utf-8") as f:
                report = json.load(f)
        return summarise(run.name, code, stderr, report, cpu, out["png"])


def _text(captured) -> str:
    return captured.decode("utf-8", "replace") if isinstance(captured, bytes) else (captured or "")


def summarise(name: str, code, stderr: str, report: dict | None, cpu: float, png: str) -> dict:
    row = {"name": name, "exit_code": code, "cpu_seconds": round(cpu, 2), "end": "", "detail": "",
           "simulated_seconds": None, "wall_seconds": None, "mips": None, "hle_share": None,
           "screen": screen_share(png), "audio_seconds": None, "ge_lists": 0, "unknown_imports": []}
    if code is None:
        row["end"], row["detail"] = "hang", f"killed {HANG_GRACE_S:g} s after its --timeout"
    elif "Traceback (most recent call last)" in stderr:
        row["end"], row["detail"] = "crash", last_line(stderr)
    elif report is None:
        row["end"], row["detail"] = ("refused" if code == 2 else "crash"), last_line(stderr)
    if report is None:
        return row
    run_cycles = report["cycles"] - report["idle_cycles"]
    row.update(
        end=row["end"] or ENDS.get(report["exit_reason"], report["exit_reason"] or "?"),
        detail=row["detail"] or (report["message"] or "").splitlines()[0],
        simulated_seconds=report["simulated_seconds"], wall_seconds=report["wall_seconds"],
        mips=report["instructions"] / report["wall_seconds"] / 1e6 if report["wall_seconds"] else None,
        hle_share=report["hle_cycles"] / run_cycles if run_cycles > 0 else None,
        audio_seconds=report["audio_seconds"], unknown_imports=report["unknown_imports"],
        ge_lists=sum(report["hle_calls"].get(f, 0) for f in GE_ENQUEUE))
    if row["end"] == "import":
        row["detail"] = row["detail"].replace("called unimplemented import ", "")
        if row["detail"].split(" ", 1)[0] in MEDIA_LIBRARIES:
            row["end"] = "codec"
    return row


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def screen_share(png: str) -> float | None:
    """Share of the screenshot's pixels that are not black; None without one."""
    if not os.path.exists(png):
        return None
    import numpy as np
    from PIL import Image
    pixels = np.asarray(Image.open(png).convert("RGB"))
    return float((pixels.max(axis=2) > NON_BLACK).mean())


def fmt(value, spec: str, empty: str = "-") -> str:
    return empty if value is None else format(value, spec)


def table(rows: list[dict]) -> str:
    head = f"{'program':<22} {'end':<9} {'sim s':>6} {'wall s':>6} {'cpu s':>6} {'MIPS':>6} {'HLE%':>5} " \
           f"{'scrn%':>6} {'audio s':>7} {'GE':>5} {'unk':>3}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['name'][:22]:<22} {r['end']:<9} {fmt(r['simulated_seconds'], '6.2f'):>6} "
                     f"{fmt(r['wall_seconds'], '6.1f'):>6} {fmt(r['cpu_seconds'], '6.1f'):>6} "
                     f"{fmt(r['mips'], '6.1f'):>6} {fmt(None if r['hle_share'] is None else 100 * r['hle_share'], '5.0f'):>5} "
                     f"{fmt(None if r['screen'] is None else 100 * r['screen'], '5.1f'):>6} "
                     f"{fmt(r['audio_seconds'], '7.2f'):>7} {r['ge_lists']:>5} {len(r['unknown_imports']):>3}")
    return "\n".join(lines)


def notes(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        if r["end"] not in ("max-s", "exit") or r["unknown_imports"]:
            lines.append(f"{r['name']}: {r['end']}: {r['detail']}")
            if r["unknown_imports"]:
                shown = [short_import(u) for u in r["unknown_imports"]]
                more = f" and {len(shown) - NOTES_IMPORTS} more" if len(shown) > NOTES_IMPORTS else ""
                lines.append(f"    not provided: {', '.join(shown[:NOTES_IMPORTS])}{more}")
    return "\n".join(lines)


def short_import(described: str) -> str:
    """'sceMpeg 0x682A619B (sceMpegInit)' -> 'sceMpeg.sceMpegInit' (the NID when unnamed)."""
    library, nid, name = described.split(" ", 2)
    name = name.strip("()")
    return f"{library}.{nid if name == 'unknown name' else name}"


def totals(rows: list[dict]) -> str:
    ends = {}
    for r in rows:
        ends[r["end"]] = ends.get(r["end"], 0) + 1
    drawn = sum(1 for r in rows if r["screen"])
    sounding = sum(1 for r in rows if r["audio_seconds"])
    return (f"{len(rows)} programs: " + ", ".join(f"{n} {e}" for e, n in sorted(ends.items(), key=lambda kv: -kv[1]))
            + f"; {drawn} show a non-black screen, {sounding} play sound, "
            f"{sum(1 for r in rows if r['ge_lists'])} enqueue GE lists")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("corpus", help="folder of program folders")
    p.add_argument("--only", nargs="*", default=[], help="just these program folders")
    p.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS, help="simulated seconds per program")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="wall-clock seconds per program")
    p.add_argument("--press", action="append", help=f"button presses (default {' '.join(DEFAULT_PRESSES)})")
    p.add_argument("--keep", metavar="DIR", help="keep each program's screenshot, WAV, JSON report, stdout (.out) "
                   "and stderr (.err) here")
    p.add_argument("--json", metavar="FILE", help="write the rows as JSON")
    jobs.add_arguments(p)
    args = p.parse_args(argv)
    programs = find_programs(args.corpus)
    if args.only:
        programs = [prog for prog in programs if prog[0] in args.only]
    if not programs:
        print(f"no programs in {args.corpus}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="allegrex-survey-out-") as scratch:
        out_dir = os.path.abspath(args.keep or scratch)
        os.makedirs(out_dir, exist_ok=True)
        runs = [SurveyRun(name, os.path.abspath(folder), program, args.max_seconds, args.timeout,
                          tuple(args.press or DEFAULT_PRESSES), out_dir) for name, folder, program in programs]

        def progress(index, outcome):
            r = outcome.value if outcome.ok else {"end": "crash", "detail": outcome.failure}
            print(f"  {runs[index].name}: {r['end']} {r.get('detail', '')[:100]}", file=sys.stderr, flush=True)

        outcomes = jobs.run_jobs(survey_one, runs, jobs.engine_from_args(args), on_done=progress)
    rows = [o.value if o.ok else {**summarise(run.name, -1, o.failure, None, 0.0, ""), "end": "crash",
                                  "detail": o.failure} for run, o in zip(runs, outcomes)]
    print(table(rows))
    print()
    print(totals(rows))
    print()
    print(notes(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
