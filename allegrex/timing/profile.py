"""Profile reports: where the cycles went, per function, from the run loop's
per-address counters (Timing.prof) and the image's symbols.

    prof = Profile.start(machine, image)       # before running
    ... run ...
    report = prof.report(hle_cycles=..., idle_cycles=...)
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
    image: object = None  # the profiled loader.Image (its line table, imports), when given
    _starts: np.ndarray = field(default=None, repr=False)  # symbol addresses, for lookups

    @classmethod
    def start(cls, machine, image=None, base=None, size=None, symbols=(), calls=False, log_entries=0):
        """Profile the image's code (or [base, base+size) with `symbols`, a list of
        (addr, size, name)) on `machine` from now on. calls=True also records the call
        graph (allegrex.timing.callgraph) and the first `log_entries` calls and returns
        over time."""
        syms = list(symbols)
        if image is not None:
            lo = min(s.vaddr for s in image.segments)
            hi = max(s.vaddr + len(s.data) for s in image.segments)
            base, size = lo, hi - lo
            syms = _with_import_stubs([(s.addr, s.size, s.name) for s in image.symbols], image.imports)
        machine.timing.enable_profile(base, size, machine.cpu.counters, calls=calls, log_entries=log_entries)
        return cls(machine, base, size, sorted(syms), machine.cpu.counters.copy(), image)

    def function_of(self, addr: int) -> str:
        """The function an address is charged to in the report."""
        return self._function_of([addr])[0]

    def functions_of(self, addrs) -> list:
        """function_of for many addresses at once."""
        return self._function_of(addrs)

    def slots(self, addrs) -> dict:
        """Per-address profile counts for the instruction addresses `addrs`: arrays named
        count, cycles, stalls, dcache_misses, icache_misses and each stall cause."""
        idx = (np.asarray(addrs, dtype=np.int64) - self.base) >> 2
        if len(idx) and (idx.min() < 0 or idx.max() >= self.machine.timing.prof.shape[1]):
            raise ValueError("address outside the profiled range")
        prof = self.machine.timing.prof[:, idx]
        out = {"count": prof[C.PROF_COUNT], "cycles": prof[C.PROF_CYCLES], "stalls": prof[C.PROF_STALLS],
               "dcache_misses": prof[C.PROF_DCACHE_MISSES], "icache_misses": prof[C.prof_row(C.ICACHE_MISSES)]}
        for k in C.PROF_STALL_KINDS:
            out[C.NAMES[k]] = prof[C.prof_row(k)]
        return out

    def _function_of(self, addrs):
        """Symbol name for each address (nearest symbol at or below, within its size
        when it has one)."""
        if self._starts is None:
            self._starts = np.array([s[0] for s in self.symbols] or [0], dtype=np.int64)
        idx = np.searchsorted(self._starts, addrs, side="right") - 1
        names = []
        for a, i in zip(addrs, idx):
            if i < 0 or not self.symbols:
                names.append(UNKNOWN)
                continue
            saddr, ssize, name = self.symbols[i]
            names.append(name if ssize == 0 or a < saddr + ssize else UNKNOWN)
        return names

    def report(self, hle_cycles=0, idle_cycles=0) -> dict:
        m = self.machine
        cnt = m.cpu.counters - self.start_counters
        prof = m.timing.prof
        total = int(cnt[C.CYCLES])
        used = np.nonzero(prof[3])[0]
        addrs = self.base + 4 * used
        funcs = {}
        for name, i in zip(self._function_of(addrs), used):
            row = funcs.setdefault(name, _empty_row(name))
            row["cycles"] += int(prof[C.PROF_CYCLES, i])
            row["stalls"] += int(prof[C.PROF_STALLS, i])
            row["dcache_misses"] += int(prof[C.PROF_DCACHE_MISSES, i])
            row["instructions"] += int(prof[C.PROF_COUNT, i])
            row["icache_misses"] += int(prof[C.prof_row(C.ICACHE_MISSES), i])
            for k in C.PROF_STALL_KINDS:
                row["stall_causes"][C.NAMES[k]] += int(prof[C.prof_row(k), i])
        rows = sorted(funcs.values(), key=lambda r: -r["cycles"])
        in_image = sum(r["cycles"] for r in rows)
        os_tick = int(cnt[C.OS_TICK_CYCLES])
        hle_cycles = int(cnt[C.STALL_SYSCALL]) or int(hle_cycles)  # charge_hle counts them, else the HLE's tally
        extra = [("(HLE calls)", int(hle_cycles)), ("(idle: all threads waiting)", int(idle_cycles)),
                 ("(OS interrupts)", os_tick)]
        outside = total - in_image - sum(v for _, v in extra)
        extra.append(("(code outside the image)", outside))
        for name, cycles in extra:
            if cycles:
                rows.append({**_empty_row(name), "cycles": cycles})
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


def import_stubs(imports) -> dict:
    """{stub address: the imported function's name} (NID-named when the name is unknown)."""
    return {f.stub_addr: f.name or f"{lib.name}_{f.nid:08X}" for lib in imports for f in lib.functions}


def _with_import_stubs(symbols, imports) -> list:
    """The symbols with each import stub named by its function (an HLE call's own row),
    in place of whatever symbol the toolchain gave the stub (__stub_x, or none)."""
    stubs = import_stubs(imports)
    return [s for s in symbols if s[0] not in stubs] + [(addr, 8, name) for addr, name in stubs.items()]


def _empty_row(name: str) -> dict:
    return {"function": name, "cycles": 0, "instructions": 0, "stalls": 0, "dcache_misses": 0, "icache_misses": 0,
            "stall_causes": {C.NAMES[k]: 0 for k in C.PROF_STALL_KINDS}}


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
