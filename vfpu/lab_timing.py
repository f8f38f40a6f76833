"""The lab's only window on timing: run one instruction on a Machine and read what the
cycle model (allegrex.timing, inline in the run loop) did with it. Nothing here knows a
latency; every figure is read back from the model's counters and scoreboard, so the lab
and the profiler cannot disagree.

What is read, per instruction:
  start   counters[CYCLES] before it (the cycle it could begin),
  stalls  the model's stall counters' increments, by cause,
  issue   start + the stalls that happen before issue (I-cache, OS tick, waiting for a
          source or a busy unit),
  ready   the latest ready time the instruction gave to any scoreboard slot (its
          result's availability), latency = ready - issue,
  next    counters[CYCLES] after it (the cycle the next instruction may begin).
The source that held it up is the one whose scoreboard ready time was the latest.
"""

from dataclasses import dataclass, field

from allegrex.cpu.state import CYCLES

try:  # the cycle model (issue 7)
    from allegrex.timing import counters as TC
    from allegrex.timing import classes as TCL
    from allegrex.timing.layout import T_LAST_ILINE, T_READY
    from allegrex.timing.model import dcache_access, icache_fetch
    MODEL = True
except ImportError:  # no cycle model on this checkout: every instruction costs one cycle
    MODEL = False

# Stalls charged before an instruction issues (the rest come after: D-cache, branch
# refill, multi-cycle issue).
_PRE_ISSUE = ("load-use", "mult/div", "fpu", "vfpu", "i-cache", "os tick")
CAUSE_TEXT = {
    "load-use": "waiting for a load", "mult/div": "waiting for mult/div", "fpu": "waiting for the FPU",
    "vfpu": "waiting for a VFPU result", "i-cache": "i-cache miss", "d-cache": "d-cache miss",
    "branch": "branch refill", "vfpu-issue": "multi-cycle issue", "os tick": "OS interrupt work",
    "syscalls": "system call",
}


@dataclass
class StepTiming:
    start: int
    issue: int
    next: int
    ready: int | None = None  # when its result may be used (None: no result)
    stalls: dict = field(default_factory=dict)  # cause -> cycles
    waited_for: str | None = None  # the source that was last to be ready
    waited_until: int | None = None

    @property
    def latency(self):
        return None if self.ready is None else self.ready - self.issue

    @property
    def cycles(self):
        return self.next - self.start

    @property
    def stall(self):
        return sum(self.stalls.values())

    def as_dict(self) -> dict:
        return {"start": self.start, "issue": self.issue, "next": self.next, "cycles": self.cycles,
                "latency": self.latency, "ready": self.ready, "stall": self.stall, "stalls": dict(self.stalls),
                "waited_for": self.waited_for, "waited_until": self.waited_until}


def available() -> bool:
    return MODEL


def clock_mhz(machine) -> int | None:
    t = getattr(machine, "timing", None)
    return t.cpu_mhz if t is not None else None


def source_slot(kind: str, index: int = 0):
    """Scoreboard slot of a register the lab names: kind gpr/hi/lo/fpr/fcc/vcc/vctrl/vpr."""
    if not MODEL:
        return None
    base = {"gpr": TCL.R_GPR, "hi": TCL.R_HI, "lo": TCL.R_LO, "fpr": TCL.R_FPR, "fcc": TCL.R_FCC,
            "vcc": TCL.R_VCC_BRANCH, "vctrl": TCL.R_VCTRL, "vpr": TCL.R_VPR}[kind]
    return base + index


def warm_caches(machine, code_addr: int, code_len: int, data_ranges=()) -> None:
    """Bring the code's lines into the I-cache and the data's into the D-cache through the
    model's own cache functions, then clear the counters: a snippet then times as the body
    of a loop that has run before (what a steady-state figure measures)."""
    if not MODEL or getattr(machine, "timing", None) is None:
        return
    tm, counters = machine.timing.tm, machine.cpu.counters
    for addr in range(code_addr & ~63, code_addr + code_len, 64):
        icache_fetch(tm, counters, addr)
    for start, length in data_ranges:
        for addr in range(start & ~63, start + length, 64):
            dcache_access(tm, counters, addr, False)
    tm[T_LAST_ILINE] = -1
    counters[:] = 0


def timed_step(machine, sources):
    """Run one instruction; returns (Event, StepTiming). `sources`: (label, kind, index)
    of the registers the instruction reads (see source_slot), to name a stall's cause."""
    counters = machine.cpu.counters
    before = counters.copy()
    timing = getattr(machine, "timing", None)
    if not MODEL or timing is None:
        event = machine.step(1)
        return event, StepTiming(int(before[CYCLES]), int(before[CYCLES]), int(counters[CYCLES]))
    tm = timing.tm
    ready_before = tm[T_READY:T_READY + TCL.NREG].copy()
    event = machine.step(1)
    start, nxt = int(before[CYCLES]), int(counters[CYCLES])
    stalls = {}
    for idx in TC.STALLS + (TC.OS_TICK_CYCLES,):
        d = int(counters[idx] - before[idx])
        if d:
            stalls[TC.NAMES.get(idx, "os tick") if idx != TC.OS_TICK_CYCLES else "os tick"] = d
    issue = start + sum(v for k, v in stalls.items() if k in _PRE_ISSUE)
    ready_after = tm[T_READY:T_READY + TCL.NREG]
    changed = ready_after != ready_before
    ready = int(ready_after[changed].max()) if changed.any() else None
    st = StepTiming(start, issue, nxt, ready, stalls)
    waits = sum(v for k, v in stalls.items() if k in ("load-use", "mult/div", "fpu", "vfpu"))
    if waits:
        best = None
        for label, kind, index in sources:
            r = int(ready_before[source_slot(kind, index)])
            if r > start and (best is None or r > best[1]):
                best = (label, r)
        if best is not None:
            st.waited_for, st.waited_until = best
    return event, st
