"""`allegrex run` end to end on tiny programs: limits stop runaway programs with a clear
message, guest faults print the report and exit non-zero, bad input is one line."""

import json

import pytest

from allegrex.cli import main
from programs import LOAD_FROM_NULL, LOOP_FOREVER, RETURN, static_elf


@pytest.fixture
def program(tmp_path):
    def write(words, name="prog.elf"):
        path = tmp_path / name
        path.write_bytes(static_elf(words))
        return str(path)
    return write


def test_a_program_that_returns_exits_cleanly(program, capsys, tmp_path):
    report = tmp_path / "r.json"
    assert main(["run", program(RETURN), "--stats", "--json", str(report)]) == 0
    err = capsys.readouterr().err
    assert "exit: threads-ended" in err and "cycles:" in err and "at 222 MHz" in err
    data = json.loads(report.read_text())
    assert data["exit_reason"] == "threads-ended" and data["instructions"] >= 2


def test_infinite_loop_stops_at_max_seconds(program, capsys):
    assert main(["run", program(LOOP_FOREVER), "--max-seconds", "0.02", "--quiet"]) == 3
    err = capsys.readouterr().err
    assert "--max-seconds limit (0.02 simulated s)" in err


def test_infinite_loop_stops_at_the_wall_clock_timeout(program, capsys):
    assert main(["run", program(LOOP_FOREVER), "--timeout", "0.5", "--quiet"]) == 3
    assert "--timeout limit (0.5 wall-clock s)" in capsys.readouterr().err


def test_guest_fault_prints_the_report_and_exits_non_zero(program, capsys):
    assert main(["run", program(LOAD_FROM_NULL), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "0x08900000" in err.lower() or "08900000" in err


def test_same_program_same_cycles(program, tmp_path):
    counts = []
    for i in range(2):
        report = tmp_path / f"r{i}.json"
        main(["run", program(LOOP_FOREVER), "--max-seconds", "0.01", "--quiet", "--json", str(report)])
        counts.append(json.loads(report.read_text())["cycles"])
    assert counts[0] == counts[1]


def test_bad_input_is_one_clear_line(tmp_path, capsys):
    bogus = tmp_path / "x.prx"
    bogus.write_bytes(b"not a program")
    assert main(["run", str(bogus)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a PSP executable" in err[0]
    assert main(["run", str(tmp_path / "missing.pbp")]) == 2
    assert main(["run", str(bogus), "--press", "JUMP@1s"]) == 2
    capsys.readouterr()
    assert main(["run", str(tmp_path)]) == 2  # a folder, not the program in it
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a folder" in err[0]


@pytest.mark.parametrize("name", ["threads/alarm/alarm", "threads/vtimers/interrupt"])
def test_where_cpu_steps_end_changes_nothing_simulated(pspautotests, tmp_path, name):
    """Under --timeout the CPU's steps are sized from the host's measured speed, so the
    simulation must not depend on where they end: a program whose alarm and vtimer
    handlers interrupt it gives the same output, cycles and instructions in steps of 4M
    instructions and of 997."""
    import io
    import shutil

    from allegrex.commands.run import load_program
    from allegrex.hle.kernel import RunOptions
    prx = pspautotests / "tests" / f"{name}.prx"
    runs = []
    for chunk in (4_000_000, 997):
        game = tmp_path / str(chunk) / "PSP" / "GAME" / prx.stem
        shutil.copytree(prx.parent, game)
        out = io.StringIO()
        options = RunOptions(ms0=str(tmp_path / str(chunk)), program_path=str(game / prx.name), stdout=out,
                             stderr=io.StringIO())
        _, kernel = load_program(options.program_path, "psp-2000", options)
        stop = kernel.run(max_seconds=10, chunk=chunk)
        stats = kernel.stats()
        runs.append((stop.kind, out.getvalue(), stats["cycles"], stats["instructions"], stats["hle_calls"]))
    assert runs[0] == runs[1] and runs[0][0] == "exit"


def test_time_limits_must_be_positive_finite_numbers(program, capsys):
    for option in ("--max-seconds", "--timeout"):
        for value in ("nan", "inf", "-1", "0", "soon"):
            with pytest.raises(SystemExit) as exited:
                main(["run", program(RETURN), option, value])
            assert exited.value.code == 2
            err = capsys.readouterr().err
            assert f"argument {option}: '{value}' is not a positive, finite number of seconds" in err
            assert "Traceback" not in err


def test_the_wall_clock_timeout_is_checked_often_however_slow_the_cpu():
    """Under --timeout the CPU's steps are sized from the speed measured so far (about
    0.1 s each), so a slow guest (here a CPU of 1 MIPS, as the interpreter runs some VFPU
    code) stops near the limit: steps of 4M instructions overshot it by 4 s."""
    import time
    from allegrex.cpu.events import EV_BUDGET
    from allegrex.cpu.state import CYCLES, INSTRUCTIONS
    from helpers import make_kernel
    k = make_kernel()

    def slow_step(budget, max_cycles=None):
        counters = k.cpu.counters
        n = budget if max_cycles is None else max(1, min(budget, max_cycles - int(counters[CYCLES])))
        time.sleep(n / 1e6)
        counters[CYCLES] += n
        counters[INSTRUCTIONS] += n
        return EV_BUDGET

    k.machine.advance = slow_step
    started = time.monotonic()
    stop = k.run(timeout=0.5)
    assert stop.kind == "timeout" and 0.5 <= time.monotonic() - started < 0.8


def test_an_audio_file_that_cannot_be_written_is_one_clear_line(program, capsys, tmp_path):
    target = tmp_path / "missing" / "out.wav"
    assert main(["run", program(RETURN), "--audio", str(target), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write audio file" in err[0] and "out.wav" in err[0]


def test_a_silent_program_still_gets_a_wav_as_long_as_its_run(program, tmp_path):
    import wave
    wav, report = tmp_path / "out.wav", tmp_path / "r.json"
    assert main(["run", program(LOOP_FOREVER), "--max-seconds", "0.05", "--quiet", "--audio", str(wav),
                 "--json", str(report)]) == 3
    data = json.loads(report.read_text())
    with wave.open(str(wav)) as w:
        assert w.getnframes() == data["cycles"] // data["cpu_mhz"] * 44100 // 10**6 > 0
        assert not any(w.readframes(w.getnframes()))
    assert data["audio_seconds"] == 0


def test_a_hot_loop_compiled_in_the_background_changes_no_figure(program, capsys, tmp_path, monkeypatch):
    """allegrex run with a spare core: the loop's region compiles in a helper process while
    the run goes on, the run finishes the compile when it ends, and the next run enters the
    region at once; the report's figures are those of a run that compiles in line."""
    from allegrex.cpu import jit
    monkeypatch.setattr(jit, "stored_key", lambda *key, stored=jit.stored_key: stored(*key) + " (run command)")
    monkeypatch.setenv("ALLEGREX_CACHE", str(tmp_path / "cache"))  # (a region no other test compiled)
    monkeypatch.setenv("ALLEGREX_JIT_COMPILE_AFTER", "0")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    elf = program(LOOP_FOREVER)
    reports = []
    for run, background in enumerate(("1", "1", "0")):
        monkeypatch.setenv("ALLEGREX_JIT_BACKGROUND", background)
        report = tmp_path / f"r{run}.json"
        assert main(["run", elf, "--max-seconds", "0.05", "--json", str(report)]) == 3
        reports.append(json.loads(report.read_text()))
        err = capsys.readouterr().err
        if run == 0:  # a new region: a helper compiles it, and the run's end finishes the compile
            assert "in a helper process; interpreting it meanwhile" in err
            assert "finishing the compile of the hot loop" in err
        if run == 1:  # the cache has it: no helper
            assert "helper process" not in err
    figures = [{k: r[k] for k in ("cycles", "instructions", "idle_cycles", "hle_cycles", "counters")} for r in reports]
    assert figures[0] == figures[1] == figures[2]
