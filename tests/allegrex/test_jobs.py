"""allegrex.jobs: the same outcomes, in the jobs' order, whichever engine runs them; a job
that raises or kills its worker fails alone. The simulations' own determinism across
engines is checked where they are run: tests/allegrex/commands/test_test_command.py and
tests/bench/test_llama_bench.py."""

import argparse
import concurrent.futures
import threading
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from allegrex import jobs
from allegrex.jobs import Engine, JobsError, Outcome, run_jobs
from tests.allegrex.jobs_helpers import square_after, square_or_fail

# the first job is slow: with two workers the others finish before it
SLOW_FIRST = [(3, 2.0), (4, 0.0), (5, 0.0), (6, 0.0)]
MIXED = [2, -1, 3, -2, 4]  # -1 raises, -2 kills its worker


def test_serial_engine_runs_in_order_here():
    finished = []
    out = run_jobs(square_after, [(n, 0.0) for n in range(5)], Engine(), lambda i, o: finished.append(i))
    assert out == [Outcome(n * n) for n in range(5)]
    assert finished == [0, 1, 2, 3, 4]


def test_pool_returns_outcomes_in_the_jobs_order_not_the_finishing_order():
    finished = []
    out = run_jobs(square_after, SLOW_FIRST, Engine(workers=2), lambda i, o: finished.append(i))
    assert out == [Outcome(9), Outcome(16), Outcome(25), Outcome(36)]
    assert sorted(finished) == [0, 1, 2, 3] and finished[-1] == 0  # reported as they finished


def test_a_job_that_raises_fails_alone_with_one_line():
    out = run_jobs(square_or_fail, [2, -1, 3], Engine())
    assert [o.value for o in out] == [4, None, 9]
    assert out[1].failure.startswith("ValueError: no square for -1 here (at jobs_helpers.py:")
    assert "\n" not in out[1].failure


def test_a_worker_that_dies_fails_its_job_alone():
    out = run_jobs(square_or_fail, MIXED, Engine(workers=2))
    assert [o.value for o in out] == [4, None, 9, None, 16]
    assert out[1].failure.startswith("ValueError")
    assert out[3].failure.startswith("the worker process died")


class BreakingPool:
    """A stand-in process pool whose worker dies on job -2 and which finds itself broken
    when the next job is submitted, before that job's future has failed: the order a real
    pool sometimes shows under load."""

    def __init__(self, width, mp_context=None):
        self.broken = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def submit(self, call, func, job):
        if self.broken:
            raise BrokenProcessPool("a worker died")
        future = Future()
        if job == -2:
            self.broken = True  # its future fails a moment later, as the pool notices
            threading.Timer(0.2, future.set_exception, [BrokenProcessPool("a worker died")]).start()
        else:
            future.set_result(call(func, job))
        return future


def test_a_job_submitted_to_a_pool_found_broken_is_not_lost(monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", BreakingPool)
    out = run_jobs(square_or_fail, MIXED, Engine(workers=2))
    assert [o.value for o in out] == [4, None, 9, None, 16]
    assert out[3].failure.startswith("the worker process died")


def test_dask_cluster_gives_the_same_outcomes(dask_scheduler):
    engine = Engine(dask=dask_scheduler)
    assert run_jobs(square_after, SLOW_FIRST, engine) == run_jobs(square_after, SLOW_FIRST, Engine())
    out = run_jobs(square_or_fail, MIXED, engine)
    assert [o.value for o in out] == [4, None, 9, None, 16]
    assert out[1].failure.startswith("ValueError: no square for -1 here")
    assert out[3].failure.startswith("its Dask worker died")


def test_a_worker_with_other_sources_is_refused():
    assert jobs._call(square_or_fail, 3, jobs.code_digest()) == Outcome(9)
    refused = jobs._call(square_or_fail, 3, "0" * 32)
    assert refused.value is None and "different allegrex" in refused.failure


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch):
    pytest.importorskip("distributed", reason="the cluster extra is not installed")
    monkeypatch.setattr(jobs, "DASK_CONNECT_SECONDS", 1)
    with pytest.raises(JobsError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        run_jobs(square_or_fail, [1], Engine(dask="tcp://127.0.0.1:9"))


def parse(*argv):
    parser = argparse.ArgumentParser()
    jobs.add_arguments(parser)
    return jobs.engine_from_args(parser.parse_args(argv))


def test_engine_options():
    assert parse() == Engine(workers=jobs.cores())
    assert parse("-j", "3") == Engine(workers=3)
    assert parse("--dask", "tcp://h:8786") == Engine(dask="tcp://h:8786")
    with pytest.raises(JobsError, match="exclude each other"):
        parse("-j", "2", "--dask", "tcp://h:8786")
    with pytest.raises(JobsError, match="at least 1"):
        parse("-j", "0")
