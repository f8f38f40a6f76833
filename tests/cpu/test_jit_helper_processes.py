"""Helper processes compile a new region's pieces into numba's cache while the machine
compiles the region (allegrex.cpu.jit.helper_processes)."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from allegrex.cpu import jit
from allegrex.cpu.jit import helper_processes as helpers, stored_key
from allegrex.cpu.jit.codegen import region_source
from allegrex.cpu.jit.piece_calls import PIECES_TYPE
from allegrex.cpu.jit.store import load, new_here, on_disk
from tests.cpu.test_jit import BASE, LONG_VFPU_BODY, load as load_words, machine, run_both, vfpu_loop

WORDS = vfpu_loop(40, LONG_VFPU_BODY)
ENTRY = BASE + 4 * 2  # the loop body's first word


def ran_compiled():
    """A machine that ran WORDS with their loop compiled, and the loop's Region."""
    m = machine(True)
    load_words(m, WORDS)
    m.step(10**7)
    ((_, region),) = m.jit.regions.values()
    return m, region


def fresh(region, tmp_path, monkeypatch, why):
    """The region's function from a new module file (under another key), in a cache folder
    in tmp_path: nothing of it is compiled, in this process or in numba's cache."""
    monkeypatch.setenv("ALLEGREX_CACHE", str(tmp_path))
    return load(lambda name: region_source(region, name, True, False), stored_key(region, True, False) + why)


@pytest.mark.parametrize("threads, started_as", [(1, "forked"), (2, "new interpreter")])
def test_a_helper_process_compiles_pieces_into_numbas_cache(tmp_path, monkeypatch, threads, started_as):
    if started_as == "forked" and not helpers.FORKS:
        pytest.skip("helpers are forked on Linux only")
    m, region = ran_compiled()
    fn = fresh(region, tmp_path, monkeypatch, f" (helper, {started_as})")
    assert new_here(fn)
    # a machine with other threads starts a new interpreter: a fork would copy only this
    # thread, and any lock another one held would stay held in the helper
    monkeypatch.setattr(helpers.threading, "active_count", lambda: threads)
    pieces = helpers.piece_types(fn, m._region_types)
    helper = helpers.start_helper(fn, pieces)
    assert isinstance(helper, helpers.Forked if started_as == "forked" else subprocess.Popen)
    assert helper.wait(timeout=300) == 0
    module = sys.modules[fn.py_func.__module__]
    for name, types in pieces:
        piece = getattr(module, name)
        assert not piece.signatures  # nothing of it compiled in this process...
        piece.compile(types)
        assert sum(piece.stats.cache_hits.values()) == 1 and not piece.stats.cache_misses  # ...but on disk


@pytest.mark.skipif(not helpers.FORKS, reason="helpers are forked on Linux only")
def test_a_forked_helper_that_fails_says_nothing_to_the_user_and_ends(tmp_path, monkeypatch, capfd):
    m, region = ran_compiled()
    fn = fresh(region, tmp_path, monkeypatch, " (failing helper)")
    helper = helpers.start_helper(fn, [("no_such_piece", ())])
    assert helper.wait(timeout=60) == 1
    assert capfd.readouterr() == ("", "")  # (its traceback went nowhere; the machine compiles the pieces)


def test_a_region_compiled_with_helpers_runs_as_interpreted(tmp_path, monkeypatch):
    monkeypatch.setenv("ALLEGREX_CACHE", str(tmp_path))
    monkeypatch.setattr(jit, "stored_key", lambda *key, stored=stored_key: stored(*key) + " (with helpers)")
    monkeypatch.setattr(helpers, "PIECES_PER_HELPER", 1)
    monkeypatch.setattr(helpers.os, "cpu_count", lambda: 2)
    started, count = [], helpers.helper_count
    monkeypatch.setattr(helpers, "helper_count", lambda pieces: started.append(count(pieces)) or started[-1])
    _, compiled, events = run_both(WORDS)
    assert started and started[0] == 1 and compiled.jit.instructions > 0.9 * compiled.instructions
    assert events[-1].kind == "break"


def test_the_first_helper_compiles_the_regions_own_function_while_the_machine_compiles_pieces(tmp_path, monkeypatch):
    m, region = ran_compiled()
    fn = fresh(region, tmp_path, monkeypatch, " (own function)")
    monkeypatch.setattr(helpers, "PIECES_PER_HELPER", 1)
    monkeypatch.setattr(helpers.os, "cpu_count", lambda: 2)
    types = m._region_types
    with helpers.compiling_alongside(fn, types, helpers.new_pieces(fn, types)) as alongside:
        assert len(alongside) == 1
        assert _until(lambda: on_disk(fn, (PIECES_TYPE, *types)), 300)  # (this process compiles nothing)
    assert not fn.signatures


def test_no_helper_starts_for_a_region_already_compiled():
    m, _ = ran_compiled()
    ((fn, _),) = m.jit.regions.values()
    with helpers.compiling_alongside(fn, m._region_types, helpers.new_pieces(fn, m._region_types)) as alongside:
        assert len(alongside) == 0


def test_claims_give_each_function_to_the_first_process_that_asks():
    claims = helpers.Claims()
    try:
        assert claims.take("a") and not claims.take("a")
        other = subprocess.run([sys.executable, "-c", "import os, sys\n"
                                "from allegrex.cpu.jit.helper_processes import Claims\n"
                                f"c = Claims({claims.folder!r})\n"
                                "print(os.getpid(), c.take('a'), c.take('b'))"], capture_output=True, text=True)
        pid, took_a, took_b = other.stdout.split()
        assert (took_a, took_b) == ("False", "True")
        assert (claims.taker("a"), claims.taker("b"), claims.taker("c")) == (os.getpid(), int(pid), None)
        assert not claims.take("b")
    finally:
        claims.remove()
    assert not os.path.exists(claims.folder)


def _state(pid: int) -> str:
    """A process's state letter ('R', 'S', 'Z'...), '' once it is gone (Linux /proc)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return ""


def _until(condition, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


STARTS_A_HELPER = """
import os, pickle, subprocess, sys
helper = subprocess.Popen([sys.executable, "-m", "allegrex.cpu.jit.helper_processes", str(os.getpid())],
                          stdin=subprocess.PIPE)
helper.stdin.write(pickle.dumps((sys.argv[1], "slow_region", [], None)))
helper.stdin.close()
print(helper.pid, flush=True)
sys.stdin.read()
"""


FORKS_A_HELPER = """
import sys, time, types
from allegrex.cpu.jit import helper_processes
class Slow:  # a 'piece' whose compile takes two minutes
    def compile(self, types):
        open(sys.argv[1], "w").close()
        time.sleep(120)
sys.modules["slow_region"] = region = types.ModuleType("slow_region")
region.slow = Slow()
fn = types.SimpleNamespace(py_func=types.SimpleNamespace(__module__="slow_region"))
print(helper_processes.start_helper(fn, [("slow", ())]).pid, flush=True)
sys.stdin.read()
"""


def _new_interpreter(tmp_path, started):
    region = tmp_path / "slow_region.py"  # a region module that takes two minutes to load
    region.write_text(f"import time\nopen({str(started)!r}, 'w').close()\ntime.sleep(120)\n")
    return [STARTS_A_HELPER, str(region)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signals are Linux's (prctl)")
@pytest.mark.parametrize("machine_script", [_new_interpreter, lambda tmp_path, started: [FORKS_A_HELPER, str(started)]],
                         ids=["new interpreter", "forked"])
def test_a_helper_dies_with_the_machine_that_started_it_even_when_that_is_killed(tmp_path, machine_script):
    started = tmp_path / "compiling"
    machine = subprocess.Popen([sys.executable, "-c", *machine_script(tmp_path, started)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    helper = int(machine.stdout.readline())
    try:
        assert _until(started.exists, 60)  # the helper is at work
        machine.kill()  # SIGKILL: the machine cannot stop its helper itself
        machine.wait()
        assert _until(lambda: _state(helper) in ("", "Z", "X"), 20)
    finally:
        machine.kill()
        if _state(helper) not in ("", "Z", "X"):
            os.kill(helper, signal.SIGKILL)


def test_a_helper_whose_machine_has_already_ended_exits_at_once():
    done = subprocess.run([sys.executable, "-c", "from allegrex.cpu.jit.helper_processes import end_with\n"
                           "end_with(1)  # not this process's parent\nprint('compiled on')"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (1, "") or not sys.platform.startswith("linux")
