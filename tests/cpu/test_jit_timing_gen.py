"""Constant operands of a region's timing steps (allegrex.cpu.jit.timing_gen.value): int64
module globals, which numba reads as one constant of one type for any value."""

import numpy as np
from numba import types
from numba.core.typing.typeof import typeof

from allegrex.cpu.jit.timing_gen import value, value_globals


def test_a_constant_operand_is_a_global_the_module_defines_once():
    text = f"cycles = step(tm, {value(5)}, {value(-1)}, {value(5)}, {value(0)})\n"
    assert text == "cycles = step(tm, i64_5, i64_m1, i64_5, i64_0)\n"
    defined = {"np": np}
    exec("\n".join(value_globals(text)), defined)
    assert {k: v for k, v in defined.items() if k.startswith("i64_")} == {"i64_0": 0, "i64_5": 5, "i64_m1": -1}
    assert all(type(defined[k]) is np.int64 for k in ("i64_0", "i64_5", "i64_m1"))


def test_every_value_has_the_same_type_not_a_literal():
    # a bare literal is typed Literal[int](n): a called step would compile once per value
    assert {typeof(np.int64(n)) for n in (0, 5, -1, 2**40)} == {types.int64}
    assert value_globals("x_i64_5 + i64_55") == ["i64_55 = np.int64(55)"]  # whole names only
