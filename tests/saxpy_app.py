"""The saxpy kernels of docs/benchmarking.md (psp/apps/saxpy) built for tests, and the
program run under the profiler: the shared subject of the profiler, debug-info and
kernel-bench tests."""

from pathlib import Path

from allegrex.sdk import build

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "psp" / "apps" / "saxpy"
SOURCES = [APP / "main.c", APP / "saxpy.c", APP / "saxpy.S"]


def build_saxpy(folder: Path, reps: int = 1, strip: bool = True):
    """(EBOOT.PBP, the unstripped ELF beside it) of a -g build whose main runs each
    kernel `reps` times; the EBOOT holds no symbols when strip (a release build, as
    third-party EBOOTs ship)."""
    eboot = build(SOURCES, Path(folder) / "EBOOT.PBP", title="saxpy", debug=True, strip=strip,
                  defines=[f"REPS={reps}"])
    return eboot, eboot.with_suffix(".elf")


def source_line(name: str, text: str) -> int:
    """The number of the first line of psp/apps/saxpy/<name> that contains `text`."""
    for n, line in enumerate((APP / name).read_text().splitlines(), 1):
        if text in line:
            return n
    raise AssertionError(f"{text!r} is not in {name}")


def profile_saxpy(eboot, symbols=None, calls=False, log_entries=0, os_tick=True):
    """Run the program under the profiler: (Profile, report, Stop, kernel)."""
    from allegrex.commands.profile import profile_run
    from allegrex.commands.run import load_program
    from allegrex.hle.kernel import RunOptions
    import io
    out = io.StringIO()
    machine, kernel = load_program(str(eboot), "psp-2000", RunOptions(program_path=str(eboot), stdout=out), symbols)
    if not os_tick:
        machine.timing.set_os_tick(False, machine.cycles)
    prof, report, stop = profile_run(machine, kernel, calls=calls, log_entries=log_entries)
    assert stop.kind == "exit" and "vfpu matches, vfpu2 matches" in out.getvalue(), (stop, out.getvalue())
    return prof, report, stop, kernel
