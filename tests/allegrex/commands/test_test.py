"""`allegrex test` on several engines: the same table (status, first difference, simulated
cycles, order) serially, with -j 2 and on a Dask cluster; the real PSP's .expected files
say which programs pass."""

import io
import re
import sys
from dataclasses import replace

import pytest

from allegrex.cli import main
from allegrex.commands.test import check_jobs, check_program, find_tests, print_table, run_tests
from allegrex.jobs import Engine, run_jobs

GLOBS = ["threads/alarm", "threads/vpl/create", "threads/lwmutex/try"]
TIMEOUT = 600  # wall-clock s: generous, a process's first run may compile the CPU loop


@pytest.fixture(scope="module")
def programs(pspautotests):
    root = pspautotests / "tests"
    return find_tests(str(root), GLOBS), str(root)


def run(tests, root, **options):
    return run_tests(tests, root, timeout=TIMEOUT, **options)


@pytest.fixture(scope="module")
def serial(programs):
    return run(*programs, stream=io.StringIO())


def without_wall_time(results):
    return [replace(r, seconds=0.0) for r in results]


def test_serial_run_passes_what_the_psp_printed(serial):
    assert [r.name for r in serial] == ["threads/alarm/alarm", "threads/alarm/cancel/cancel",
                                        "threads/alarm/refer/refer", "threads/alarm/set/set",
                                        "threads/lwmutex/try", "threads/vpl/create"]
    passed = {r.name for r in serial if r.status == "pass"}
    assert {"threads/alarm/alarm", "threads/lwmutex/try"} <= passed  # REQUIRED in test_pspautotests
    assert all(r.cycles > 0 for r in serial)


def test_dask_cluster_gives_the_serial_table(programs, serial, dask_scheduler, tmp_path, capsys):
    bad = tmp_path / "bad.prx"  # an unreadable program: an error row, and the others run
    bad.write_bytes(b"not an executable")
    (tmp_path / "bad.expected").write_text("")
    tests, root = programs
    distributed = run([*tests, str(bad)], root, stream=sys.stdout, engine=Engine(dask=dask_scheduler))
    assert without_wall_time(distributed[:-1]) == without_wall_time(serial)
    assert distributed[-1].status == "error" and distributed[-1].detail.startswith("not a PSP executable")
    progress = capsys.readouterr().out.splitlines()  # a line per program as it finishes
    assert sorted(line.split()[1] for line in progress) == sorted(r.name for r in distributed)
    assert {line.rsplit(" ", 1)[1] for line in progress} == {f"({n}/7)" for n in range(1, 8)}


def table(text):
    """The table's rows without the wall-clock seconds column."""
    rows = text[text.index("\ntest "):].splitlines()
    return [re.sub(r"  +\d+\.\d  ", "  ", row) for row in rows]


def test_cli_with_j2_prints_the_serial_table(pspautotests, serial, capsys):
    code = main(["test", str(pspautotests / "tests"), *GLOBS, "-j", "2", "--timeout", str(TIMEOUT)])
    assert code == (0 if all(r.status == "pass" for r in serial) else 1)
    printed = capsys.readouterr().out
    expected = io.StringIO()
    print_table(serial, expected)
    assert table(printed) == table(expected.getvalue())
    assert table(printed)[2].startswith("threads/alarm/alarm  ")


def test_a_program_past_its_timeout_fails_alone(programs, serial, dask_scheduler):
    jobs = check_jobs(*programs, timeout=TIMEOUT)[:2]
    late = replace(jobs[0], timeout=1e-6)  # stops at its first check of the wall clock
    out = run_jobs(check_program, [late, jobs[1]], Engine(dask=dask_scheduler))
    assert out[0].value.status == "fail" and "[timeout: stopped at the --timeout limit" in out[0].value.detail
    assert replace(out[1].value, seconds=0.0) == replace(serial[1], seconds=0.0)
