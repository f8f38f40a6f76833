"""The Kernel: the OS state of one run and the loop that drives the CPU between events.

It patches each import stub to `jr ra; syscall id`, answers syscalls by calling the
registered HLE function, switches threads, turns simulated cycles into time, fires
timers, and decides when the run stops (exit, fault, deadlock, limits).
"""

import heapq
import math
import sys
import time as wallclock
from dataclasses import dataclass, field

import numpy as np

from allegrex.cpu.events import EV_BUDGET, EV_SYSCALL
from allegrex.cpu.state import A0, CYCLES, GP, GPR_NAMES, INSTRUCTIONS, NPC, PC, RA, SP, V0
from allegrex.errors import AllegrexError, GuestMemoryError
from loader.module import stub_owners

from allegrex.hle import codes, costs, pure, registry
from allegrex.hle.linker import (LIBRARY_IS_NOT_LINKED, MEDIA_LIBRARIES, Linker, ModuleStub, exported_elsewhere,
                                 is_firmware_library)
from allegrex.hle.objects import KernelObject
from allegrex.limits import check_seconds
from allegrex.timing import charge_hle, counters as timing_counters

SYSCALL_BASE = pure.SYSCALL_BASE  # first syscall code we hand out; codes are 20-bit fields
JR_RA = 0x03E00008
NOP = 0
TRAMPOLINE_ADDR = 0x08000100  # kernel partition: internal return stubs (thread exit, callback return)
TRAMPOLINE_LIMIT = 0x08001000
VBLANK_HZ = 59.94006
BOOT_CPU_MHZ = 222
BOOT_BUS_MHZ = 111
DEFAULT_EPOCH = 1262304000  # 2010-01-01 00:00:00 UTC: the settable, fixed wall-clock start


def syscall_word(code: int) -> int:
    return ((code & 0xFFFFF) << 6) | 0x0C


DEADBEEF = pure.DEADBEEF  # what a syscall leaves in the caller-saved registers (pure.py says which)
INTERNAL_LIBRARY = "allegrex"  # the kernel's own return stubs (thread exit, callback and handler returns)
SYSCALL_CLOBBERED = pure.SYSCALL_CLOBBERED
LOOP_KIND, LOOP_CODES, BY_PYTHON = pure.KIND, pure.CODES, pure.BY_PYTHON  # (on_syscall's per-call reads)
HleFunction = registry.HleFunction
INTERRUPT_STACK_TOP = 0x08010000  # kernel partition: stack for interrupt handlers (64 KiB below)
# With a wall-clock limit, each step of the CPU is sized to take about this long at the
# speed measured so far, so the limit is checked that often (the first step is small).
TIMEOUT_CHECK_S = 0.1
# Kernel.run reads the wall clock (the timeout, the progress callback) after any pass that
# did not end in a system call, after this many that did, and once a timed budget's worth of
# instructions ran: a pass after a cheap call costs ~1.5 us, the checks ~0.4 of it
WALL_CHECK_PASSES = 32
FIRST_TIMED_CHUNK = 100_000


def _interrupt_returned(k) -> None:
    saved, thread, on_return = k.interrupts.pop()
    k.threads.changes += 1
    result = int(k.cpu.regs[V0])
    k.cpu.load_context(saved)
    on_return(result)
    if k.pending_interrupts:
        k.run_interrupt(*k.pending_interrupts.pop(0))


class IllegalContext(Exception):
    """A call that would wait was made from an interrupt handler."""


class HleStop(AllegrexError):
    """Raised inside an HLE call to stop the run (unknown import, strict-mode refusal)."""

    def __init__(self, kind: str, message: str, exit_code: int = 1):
        self.kind = kind
        self.exit_code = exit_code
        super().__init__(message)


@dataclass
class Stop:
    kind: str  # exit, threads-ended, deadlock, fault, unknown-import, max-seconds, timeout, break, ...
    message: str
    exit_code: int = 0


@dataclass
class UnknownImport:
    library: str
    nid: int
    name: str | None
    stub_addr: int

    def describe(self) -> str:
        label = self.name or "unknown name"
        return f"{self.library} 0x{self.nid:08X} ({label})"


@dataclass
class RunOptions:
    ms0: str | None = None
    host0: str | None = None
    program_path: str | None = None  # host path of the program (for ms0:/PSP/GAME/<NAME>/)
    osk_text: str = ""
    msgdialog_result: str = "yes"
    input_events: list = field(default_factory=list)  # from allegrex.hle.ctrl.parse_* helpers
    frames_dir: str | None = None
    frames_every: int = 1
    ge_dump: object = None  # an open text file: every GE command executed (allegrex/ge/dump.py)
    audio_path: str | None = None  # WAV file for what the speaker plays (allegrex run --audio)
    strict: bool = False
    epoch: int = DEFAULT_EPOCH
    has_display: bool = False  # answer to the pspautotests emulator devctl
    stdout: object = None
    stderr: object = None
    # where the pspautotests harness channel (the emulator: device's send-output) goes;
    # None: with the program's stdout. On the PSP that recorded the .expected files it went
    # to host0:/__testoutput.txt, apart from the console the program's own fd 1 writes reach
    harness_output: object = None


IDLE_UNBOUNDED = 1 << 62  # a cycle count no run reaches: no timer and no time limit bound an idle skip
_pure_value = pure.value.py_func  # the run loop's definition of a pure call's result, as Python


class Clock:
    """Simulated time from the cycle counter and the CPU clock in force. Changing the
    clock rebases, so time stays continuous. The base and the CPU clock live in `table`
    (the machine's allegrex.hle.pure table), where the run loop reads them too."""

    def __init__(self, counters, table):
        self.counters = counters  # the CPU's counters (a memoryview of them: read per call)
        self.state = memoryview(table)  # pure.BASE_CYCLES, BASE_US, CPU_MHZ (a view: cheap from Python)
        self.state[pure.BASE_CYCLES] = self.state[pure.BASE_US] = 0
        self.state[pure.CPU_MHZ] = BOOT_CPU_MHZ
        self.bus_mhz = BOOT_BUS_MHZ
        self.epoch = 0  # counts the clock changes: a cycle count computed for a time holds until the next

    @property
    def cpu_mhz(self) -> int:
        return self.state[pure.CPU_MHZ]

    @property
    def base_cycles(self) -> int:
        return self.state[pure.BASE_CYCLES]

    @property
    def base_us(self) -> int:
        return self.state[pure.BASE_US]

    @property
    def cycles(self) -> int:
        return self.counters[CYCLES]

    def now_us(self) -> int:
        return _pure_value(pure.SYSTEM_TIME, self.state, self.counters[CYCLES])

    def seconds(self) -> float:
        s = self.state
        return s[pure.BASE_US] / 1e6 + (self.counters[CYCLES] - s[pure.BASE_CYCLES]) / (s[pure.CPU_MHZ] * 1e6)

    def now_exact(self) -> float:
        """Simulated microseconds to the cycle (a deadline may fall between microseconds)."""
        return self.exact_at(self.counters[CYCLES])

    def exact_at(self, cycles: int) -> float:
        """now_exact() when the cycle counter read `cycles` (at the clock now in force)."""
        s = self.state  # (no property calls)
        return s[pure.BASE_US] + (cycles - s[pure.BASE_CYCLES]) / s[pure.CPU_MHZ]

    def cycles_at(self, us) -> int:
        """The first cycle count at or after simulated time `us` (which may be fractional)."""
        s = self.state
        return s[pure.BASE_CYCLES] + math.ceil((us - s[pure.BASE_US]) * s[pure.CPU_MHZ])

    def set_mhz(self, cpu_mhz: int, bus_mhz: int) -> None:
        now = self.now_us()
        self.state[pure.BASE_CYCLES], self.state[pure.BASE_US] = self.cycles, now
        self.state[pure.CPU_MHZ], self.bus_mhz = cpu_mhz, bus_mhz
        self.epoch += 1

    def advance_to(self, us: int) -> int:
        """Jump the cycle counter so that now_us() == us (idle time); returns cycles added."""
        target = self.cycles_at(us)
        added = max(0, target - self.cycles)
        self.counters[CYCLES] += added
        return added


class Timers:
    """Deadlines in simulated microseconds (whole, or fractional for devices that finish
    between microseconds: the GE); each fires a Python callable once."""

    def __init__(self):
        self.heap = []
        self.seq = 0

    def add(self, deadline_us: int, action) -> list:
        self.seq += 1
        entry = [deadline_us, self.seq, action]
        heapq.heappush(self.heap, entry)
        return entry

    @staticmethod
    def cancel(entry) -> None:
        if entry is not None:
            entry[2] = None

    def next_entry(self):
        """The live entry [deadline, seq, action] that falls due first, or None (cancelled
        ones on top are dropped)."""
        heap = self.heap
        while heap and heap[0][2] is None:
            heapq.heappop(heap)
        return heap[0] if heap else None

    def next_deadline(self):
        top = self.next_entry()
        return None if top is None else top[0]

    def pop_due(self, now_us: int):
        while self.heap and (self.heap[0][2] is None or self.heap[0][0] <= now_us):
            entry = heapq.heappop(self.heap)
            if entry[2] is not None:
                action, entry[2] = entry[2], None
                yield action


class Kernel:
    """The OS state of one run. `managers` (allegrex.hle.libraries.MANAGERS: attribute name ->
    class) are the libraries' per-run state, built here as kernel.<name> = Class(kernel)."""

    def __init__(self, machine, options: RunOptions | None, managers: dict):
        self.machine = machine
        self.memory = machine.memory
        self.cpu = machine.cpu
        self.model = self.memory.model
        self.options = options or RunOptions()
        self.stdout = self.options.stdout or sys.stdout
        self.stderr = self.options.stderr or sys.stderr
        # the calls the run loop answers and the state they read (allegrex.hle.pure), new for each run
        self.syscall_table = machine.syscall_table = pure.new_table(self.options.input_events)
        self._kinds = memoryview(self.syscall_table)  # (on_syscall reads a kind per call: a memoryview's item costs least)
        self._saved_args = getattr(machine, "saved_args", None)  # the arguments the run loop kept (Machine.saved_args)
        self.clock = Clock(self.cpu.counters_view, self.syscall_table)
        self.timers = Timers()
        self.stop: Stop | None = None
        self.syscalls: list = []
        self.unknown_imports: list[UnknownImport] = []
        self.call_counts: dict[str, int] = {}  # calls Python answered (calls_made() adds the run loop's)
        self._hle_cycles = 0  # charged by Python (hle_cycles adds the run loop's)
        self._idle_cycles = 0  # skipped by Python (idle_cycles adds the run loop's)
        self.idle_waits_in_loop = False  # the run loop may answer a wait with an idle skip (pure.WAITS)
        self.driving = False  # inside Kernel.run: a lone thread's timed wait may be one idle skip (threads)
        self.memstick_cycles = 0  # the memory stick's driver copying: the CPU is busy, no thread runs
        self.reported: set = set()
        self.sandbox_refusals: list[str] = []
        self.next_uid = 0x00100001
        self.objects: dict[int, KernelObject] = {}
        self.image = None
        self.sdk_version = 0
        self.compiler_version = 0
        self._trampolines: dict[str, int] = {}
        self.interrupts: list = []  # (saved context, thread, on_return) of running handlers
        self.intr_enabled = 1  # sceKernelCpuSuspendIntr clears it: timers wait until it is set again
        self.pending_interrupts: list = []
        self._trampoline_next = TRAMPOLINE_ADDR
        self.linker = Linker(self.memory)  # the user libraries started modules export
        # single values of libraries with no manager of their own
        self.running_vtimer = 0  # the vtimer whose handler runs now (timers), 0 outside handlers
        self.dmac_busy_until_us = 0  # when the DMAC finishes the copy under way (dmac)
        self.exception_handlers: list[int] = []  # default exception handlers, oldest first (kernel_libraries)
        for name, manager in managers.items():
            setattr(self, name, manager(self))

    @property
    def hle_cycles(self) -> int:
        """Cycles charged for HLE calls, by Python and by the run loop (allegrex.hle.pure)."""
        return self._hle_cycles + int(self.syscall_table[pure.CHARGED_CYCLES])

    @hle_cycles.setter
    def hle_cycles(self, value: int) -> None:
        self._hle_cycles = value - int(self.syscall_table[pure.CHARGED_CYCLES])

    @property
    def idle_cycles(self) -> int:
        """Cycles every thread waited, skipped by Python and by the run loop (allegrex.hle.pure)."""
        return self._idle_cycles + int(self.syscall_table[pure.IDLE_CYCLES])

    @idle_cycles.setter
    def idle_cycles(self, value: int) -> None:
        self._idle_cycles = value - int(self.syscall_table[pure.IDLE_CYCLES])

    def calls_made(self) -> dict:
        """HLE function name -> calls, whoever answered them."""
        counts = dict(self.call_counts)
        table = self.syscall_table
        for i in np.flatnonzero(table[pure.COUNT:pure.COUNT + min(len(self.syscalls), pure.CODES)]):
            name = self.syscalls[i].name
            counts[name] = counts.get(name, 0) + int(table[pure.COUNT + i])
        return counts

    @property
    def kernel_mode(self) -> bool:
        """The program is a kernel-mode module (attribute 0x1000; boot.py decides): the
        machine's memory map, which lets it reach kernel memory."""
        return self.memory.kernel_mode

    # --- object ids shared by all kernel objects ---
    def new_uid(self, obj) -> int:
        uid = self.next_uid
        self.next_uid += 2
        self.objects[uid] = obj
        return uid

    def get(self, uid: int, kind):
        obj = self.objects.get(uid & 0xFFFFFFFF)
        return obj if isinstance(obj, kind) else None

    def free_uid(self, uid: int) -> None:
        self.objects.pop(uid, None)

    # --- messages ---
    def warn(self, message: str) -> None:
        print(f"allegrex: {message}", file=self.stderr)

    def warn_once(self, key, message: str, *args) -> None:
        """Warn the first time `key` is seen; `message`.format(*args), formatted only then
        (a call that warns may repeat every frame)."""
        if key not in self.reported:
            self.reported.add(key)
            self.warn(message.format(*args) if args else message)

    def request_stop(self, kind: str, message: str, exit_code: int = 0) -> None:
        if self.stop is None:
            self.stop = Stop(kind, message, exit_code)

    # --- loading ---
    def trampoline(self, name: str, func) -> int:
        """Address of an internal `syscall` stub that calls func(kernel) (one per name)."""
        if name not in self._trampolines:
            addr = self._trampoline_next
            if addr + 8 > TRAMPOLINE_LIMIT:
                raise AllegrexError("out of trampoline space")
            self._trampoline_next += 8
            entry = registry.HleFunction(INTERNAL_LIBRARY, name, 0, func, costs.TRAMPOLINE, [], "raw")
            code = self._add_syscall(entry)
            self.memory.write_u32(addr, syscall_word(code))
            self.memory.write_u32(addr + 4, NOP)
            self._trampolines[name] = addr
        return self._trampolines[name]

    def _add_syscall(self, entry) -> int:
        self.syscalls.append(entry)
        index = len(self.syscalls) - 1
        if type(entry) is registry.HleFunction and index < pure.CODES:  # the run loop charges it (and may answer it)
            by_python = pure.BY_PYTHON if entry.library != INTERNAL_LIBRARY else pure.BY_PYTHON_KEEPS
            self.syscall_table[pure.KIND + index] = entry.in_loop or by_python
            self.syscall_table[pure.COST + index] = entry.cost
            if entry.in_loop in pure.WAITS and not self.idle_waits_in_loop:
                self.idle_waits_in_loop = True
                self.threads.changes += 1  # Kernel.run now sets the idle limit: it plans its pass again
        return SYSCALL_BASE + index

    def install_imports(self, imports) -> None:
        """Link every import stub as the module loader does (allegrex.hle.linker): HLE
        functions become `jr ra; syscall id`, user libraries' functions jumps into the
        module that exports them; unknown and not-yet-linked ones are listed on stderr."""
        known_before = len(self.unknown_imports)
        waiting, foreign = [], []
        for library, function in stub_owners(imports).values():
            entry = registry.lookup(library.name, function.nid)
            if entry is None and not is_firmware_library(library.name):
                stub = ModuleStub(library.name, function.nid, function.name, function.stub_addr, 0)
                stub.syscall_word = syscall_word(self._add_syscall(stub))
                if not self.linker.add(stub):
                    waiting.append(stub)
                continue
            if entry is None and (elsewhere := exported_elsewhere(library.name, function.nid)):
                stub = ModuleStub(library.name, function.nid, function.name, function.stub_addr, 0,
                                  f"which {library.name} does not export (the NID is {elsewhere}): the "
                                  "firmware leaves such a stub not linked")
                stub.syscall_word = syscall_word(self._add_syscall(stub))
                self.linker.write(stub)
                foreign.append(stub)
                continue
            if entry is None:
                entry = UnknownImport(library.name, function.nid, function.name, function.stub_addr)
                self.unknown_imports.append(entry)
            code = self._add_syscall(entry)
            self.memory.write_u32(function.stub_addr, JR_RA)
            self.memory.write_u32(function.stub_addr + 4, syscall_word(code))
        for library in imports:
            for variable in getattr(library, "variables", []) or []:
                self.warn_once(("var", library.name), f"imported variables of {library.name} are not provided")
        if waiting:
            names = sorted({stub.library for stub in waiting})
            self.warn(f"{len(waiting)} imported function(s) of {', '.join(names)} not linked yet: a module that "
                      "exports them must start first (until then they return LIBRARY_IS_NOT_LINKED)")
        for stub in foreign:
            self.warn(f"import stub at 0x{stub.stub_addr:08x}: {stub.describe()} {stub.why} (it returns "
                      "LIBRARY_IS_NOT_LINKED)")
        new_unknown = self.unknown_imports[known_before:]
        if new_unknown:
            self.warn(f"{len(new_unknown)} imported function(s) not implemented "
                      "(the run stops if one is called):")
            for entry in new_unknown:
                self.warn(f"  {entry.describe()} stub at 0x{entry.stub_addr:08x}")
            if self.options.strict:
                raise HleStop("unknown-import", "--strict: the program imports functions allegrex does not provide")

    # --- dispatch ---
    def on_syscall(self, code: int, from_loop: bool = False) -> None:
        """Answer system call `code`: its cost and count, the HLE function's arguments, call
        and result, then the scheduler (the call may have made a thread ready or this one
        wait). from_loop: the run loop stopped for it, having charged and counted it if its
        table lists it (allegrex.hle.pure.charge)."""
        index, syscalls = code - SYSCALL_BASE, self.syscalls
        entry = syscalls[index] if 0 <= index < len(syscalls) else None
        if type(entry) is not HleFunction:
            self._not_hle(entry, code)
            return
        # (locals, plain calls: this runs per system call)
        cpu, threads = self.cpu, self.threads
        kind = self._kinds[LOOP_KIND + index] if from_loop and index < LOOP_CODES else 0
        if not kind:  # else the loop charged and counted it
            self.charge(entry.cost)
            counts = self.call_counts
            counts[entry.name] = counts.get(entry.name, 0) + 1
        changes = threads.changes
        try:
            if kind == BY_PYTHON:  # the loop clobbered the registers, keeping the arguments
                result = (entry.func(self, *entry.read_args(cpu, self.memory, self._saved_args)) if entry.params
                          else entry.func(self))
            else:
                args = entry.read_args(cpu, self.memory) if entry.params else ()
                if entry.library != INTERNAL_LIBRARY:  # internal returns restore contexts: leave them
                    cpu.regs[SYSCALL_CLOBBERED] = DEADBEEF
                result = entry.func(self, *args)
            if result is not None:
                if entry.result == "s32":  # (write_result's common case, inline: this runs per system call)
                    cpu.regs_view[V0] = (result if type(result) is int else int(result)) & 0xFFFFFFFF
                else:
                    entry.write_result(cpu, result)
        except GuestMemoryError as exc:
            self.request_stop("fault", f"{self._call_site(entry)}: {exc}", 1)
        except HleStop as exc:
            self.request_stop(exc.kind, f"{self._call_site(entry)}: {exc}", exc.exit_code)
        except IllegalContext:
            self.cpu.regs[V0] = codes.ILLEGAL_CONTEXT  # waiting inside an interrupt
        except AttributeError as exc:
            if self.interrupts and self.threads.current is None:  # a thread call with no thread
                self.cpu.regs[V0] = codes.ILLEGAL_CONTEXT
            else:
                self.request_stop("hle-error", f"internal error in {self._call_site(entry)}: "
                                  f"{exc.__class__.__name__}: {exc}", 1)
        except (ArithmeticError, ValueError, IndexError, KeyError, TypeError) as exc:
            # a bug in allegrex's HLE, not in the guest: stop with a clear line, not a traceback
            self.request_stop("hle-error", f"internal error in {self._call_site(entry)}: "
                              f"{exc.__class__.__name__}: {exc}", 1)
        if changes != threads.changes or not self.driving:  # (in Kernel.run, what runs was settled before the call)
            threads.reschedule()

    def _call_site(self, entry) -> str:
        return f"{entry.library}.{entry.name} called from 0x{int(self.cpu.regs[RA]):08x}"

    def _not_hle(self, entry, code: int) -> None:
        """A system call that is no HLE function: not ours, an import allegrex lacks, or a
        user library's function called before its module started."""
        ra = int(self.cpu.regs[RA])
        if entry is None:
            self.request_stop("fault", f"syscall 0x{code:x} at pc 0x{(int(self.cpu.regs[PC]) - 4) & 0xFFFFFFFF:08x}"
                              " is not an import allegrex patched", 1)
        elif isinstance(entry, UnknownImport):
            media = (f"; {entry.library} is a codec/media library, which allegrex does not emulate"
                     if entry.library in MEDIA_LIBRARIES else "")
            self.request_stop("unknown-import", f"called unimplemented import {entry.describe()} "
                              f"from 0x{(ra - 8) & 0xFFFFFFFF:08x} (ra=0x{ra:08x}){media}", 1)
        else:  # ModuleStub, the firmware's not-linked stub: an error code, nothing else
            self.warn_once(("unlinked", entry.stub_addr), f"called {entry.describe()} from 0x{(ra - 8) & 0xFFFFFFFF:08x}"
                           f" {entry.why}: LIBRARY_IS_NOT_LINKED")
            self.cpu.regs[V0] = LIBRARY_IS_NOT_LINKED

    def charge(self, cycles: int) -> None:
        """Cycles of kernel work for one call: the cycle counter, the timing model's
        'syscalls' stall row and call count (allegrex.timing.charge_hle)."""
        charge_hle(self.machine, cycles)
        self._hle_cycles += cycles

    def set_clock(self, cpu_mhz: int, bus_mhz: int) -> None:
        """scePower changed the clocks: time runs at the new rate from now on, and the
        timing model charges memory at the new bus ratio."""
        self.clock.set_mhz(cpu_mhz, bus_mhz)
        timing = getattr(self.machine, "timing", None)
        if timing is not None:
            timing.set_clock(cpu_mhz, bus_mhz, self.clock.cycles)

    # --- interrupt handlers (alarms, vtimers, vblank) ---
    def run_interrupt(self, func: int, args: tuple, on_return) -> None:
        """Run guest `func(*args)` now, in interrupt context on a kernel stack, on top of
        whatever runs; on_return(v0) is called when it returns. Handlers never nest: one
        that falls due meanwhile waits its turn."""
        if self.interrupts:
            self.pending_interrupts.append((func, args, on_return))
            return
        cpu = self.cpu
        saved = cpu.save_context()
        regs = saved[0].copy()
        for i, value in enumerate(args):
            regs[A0 + i] = value & 0xFFFFFFFF
        regs[SP] = INTERRUPT_STACK_TOP
        regs[RA] = self.trampoline("interrupt-return", _interrupt_returned)
        if self.image is not None and self.image.gp:
            regs[GP] = self.image.gp
        regs[PC], regs[NPC] = func, func + 4
        self.interrupts.append((saved, self.threads.current, on_return))
        self.threads.changes += 1
        cpu.load_context((regs, saved[1].copy(), saved[2].copy(), saved[3].copy()))
        self.cpu.counters[CYCLES] += costs.THREAD_SWITCH

    def set_interrupts(self, enabled: int) -> None:
        """Interrupts on (1) or off (0): while off no timer fires and no thread switches."""
        self.threads.changes += 1
        self.intr_enabled = enabled

    # --- time ---
    def now_us(self) -> int:
        return self.clock.now_us()

    def fire_timers(self) -> bool:
        """Run the actions of the timers due now; whether there were any."""
        if not self.intr_enabled:
            return False
        deadline = self.timers.next_deadline()
        if deadline is None:
            return False
        now = self.clock.now_exact()
        if deadline > now:
            return False  # the common case after a system call: nothing due
        for action in self.timers.pop_due(now):
            action()
        return True

    def idle_until_next_event(self) -> bool:
        """Every thread waits: jump time to the next deadline. False when there is none."""
        deadline = self.timers.next_deadline()
        if deadline is None or not self.intr_enabled:  # with interrupts off no timer can wake anyone
            return False
        held = self.threads.cpu_held()
        added = self.clock.advance_to(deadline)
        if held:
            self.memstick_cycles += added
        else:
            self.idle_cycles += added
        self.fire_timers()
        self.threads.reschedule()
        return True

    # --- the run loop ---
    def run(self, max_seconds: float | None = None, timeout: float | None = None,
            chunk: int = 4_000_000, progress=None, started: float | None = None) -> Stop:
        """Run until something stops the program; returns why. The `timeout` wall-clock
        seconds count from `started` (a time.monotonic() reading, default now: commands
        pass the moment they started, so loading counts too). progress(kernel), called when
        the timeout is checked (WALL_CHECK_PASSES), may observe or request_stop but not change
        threads or timers: a pass after a call that changed nothing reuses the last one's
        plan (ThreadManager.changes)."""
        for value, name in ((max_seconds, "max_seconds"), (timeout, "timeout")):
            if value is not None:
                check_seconds(value, name)
        run_began = wallclock.monotonic()
        start = run_began if started is None else started
        first_instructions = int(self.cpu.counters[INSTRUCTIONS])
        clock, timers, threads = self.clock, self.timers, self.threads  # locals: this loop runs per system call
        max_us = None if max_seconds is None else int(max_seconds * 1e6)
        max_cycles = None
        seen = None  # (deadline, clock epoch) the cycle counts below were computed for: they hold until either changes
        # locals for what each system call's pass reads (the counters and table as memoryviews)
        machine, counters, table, event = self.machine, clock.counters, clock.state, self.machine.event_view
        threads.reschedule()
        self.driving = True  # (an exception out of this loop ends the run: no try/finally needed)
        plan = True  # work out the pass's limits; False after a call that changed nothing they rest on
        budget, checks, check_at = chunk, 0, 0  # the step's budget; passes and instruction count to the next check
        while self.stop is None:
            if plan and threads.current is None and not self.interrupts:
                if not threads.any_alive():
                    self.request_stop("threads-ended", "every thread has exited", 0)
                    break
                if not self.idle_until_next_event():
                    if threads.quit_via_exit_callback():
                        continue
                    if threads.all_sleeping():
                        self.request_stop("sleeping", "every thread sleeps: the program waits for the user "
                                          "to quit (HOME) and has no exit callback", 0)
                    else:
                        self.request_stop("deadlock", "deadlock: every thread waits and nothing can wake one\n"
                                          + threads.describe_waits(), 1)
                    break
                continue
            checks -= 1
            if checks <= 0 or counters[INSTRUCTIONS] >= check_at:  # the wall clock's turn
                if timeout is not None:
                    if wallclock.monotonic() - start > timeout:
                        self.request_stop("timeout", f"stopped at the --timeout limit ({timeout:g} wall-clock s)", 3)
                        break
                    budget = self._timed_budget(chunk, first_instructions, run_began)
                checks, check_at = WALL_CHECK_PASSES, counters[INSTRUCTIONS] + budget
                if progress is not None:
                    progress(self)
                    if self.stop is not None:
                        break
            if plan:  # run until the next timer deadline or the simulated-time limit, whichever is first
                top = timers.next_entry() if self.intr_enabled else None
                deadline = None if top is None else top[0]
                cycles = counters[CYCLES]
                if seen is None or seen[0] != deadline or seen[1] != clock.epoch:
                    seen = (deadline, clock.epoch)
                    first = due = None if deadline is None else clock.cycles_at(deadline)
                    if max_us is not None:
                        max_cycles = clock.cycles_at(max_us)
                        first = max_cycles if first is None or max_cycles < first else first
                if max_cycles is not None and cycles >= max_cycles:
                    self.request_stop("max-seconds", f"stopped at the --max-seconds limit "
                                      f"({max_seconds:g} simulated s)", 3)
                    break
                limit = first
                if limit is not None and limit <= cycles:
                    limit = cycles + 1
                if self.idle_waits_in_loop:  # how long the loop may skip idle time for a wait (pure.WAITS)
                    idle_limit = IDLE_UNBOUNDED if limit is None else limit
                    table[pure.IDLE_LIMIT] = idle_limit if threads.runs_alone() else 0
                # the plan holds while no change counts (a hold on the CPU ends with time: none may be on)
                steady = threads.changes if threads.cpu_free() else None
            code = machine.advance(budget, limit)
            if code == EV_SYSCALL:  # the common case: no Event built
                self.on_syscall(event[1], True)  # (which ends rescheduling)
                # a timer can be due only if the call added one ahead of `top` (or enabled
                # interrupts: top None), changed the clock, or time came within 2 cycles of the
                # deadline (a margin for the float rounding of cycles_at and now_exact); else
                # fire_timers would find none due, and the next pass plans the same while what
                # runs, the top timer, the clock and the limit do
                heap = timers.heap
                if heap:
                    if heap[0] is top and clock.epoch == seen[1] and counters[CYCLES] + 2 < due:
                        plan = (threads.changes != steady or threads.cpu_held_until or top[2] is None
                                or (first is not None and counters[CYCLES] >= first))
                    else:
                        plan = True
                        if self.fire_timers():
                            threads.reschedule()
                else:
                    plan = (top is not None or clock.epoch != seen[1] or threads.changes != steady
                            or threads.cpu_held_until or (first is not None and counters[CYCLES] >= first))
            else:
                if code != EV_BUDGET:
                    self._stop_for(self.machine.last_event())
                self.fire_timers()
                threads.reschedule()
                plan, checks = True, 0  # a step that ran to its budget (or stopped): the wall clock's turn
        self.driving = False
        clock.state[pure.IDLE_LIMIT] = 0  # a step outside this loop skips no idle time
        self.io.flush_all()
        return self.stop

    def _stop_for(self, event) -> None:
        """The run stops for a CPU event other than a system call or a used-up budget."""
        kind = event.kind
        if kind == "fault":
            self.request_stop("fault", self.fault_report(event), 1)
        elif kind == "break":
            self.request_stop("break", self.fault_report(event, "break instruction"), 1)
        elif kind == "halt":
            self.request_stop("halt", f"the CPU halted at 0x{int(event.pc):08x}", 1)
        elif kind == "breakpoint":  # set by a Python caller (bench kernel): it resumes with run()
            self.request_stop("breakpoint", f"breakpoint at 0x{int(event.pc):08x}", 0)

    def _timed_budget(self, chunk: int, first_instructions: int, run_began: float) -> int:
        """Instructions for the next step under a wall-clock limit: what the speed measured
        since run_began runs in TIMEOUT_CHECK_S (at most `chunk`), so the limit is checked
        that often. The simulation does not depend on where steps end."""
        done = int(self.cpu.counters[INSTRUCTIONS]) - first_instructions
        elapsed = wallclock.monotonic() - run_began
        if done == 0 or elapsed <= 0:
            return FIRST_TIMED_CHUNK
        return min(chunk, max(FIRST_TIMED_CHUNK, int(done / elapsed * TIMEOUT_CHECK_S)))

    def fault_report(self, event, what: str | None = None) -> str:
        if event.kind == "fault" and hasattr(self.machine, "fault"):
            report = str(self.machine.fault(event))  # the CPU's report: PC, instruction, registers, symbol
            thread = self.threads.current
            if thread is not None:
                report += f"\n  in thread {thread.name!r} (uid 0x{thread.uid:x})"
            if self.exception_handlers:
                report += (f"\n  the program registered a default exception handler (0x{self.exception_handlers[-1]:08x}),"
                           " which a PSP would run now; allegrex stops at guest faults")
            return report
        regs = self.cpu.regs
        lines = [f"guest {what or 'fault'} at pc 0x{int(event.pc):08x}"
                 + (f" (code {event.code})" if getattr(event, 'code', None) not in (None, 0) else "")]
        thread = self.threads.current
        if thread is not None:
            lines.append(f"thread {thread.name!r} (uid 0x{thread.uid:x})")
        for row in range(0, 32, 4):
            lines.append("  ".join(f"{GPR_NAMES[i]:>4}={int(regs[i]):08x}" for i in range(row, row + 4)))
        return "\n".join(lines)

    # --- stats ---
    def stats(self) -> dict:
        counters = self.cpu.counters
        return {
            "exit_reason": self.stop.kind if self.stop else None,
            "message": self.stop.message if self.stop else None,
            "cycles": int(counters[CYCLES]),
            "instructions": int(counters[INSTRUCTIONS]),
            "idle_cycles": self.idle_cycles,
            "memstick_cycles": self.memstick_cycles,
            "hle_cycles": self.hle_cycles,
            "simulated_seconds": round(self.clock.seconds(), 6),
            "cpu_mhz": self.clock.cpu_mhz,
            "bus_mhz": self.clock.bus_mhz,
            "hle_calls": dict(sorted(self.calls_made().items(), key=lambda kv: -kv[1])),
            "unknown_imports": [u.describe() for u in self.unknown_imports],
            "sandbox_refusals": list(self.sandbox_refusals),
            "frames_written": self.display.frames_written,
            "audio_seconds": round(self.audio.sounding_seconds(), 6),
            "counters": timing_counters.snapshot(counters),
        }
