"""Branch hints: the value passes through unchanged, and LLVM weighs the branch by it."""

import re

from numba import njit

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
