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


@njit(cache=True, inline="always")
def _absent(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch, terms):
    """cop2.execute's contract, for a loop compiled without the VFPU."""
    event[1] = word
    event[3] = FAULT_VFPU_UNAVAILABLE
    return EV_FAULT


_COP2_ABSENT = types.ModuleType("allegrex.cpu.cop2_absent")
_COP2_ABSENT.execute = _absent


def _recompiled(name: str, **replaced):
    """interp.run compiled again under `name`, with some of its module's names replaced
    (numba reads a function's globals when it compiles it; the cache keeps it apart by name)."""
    source = interp.run.py_func
    names = dict(source.__globals__, **replaced)
    fn = types.FunctionType(source.__code__, names, name, source.__defaults__, source.__closure__)
    fn.__qualname__, fn.__module__, fn.__doc__ = name, source.__module__, source.__doc__
    options = {k: v for k, v in interp.run.targetoptions.items() if k != "nopython"}  # njit implies it
    return njit(cache=True, **options)(fn)


run = _recompiled("run_without_vfpu", cop2=_COP2_ABSENT)


def is_vfpu_absent(code: int, event) -> bool:
    """Whether `run` stopped at a VFPU word (then interp.run takes over from there)."""
    return code == EV_FAULT and int(event[3]) == FAULT_VFPU_UNAVAILABLE


interp.flush_stale_cache(run, "run_without_vfpu")
