"""The machine: guest memory + CPU state + the numba run loop, behind a small API.

    m = Machine("psp-2000")
    m.load_raw(0x08804000, code, entry=0x08804000)
    event = m.step(1000)                     # one call into the run loop, one Event back
    event = m.run(syscall_handler=hle)       # loops over events; syscalls go to hle(m, code)

The HLE plugs in as `syscall_handler(machine, code)`: it reads arguments from
m.cpu.regs, writes results (v0/v1), may redirect with m.cpu.jump(addr), and returns
None to resume or Machine.STOP to make run() return the syscall event.
"""

import time
from typing import NamedTuple

import numpy as np

from allegrex.cpu import interp, scalar_loop, vfpu_loop
from allegrex.cpu.events import (EV_BREAK, EV_BREAKPOINT, EV_BUDGET, EV_FAULT, EV_HALT, EV_JIT, EV_NEAR_BUDGET,
                                 EV_NONE, EV_STALE, EV_SYSCALL, EVENT_ARGS, EVENT_FIELDS, EVENT_NAMES)
from allegrex.cpu.jit import HOT_MASK, Jit, room_to_compile
from allegrex.cpu.jit.helper_processes import compiling_alongside, new_pieces
from allegrex.cpu.jit.piece_calls import compile_region
from allegrex.cpu.jit.region import PIECE
from allegrex.cpu.jit.store import on_disk
from allegrex.cpu.faults import GuestFault
from allegrex.cpu.state import CYCLES, INSTRUCTIONS, NPC, PC, CpuState
from allegrex.errors import GuestMemoryError
from allegrex.hle import pure
from allegrex.memory import Memory
from allegrex.timing import Timing
from vfpu.exec import new_scratch

NO_CYCLE_LIMIT = interp.NO_CYCLE_LIMIT  # (a module constant: advance runs per system call)

RUN_CHUNK = 50_000_000  # instructions per call into the loop when run() has no budget


def compiled_entry(dispatcher, args: tuple, notice=None):
    """The machine code numba compiled `dispatcher` to for the types of `args` (loaded from
    the cache or compiled first), callable without the dispatcher's per-call type resolution
    (half of a call into the run loop: 0.4 of 0.8 us). Only for arguments whose types never
    change: the entry point converts each argument to the type it was compiled for.
    notice(message), if given, hears of a compile that numba's cache cannot spare."""
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    if notice is None or sig in dispatcher.overloads or on_disk(dispatcher, sig):
        return dispatcher.compile(sig)
    notice(f"compiling the CPU's run loop ({dispatcher.py_func.__qualname__}) to machine code: "
           "a first run's wait, cached for later runs")
    started = time.monotonic()
    entry = dispatcher.compile(sig)
    notice(f"run loop ready ({time.monotonic() - started:.0f} s)")
    return entry


class Event(NamedTuple):
    """Why the run loop stopped. kind: syscall, break, fault, halt, budget, breakpoint.
    value: the syscall/break code, the faulting address (memory faults) or word;
    pc: the instruction that raised it; extra: the FAULT_* kind for faults.
    (A NamedTuple: one is built per system call, and a frozen dataclass costs 3x more.)"""

    kind: str
    value: int
    pc: int
    extra: int = 0

    @property
    def code(self) -> int:
        return self.value


class Machine:
    STOP = object()  # returned by a syscall handler or progress callback: stop run()

    def __init__(self, model: str = "psp-2000", timing: bool = True):
        self.memory = Memory(model)
        self.cpu = CpuState()
        self.timing = Timing(enabled=timing)  # cycle model; timing=False counts 1 cycle/instruction
        self.memory.mapping_changed = self.timing.arrays_changed = self._loop_args_changed
        self.breakpoints: set[int] = set()
        self._breakpoints_seen, self._breakpoint_array = frozenset(), np.zeros(0, dtype=np.uint32)
        self._loop_arrays = self._run_loop = None  # see _arrays()
        self._region_types = None  # the argument types of every region's call (see _region_entry)
        self._args_around = self._args = None  # see _call_args()
        self._args_budget = self._args_limit = None
        self._ready = None  # (budget, max_cycles, run loop, its arguments) of the last step (see advance)
        self._counters = self.cpu.counters_view
        self._last_code = EV_NONE
        self.vfpu_loop = False  # the run loop with the VFPU (vfpu_loop.run) in use: since the first VFPU word
        self.symbol_lookup = None  # optional: symbol_at(addr) -> (Symbol, offset) | None
        self.notice = None  # optional: notice(message) before slow preparation (allegrex run: stderr)
        self._dc_word, self._dc_val = interp.new_decode_cache()
        self._trace = np.zeros(interp.TRACE_SIZE, dtype=np.uint32)
        self._trace_log = np.zeros(interp.TRACE_LOG, dtype=np.int64)  # compiled regions' blocks retired (codegen)
        self._event = np.zeros(EVENT_FIELDS, dtype=np.int64)
        self.event_view = memoryview(self._event)  # (the HLE's per-call reads: cheaper than numpy's)
        # a0-t3 of the system call the loop stopped for, as it kept them (allegrex.hle.pure.charge)
        self.saved_args = memoryview(self._event[EVENT_ARGS:]).cast("B").cast("I")
        self._vscratch, self._vterms = new_scratch()  # VFPU working storage, reused by every VFPU op
        self._syscall_table = pure.new_table()
        self._jit = Jit(self._read_word, read_bytes=self._read_bytes)

    # --- what the run loop's arguments hold besides the state arrays ---
    @property
    def jit(self) -> Jit:
        """The compiled regions and the run loop's hot counters (allegrex.cpu.jit)."""
        return self._jit

    @jit.setter
    def jit(self, jit: Jit) -> None:
        self._jit = jit
        self._loop_args_changed()

    @property
    def syscall_table(self) -> np.ndarray:
        """The system calls the run loop answers itself, and the clock they read
        (allegrex.hle.pure; a Kernel fills it in; empty, every syscall stops the loop)."""
        return self._syscall_table

    @syscall_table.setter
    def syscall_table(self, table: np.ndarray) -> None:
        self._syscall_table = table
        self._loop_args_changed()

    def _loop_args_changed(self) -> None:
        """Something the run loop's arguments hold was replaced: the memory map (Memory calls
        this), the timing arrays (Timing calls this), the jit or the syscall table. They are
        built again at the next step; until then advance() reuses them unchecked."""
        self._loop_arrays = self._args_around = self._args = self._ready = None

    # --- loading ---
    def load_raw(self, addr: int, data: bytes, entry: int | None = None) -> None:
        """Copy `data` into guest memory at `addr`; start at `entry` if given."""
        self.memory.write(addr, data)
        if entry is not None:
            self.cpu.jump(entry)

    # --- privilege ---
    @property
    def kernel_mode(self) -> bool:
        return self.memory.kernel_mode

    def set_kernel_mode(self, on: bool) -> None:
        """Run as kernel code (a module with attribute 0x1000) or as user code (the default):
        in user mode any access to the kernel segments (0x80000000 and up) faults, from
        the CPU, compiled regions and Memory's checked accessors alike."""
        self.memory.set_kernel_mode(on)

    # --- counters ---
    @property
    def cycles(self) -> int:
        return int(self.cpu.counters[CYCLES])

    @property
    def instructions(self) -> int:
        return int(self.cpu.counters[INSTRUCTIONS])

    # --- running ---
    def step(self, max_instructions: int = 1, max_cycles: int | None = None) -> Event:
        """Run until one event, at most `max_instructions` (and until counters[CYCLES]
        reaches `max_cycles`, an absolute cycle count, if given). Hot loops run as
        compiled regions (allegrex.cpu.jit) unless breakpoints are set."""
        self.advance(max_instructions, max_cycles)
        return self.last_event()

    def advance(self, max_instructions: int = 1, max_cycles: int | None = None) -> int:
        """step() without building the Event: returns its EV_* code (allegrex.cpu.events),
        the rest is in last_event() / event_value(). Every system call passes here, so its
        common case is one call of the run loop with the last step's arguments, kept while
        the budget and the limit are the same, nothing they hold was replaced
        (_loop_args_changed) and no breakpoint is set."""
        before = self._counters[INSTRUCTIONS]
        ready = self._ready
        if ready is None or ready[0] != max_instructions or ready[1] != max_cycles or self.breakpoints:
            args = self._call_args(max_instructions, NO_CYCLE_LIMIT if max_cycles is None else max_cycles)
            ready = (max_instructions, max_cycles, self._loop_entry(args), args)
            self._ready = None if self._breakpoints_seen else ready  # (arguments with breakpoints are not kept)
        code = ready[2](*ready[3])
        if code == EV_JIT or code == EV_FAULT:
            code = self._after_loop(code, ready[3], before + int(max_instructions), max_cycles)
        self._last_code = code
        return code

    def _loop_entry(self, args: tuple):
        """The run loop's machine code for `args`' types (with the VFPU once the program used it)."""
        if self._run_loop is None:
            self._run_loop = compiled_entry(vfpu_loop.run if self.vfpu_loop else scalar_loop.run, args, self.notice)
        return self._run_loop

    def _after_loop(self, code: int, args: tuple, end: int, max_cycles: int | None) -> int:
        """The run loop stopped at a compiled region's entry (EV_JIT) or a fault (EV_FAULT,
        perhaps its first VFPU word): run the region, or switch to the loop with the VFPU,
        and go on until the instruction count `end` or another event."""
        limit = NO_CYCLE_LIMIT if max_cycles is None else max_cycles
        while code == EV_JIT or code == EV_FAULT:
            if code == EV_FAULT:
                if self.vfpu_loop or not scalar_loop.is_vfpu_absent(code, self._event):
                    break
                self.vfpu_loop, self._run_loop, self._ready = True, None, None  # from this word on, the loop with the VFPU
            else:
                code = self._run_region(self._event.item(1), end, int(limit))
                if code == EV_NEAR_BUDGET:  # the interpreter finishes this step, exactly: no regions
                    head, tail = self._args_around
                    args = head + (end - self._counters[INSTRUCTIONS], int(limit)) + (*tail[:-2], 0, tail[-1])
                elif code != EV_NONE:
                    break
                else:
                    args = self._call_args(end - self._counters[INSTRUCTIONS], limit)
            code = self._loop_entry(args)(*args)
        return code

    def _call_args(self, budget: int, limit: int) -> tuple:
        """The run loop's arguments for `budget` and `limit`: the same tuple from call to call
        while they stay the same, the parts around them built again only when what they
        hold changed (_loop_args_changed; and the breakpoints, a set the caller edits)."""
        if self._args_around is None or self.breakpoints != self._breakpoints_seen:
            (state, timing), bps = self._arrays(), self._breakpoints()
            threshold = 0 if len(bps) else self._jit.threshold
            self._args_around = ((*state, self._dc_word, self._dc_val, bps, self._trace),
                                 (self._event, *timing, self._jit.hot, self._jit.entries, threshold, self._syscall_table))
            self._args = None
        if self._args is None or self._args_budget != budget or self._args_limit != limit:
            head, tail = self._args_around
            self._args = head + (int(budget), int(limit)) + tail
            self._args_budget, self._args_limit = budget, limit
        return self._args

    def last_event(self) -> Event:
        """The Event that ended the last step()/advance()."""
        _, value, pc, extra = self._event[:EVENT_ARGS].tolist()
        return Event(EVENT_NAMES[self._last_code], value, pc, extra)

    def event_value(self) -> int:
        """The last event's value (the syscall code of a syscall event) without the Event."""
        return self.event_view[1]

    def _breakpoints(self) -> np.ndarray:
        """self.breakpoints as the run loop's sorted uint32 array, rebuilt only when it changed."""
        if self.breakpoints != self._breakpoints_seen:
            self._breakpoints_seen = frozenset(self.breakpoints)
            self._breakpoint_array = np.array(sorted(self.breakpoints), dtype=np.uint32)
        return self._breakpoint_array

    def _arrays(self) -> tuple:
        """The arguments the run loop and compiled regions take before and after their per-call
        ones: (CPU state + memory, timing + VFPU scratch). Built once, again only when
        the timing model's arrays are replaced (enable_profile) or the memory map changes
        (kernel mode, EDRAM address translation), when the run loop's entry
        point is looked up again for their types (_loop_args_changed)."""
        if self._loop_arrays is None:
            c, t, m = self.cpu, self.timing, self.memory
            self._run_loop = None
            self._jit.entry_points.clear()  # compiled for the old arrays' types
            self._region_types = None
            self._loop_arrays = ((c.regs, c.fpr, c.fpr_bits, c.vpr, c.vpr_bits, c.vctrl, c.counters,
                                  m.mem, m.mem16, m.mem32, m.memf32, m.ram_size, m.mapping),
                                 (t.tm, t.prof, self._vscratch, self._vterms))
        return self._loop_arrays

    def _run_region(self, pc: int, end: int, limit: int) -> int:
        """Run the region compiled at `pc` (compiling it first if needed), and the next one
        wherever it leaves at the entry of another compiled region (no interpreter call
        between them); EV_NONE when the interpreter should go on."""
        timed, profiled = self.timing.enabled, self.timing.prof.shape[1] > 0
        counters, regs, jit = self.cpu.counters, self.cpu.regs, self.jit
        arrays = self._arrays()  # (the same for every region this call runs)
        while True:
            key = (pc, timed, profiled)
            before = counters.item(INSTRUCTIONS)
            args = self.region_args(end - before, limit, arrays)
            entry = jit.entry_points.get(key) or self._region_entry(key, args)
            if entry is None:
                return EV_NONE
            code = entry(*args)
            if code == EV_STALE:
                jit.forget(pc)
                return EV_NONE
            retired = counters.item(INSTRUCTIONS) - before
            jit.ran(key, retired)
            if code != EV_NONE:
                return code
            pc = regs.item(PC)  # (a region that declined its entry retired nothing and left pc there)
            if not retired or jit.entries.item((pc >> 2) & HOT_MASK) != pc or regs.item(NPC) != pc + 4:
                return EV_NONE

    def region_args(self, budget: int, limit: int, arrays: tuple | None = None) -> tuple:
        """The arguments of a compiled region (jit.codegen.ARGS) for an instruction budget
        and cycle limit (`arrays`: _arrays(), if the caller has it)."""
        state, timing = arrays or self._arrays()
        return (*state, self._trace, self._trace_log, budget, limit, self._event, *timing, self.syscall_table)

    def _region_entry(self, key: tuple, args: tuple):
        """The machine code of the region at key = (pc, timed, profiled) for `args`' types,
        compiled (or loaded) now; None when there is none to run."""
        fn = self.jit.region_at(*key)
        if fn is None:
            return None
        try:  # compiled here (or loaded from numba's cache); a region that cannot compile runs nothing
            if self._region_types is None:  # every region takes the same arguments: typed once
                self._region_types = tuple(fn.typeof_pyval(a) for a in args)
            background = self.jit.background
            if background is not None and not background.ready(key, fn, self._region_types):
                self.jit.defer(key[0])  # a helper process compiles it: interpret its loop meanwhile
                return None
            pieces = new_pieces(fn, self._region_types)
            said = bool(pieces) and self.notice is not None  # a long wait (seconds a piece): say what it is
            if said:
                self.notice(f"compiling the hot loop at 0x{key[0]:08x} ({len(pieces)} pieces of up to {PIECE} "
                            "instructions) to machine code: once, cached for later runs")
            started = time.monotonic()
            with room_to_compile(), compiling_alongside(fn, self._region_types, pieces) as alongside:
                entry = self.jit.entry_points[key] = compile_region(fn, self._region_types, alongside)
            if said:
                self.notice(f"hot loop ready ({time.monotonic() - started:.0f} s)")
        except Exception as e:  # noqa: BLE001 (numba's compile errors have no common base)
            self.jit.compile_failed(*key, e)
            return None
        return entry

    def finish_compiles(self) -> None:
        """Finish the region a helper process is compiling (jit.background), here, so that
        the next run finds it in the cache."""
        if self.jit.background is not None:
            with room_to_compile():
                self.jit.background.finish(compile_region)

    def stop_compiles(self) -> None:
        """Stop a helper process compiling a region (jit.background), leaving its work."""
        if self.jit.background is not None:
            self.jit.background.stop()

    def run(self, max_instructions: int | None = None, syscall_handler=None, progress=None,
            raise_on_fault: bool = True) -> Event:
        """Loop over events until one stops the run; returns that Event.

        Syscalls go to syscall_handler(machine, code) (no handler: stop). Budget events
        call progress(machine) between chunks (return Machine.STOP to stop). Faults raise
        GuestFault with a full report (or are returned when raise_on_fault is False).
        break, halt, breakpoint and the end of max_instructions stop the run."""
        remaining = max_instructions
        while True:
            chunk = RUN_CHUNK if remaining is None else min(remaining, RUN_CHUNK)
            before = self.instructions
            event = self.step(chunk)
            if remaining is not None:
                remaining -= self.instructions - before
            if event.kind == "syscall":
                if syscall_handler is None or syscall_handler(self, event.value) is Machine.STOP:
                    return event
            elif event.kind == "budget":
                if remaining is not None and remaining <= 0:
                    return event
                if progress is not None and progress(self) is Machine.STOP:
                    return event
            elif event.kind == "fault":
                if raise_on_fault:
                    raise self.fault(event)
                return event
            else:
                return event

    # --- faults ---
    def recent_pcs(self) -> list[int]:
        """The last executed instruction addresses, oldest first (up to TRACE_SIZE)."""
        count = self.instructions
        n = min(count, interp.TRACE_SIZE)
        mask = interp.TRACE_SIZE - 1
        return [int(self._trace[(count - n + i) & mask]) for i in range(n)]

    def _read_word(self, addr):
        try:
            return self.memory.read_u32(addr)
        except GuestMemoryError:
            return None

    def _read_bytes(self, addr, length):
        try:
            return self.memory.read(addr, length)
        except GuestMemoryError:
            return None

    def fault(self, event: Event) -> GuestFault:
        """The GuestFault (report) for a fault event from step()/run()."""
        word = self._read_word(event.pc)
        return GuestFault(event.extra, event.pc, word, address=event.value, regs=self.cpu.regs,
                          recent_pcs=self.recent_pcs(), symbol_lookup=self.symbol_lookup,
                          read_word=self._read_word, user_mode=not self.kernel_mode)


__all__ = ["Machine", "Event", "GuestFault", "EV_SYSCALL", "EV_BREAK", "EV_FAULT", "EV_HALT",
           "EV_BUDGET", "EV_BREAKPOINT"]
