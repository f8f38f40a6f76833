"""Hot loops compiled while the machine runs on (`allegrex run` on a machine with a spare core).

Compiling a new region keeps a core busy for seconds to a minute (the llama2 VFPU build's
matmul loop: ~40 s). With a Background on the machine's Jit, the machine does not wait: one
helper process (jit.helper_processes) compiles the region's pieces, largest first, then its own
function into numba's disk cache, while the interpreter goes on running the loop. The loop
asks again each time it has come round RECHECK_AFTER more times; once the helper is done,
the machine loads the region from the cache (~0.4 s for the matmul) and runs it from then on.
A region gives the same results, cycles and counters as the interpreter (tests/cpu/test_jit.py),
so when it starts to run changes the wall time only, never what the program does.

One helper at a time: the machine's own process keeps the other core. A run that ends while
a helper compiles can finish the compile itself (finish()), compiling alongside the helper what
it has not taken (helper_processes.Claims), so the next run of the program starts with the
region compiled.
ALLEGREX_JIT_BACKGROUND=0 turns it off: the machine waits for each compile, as on one core.
"""

import os
import time

from allegrex.cpu.jit.helper_processes import Alongside, Claims, start_helper
from allegrex.cpu.jit.piece_calls import PIECES_TYPE, largest_first, piece_types
from allegrex.cpu.jit.store import on_disk

RECHECK_AFTER = 100_000  # turns of a loop between two asks whether its region is compiled (one costs ~10 us)
HELPER_NICE = 5  # the helper yields to the simulation where the two share a core


def wanted() -> bool:
    """Whether compiling in the background pays here: a spare core, and not turned off."""
    return os.environ.get("ALLEGREX_JIT_BACKGROUND", "1") != "0" and (os.cpu_count() or 1) > 1


class Job:
    """One helper compiling one region: its key (entry, timed, profile), function and types,
    its process, and that process with the functions it has taken (helper_processes.Alongside:
    what finish() hands the machine's compile)."""

    def __init__(self, key, fn, types, proc, claims):
        self.key, self.fn, self.types = key, fn, types
        self.alongside = Alongside([proc], claims)
        self.started = time.monotonic()

    @property
    def proc(self):
        return self.alongside.procs[0]

    def done(self) -> bool:
        return self.proc.poll() is not None


class Background:
    """A machine's compiles in a helper process: which region one compiles now, and which
    regions a helper left uncompiled (those the machine compiles itself, waiting)."""

    def __init__(self, notice=None):
        self.notice = notice  # notice(message): what starts and ends (allegrex run: stderr)
        self.job = None
        self.missing = set()  # keys found not in numba's cache: compiled by a helper, when its turn comes
        self.given_up = set()  # keys a helper finished without compiling: the machine compiles them itself

    def ready(self, key, fn, types) -> bool:
        """Whether the region `fn` at `key` (called with `types`, after its pieces' addresses)
        is to be loaded or compiled by the machine now: it is in numba's cache (compiled by a
        helper or an earlier run) or no helper can compile it. Else a helper compiles it,
        started now if none is busy, and the machine interprets its loop meanwhile."""
        job = self.job
        if job is not None and job.done():
            self.job = None
            job.alongside.stop()  # (it has ended: this forgets its claims)
            self.missing.discard(job.key)
            if on_disk(job.fn, (PIECES_TYPE, *job.types)):
                self._say(f"hot loop at 0x{job.key[0]:08x} compiled in the background "
                          f"({time.monotonic() - job.started:.0f} s): it runs compiled from its next turn")
            else:  # (the machine's own compile will say why)
                self.given_up.add(job.key)
        if key in self.given_up or (key not in self.missing and self._compiled(fn, types)):
            return True
        self.missing.add(key)
        if self.job is None:
            claims = Claims()
            share = largest_first(fn, piece_types(fn, types)) + [(fn.__name__, (PIECES_TYPE, *types))]
            proc = start_helper(fn, share, HELPER_NICE, claims)
            if proc is None:
                claims.remove()
                return True
            self.job = Job(key, fn, types, proc, claims)
            self._say(f"compiling the hot loop at 0x{key[0]:08x} in a helper process; "
                      "interpreting it meanwhile (once, cached for later runs)")
        return False

    def finish(self, compile_here) -> None:
        """Finish the helper's compile: compile_here(fn, types, alongside) compiles the region
        in this process alongside the helper (waiting for what it has taken:
        helper_processes.Alongside), then the helper stops."""
        job, self.job = self.job, None
        if job is None:
            return
        try:
            if not job.done():
                self._say(f"finishing the compile of the hot loop at 0x{job.key[0]:08x} for later runs")
                compile_here(job.fn, job.types, job.alongside)
        except Exception as e:  # noqa: BLE001 (numba's compile errors have no common base)
            self._say(f"the hot loop at 0x{job.key[0]:08x} did not compile ({type(e).__name__}): "
                      "later runs interpret it")
        finally:
            self.stop(job)

    def stop(self, job=None) -> None:
        """Stop the helper (a run stopped by a wall-clock limit leaves its compile)."""
        job = job or self.job
        if job is not None:
            job.alongside.stop()
        if job is self.job:
            self.job = None

    @staticmethod
    def _compiled(fn, types) -> bool:
        return bool(fn.signatures) or on_disk(fn, (PIECES_TYPE, *types))

    def _say(self, message: str) -> None:
        if self.notice is not None:
            self.notice(message)
