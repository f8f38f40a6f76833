"""Helper processes compile a new region's pieces into numba's cache while the machine
compiles the region (allegrex.cpu.jit.helper_processes)."""

import pickle
import subprocess
import sys

from allegrex.cpu import jit
from allegrex.cpu.jit import helper_processes as helpers, stored_key
from allegrex.cpu.jit.codegen import region_source
from allegrex.cpu.jit.store import load, new_here
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


def test_a_helper_process_compiles_pieces_into_numbas_cache(tmp_path, monkeypatch):
    m, region = ran_compiled()
    fn = fresh(region, tmp_path, monkeypatch, " (helper)")
    assert new_here(fn)
    pieces = helpers.piece_types(fn, m._region_types)
    module = sys.modules[fn.py_func.__module__]
    done = subprocess.run([sys.executable, "-m", "allegrex.cpu.jit.helper_processes"], capture_output=True,
                          input=pickle.dumps((module.__file__, module.__name__, pieces)))
    assert done.returncode == 0, done.stderr.decode()
    for name, types in pieces:
        piece = getattr(module, name)
        piece.compile(types)
        assert sum(piece.stats.cache_hits.values()) == 1 and not piece.stats.cache_misses


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


def test_no_helper_starts_for_a_region_already_compiled():
    m, _ = ran_compiled()
    ((fn, _),) = m.jit.regions.values()
    with helpers.compiling_alongside(fn, helpers.new_pieces(fn, m._region_types)) as started:
        assert started == 0
