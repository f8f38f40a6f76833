"""The run loop without the VFPU, for a quick first run.

`run` is interp.run compiled a second time with its VFPU seam (cop2.execute) replaced by
one that answers FAULT_VFPU_UNAVAILABLE without running the word: the same source, the
same semantics for every other word, but numba compiles it in about a third of the time
(the VFPU executor is most of interp.run's compile: measured 24 vs 64 s of CPU on empty
caches). Machine runs this loop until it meets a VFPU word, then switches to the loop
with the VFPU (vfpu_loop.run, interp.run's code too) for good; a fault report never comes
from here (the fault leaves PC at the word, not run, with nothing retired, exactly where
that loop resumes).
"""

import types

from numba import njit

from allegrex.cpu import interp
from allegrex.cpu.called import called_helpers, recompiled
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


# The timing step without the VFPU's. Numba still inlines the steps every instruction
# takes: as LLVM-inlined calls the timed float loop measured ~5-10% slower (noisy); only
# the steps off the common path (cache ops, the profiler's) are calls.
TIMING_INLINED = ("os_tick", "fetch_line", "operand_slot", "wait_sources", "wait_unit", "dcache_access", "produce",
                  "jump_cost", "branch_cost")
_account = recompiled(model.account, "account_without_vfpu", **called_helpers(
    model.account, inlined=TIMING_INLINED, vfpu_account=_vfpu_account_absent))
# Numba still inlines a load's or store's access (LLVM kept 7 of its 12 sites as calls)
# and the fetch's translate, and the rare ops LLVM kept as calls where interp.run has none.
LOOP_INLINED = ("access", "translate", "div_signed", "div_unsigned", "float_to_word")
run = recompiled(interp.run, "run_without_vfpu", cache=True, **called_helpers(
    interp.run, inlined=LOOP_INLINED,
    cop2=_COP2_ABSENT, account=_account))


def is_vfpu_absent(code: int, event) -> bool:
    """Whether `run` stopped at a VFPU word (then vfpu_loop.run takes over from there)."""
    return code == EV_FAULT and int(event[3]) == FAULT_VFPU_UNAVAILABLE


interp.flush_stale_cache(run, "run_without_vfpu")
