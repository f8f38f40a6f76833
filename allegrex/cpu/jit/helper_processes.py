"""Helper processes that compile a region's pieces while the machine compiles the region.

A long block's straight code is compiled as piece functions (jit.codegen), each a few
seconds of numba and LLVM work that depends on nothing but its own text: one process
compiles them one after another, the region's own function last. While the machine
compiles in order, helper processes compile the pieces from the other end into numba's
disk cache (the pieces are cache=True), where the machine's compile finds those it has
not reached yet. What they compile is only ever loaded from that cache, so a helper that
fails or is stopped half-way costs nothing but its time: the machine compiles the rest.

jit.background starts one such helper to compile a whole region, pieces and function, while the
machine runs on. On Linux a helper is a fork of the machine's process: it starts with numba,
the region's module and the helpers regions call already loaded (a new interpreter spends ~1 s
importing and loading them before its first piece). Elsewhere it is a new interpreter, run as
`python -m allegrex.cpu.jit.helper_processes [PARENT [NICE]]`, reading (module path, module
name, [(function, argument types)]) pickled from stdin. A helper ends with the process that
started it (PARENT, Linux), even one killed with no chance to stop it.
"""

import ctypes
import importlib.util
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

from allegrex.cpu.jit.piece_calls import PIECES_TYPE, piece_types
from allegrex.cpu.jit.store import new_here, on_disk

FORKS = sys.platform.startswith("linux") and hasattr(os, "fork")  # (numba and LLVM in a forked child: Linux only)
# Pieces (~1 s each) a helper's start pays off over: a fork starts at once, a new interpreter in ~1 s.
PIECES_PER_HELPER = 2 if FORKS else 4


def helper_count(pieces: int) -> int:
    """Helper processes worth starting for a region of `pieces` pieces: one per spare core."""
    return max(0, min((os.cpu_count() or 1) - 1, pieces // PIECES_PER_HELPER))


def new_pieces(fn, types) -> list:
    """The pieces ([(name, argument types)], piece_types) of region `fn` called with `types`
    that nothing has compiled: all of them when the region is new (store.new_here) and no
    helper compiled it in the background (jit.background), else none."""
    return piece_types(fn, types) if new_here(fn) and not on_disk(fn, (PIECES_TYPE, *types)) else []


@contextmanager
def compiling_alongside(fn, types, pieces):
    """Helper processes compile `pieces` ([(name, argument types)]) of region `fn`, last
    first, while the body runs, the first of them the region's own function before its
    pieces (for `types`, its arguments after `pieces`: its typing needs no piece compiled,
    jit.piece_calls); they are stopped when it ends."""
    count = helper_count(len(pieces))
    shares = [pieces[::-1][k::count] for k in range(count)]
    if shares:
        shares[0] = [(fn.__name__, (PIECES_TYPE, *types))] + shares[0]
    helpers = [proc for share in shares if (proc := start_helper(fn, share)) is not None]
    try:
        yield len(helpers)
    finally:
        for proc in helpers:
            proc.kill()
            proc.wait()


def start_helper(fn, share, nice: int = 0):
    """A helper process compiling the functions `share` ([(name, argument types)], in that
    order) of region `fn`'s module into numba's cache, at `nice` (os.nice); None when no
    process could start (the machine compiles them itself)."""
    module = sys.modules[fn.py_func.__module__]
    if FORKS and threading.active_count() == 1:  # (a fork has only this thread: another's locks would stay held)
        return _forked(module, share, nice)
    try:
        proc = subprocess.Popen([sys.executable, "-m", __name__, str(os.getpid()), str(nice)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.stdin.write(pickle.dumps((module.__file__, module.__name__, share)))
        proc.stdin.close()
    except OSError:
        return None
    return proc


class Forked:
    """A helper forked from the machine's process, with the part of subprocess.Popen's
    interface the machine uses (poll, wait, kill)."""

    def __init__(self, pid: int):
        self.pid = pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None):
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(f"helper {self.pid}", timeout)
            time.sleep(0.02)
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _forked(module, share, nice: int):
    """start_helper as a fork of this process (Forked), or None when none could start."""
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return Forked(pid)
    code = 1  # the child: compile, and leave without running any of the machine's exit code
    try:
        end_with(parent)
        if nice:
            os.nice(nice)
        quiet = os.open(os.devnull, os.O_WRONLY)  # (as the new interpreter's: nothing reaches the user)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        _compile(module, share)
        code = 0
    finally:
        os._exit(code)


def _compile(module, share) -> None:
    """Compile the functions `share` ([(name, types)]) of region module `module` into numba's cache."""
    from allegrex.cpu.jit import room_to_compile
    with room_to_compile():
        for name, types in share:
            getattr(module, name).compile(types)


def compile_pieces(path: str, module_name: str, share) -> None:
    """Compile the functions in `share` ([(name, types)]: pieces, or the region's own
    function last) of the region module at `path` into numba's cache."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    _compile(module, share)


PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when the thread that started it ends


def end_with(parent: int) -> None:
    """Be killed when process `parent` (which started this one) ends, or exit now if it has
    already ended: a helper whose machine was killed (SIGKILL, a crash) would otherwise compile
    on, orphaned. Linux only; elsewhere a helper outlives such a machine by one compile."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it ended before the signal was asked for
        os._exit(1)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        end_with(int(sys.argv[1]))
    if len(sys.argv) > 2 and int(sys.argv[2]):
        os.nice(int(sys.argv[2]))
    compile_pieces(*pickle.loads(sys.stdin.buffer.read()))
