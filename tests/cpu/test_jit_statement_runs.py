"""Runs of a piece's simple statements lowered as one intrinsic (jit.statement_runs): which
statements form runs, and that a run computes what numba computes from the same text."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from allegrex.cpu.jit.statement_runs import MIN_STATEMENTS, Run, runs_in, statement_run

SCALE = np.int64(3)  # an np.int64 global: an int64, as numba types it
SHIFT = 2  # a Python int global: a literal, as a piece's passes type it


@njit
def step(t, due, n, k):
    """A timing step's shape: a tuple back, a bare-number operand."""
    return t + n * k, due - 1, t + SHIFT


@njit
def count(table, slot):
    table[slot] += 1


# Every kind of statement and expression a run lowers, as a piece's text writes them.
TEXT = """\
# a word's call and its timing step
count(table, 0)
t, due, done = step(t, due, 4, SCALE)
t += step(t, due, 1, i)[0]
a, b = b, a
table[1] = (np.int64(words[2]) + 16) & 0xFFFFFFFF
x = -a if a < 0 else a
if 0 <= i < 5 and not (b == 3):
    x = x + max(a, b) - min(t, 9)
else:
    x = ~x
if table[0] > limit:
    code = 7
    break
code = x << SHIFT
"""
INPUTS = ("table", "t", "due", "i", "a", "b", "words", "limit", "code")
OUTPUTS = ("t", "due", "done", "a", "b", "x", "code")

run_of_text = statement_run(__name__, TEXT, INPUTS, OUTPUTS)


@njit
def lowered(table, t, due, i, a, b, words, limit, code):
    return run_of_text(table, t, due, i, a, b, words, limit, code)


def _as_numba_compiles_it():
    """The same text compiled by numba: a `break` leaves the loop around it."""
    body = "\n".join("        " + line for line in TEXT.splitlines())
    source = (f"def typed_by_numba({', '.join(INPUTS)}):\n    left = True\n    done = t\n    x = a\n"
              f"    while True:\n{body}\n        left = False\n        break\n"
              f"    return (left, {', '.join(OUTPUTS)})\n")
    space = dict(globals())
    exec(source, space)
    return njit(space["typed_by_numba"])


by_numba = _as_numba_compiles_it()


@pytest.mark.parametrize("i, a, b, limit", [(2, -5, 3, 10), (4, 6, 1, 10), (7, 2, 8, 10), (3, 6, 1, 0),
                                            (0, 0, 0, -1)])
def test_a_run_computes_what_numba_computes_from_the_same_text(i, a, b, limit):
    words = np.array([1, 2, 0xFFFFFFF8, 4], dtype=np.uint32)
    ours, theirs = np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    got = lowered(ours, 100, 9, i, a, b, words, limit, -1)
    want = by_numba(theirs, 100, 9, i, a, b, words, limit, -1)
    assert got == want
    assert ours.tolist() == theirs.tolist()


def test_a_run_that_may_break_returns_whether_it_did_first():
    table = np.zeros(4, dtype=np.int64)
    words = np.zeros(4, dtype=np.uint32)
    left, *_, code = lowered(table, 0, 0, 1, 1, 1, words, -1, 0)
    assert left and code == 7  # table[0] became 1 > -1: the exit's branch ran
    left, *_, code = lowered(table, 0, 0, 1, 1, 1, words, 99, 0)
    # t = 0 + 4 * 3 = 12, then 12 + (12 + 1 * 1) = 25; x = 1 + max(1, 1) - min(25, 9) = -7; code = -7 << 2
    assert not left and code == -28


def test_what_a_run_reads_first_and_writes():
    run = Run(TEXT)
    assert run.read_first[:4] == ["count", "table", "step", "t"]
    assert {"limit", "words", "SCALE", "SHIFT", "np", "max", "min"} <= set(run.read_first)
    assert run.written == ["t", "due", "done", "a", "b", "x", "code"]
    assert run.breaks


def test_runs_are_cut_where_a_statement_is_not_simple():
    lines = ["# first word", "a = f(1, b)", "g(a)", "for k in range(3):", "    h(k)", "c = d", "y = 1.5",
             "# last word", "e = f(c)", "z = e + 1"]
    assert runs_in(lines) == [(True, ["# first word", "a = f(1, b)", "g(a)"]),
                              (False, ["for k in range(3):", "    h(k)"]),
                              (False, ["c = d"]),  # a lone simple statement stays numba's
                              (False, ["y = 1.5"]),  # a float constant is not a run's
                              (True, ["# last word", "e = f(c)", "z = e + 1"])]
    assert MIN_STATEMENTS == 2


def test_a_run_refuses_text_that_is_not_simple_statements():
    with pytest.raises(ValueError, match="not a run"):
        Run("while True:\n    f()")
    run = statement_run(__name__, "a = abs(b)\nc = a", ("b",), ("d",))

    @njit
    def uses(b):
        return run(b)

    with pytest.raises(ValueError, match="neither writes nor is given"):
        uses(1)


def test_a_name_that_is_neither_local_nor_global_is_a_clear_typing_error():
    run = statement_run(__name__, "x = no_such_name + 1\ny = x", (), ("y",))

    @njit
    def uses():
        return run()

    with pytest.raises(TypingError, match="no_such_name is neither a local of the statement run nor a module global"):
        uses()
