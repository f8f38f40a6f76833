"""Numba functions compiled once per argument type: the copies of inline="always" helpers
that compiled code calls instead of inlining.

Numba inlines an inline="always" helper by re-typing its code at every call site, which
made large functions compile quadratically; an ordinary call is typed once and LLVM still
inlines the small ones when it links the caller. But a plain njit function called with a
constant (an instruction's pc, a system call's code) is compiled once per distinct
literal: `access` was compiled 76 times in four small regions. TypedCall compiles once
per unliteral argument type; LLVM still sees the constants when it inlines the call.
"""

from numba import types
from numba.core.registry import CPUDispatcher


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
