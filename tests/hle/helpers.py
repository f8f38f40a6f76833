"""A kernel on bare memory and CPU state (no interpreter): tests call HLE functions the
way a guest does, through a patched import stub and the syscall it holds."""

import io
from types import SimpleNamespace

import numpy as np

from allegrex.cpu.events import EVENT_FIELDS
from allegrex.cpu.state import CpuState
from allegrex.hle import pure, registry
from allegrex.hle.boot import new_kernel
from allegrex.hle.kernel import Kernel, RunOptions, SYSCALL_BASE
from allegrex.memory import Memory
from allegrex.timing import Timing

STUB_BASE = 0x08900000
ENTRY = 0x08880000


class BareMachine:
    """Memory and registers only; step() is never called by these tests."""

    def __init__(self, model="psp-2000"):
        self.memory = Memory(model)
        self.cpu = CpuState()
        self.timing = Timing()  # the clock API scePower calls
        self.syscall_table = pure.new_table()  # the Kernel's clock lives here
        self.event_view = memoryview(np.zeros(EVENT_FIELDS, dtype=np.int64))  # (Kernel.run reads its events here)

    def step(self, budget, max_cycles=None):
        raise AssertionError("no interpreter in HLE unit tests")


def make_kernel(options: RunOptions | None = None, model="psp-2000") -> Kernel:
    machine = BareMachine(model)
    k = new_kernel(machine, options or RunOptions())
    main = k.threads.create("main", ENTRY, 0x20, 0x10000, 0x80000000, 0)
    k.threads.start(main, 0, 0)
    k.threads.reschedule()
    assert k.threads.current is main
    k._stubs = {}
    return k


def syscall_code(k, library, name) -> int:
    key = (library, name)
    if key not in k._stubs:
        entry = registry.BY_NAME[key]
        stub = STUB_BASE + 8 * len(k._stubs)
        lib = SimpleNamespace(name=library, functions=[SimpleNamespace(nid=entry.nid, name=name, stub_addr=stub)],
                              variables=[])
        k.install_imports([lib])
        k._stubs[key] = SYSCALL_BASE + len(k.syscalls) - 1
    return k._stubs[key]


def call(k, library, name, *args) -> int:
    """Call an HLE function from the current thread; returns v0 as a signed int."""
    code = syscall_code(k, library, name)
    regs = k.cpu.regs
    for i, value in enumerate(args):
        regs[4 + i] = value & 0xFFFFFFFF
    caller = k.threads.current
    k.on_syscall(code)
    while k.threads.current is None and caller.wait is not None and caller.wait.kind == "io":
        k.idle_until_next_event()  # the memory stick finishes; the caller runs again
    if k.threads.current is caller or caller.context is None:
        v0 = int(regs[2])
    else:  # switched away: the caller's result is in its saved context
        v0 = int(caller.context[0][2])
    return v0 - (1 << 32) if v0 & 0x80000000 else v0


def switch_count(k):
    return k.threads.current.name if k.threads.current else None


def run_ms0_program(eboot, max_seconds: float = 5):
    """Run an SDK-built EBOOT.PBP from its memory-stick folder (ms0 is three levels up:
    ms0/PSP/GAME/NAME/EBOOT.PBP) until it ends: (text, kernel.stats(), registers)."""
    from allegrex.commands.run import load_program  # (the command layer: only tests that run programs need it)
    out = io.StringIO()
    options = RunOptions(ms0=str(eboot.parents[3]), program_path=str(eboot), stdout=out, stderr=io.StringIO())
    machine, kernel = load_program(str(eboot), "psp-2000", options)
    stop = kernel.run(max_seconds=max_seconds)
    assert stop.kind in ("exit", "threads-ended"), stop
    return out.getvalue(), kernel.stats(), machine.cpu.regs.copy()
