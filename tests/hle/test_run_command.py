"""`allegrex run` end to end on tiny programs: limits stop runaway programs with a clear
message, guest faults print the report and exit non-zero, bad input is one line."""

import json

import pytest

pytest.importorskip("allegrex.machine", reason="needs the CPU")

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
