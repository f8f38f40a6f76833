"""The run loop without the VFPU, for a quick first run.

`run` is interp.run compiled a second time with its VFPU seam (cop2.execute) replaced by
one that answers FAULT_VFPU_UNAVAILABLE without running the word: the same source, the
same semantics for every other word, but numba compiles it in about a third of the time
(the VFPU executor is most of interp.run's compile: measured 24 vs 64 s of CPU on empty
caches). Machine runs this loop until it meets a VFPU word, then switches to interp.run
for good; a fault report never comes from here (the fault leaves PC at the word, not
run, with nothing retired, exactly where interp.run resumes).
"""

import types

from numba import njit
from numba.core.dispatcher import Dispatcher

from allegrex.cpu import interp
from allegrex.cpu.called import called
from allegrex.cpu.events import EV_FAULT, FAULT_VFPU_UNAVAILABLE
from allegrex.timing import model


@njit(cache=True, inline="always")
def _absent(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch, terms):
    """cop2.execute's contract, for a loop compiled without the VFPU."""
    event[1] = word
    event[3] = FAULT_VFPU_UNAVAILABLE
    return EV_FAULT


_COP2_ABSENT = types.ModuleType("allegrex.cpu.cop2_absent")
_COP2_ABSENT.execute = _absent


@njit(inline="always")
def _vfpu_account_absent(tm, counters, word, pc, maddr, t):
    """model.vfpu_account's contract, never reached here: a VFPU word faults before its timing step."""
    return t


def _rebound(source, name: str, replaced: dict):
    """A copy of Python function `source` named `name`, with some of its module's names
    replaced (numba reads a function's globals when it compiles or inlines it)."""
    fn = types.FunctionType(source.__code__, dict(source.__globals__, **replaced), name, source.__defaults__,
                            source.__closure__)
    fn.__qualname__, fn.__module__, fn.__doc__ = name, source.__module__, source.__doc__
    return fn


def _recompiled(dispatcher, name: str, cache: bool = False, **replaced):
    """`dispatcher` compiled again under `name` with some of its names replaced (the cache
    keeps it apart by name)."""
    options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}  # njit implies it
    return njit(cache=cache, **options)(_rebound(dispatcher.py_func, name, replaced))


def _called(helper):
    """A copy of an inline="always" helper that the loop calls: numba types one call
    statement instead of inlining the helper's code at every call site (the deep copies
    and re-analysis of that inlining were most of the loop's compile); LLVM inlines the
    small calls when it links the loop. Like the loop: no reference counting, numpy's
    error model."""
    return called(helper, _nrt=False, error_model="numpy")


def _called_helpers(dispatcher, inlined: tuple, **replaced) -> dict:
    """`replaced`, and a called copy of each inline="always" helper `dispatcher` names but
    those in `inlined` (the ones LLVM would keep as calls, where a call costs speed)."""
    names = dispatcher.py_func.__globals__
    for name in dispatcher.py_func.__code__.co_names:
        helper = names.get(name)
        if (name not in inlined and name not in replaced and isinstance(helper, Dispatcher)
                and helper.targetoptions.get("inline") == "always"):
            replaced[name] = _called(helper)
    return replaced


# The timing step without the VFPU's. Numba still inlines the steps every instruction
# takes: as LLVM-inlined calls the timed float loop measured ~5-10% slower (noisy); only
# the steps off the common path (cache ops, the profiler's) are calls.
_account = _recompiled(model.account, "account_without_vfpu", **_called_helpers(
    model.account, inlined=("os_tick", "fetch_line", "operand_slot", "wait_sources", "wait_unit", "dcache_access",
                            "produce", "jump_cost", "branch_cost"), vfpu_account=_vfpu_account_absent))
# Numba still inlines a load's or store's access (LLVM kept 7 of its 12 sites as calls)
# and the fetch's translate, and the rare ops LLVM kept as calls where interp.run has none.
run = _recompiled(interp.run, "run_without_vfpu", cache=True, **_called_helpers(
    interp.run, inlined=("access", "translate", "div_signed", "div_unsigned", "float_to_word"),
    cop2=_COP2_ABSENT, account=_account))


def is_vfpu_absent(code: int, event) -> bool:
    """Whether `run` stopped at a VFPU word (then interp.run takes over from there)."""
    return code == EV_FAULT and int(event[3]) == FAULT_VFPU_UNAVAILABLE


interp.flush_stale_cache(run, "run_without_vfpu")
