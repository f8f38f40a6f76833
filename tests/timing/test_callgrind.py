"""The profile exported for standard viewers: a callgrind file read back by valgrind's
own callgrind_annotate and by a reader written from the format's specification, and a
speedscope file of the call stacks over time. Their totals are the run's; the call
graph the run loop tracked agrees with the per-address profile."""

import json
import re
import shutil
import subprocess

import pytest

from allegrex.cli import main
from allegrex.timing.callgrind import EVENTS, write_callgrind
from allegrex.timing.speedscope import speedscope_document
from tests.saxpy_app import build_saxpy, profile_saxpy
from tests.timing.callgrind_reader import read

REPS = 3  # each kernel runs 3 times in a row
KERNELS = ("saxpy_c", "saxpy_vfpu", "saxpy_vfpu2")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("callgrind")
    eboot, elf = build_saxpy(folder, reps=REPS)
    prof, report, _, _ = profile_saxpy(eboot, symbols=elf, calls=True, log_entries=10_000, os_tick=False)
    path = folder / "saxpy.callgrind"
    write_callgrind(path, prof, report, command=str(eboot))
    return prof, report, path, (eboot, elf)


def _run_totals(report) -> dict:
    """The run's own count of every exported event."""
    out = {"Cycles": report["cycles"], "Instructions": report["instructions"], "HLE": report["stalls"]["syscalls"],
           "ICacheMiss": report["caches"]["icache_misses"], "DCacheMiss": report["caches"]["dcache_misses"]}
    for name, cost, _ in EVENTS:
        if cost in report["stalls"]:
            out[name] = report["stalls"][cost]
    return out


def test_callgrind_annotate_reads_the_runs_totals(run):
    """valgrind's callgrind_annotate sums the file's costs itself (no totals line is
    written) and must find the run's cycles, instructions, stalls and misses."""
    tool = shutil.which("callgrind_annotate")
    if tool is None:
        pytest.skip("valgrind's callgrind_annotate is not installed (the reader below still checks the file)")
    _, report, path, _ = run
    done = subprocess.run([tool, str(path)], capture_output=True, text=True)
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
    line = next(x for x in done.stdout.splitlines() if "PROGRAM TOTALS" in x)
    counts = line.split("PROGRAM")[0] + " "
    values = [int(v.replace(",", "")) for v in re.findall(r"([\d,]+)(?: \(100\.0%\))?\s", counts)]
    names = [name for name, _, _ in EVENTS]
    assert dict(zip(names, values)) == _run_totals(report)
    inclusive = subprocess.run([tool, "--inclusive=yes", str(path)], capture_output=True, text=True).stdout
    assert re.search(r"saxpy\.S:saxpy_vfpu2 ", inclusive)


def test_the_files_costs_add_up_event_by_event(run):
    _, report, path, _ = run
    data = read(path)
    assert data.positions == ["instr", "line"] and data.totals is None
    assert dict(zip(data.events, data.total())) == _run_totals(report)


def test_each_kernel_calls_inclusive_cost_is_its_own_self_cost(run):
    """Two mechanisms: the run loop's call tracking (calls= lines) and the per-address
    profile (the callee's own lines). For a leaf called only from main they must agree
    on every event, and on the number of calls."""
    data = read(run[2])
    for name in KERNELS:
        count, inclusive = data.calls[("main", name)]
        assert count == REPS
        assert inclusive == data.self_costs[name], name


def test_an_hle_call_is_a_function_whose_cost_is_its_service(run):
    """printf ends in sceIoWrite: its stub is a function of its own in the file, its
    HLE cycles on it, called from the C library."""
    data = read(run[2])
    hle = data.events.index("HLE")
    assert data.self_costs["sceIoWrite"][hle] > 0
    assert any(callee == "sceIoWrite" for _, callee in data.calls)


def test_speedscope_frames_nest_and_time_the_calls(run):
    """Each kernel opens REPS times; with the OS tick off a call's span in simulated
    time is its cycle count (cycles / MHz), which the callgrind file also has."""
    prof, report, path, _ = run
    doc = speedscope_document(prof, "saxpy")
    json.dumps(doc)  # a plain JSON document
    frames = [f["name"] for f in doc["shared"]["frames"]]
    profile = doc["profiles"][0]
    stack, spans, last = [], {}, 0.0
    for e in profile["events"]:
        assert e["at"] >= last
        last = e["at"]
        if e["type"] == "O":
            stack.append((e["frame"], e["at"]))
        else:
            frame, start = stack.pop()
            assert frame == e["frame"]  # closes the innermost open frame
            spans.setdefault(frames[frame], []).append(e["at"] - start)
    assert not stack and profile["endValue"] == pytest.approx(report["seconds"] * 1e9, abs=1e-3)
    data = read(path)
    cycles = data.events.index("Cycles")
    mhz = prof.machine.timing.cpu_mhz
    for name in KERNELS:
        assert len(spans[name]) == REPS
        assert round(sum(spans[name]) * mhz / 1000) == data.calls[("main", name)][1][cycles]


def test_the_command_writes_both_files(run, tmp_path, capsys):
    eboot, elf = run[3]
    cg, ss = tmp_path / "p.callgrind", tmp_path / "p.json"
    assert main(["profile", str(eboot), "--symbols", str(elf), "--quiet", "--top", "3", "--callgrind", str(cg),
                 "--speedscope", str(ss)]) == 0
    assert "saxpy_c" in capsys.readouterr().out
    assert read(cg).calls[("main", "saxpy_vfpu")][0] == REPS
    assert json.loads(ss.read_text())["profiles"][0]["type"] == "evented"


def test_an_unwritable_file_is_one_line(run, capsys):
    eboot, elf = run[3]
    assert main(["profile", str(eboot), "--quiet", "--callgrind", "/nonexistent/x.callgrind"]) != 0
    err = capsys.readouterr().err
    assert "cannot write /nonexistent/x.callgrind" in err and len(err.strip().splitlines()) == 1
