"""Numba functions compiled once per argument type: the copies of inline="always" helpers
that compiled code calls instead of inlining, and the loops recompiled to call them.

Numba inlines an inline="always" helper by re-typing its code at every call site, which
made large functions compile quadratically; an ordinary call is typed once and LLVM still
inlines the small ones when it links the caller. But a plain njit function called with a
constant (an instruction's pc, a system call's code) is compiled once per distinct
literal: `access` was compiled 76 times in four small regions. TypedCall compiles once
per unliteral argument type; LLVM still sees the constants when it inlines the call.
"""

import types as pytypes

from numba import njit, types
from numba.core.dispatcher import Dispatcher
from numba.core.registry import CPUDispatcher

from allegrex.cpu.hints import not_inlined_call


class TypedCall(CPUDispatcher):
    """A numba dispatcher that types a call by its arguments' types, never their values."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(map(types.unliteral, args)),
                                         {k: types.unliteral(v) for k, v in kws.items()})


def called(helper, **options) -> TypedCall:
    """A TypedCall of `helper` (a numba function or plain Python), compiled in nopython
    mode with the given numba options."""
    return TypedCall(py_func=getattr(helper, "py_func", helper), locals={},
                     targetoptions={"nopython": True, **options})


def _not_inlined(*args):
    return call(*args)  # noqa: F821 (`call` is bound by not_inlined)


def not_inlined(helper, name: str) -> TypedCall:
    """A called copy of numba function `helper` named `name` whose calls LLVM never inlines
    (hints.not_inlined_call): for a rare path that LLVM would otherwise copy to every call."""
    return called(rebound(_not_inlined, name, {"call": not_inlined_call(helper)}))


def rebound(source, name: str, replaced: dict):
    """A copy of Python function `source` named `name`, with some of its module's names
    replaced (numba reads a function's globals when it compiles or inlines it)."""
    fn = pytypes.FunctionType(source.__code__, dict(source.__globals__, **replaced), name, source.__defaults__,
                              source.__closure__)
    fn.__qualname__, fn.__module__, fn.__doc__ = name, source.__module__, source.__doc__
    return fn


def recompiled(dispatcher, name: str, cache: bool = False, **replaced):
    """`dispatcher` compiled again under `name` with some of its names replaced (the cache
    keeps it apart by name)."""
    options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}  # njit implies it
    return njit(cache=cache, **options)(rebound(dispatcher.py_func, name, replaced))


def loop_called(helper):
    """A copy of a helper that a run loop calls: like the loop, no reference counting and
    numpy's error model."""
    return called(helper, _nrt=False, error_model="numpy")


def called_helpers(dispatcher, inlined: tuple, **replaced) -> dict:
    """`replaced`, and a called copy of each inline="always" helper `dispatcher` names but
    those in `inlined` (the ones LLVM would keep as calls, where a call costs speed).
    The copies still have numba inline their own helpers."""
    names = dispatcher.py_func.__globals__
    for name in dispatcher.py_func.__code__.co_names:
        helper = names.get(name)
        if (name not in inlined and name not in replaced and isinstance(helper, Dispatcher)
                and helper.targetoptions.get("inline") == "always"):
            replaced[name] = loop_called(helper)
    return replaced


def calling_all_the_way(dispatcher, inlined: tuple, copies: dict):
    """A copy of `dispatcher`'s function in which every numba function it names, and in
    turn every one those name, is a called copy (one per function, kept in `copies`),
    but those in `inlined`, which numba still inlines as written."""
    names = dispatcher.py_func.__globals__
    replaced = {}
    for name in dispatcher.py_func.__code__.co_names:
        helper = names.get(name)
        if name in inlined or not isinstance(helper, Dispatcher):
            continue
        if helper not in copies:
            copies[helper] = None  # a recursive helper keeps calling its original
            copies[helper] = loop_called(calling_all_the_way(helper, inlined, copies))
        replaced[name] = copies[helper] or helper
    return rebound(dispatcher.py_func, dispatcher.py_func.__name__, replaced)
