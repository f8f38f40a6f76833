"""Hints to LLVM: a branch hint passes its value through unchanged and LLVM weighs the
branch by it; a call that must not be inlined stays a call, with the helper's result."""

import re

from numba import njit

from allegrex.cpu.called import called, not_inlined
from allegrex.cpu.hints import likely, unlikely


@njit
def _likely(x):
    if likely(x > 0):
        return 1
    return 2


@njit
def _unlikely(x):
    if unlikely(x > 0):
        return 1
    return 2


def test_a_hint_changes_no_value():
    assert (_likely(5), _likely(-5)) == (1, 2)
    assert (_unlikely(5), _unlikely(-5)) == (1, 2)


def _weights(fn):
    """(weight of the taken side, of the other) of the one branch LLVM weighed from a hint."""
    fn(1)
    (ir,) = fn.inspect_llvm().values()
    branch = re.search(r"br i1 %[\w.]+, label %([\w.]+), label %([\w.]+), !prof !(\d+)", ir)
    weights = re.search(rf"!{branch.group(3)} = !{{!\"branch_weights\", !\"expected\", i32 (\d+), i32 (\d+)}}", ir)
    return int(weights.group(1)), int(weights.group(2))


def test_llvm_weighs_the_branch_each_way():
    """The same test, hinted each way: one side weighed far heavier, and the other side
    when the hint is the other."""
    first, second = _weights(_likely)
    assert max(first, second) >= 100 * min(first, second)
    assert _weights(_unlikely) == (second, first)


def _small(x, y):
    return x * 3 + y  # what LLVM inlines at any call, left to itself


_small_rare = not_inlined(called(_small), "_small_rare")


@njit
def _twice_plain(x):
    return _small(x, 1) + _small(x, 2)


_small = njit(_small)


@njit
def _twice_not_inlined(x):
    return _small_rare(x, 1) + _small_rare(x, 2)


def _calls_to(fn, name):
    """The call instructions in fn's optimised LLVM IR to functions whose name holds `name`."""
    (ir,) = fn.inspect_llvm().values()
    return re.findall(rf"call [^\n]*@\"?_ZN[^\n(]*{name}", ir)


def test_a_not_inlined_helper_gives_its_result_and_stays_a_call_at_every_site():
    assert _twice_not_inlined(5) == _twice_plain(5) == 5 * 3 + 1 + 5 * 3 + 2
    assert _calls_to(_twice_plain, "_small") == []  # the plain helper: inlined at both calls
    assert len(_calls_to(_twice_not_inlined, "_small")) == 2
