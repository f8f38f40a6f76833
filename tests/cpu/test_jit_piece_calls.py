"""A region calls its pieces at their machine code's addresses, passed in as its first
argument (allegrex.cpu.jit.piece_calls): its own code holds no piece, it runs the same
when loaded from numba's cache by another process, and it is refused when a piece was
compiled for other types than the region passes it. With helper processes compiling
alongside (allegrex.cpu.jit.helper_processes), each function is compiled by one process."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import types as nt
from numba.core.errors import TypingError
from numba.core.typing.typeof import typeof

from allegrex.cpu.jit import helper_processes as helpers, piece_calls
from allegrex.cpu.jit.piece_calls import PIECE_RESULT, PIECES_TYPE, compile_region, piece_types
from tests.cpu.test_jit_helper_processes import fresh, ran_compiled

# A region in the shape jit.codegen writes: pieces named after it, taking some of its
# arguments and int64 locals, called through call_piece at pieces[k] (compiled without the
# wrappers a Python caller would need: nothing calls a piece but its region), each returning
# PIECE_RESULT's int64s (here two, and zeros for the rest).
ZEROS = ", 0" * (len(PIECE_RESULT) - 2)
REGION = f'''
import numpy as np
from numba import njit
from allegrex.cpu.jit.piece_calls import call_piece

PIECE_STATEMENTS = (2, 1)  # the statements in each piece's text, as codegen counts them

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def r_piece0(a, acc):
    for x in a:
        acc += x
    return acc, acc * 2{ZEROS}

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def r_piece1(a, acc):
    return acc - a[0], acc{ZEROS}

@njit(cache=True)
def r(pieces, a, n):
    acc = np.int64(n)
    twice = np.int64(0)
    for _ in range(3):
        out = call_piece(r_piece0, pieces[0], a, acc)
        acc, twice = out[0], out[1]
        acc = call_piece(r_piece1, pieces[1], a, acc)[0]
    return acc + twice
'''
A = np.array([3, -1, 4, 1, 5], dtype=np.int64)
TYPES = (typeof(A), nt.int64)


def expected(a, n):
    acc, twice = n, 0
    for _ in range(3):
        acc += int(a.sum())
        twice = 2 * acc
        acc -= int(a[0])
    return acc + twice


def region_module(folder, name="region_under_test", text=REGION):
    """The REGION module (or `text`), from a file in `folder` (numba caches beside it)."""
    path = folder / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_a_region_calls_its_pieces_at_their_addresses(tmp_path):
    module = region_module(tmp_path)
    assert piece_types(module.r, TYPES) == [("r_piece0", TYPES), ("r_piece1", TYPES)]
    entry = compile_region(module.r, TYPES)
    assert entry(A, 7) == expected(A, 7)
    assert entry(A[::-1].copy(), -2) == expected(A[::-1], -2)


def test_pieces_are_compiled_the_largest_first_by_their_statements(tmp_path):
    module = region_module(tmp_path, "region_in_order")
    listed = piece_types(module.r, TYPES)
    assert [name for name, _ in piece_calls.largest_first(module.r, listed)] == ["r_piece0", "r_piece1"]
    module.PIECE_STATEMENTS = (1, 5)
    assert [name for name, _ in piece_calls.largest_first(module.r, listed)] == ["r_piece1", "r_piece0"]


def test_the_regions_code_holds_no_piece(tmp_path):
    module = region_module(tmp_path, "region_without_pieces")
    compile_region(module.r, TYPES)
    text = module.r.inspect_llvm((PIECES_TYPE, *TYPES))
    assert "region_without_pieces" in text and "r_piece" not in text
    assert "r_piece0" in module.r_piece0.inspect_llvm(TYPES)


def test_a_region_loaded_from_numbas_cache_by_another_process_runs_the_same(tmp_path):
    compile_region(region_module(tmp_path, "region_cached").r, TYPES)
    script = f"""
import sys
sys.path.insert(0, {str(tmp_path)!r})
import numpy as np
from numba.core.typing.typeof import typeof
from numba import types as nt
import region_cached as m
from allegrex.cpu.jit.piece_calls import compile_region
a = np.array({A.tolist()!r}, dtype=np.int64)
entry = compile_region(m.r, (typeof(a), nt.int64))
hits = [sum(f.stats.cache_hits.values()) for f in (m.r, m.r_piece0, m.r_piece1)]
misses = [sum(f.stats.cache_misses.values()) for f in (m.r, m.r_piece0, m.r_piece1)]
print(entry(a, 11), hits, misses)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split(None, 1) == [str(expected(A, 11)), "[1, 1, 1] [0, 0, 0]\n"]


def test_a_region_that_passes_a_piece_other_types_than_piece_types_says_is_refused(tmp_path):
    # piece_types takes a piece's arguments that are not the region's for int64 locals
    mistyped = REGION.replace("acc = call_piece(r_piece1, pieces[1], a, acc)", "acc = call_piece(r_piece1, pieces[1], a, acc * 0.5)")
    module = region_module(tmp_path, "region_mistyped", mistyped)
    with pytest.raises(TypingError, match="takes acc as an int64 local"):
        compile_region(module.r, TYPES)


def test_a_piece_that_returns_other_than_what_its_region_reads_is_refused(tmp_path):
    module = region_module(tmp_path, "region_short_piece", REGION.replace(f"acc - a[0], acc{ZEROS}", "acc - a[0], acc"))
    with pytest.raises(RuntimeError, match="r_piece1 returns"):
        compile_region(module.r, TYPES)


def test_typing_a_region_compiles_none_of_its_pieces(tmp_path):
    # (so a helper process can compile the region's function while the machine compiles the pieces)
    module = region_module(tmp_path, "region_alone")
    module.r.compile((PIECES_TYPE, *TYPES))
    assert not module.r_piece0.signatures and not module.r_piece1.signatures


def test_piece_types_are_the_types_a_generated_region_compiles_its_pieces_for(tmp_path, monkeypatch):
    m, region = ran_compiled()
    fn = fresh(region, tmp_path, monkeypatch, " (types)")
    compile_region(fn, m._region_types)
    pieces = piece_calls.piece_types(fn, m._region_types)
    assert len(pieces) >= 2
    module = sys.modules[fn.py_func.__module__]
    for name, types in pieces:
        assert getattr(module, name).signatures == [types]


def compiled_here(f) -> tuple:
    """(compiles, loads from numba's cache) of dispatcher f in this process."""
    return sum(f.stats.cache_misses.values()), sum(f.stats.cache_hits.values())


def test_with_a_helper_alongside_each_function_is_compiled_once_and_what_it_took_is_loaded(tmp_path):
    module = region_module(tmp_path, "region_shared")
    claims = helpers.Claims()
    # the helper takes the region's own function first, as compiling_alongside's first does
    helper = helpers.start_helper(module.r, [("r", (PIECES_TYPE, *TYPES)), ("r_piece1", TYPES), ("r_piece0", TYPES)],
                                  claims=claims)
    alongside = helpers.Alongside([helper], claims)
    try:
        entry = compile_region(module.r, TYPES, alongside)
        takers = {name: claims.taker(name) for name in ("r", "r_piece0", "r_piece1")}
    finally:
        alongside.stop()
    assert entry(A, 7) == expected(A, 7)
    assert takers["r"] == helper.pid  # (this process reached it after both pieces: it waited)
    for f in (module.r, module.r_piece0, module.r_piece1):
        assert takers[f.__name__] in (os.getpid(), helper.pid)
        assert compiled_here(f) == ((1, 0) if takers[f.__name__] == os.getpid() else (0, 1))
    assert not os.path.exists(claims.folder)


def test_what_a_helper_took_and_left_uncompiled_is_compiled_here(tmp_path):
    module = region_module(tmp_path, "region_left")
    claims = helpers.Claims()
    helper = subprocess.Popen([sys.executable, "-c", "from allegrex.cpu.jit.helper_processes import Claims\n"
                               f"Claims({claims.folder!r}).take('r_piece0')  # and ends"])
    assert helper.wait(timeout=60) == 0 and claims.taker("r_piece0") == helper.pid
    alongside = helpers.Alongside([helper], claims)
    try:
        entry = compile_region(module.r, TYPES, alongside)
    finally:
        alongside.stop()
    assert entry(A, 7) == expected(A, 7)
    assert compiled_here(module.r_piece0) == (1, 0)
