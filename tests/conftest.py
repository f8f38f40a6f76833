"""Shared fixtures. Tests mirror the package layout: tests/loader for loader/, and so on."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# ../shared beside the checkout; $ALLEGREX_SHARED overrides it (worktrees live one level deeper).
SHARED = Path(os.environ.get("ALLEGREX_SHARED", ROOT.parent / "shared"))


# The numba code nearly every test needs, each compiled in a process of its own: the run loop
# without the VFPU (~30 s of CPU the first time), with it (~80 s; the machine told to use it from
# the start, so that it does not compile the first one as well), the GE's drawing path (~2 min).
COMPILE_FIRST = (
    "from allegrex.machine import Machine\n"
    "m = Machine('psp-2000'); m.load_raw(0x08804000, (0x0000000D).to_bytes(4, 'little'), entry=0x08804000); m.step(1)",
    "from allegrex.machine import Machine\nfrom vfpu.asm import assemble\n"
    "m = Machine('psp-2000'); m.vfpu_loop = True; m.load_raw(0x08804000, assemble('vzero.q C000').to_bytes(4, 'little')"
    " + (0x0000000D).to_bytes(4, 'little'), entry=0x08804000); m.step(2)",
    "from allegrex.ge import processor\nprocessor.warm_up()",
)
# Then, once both run loops are in the cache: a hot loop compiled to a region, for the helpers
# regions call (the machine would otherwise compile both loops a second time beside the above).
COMPILE_AFTER_LOOPS = (
    "import struct\nfrom allegrex.machine import Machine\nfrom allegrex.cpu.asm import enc\n"
    "from allegrex.cpu.jit import Jit\nfrom vfpu.asm import assemble\n"
    "loop = [assemble('lv.q C000, 0(a0)'), assemble('vadd.q C010, C000, C000'), assemble('vdot.q S020, C000, C010'),"
    " enc('lw', rt='t0', rs='a0'), enc('sw', rt='t0', rs='a0', imm=64), enc('addiu', rt='a2', rs='a2', imm=-1)]\n"
    "words = [enc('lui', rt='a0', imm=0x0890), enc('ori', rt='a2', rs='zero', imm=3000)] + loop"
    " + [enc('bne', rs='a2', rt='zero', imm=-(len(loop) + 1)), 0, enc('break')]\n"
    "m = Machine('psp-2000'); m.jit = Jit(m._read_word, threshold=100, compile_after=0)\n"
    "m.load_raw(0x08804000, struct.pack(f'<{len(words)}I', *words), entry=0x08804000)\n"
    "assert m.run(max_instructions=10**6).kind == 'break' and m.jit.instructions"
)


def _compiling(script: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def pytest_sessionstart(session):
    """With workers (pytest -n N), compile the numba code they all need once, before they
    start (xdist starts them after this hook): on empty caches each worker would compile
    all of it at the same time as the others, the same work N times over. Loaded from the
    cache in ~2 s when warm; a compile that fails here is left to the tests to report."""
    config = session.config
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("compiling the numba code every worker needs first (minutes on empty caches, "
                            "then loaded from them)")
    scalar, vfpu, ge = (_compiling(script) for script in COMPILE_FIRST)
    scalar.wait()
    vfpu.wait()
    region = _compiling(COMPILE_AFTER_LOOPS)
    ge.wait()
    region.wait()


@pytest.fixture
def shared_models():
    """../shared/models, or skip: the project must work without the shared folder."""
    path = SHARED / "models"
    if not (path / "stories260K.bin").exists():
        pytest.skip("../shared/models is absent")
    return path


@pytest.fixture(scope="session")
def pspautotests():
    """A checkout of hrydgard/pspautotests named by $PSPAUTOTESTS, or skip."""
    path = os.environ.get("PSPAUTOTESTS")
    if not path or not Path(path, "tests").is_dir():
        pytest.skip("set PSPAUTOTESTS to a pspautotests checkout to run the conformance tests")
    return Path(path)


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a Dask distributed cluster on this machine (2 worker processes, one
    thread each), started for the tests; `pip install -e '.[cluster]'` provides it. Each
    worker holds one task at a time (worker-saturation 1.0), and a task is given up after
    its second dying worker (allowed-failures 1): a crash kills the results its worker had
    not yet reported, and those tasks run again elsewhere, as a user's cluster would."""
    dask = pytest.importorskip("dask", reason="the cluster extra (pip install -e '.[cluster]') is not installed")
    distributed = pytest.importorskip("distributed", reason="the cluster extra is not installed")
    config = {"distributed.scheduler.allowed-failures": 1, "distributed.scheduler.worker-saturation": 1.0}
    with dask.config.set(config):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster:
            yield cluster.scheduler_address
