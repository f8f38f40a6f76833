"""The run loop with the VFPU, compiled to call its helpers.

`run` is interp.run compiled again as scalar_loop.run is (the same helpers called, the
same ones numba still inlines), with the VFPU seam's executor (vfpu.exec.execute_with)
still inlined into the loop but calling its own helpers, and their helpers in turn, all
the way down (execute_rest and the operations behind it too): numba types each once
instead of re-typing the executor's code where it is inlined, and LLVM inlines the small
calls. Machine switches to this loop at a program's first VFPU word. interp.run stays the
one source: regions read its syntax tree, and this is its code with names replaced.
"""

import types

from numba import njit

from allegrex.cpu import cop2, interp
from allegrex.cpu.called import called_helpers, calling_all_the_way, recompiled
from allegrex.cpu.scalar_loop import LOOP_INLINED, TIMING_INLINED
from allegrex.timing import model
from vfpu import exec as vfpu_exec

# The VFPU steps numba still inlines into the executor (see docs/architecture.md).
VFPU_INLINED = ("decode", "is_load_store", "load_store", "identity_prefixes", "plain_op", "consume_prefixes")

_execute_with = njit(inline="always", error_model="numpy")(
    calling_all_the_way(vfpu_exec.execute_with, inlined=VFPU_INLINED, copies={}))
_COP2_CALLING = types.ModuleType("allegrex.cpu.cop2_calling")
_COP2_CALLING.execute = recompiled(cop2.execute, "execute", vfpu_execute=_execute_with)

_account = recompiled(model.account, "account_with_vfpu", **called_helpers(model.account, inlined=TIMING_INLINED))
run = recompiled(interp.run, "run_with_vfpu", cache=True, **called_helpers(
    interp.run, inlined=LOOP_INLINED, cop2=_COP2_CALLING, account=_account))

interp.flush_stale_cache(run, "run_with_vfpu")
