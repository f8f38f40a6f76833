"""Many independent runs at once: `run_jobs(func, jobs, engine)` calls `func(job)` for each
job, in this process (-j 1), in a local process pool (-j N) or on an existing Dask
distributed cluster (--dask ADDRESS), and returns the outcomes in the jobs' order, so a
command prints the same table whichever engine ran it.

    engine = engine_from_args(args)            # after add_arguments(parser)
    outcomes = run_jobs(run_test, tests, engine, on_done=print_progress)

A job is a picklable description (a frozen dataclass of paths and options) and `func` a
module-level function returning plain data; no simulator state crosses a process. A job
that raises, or whose worker process dies, becomes a failed Outcome and the others go on.
Time limits are the jobs' own (a simulation stops at its --timeout and says so).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

from allegrex.errors import AllegrexError

CLUSTER_EXTRA = "pip install -e '.[cluster]'"
DASK_CONNECT_SECONDS = 20  # how long to try reaching a scheduler before saying it cannot be reached


class JobsError(AllegrexError):
    """A bad engine choice, or a cluster that cannot be used."""


@dataclass(frozen=True)
class Engine:
    workers: int = 1  # local processes; 1 runs the jobs here, one after another
    dask: str | None = None  # address of a running Dask scheduler (tcp://host:8786)

    def describe(self) -> str:
        if self.dask:
            return f"Dask cluster at {self.dask}"
        return "this process" if self.workers == 1 else f"{self.workers} local processes"


@dataclass
class Outcome:
    value: Any = None  # what func returned
    failure: str | None = None  # one line when the job did not return: an exception, a dead worker

    @property
    def ok(self) -> bool:
        return self.failure is None


def cores() -> int:
    """The cores this process may use (the default -j)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def add_arguments(parser) -> None:
    """The engine options every many-run command shares."""
    parser.add_argument("-j", "--jobs", type=int, metavar="N",
                        help=f"run N simulations at once in local processes (default: the cores, {cores()} here)")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="run them on a running Dask distributed scheduler instead, e.g. tcp://host:8786 "
                        f"(needs the cluster extra: {CLUSTER_EXTRA}; the scheduler and workers need this "
                        "allegrex, the workers the same paths)")


def engine_from_args(args) -> Engine:
    jobs, dask = getattr(args, "jobs", None), getattr(args, "dask", None)
    if dask and jobs is not None:
        raise JobsError("-j and --dask exclude each other: with --dask the cluster's workers run the jobs")
    if jobs is not None and jobs < 1:
        raise JobsError(f"-j must be at least 1, got {jobs}")
    return Engine(dask=dask) if dask else Engine(workers=jobs or cores())


def run_jobs(func: Callable, jobs, engine: Engine = Engine(), on_done: Callable | None = None) -> list[Outcome]:
    """func(job) for every job; outcomes in the jobs' order. on_done(index, outcome) is
    called in this process as each job finishes (in finishing order), e.g. for progress."""
    jobs = list(jobs)
    outcomes: list[Outcome | None] = [None] * len(jobs)

    def finished(index: int, outcome: Outcome) -> None:
        outcomes[index] = outcome
        if on_done is not None:
            on_done(index, outcome)

    if engine.dask:
        _run_dask(func, jobs, engine.dask, finished)
    elif engine.workers == 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            finished(i, _call(func, job))
    else:
        _run_pool(func, jobs, min(engine.workers, len(jobs)), finished)
    return outcomes


def _call(func: Callable, job, code: str | None = None) -> Outcome:
    """Run one job where it landed; an exception becomes the job's failure, not the run's."""
    if code is not None and code != code_digest():
        return Outcome(failure="this worker runs a different allegrex (its sources differ from the client's)")
    try:
        return Outcome(func(job))
    except Exception as exc:  # a bug in allegrex or bad input: reported for this job alone
        return Outcome(failure=_one_line(exc))


def _one_line(exc: BaseException) -> str:
    where = traceback.extract_tb(exc.__traceback__)
    at = f" (at {os.path.basename(where[-1].filename)}:{where[-1].lineno})" if where else ""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}{at}" if not isinstance(exc, AllegrexError) else text


def _run_pool(func, jobs, workers: int, finished) -> None:
    """A local process pool with at most `workers` jobs in flight, so when a worker dies
    the jobs it may have been running are known: each runs again alone, and the one that
    kills its worker then is reported; the others are unaffected."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    import multiprocessing

    context = multiprocessing.get_context("spawn")  # a clean interpreter: no forked numba or threads
    waiting, suspects = deque(range(len(jobs))), deque()
    while waiting or suspects:
        alone = bool(suspects)
        queue, width = (suspects, 1) if alone else (waiting, workers)
        flying = {}
        with ProcessPoolExecutor(width, mp_context=context) as pool:
            try:
                while queue or flying:
                    while queue and len(flying) < width:
                        future = pool.submit(_call, func, jobs[queue[0]])  # raises if the pool broke
                        flying[future] = queue.popleft()  # so a job leaves the queue only once submitted
                    done, _ = wait(flying, return_when=FIRST_COMPLETED)
                    for future in done:
                        outcome = future.result()  # raises BrokenProcessPool if a worker died
                        finished(flying.pop(future), outcome)
            except BrokenProcessPool:
                for future in list(flying):  # those that returned before the break stand
                    if future.done() and not future.cancelled() and future.exception() is None:
                        finished(flying.pop(future), future.result())
                if alone:
                    for i in flying.values():
                        finished(i, Outcome(failure="the worker process died (killed, or crashed in native code)"))
                else:
                    suspects.extend(sorted(flying.values()))


def _run_dask(func, jobs, address: str, finished) -> None:
    """The jobs as tasks of a Dask distributed cluster; Dask retries a task whose worker
    died and gives up on it (KilledWorker) after its allowed-failures."""
    try:
        from distributed import Client, KilledWorker, as_completed
    except ImportError:
        raise JobsError(f"--dask needs Dask distributed: {CLUSTER_EXTRA}") from None
    try:
        client = Client(address, timeout=DASK_CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise JobsError(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    with client, client.as_current():  # as_completed finds the client it waits on
        threaded = {w: n for w, n in client.nthreads().items() if n > 1}
        if threaded:
            print(f"allegrex: {len(threaded)} Dask worker(s) run several threads; simulations share one "
                  "core per process: start workers with --nthreads 1", file=sys.stderr)
        code = code_digest()
        futures = [client.submit(_call, func, job, code, pure=False) for job in jobs]
        index = {f.key: i for i, f in enumerate(futures)}
        for future in as_completed(futures):
            try:
                outcome = future.result()
            except KilledWorker:
                outcome = Outcome(failure="its Dask worker died running it (killed, or crashed in native code)")
            except Exception as exc:  # a job the cluster could not run (e.g. it could not unpickle it)
                outcome = Outcome(failure="the cluster could not run it (does its worker have this allegrex "
                                  f"installed?): {_one_line(exc)}")
            finished(index[future.key], outcome)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """Digest of the simulator's sources (and the PSP-side code it builds), so a cluster
    worker with another allegrex is refused instead of giving other cycle counts."""
    from allegrex.sdk.build import REPO, _tree_digest
    return _tree_digest([REPO / "allegrex", REPO / "vfpu", REPO / "loader", REPO / "psp"])
