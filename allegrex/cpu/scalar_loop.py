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

from allegrex.cpu import fields, interp
from allegrex.cpu.events import EV_FAULT, FAULT_VFPU_UNAVAILABLE
from allegrex.cpu.jit.runtime import _Typed
from allegrex.hle import pure
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


def _called(helper):
    """A copy of an inline="always" helper that the loop calls: numba types one call
    statement instead of inlining the helper's code at every call site (the deep copies
    and re-analysis of that inlining were most of the loop's compile); LLVM inlines the
    small call when it links the loop. Like the loop: no reference counting, numpy errors."""
    return _Typed(py_func=helper.py_func, locals={},
                  targetoptions={"nopython": True, "_nrt": False, "error_model": "numpy"})


_FIELDS = ("rs_of", "rt_of", "rd_of", "sa_of", "fs_of", "ft_of", "fd_of", "imm_of", "uimm_of", "code_of", "cond_of",
           "vcc_of", "branch_target", "jump_target")
_HELPERS = ("sx32", "clz32", "bitrev32", "decode_cached", "at_breakpoint", "loop_turns_hot", "finish", "answered")
_CALLED = {name: _called(interp.run.py_func.__globals__[name]) for name in _FIELDS + _HELPERS}

# the timing step without the VFPU's: most of the inlined code numba types in the loop
_STEPS = ("os_tick", "operand_slot", "wait_sources", "wait_unit", "produce", "jump_cost", "branch_cost", "cache_op",
          "profile_slot")
_account = _recompiled(model.account, "account_without_vfpu", vfpu_account=_vfpu_account_absent,
                       **{name: _called(getattr(model, name)) for name in _STEPS})
run = _recompiled(interp.run, "run_without_vfpu", cache=True, cop2=_COP2_ABSENT, account=_account, **_CALLED)


def is_vfpu_absent(code: int, event) -> bool:
    """Whether `run` stopped at a VFPU word (then interp.run takes over from there)."""
    return code == EV_FAULT and int(event[3]) == FAULT_VFPU_UNAVAILABLE


interp.flush_stale_cache(run, "run_without_vfpu")
