"""A new region compiles in a helper process while the machine interprets its loop, and
runs compiled once the helper is done; the results never depend on when that happens
(allegrex.cpu.jit.background)."""

from allegrex.cpu import jit
from allegrex.cpu.jit import background as bg, stored_key
from allegrex.cpu.jit.piece_calls import PIECES_TYPE
from allegrex.cpu.jit.store import on_disk
from tests.cpu.test_jit import float_mac, load, machine, same_state

WORDS = float_mac(20_000)  # one loop: its region is one small function (a few s in a helper)


def fresh_regions(tmp_path, monkeypatch, why):
    """Regions written to a cache folder in tmp_path under keys no other test uses: nothing of
    them is compiled, in this process or on disk. Asking again every 5 turns."""
    monkeypatch.setenv("ALLEGREX_CACHE", str(tmp_path))
    monkeypatch.setattr(jit, "stored_key", lambda *key, stored=stored_key: stored(*key) + why)
    monkeypatch.setattr(jit, "RECHECK_AFTER", 5)


def background_machine():
    m = machine(True)
    m.jit.background = bg.Background()
    load(m, WORDS)
    return m


def interpreted():
    m = machine(False)
    load(m, WORDS)
    events = [m.step(10**7)]
    return m, events


def test_the_loop_is_interpreted_while_a_helper_compiles_it_then_runs_compiled_with_the_same_results(
        tmp_path, monkeypatch):
    m, job = helper_started(tmp_path, monkeypatch, " (background)")  # the loop turned hot
    events = []
    for _ in range(20):  # the helper takes seconds: these turns are the interpreter's
        events.append(m.step(500))
    assert m.jit.entered == 0 and not job.done()
    assert job.proc.wait(timeout=300) == 0
    events.append(m.step(10**7))
    assert events[-1].kind == "break"  # (the steps before all ended on their budgets)
    assert m.jit.entered > 0 and m.jit.instructions > 0.5 * m.instructions
    assert m.jit.background.job is None
    a, ea = interpreted()
    assert ea[-1] == events[-1]
    same_state(a, m)


def test_a_region_already_in_numbas_cache_starts_no_helper(tmp_path, monkeypatch):
    fresh_regions(tmp_path, monkeypatch, " (cached)")
    first = machine(True)  # compiles it here, into the cache
    load(first, WORDS)
    first.step(10**7)
    jit.SCANS.clear()
    m = background_machine()
    m.step(10**7)
    assert m.jit.background.job is None and m.jit.background.missing == set()
    assert m.jit.instructions > 0.9 * m.instructions


def test_without_a_helper_process_the_machine_compiles_the_region_itself(tmp_path, monkeypatch):
    fresh_regions(tmp_path, monkeypatch, " (no helper)")
    monkeypatch.setattr(bg, "start_helper", lambda *_: None)
    m = background_machine()
    m.step(10**7)
    assert m.jit.instructions > 0.9 * m.instructions


def helper_started(tmp_path, monkeypatch, why):
    """A machine whose loop has just turned hot, and the helper compiling its region."""
    fresh_regions(tmp_path, monkeypatch, why)
    m = background_machine()
    while m.jit.background.job is None:
        m.step(500)
    return m, m.jit.background.job


def test_finishing_compiles_the_helpers_region_here_and_stops_the_helper(tmp_path, monkeypatch):
    m, job = helper_started(tmp_path, monkeypatch, " (finished)")
    m.finish_compiles()
    assert job.done() and m.jit.background.job is None
    assert on_disk(job.fn, (PIECES_TYPE, *job.types))


def test_stopping_leaves_the_region_to_a_later_run(tmp_path, monkeypatch):
    m, job = helper_started(tmp_path, monkeypatch, " (stopped)")
    m.stop_compiles()
    assert job.done() and job.proc.returncode != 0 and m.jit.background.job is None


def test_allegrex_run_compiles_in_the_background_only_with_a_spare_core(monkeypatch):
    monkeypatch.setattr(bg.os, "cpu_count", lambda: 2)
    monkeypatch.delenv("ALLEGREX_JIT_BACKGROUND", raising=False)
    assert bg.wanted()
    monkeypatch.setenv("ALLEGREX_JIT_BACKGROUND", "0")
    assert not bg.wanted()
    monkeypatch.delenv("ALLEGREX_JIT_BACKGROUND")
    monkeypatch.setattr(bg.os, "cpu_count", lambda: 1)
    assert not bg.wanted()
