"""Profile reports: where the cycles went, per function, from the run loop's
per-address counters (Timing.prof) and the image's symbols.

    prof = Profile.start(machine, image)       # before running
    ... run ...
    report = prof.report(hle_cycles=..., idle_cycles=..., memstick_cycles=...)
    print(format_report(report, top=20))

The function rows, the HLE row, the idle row (every thread waiting), the OS tick row
and the row for code outside the image (loader trampolines...) add up to the total
cycle count. Regions: `region(report, pattern)` sums the functions whose names match a
glob, so one kernel (e.g. 'matmul*') can be measured alone; `Marks` takes counter
snapshots from Python (or from a guest marker call routed to it) for bracketed spans.
"""

import fnmatch
from dataclasses import dataclass, field

import numpy as np

from allegrex.timing import counters as C

UNKNOWN = "(no symbol)"


@dataclass
class Profile:
    machine: object
    base: int
    size: int
    symbols: list  # [(addr, size, name)] sorted by address
    start_counters: np.ndarray = field(default=None)

    @classmethod
    def start(cls, machine, image=None, base=None, size=None, symbols=()):
        """Profile the image's code (or [base, base+size) with `symbols`, a list of
        (addr, size, name)) on `machine` from now on."""
        syms = list(symbols)
        if image is not None:
            lo = min(s.vaddr for s in image.segments)
            hi = max(s.vaddr + len(s.data) for s in image.segments)
            base, size = lo, hi - lo
            syms = [(s.addr, s.size, s.name) for s in image.symbols]
        machine.timing.enable_profile(base, size)
        return cls(machine, base, size, sorted(syms), machine.cpu.counters.copy())

    def _function_of(self, addrs):
        """Symbol name for each address (nearest symbol at or below, within its size
        when it has one)."""
        starts = np.array([s[0] for s in self.symbols] or [0], dtype=np.int64)
        idx = np.searchsorted(starts, addrs, side="right") - 1
        names = []
        for a, i in zip(addrs, idx):
            if i < 0 or not self.symbols:
                names.append(UNKNOWN)
                continue
            saddr, ssize, name = self.symbols[i]
            names.append(name if ssize == 0 or a < saddr + ssize else UNKNOWN)
        return names

    def report(self, hle_cycles=0, idle_cycles=0, memstick_cycles=0) -> dict:
        m = self.machine
        cnt = m.cpu.counters - self.start_counters
        prof = m.timing.prof
        total = int(cnt[C.CYCLES])
        used = np.nonzero(prof[3])[0]
        addrs = self.base + 4 * used
        funcs = {}
        for name, i in zip(self._function_of(addrs), used):
            row = funcs.setdefault(name, {"function": name, "cycles": 0, "instructions": 0, "stalls": 0,
                                          "dcache_misses": 0})
            row["cycles"] += int(prof[0, i])
            row["stalls"] += int(prof[1, i])
            row["dcache_misses"] += int(prof[2, i])
            row["instructions"] += int(prof[3, i])
        rows = sorted(funcs.values(), key=lambda r: -r["cycles"])
        in_image = sum(r["cycles"] for r in rows)
        os_tick = int(cnt[C.OS_TICK_CYCLES])
        hle_cycles = int(cnt[C.STALL_SYSCALL]) or int(hle_cycles)  # charge_hle counts them, else the HLE's tally
        extra = [("(HLE calls)", int(hle_cycles)), ("(idle: all threads waiting)", int(idle_cycles)),
                 ("(memory stick: the driver copying)", int(memstick_cycles)), ("(OS interrupts)", os_tick)]
        outside = total - in_image - sum(v for _, v in extra)
        extra.append(("(code outside the image)", outside))
        for name, cycles in extra:
            if cycles:
                rows.append({"function": name, "cycles": cycles, "instructions": 0, "stalls": 0,
                             "dcache_misses": 0})
        for r in rows:
            r["share"] = r["cycles"] / total if total else 0.0
        instructions = int(cnt[C.INSTRUCTIONS])
        return {
            "clock": m.timing.clock_text(),
            "cycles": total,
            "instructions": instructions,
            "cpi": total / instructions if instructions else 0.0,
            "seconds": m.timing.seconds(int(m.cpu.counters[C.CYCLES])) - m.timing.seconds(int(self.start_counters[C.CYCLES])),
            "stalls": {C.NAMES[k]: int(hle_cycles if k == C.STALL_SYSCALL else cnt[k]) for k in C.STALLS},
            "caches": {C.NAMES[k]: int(cnt[k]) for k in (C.ICACHE_HITS, C.ICACHE_MISSES, C.DCACHE_HITS,
                                                           C.DCACHE_MISSES, C.DCACHE_WRITEBACKS,
                                                           C.UNCACHED_ACCESSES, C.SCRATCHPAD_ACCESSES)},
            "functions": rows,
        }


def region(report: dict, pattern: str) -> dict:
    """The summed rows of the functions whose names match the glob `pattern`."""
    rows = [r for r in report["functions"] if fnmatch.fnmatchcase(r["function"], pattern)]
    out = {"region": pattern, "functions": [r["function"] for r in rows]}
    for key in ("cycles", "instructions", "stalls", "dcache_misses"):
        out[key] = sum(r[key] for r in rows)
    out["share"] = out["cycles"] / report["cycles"] if report["cycles"] else 0.0
    out["cpi"] = out["cycles"] / out["instructions"] if out["instructions"] else 0.0
    return out


class Marks:
    """Counter snapshots bracketing spans of a run: begin(name) ... end(name) from Python
    (e.g. a benchmark stepping a Machine), or from a guest marker call's HLE handler."""

    def __init__(self, machine):
        self.machine = machine
        self.open: dict[str, np.ndarray] = {}
        self.spans: dict[str, dict] = {}

    def begin(self, name: str) -> None:
        self.open[name] = self.machine.cpu.counters.copy()

    def end(self, name: str) -> dict:
        if name not in self.open:
            raise KeyError(f"region {name!r} was not begun")
        delta = self.machine.cpu.counters - self.open.pop(name)
        span = self.spans.setdefault(name, {"count": 0, **{k: 0 for k in C.snapshot(delta)}})
        span["count"] += 1
        for k, v in C.snapshot(delta).items():
            span[k] += v
        return span


def format_report(report: dict, top: int = 20) -> str:
    lines = [f"clock        {report['clock']}",
             f"cycles       {report['cycles']:,}  ({report['seconds']:.6f} s)",
             f"instructions {report['instructions']:,}",
             f"CPI          {report['cpi']:.3f}",
             "stalls       " + ", ".join(f"{k} {v:,}" for k, v in report["stalls"].items()),
             "caches       " + ", ".join(f"{k} {v:,}" for k, v in report["caches"].items()),
             "",
             f"{'function':40s} {'self cycles':>14s} {'share':>7s} {'instructions':>13s} {'stalls':>12s} {'D$ miss':>9s}"]
    rows = [r for r in report["functions"] if not r["function"].startswith("(")]
    special = [r for r in report["functions"] if r["function"].startswith("(")]
    shown = rows[:top]
    for r in shown:
        lines.append(f"{r['function'][:40]:40s} {r['cycles']:14,} {100 * r['share']:6.2f}% {r['instructions']:13,} "
                     f"{r['stalls']:12,} {r['dcache_misses']:9,}")
    rest = rows[top:]
    if rest:
        cyc = sum(r["cycles"] for r in rest)
        lines.append(f"{f'({len(rest)} more functions)':40s} {cyc:14,} {100 * cyc / max(report['cycles'], 1):6.2f}%")
    for r in special:
        lines.append(f"{r['function'][:40]:40s} {r['cycles']:14,} {100 * r['share']:6.2f}%")
    lines.append(f"{'total':40s} {report['cycles']:14,} {100.0:6.2f}%")
    return "\n".join(lines)
