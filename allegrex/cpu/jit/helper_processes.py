"""Helper processes that compile a region's pieces while the machine compiles the region.

A long block's straight code is compiled as piece functions (jit.codegen), each a few
seconds of numba and LLVM work that depends on nothing but its own text: one process
compiles them one after another, the region's own function last. While the machine
compiles them, helper processes compile them too, into numba's disk cache (the pieces are
cache=True), where the machine's compile finds them. Each process takes a function before
compiling it (Claims), the largest untaken piece first (piece_calls.largest_first), so none
is compiled twice and all finish close together: once the machine finds every piece
taken, it waits for those its helpers took to reach the cache (compiling them again, as
it did when a helper worked from the last piece and the machine from the first, was ~1 s
of the llama2 matmul region's ~12).
What helpers compile is only ever loaded from that cache, so a helper that fails or is
stopped half-way costs nothing but its time: the machine compiles the rest.

jit.background starts one such helper to compile a whole region, pieces and function, while the
machine runs on. On Linux a helper is a fork of the machine's process: it starts with numba,
the region's module and the helpers regions call already loaded (a new interpreter spends ~1 s
importing and loading them before its first piece). Elsewhere it is a new interpreter, run as
`python -m allegrex.cpu.jit.helper_processes [PARENT [NICE]]`, reading (module path, module
name, [(function, argument types)], claims folder) pickled from stdin. A helper ends with the process that
started it (PARENT, Linux), even one killed with no chance to stop it.
"""

import ctypes
import importlib.util
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager

from allegrex.cpu.jit.piece_calls import PIECES_TYPE, largest_first, piece_types
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


class Claims:
    """Which of a region's functions some process has taken to compile: one file per function
    in a folder of their own, created exclusively (O_EXCL: the first process to ask gets it),
    holding the taker's pid. A taker compiles what it took at once, into numba's cache."""

    def __init__(self, folder: str | None = None):
        self.folder = folder or tempfile.mkdtemp(prefix="allegrex-claims-")

    def take(self, name: str) -> bool:
        """Whether this process may compile function `name`: no other process has taken it."""
        try:
            claim = os.open(os.path.join(self.folder, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return False
        except OSError:  # (the folder is gone: the compile is over, or being stopped)
            return True
        os.write(claim, str(os.getpid()).encode())
        os.close(claim)
        return True

    def taker(self, name: str) -> int | None:
        """The pid of the process that took function `name`, None if none has."""
        try:
            with open(os.path.join(self.folder, name)) as claim:
                return int(claim.read())
        except (OSError, ValueError):  # (none, or its pid not written yet)
            return None

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class Alongside:
    """The helper processes compiling a region's functions alongside this one, and what each
    process has taken (Claims): jit.piece_calls.compile_region compiles what is left to it and
    waits for the rest. Its len() is the number of helpers."""

    def __init__(self, procs: list, claims: Claims | None):
        self.procs, self.claims = procs, claims

    def __len__(self) -> int:
        return len(self.procs)

    def take(self, name: str) -> bool:
        """Whether this process is to compile function `name` (no helper has taken it)."""
        return not self.procs or self.claims.take(name)

    def wait_for(self, dispatcher, sig: tuple) -> None:
        """Wait until the code of `dispatcher` (which a helper took) for argument types `sig`
        is in numba's cache, or no helper is left running (then the caller compiles it)."""
        while not on_disk(dispatcher, sig) and any(proc.poll() is None for proc in self.procs):
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop the helpers, leave what they compiled, forget the claims."""
        for proc in self.procs:
            proc.kill()
            proc.wait()
        if self.claims is not None:
            self.claims.remove()


@contextmanager
def compiling_alongside(fn, types, pieces):
    """Helper processes compile `pieces` ([(name, argument types)]) of region `fn` while the
    body runs, the first of them the region's own function before any piece (for `types`,
    its arguments after `pieces`: its typing needs no piece compiled, jit.piece_calls); the
    body gets them (Alongside, for compile_region), and they are stopped when it ends. Each
    helper goes through the pieces largest first, compiling those no other process has taken."""
    count = helper_count(len(pieces))
    claims = Claims() if count else None
    own, order = [(fn.__name__, (PIECES_TYPE, *types))], largest_first(fn, pieces)
    helpers = [proc for k in range(count)
               if (proc := start_helper(fn, (own if k == 0 else []) + order, claims=claims)) is not None]
    alongside = Alongside(helpers, claims)
    try:
        yield alongside
    finally:
        alongside.stop()


def start_helper(fn, share, nice: int = 0, claims: Claims | None = None):
    """A helper process compiling the functions `share` ([(name, argument types)], in that
    order) of region `fn`'s module into numba's cache, at `nice` (os.nice), those it can take
    (`claims`; all of them without); None when no process could start (the machine compiles
    them itself)."""
    module = sys.modules[fn.py_func.__module__]
    folder = claims.folder if claims is not None else None
    if FORKS and threading.active_count() == 1:  # (a fork has only this thread: another's locks would stay held)
        return _forked(module, share, nice, folder)
    try:
        proc = subprocess.Popen([sys.executable, "-m", __name__, str(os.getpid()), str(nice)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.stdin.write(pickle.dumps((module.__file__, module.__name__, share, folder)))
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


def _forked(module, share, nice: int, folder):
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
        _compile(module, share, folder)
        code = 0
    finally:
        os._exit(code)


def _compile(module, share, folder) -> None:
    """Compile the functions `share` ([(name, types)]) of region module `module` into numba's
    cache, those this process can take in the claims `folder` (all of them for None)."""
    from allegrex.cpu.jit import room_to_compile
    claims = Claims(folder) if folder is not None else None
    with room_to_compile():
        for name, types in share:
            if claims is None or claims.take(name):
                getattr(module, name).compile(types)


def compile_pieces(path: str, module_name: str, share, folder: str | None) -> None:
    """Compile the functions in `share` ([(name, types)]: pieces, or the region's own
    function) of the region module at `path` into numba's cache (those it can take in the
    claims `folder`, _compile)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    _compile(module, share, folder)


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
