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

from allegrex.cpu import interp
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


def _recompiled(dispatcher, name: str, cache: bool = False, **replaced):
    """`dispatcher` compiled again under `name`, with some of its module's names replaced
    (numba reads a function's globals when it compiles or inlines it; the cache keeps it
    apart by name)."""
    source = dispatcher.py_func
    names = dict(source.__globals__, **replaced)
    fn = types.FunctionType(source.__code__, names, name, source.__defaults__, source.__closure__)
    fn.__qualname__, fn.__module__, fn.__doc__ = name, source.__module__, source.__doc__
    options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}  # njit implies it
    return njit(cache=cache, **options)(fn)


# the timing step without the VFPU's: most of the inlined code numba types in the loop
_account = _recompiled(model.account, "account_without_vfpu", vfpu_account=_vfpu_account_absent)
run = _recompiled(interp.run, "run_without_vfpu", cache=True, cop2=_COP2_ABSENT, account=_account)


def is_vfpu_absent(code: int, event) -> bool:
    """Whether `run` stopped at a VFPU word (then interp.run takes over from there)."""
    return code == EV_FAULT and int(event[3]) == FAULT_VFPU_UNAVAILABLE


interp.flush_stale_cache(run, "run_without_vfpu")
