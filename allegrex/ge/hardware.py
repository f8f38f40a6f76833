"""The GE as the firmware sees it: registers, an execution flag, interrupts, and time.

The firmware (queue.py) writes the list, stall and offset registers and sets EXEC to run;
the GE raises an interrupt at END (after SIGNAL or FINISH) and stops. Here a run executes
at once in the numba processor (its memory effects happen then) while the cost model
decides how long the GE is busy: the END interrupt is delivered, through the kernel's
timers, when that time has passed, and until then the GE reads as running with its list
address where the run began. A run that reaches the stall address waits there (still
running) until the stall address moves; one that exhausts its command budget (an
endless list) continues after the time it took, so it keeps the GE busy without holding
the host. Times are simulated microseconds (floats, exact to the CPU cycle).
"""

import numpy as np

from allegrex.ge import cost, draw, processor, transfer
from allegrex.ge.state import (ADDR_MASK, EXEC_RUNNING, GeState, R_CYCLES,
                               R_ERROR, R_ERROR_ADDR, R_ERROR_PC, R_EXEC, R_INTR, R_LISTADDR, R_STALLADDR,
                               R_COMMANDS, R_PIXELS, R_VERTICES, R_WARN, R_WARN_ADDR, R_WARN_PC)

BUDGET = 200_000  # commands per processor call; an endless list continues after their time


class GeHardware:
    """One GE: `state` (GeState) plus run control. `now()` gives the simulated time in
    microseconds (float); `timers` is the kernel's Timers; `interrupt(flags)` is the
    firmware's interrupt handler; `warn(message)` reports a problem once per kind."""

    def __init__(self, memory, now, timers, interrupt, warn):
        self.memory = memory
        self.state = GeState()
        self.now = now
        self.timers = timers
        self.interrupt = interrupt
        self.warn = warn
        self.free_at = 0.0  # when the GE finishes the work given so far
        self.run_start_pc = 0  # list address where the run in flight began
        self.timer = None  # the in-flight run's completion
        self.stalled = False
        self.stats = {"commands": 0, "vertices": 0, "pixels": 0, "cycles": 0}
        self.dump = None  # a callable(addresses, event) when list dumping is on (dump.py)
        self.trace = np.zeros(1, dtype=np.int64)  # room for the executed addresses while dumping
        self.origin = None  # origin(): the entry time of the call under way that may start the GE, or None
        self.clock_on = False  # the driver turns the GE's register clock off when idle: registers read 0

    # --- registers the firmware reads ---
    @property
    def regs(self):
        return self.state.regs

    def running(self) -> bool:
        """EXEC bit 0: a run in flight, stalled, or not yet delivered its END."""
        return bool(self.regs[R_EXEC] & EXEC_RUNNING) or self.timer is not None

    def in_flight(self) -> bool:
        return self.timer is not None and self.now() < self.free_at

    def list_address(self) -> int:
        """LISTADDR as the CPU would read it: where the run began while it is in flight,
        0 while the driver has the GE's register clock off (measured: gpu/displaylist/state)."""
        if not self.clock_on:
            return 0
        return self.run_start_pc if self.in_flight() else int(self.regs[R_LISTADDR])

    # --- control ---
    def start(self) -> None:
        """EXEC = 1: run from LISTADDR (the firmware has set the registers)."""
        self.regs[R_EXEC] |= EXEC_RUNNING
        self.regs[R_INTR] = 0
        self._execute(self._start_time(), cost.LIST_START)

    def set_stall(self, addr: int) -> None:
        """A new stall address: a GE waiting at the old one goes on (once its run's time
        has passed, if it is still in flight)."""
        self.regs[R_STALLADDR] = addr & ADDR_MASK
        if self.timer is None:
            self._resume_if_unstalled()

    def _resume_if_unstalled(self) -> None:
        if self.stalled and self.regs[R_EXEC] & EXEC_RUNNING:
            if (self.regs[R_LISTADDR] & ADDR_MASK) != self.regs[R_STALLADDR]:
                self.stalled = False
                self._execute(self._start_time(), 0)

    def _start_time(self) -> float:
        began = None if self.origin is None else self.origin()
        return max(self.now() if began is None else began, self.free_at)

    def stop(self) -> None:
        """EXEC = 0: the GE stops where its run got to; a pending END is not delivered."""
        self.timers.cancel(self.timer)
        self.timer = None
        self.stalled = False
        self.regs[R_EXEC] &= ~EXEC_RUNNING
        self.regs[R_INTR] = 0
        self.free_at = min(self.free_at, self.now())

    def run_now(self, addr: int) -> int:
        """Execute a firmware-internal list at `addr` to its END at once (context restore):
        registers other than the ones it sets are left as they were. Returns the event."""
        regs = self.regs
        saved = regs[[R_LISTADDR, R_STALLADDR, R_EXEC, R_INTR]].copy()
        regs[R_LISTADDR], regs[R_STALLADDR], regs[R_INTR] = addr, 0, 0
        regs[R_EXEC] |= EXEC_RUNNING
        event = self._process()
        regs[[R_LISTADDR, R_STALLADDR, R_EXEC, R_INTR]] = saved
        return event

    # --- execution ---
    def _process(self) -> int:
        st = self.state
        regs = st.regs
        for r in (R_CYCLES, R_COMMANDS, R_PIXELS, R_VERTICES, R_WARN):
            regs[r] = 0
        self.trace[0] = 0
        memory = self.memory
        event = processor.run(memory.mem, memory.ram_size, memory.mapping, regs, st.cmds, st.mtx, st.clut, st.keep,
                              BUDGET, self.trace)
        for key, r in (("commands", R_COMMANDS), ("vertices", R_VERTICES), ("pixels", R_PIXELS), ("cycles", R_CYCLES)):
            self.stats[key] += int(regs[r])
        if self.dump is not None:
            self.dump(self.trace[1:1 + int(self.trace[0])], event)
        if regs[R_WARN]:
            self.warn(("ge-warn", int(regs[R_WARN])), self._describe_warning())
        return event

    def _execute(self, t0: float, extra_cycles: int) -> None:
        regs = self.regs
        self.run_start_pc = int(regs[R_LISTADDR])
        event = self._process()
        cycles = int(regs[R_CYCLES]) + extra_cycles
        pixels = int(regs[R_PIXELS])
        cycles += pixels // cost.PIXEL_QUADS
        self.free_at = t0 + cycles / cost.GE_MHZ
        if event == processor.EV_STALL:
            self.stalled = True
            self._arm(self._stall_reached)
        elif event == processor.EV_BUDGET:
            self.warn(("ge-budget", self.run_start_pc), f"GE list at 0x{self.run_start_pc:08x} ran {BUDGET} "
                      "commands without ending (an endless loop?): the GE stays busy")
            self._arm(self._continue)
        elif event == processor.EV_ERROR:
            self._error()
        else:  # EV_END: the interrupt comes when the run's time has passed
            self._arm(self._ended)

    def _arm(self, action) -> None:
        self.timers.cancel(self.timer)
        self.timer = self.timers.add(self.free_at, action)

    def _stall_reached(self) -> None:
        self.timer = None
        self._resume_if_unstalled()

    def _continue(self) -> None:
        self.timer = None
        self._execute(self.free_at, 0)

    def _ended(self) -> None:
        self.timer = None
        self.regs[R_EXEC] &= ~EXEC_RUNNING
        self.interrupt(int(self.regs[R_INTR]))

    def _error(self) -> None:
        regs = self.regs
        what = processor.ERROR_TEXT.get(int(regs[R_ERROR]), "error")
        self.warn(("ge-error", int(regs[R_ERROR_PC])),
                  f"GE list stopped at command 0x{int(regs[R_ERROR_PC]):08x}: {what} "
                  f"(address 0x{int(regs[R_ERROR_ADDR]):08x}); lists waiting on it never finish")
        regs[R_EXEC] &= ~EXEC_RUNNING
        self.timer = None

    def _describe_warning(self) -> str:
        regs = self.regs
        what = {draw.WARN_VERTICES: "reads vertices or indices outside memory (primitive skipped)",
                transfer.WARN_TRANSFER: "block transfer touches memory outside every region (bytes skipped)"}
        return (f"GE command at 0x{int(regs[R_WARN_PC]):08x} {what.get(int(regs[R_WARN]), 'problem')} "
                f"(address 0x{int(regs[R_WARN_ADDR]):08x})")

