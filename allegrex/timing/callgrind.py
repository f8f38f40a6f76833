"""Export a profile in valgrind's callgrind format (KCachegrind, QCachegrind,
callgrind_annotate): `allegrex profile FILE --callgrind out.callgrind`.

Positions are `instr line` (address, and the DWARF source line when known). Events:
simulated cycles, instructions, stall cycles by cause, HLE cycles, I- and D-cache misses.
Every executed instruction of the image is a cost line of its function (the profile's
per-address rows); each import stub is a function of its own (its HLE service cycles on
its `syscall` line: an HLE call as a function); call lines carry the inclusive costs
the run loop measured per call edge (timing/calls.py). Pseudo-functions hold what has no
instruction address: OS interrupt work, idle time, HLE work outside a stub call, and
code outside the image, so the self costs add up to the run's totals, event by event.
No `totals:` line is written: readers sum the costs themselves.
"""

from collections import defaultdict

from allegrex.timing import counters as C
from allegrex.timing.callgraph import call_edges
from allegrex.timing.profile import import_stubs

# (callgrind event name, cost name as in callgraph.COST_NAMES, description)
EVENTS = (("Cycles", "cycles", "simulated CPU cycles (instructions + stall cycles + HLE cycles)"),
          ("Instructions", "instructions", "instructions executed"),
          ("LoadUse", "load-use", "stall cycles waiting for a load's result"),
          ("HiLo", "mult/div", "stall cycles waiting for HI/LO or the divider"),
          ("FPU", "fpu", "stall cycles waiting for an FPU result or divider"),
          ("VFPU", "vfpu", "stall cycles waiting for a VFPU result or condition"),
          ("VFPUIssue", "vfpu-issue", "extra issue cycles of VFPU operations"),
          ("Branch", "branch", "taken-branch and jump bubbles, annulled likely slots"),
          ("ICache", "i-cache", "instruction cache fill cycles"),
          ("DCache", "d-cache", "data cache fill, write-back and uncached access cycles"),
          ("HLE", "hle_cycles", "cycles charged for HLE (system library) calls"),
          ("ICacheMiss", "icache_misses", "instruction cache misses"),
          ("DCacheMiss", "dcache_misses", "data cache misses"))
COSTS = tuple(cost for _, cost, _ in EVENTS)
CAUSES = tuple(C.NAMES[k] for k in C.PROF_STALL_KINDS)
HLE_FILE = "(HLE)"
ALLEGREX_FILE = "(allegrex)"


def _vector(**values):
    return [int(values.get(c, 0)) for c in COSTS]


class _Names:
    """callgrind name compression: `(id) name` the first time, `(id)` after."""

    def __init__(self):
        self.ids = {}

    def __call__(self, name: str) -> str:
        if name in self.ids:
            return f"({self.ids[name]})"
        self.ids[name] = len(self.ids) + 1
        return f"({self.ids[name]}) {name}"


def callgrind_text(profile, report: dict, edges=None, command: str = "") -> str:
    """The callgrind file for a finished profile (Profile, its report, call_edges())."""
    image, machine = profile.image, profile.machine
    edges = call_edges(machine) if edges is None else edges
    lines_of = getattr(image, "lines", None) if image is not None else None
    program = (image.path if image is not None else None) or "(program)"
    stubs = import_stubs(image.imports) if image is not None else {}

    def where(addr):  # (file, line) of an address
        if addr in stubs or addr - 4 in stubs:
            return HLE_FILE, 0
        line = lines_of.at(addr) if lines_of is not None else None
        return (line.file, line.line) if line is not None else (program, 0)

    # self costs per function and address
    prof = machine.timing.prof
    used = [int(i) for i in prof[C.PROF_COUNT].nonzero()[0]]
    addrs = [profile.base + 4 * i for i in used]
    slots = profile.slots(addrs)
    functions = defaultdict(dict)  # name -> {addr: vector}
    totals = [0] * len(COSTS)
    for k, (addr, name) in enumerate(zip(addrs, profile.functions_of(addrs))):
        vec = _vector(cycles=slots["cycles"][k], instructions=slots["count"][k],
                      icache_misses=slots["icache_misses"][k], dcache_misses=slots["dcache_misses"][k],
                      **{c: slots[c][k] for c in CAUSES})
        functions[name][addr] = vec
        totals = [a + b for a, b in zip(totals, vec)]
    stub_hle = 0
    for e in edges:  # an import stub's HLE service, on its syscall word
        if e.callee in stubs and e.costs["hle_cycles"]:
            hle = e.costs["hle_cycles"]
            vec = functions[profile.function_of(e.callee)].setdefault(e.callee + 4, [0] * len(COSTS))
            vec[COSTS.index("cycles")] += hle
            vec[COSTS.index("hle_cycles")] += hle
            stub_hle += hle
    pseudo = _pseudo_rows(report, totals, stub_hle)

    names_fl, names_fn = _Names(), _Names()
    out = ["# callgrind format", "version: 1", "creator: allegrex (cycle model: docs/timing.md)", "pid: 1",
           f"cmd: {command or program}", "part: 1", "", f"desc: Clock: {report.get('clock', '')}",
           "positions: instr line"]
    out += [f"event: {name} : {text}" for name, _, text in EVENTS]
    out.append("events: " + " ".join(name for name, _, _ in EVENTS))
    out.append(f"ob={program}")
    calls_by_caller = defaultdict(list)
    for e in edges:
        calls_by_caller[profile.function_of(e.site)].append(e)
    for name in sorted(set(functions) | set(calls_by_caller)):
        costs = functions.get(name, {})
        first = min(list(costs) + [e.site for e in calls_by_caller[name]])
        home = where(first)[0]
        out += ["", f"fl={names_fl(home)}", f"fn={names_fn(name)}"]
        current = home
        for addr in sorted(costs):
            file, line = where(addr)
            if file != current:
                out.append(f"fi={names_fl(file)}" if file != home else f"fe={names_fl(file)}")
                current = file
            out.append(f"0x{addr:x} {line} " + " ".join(map(str, costs[addr])))
        for e in sorted(calls_by_caller[name], key=lambda e: (e.site, e.callee)):
            file, line = where(e.site)
            if file != current:
                out.append(f"fi={names_fl(file)}" if file != home else f"fe={names_fl(file)}")
                current = file
            cfile, cline = where(e.callee)
            out += [f"cfi={names_fl(cfile)}", f"cfn={names_fn(profile.function_of(e.callee))}",
                    f"calls={e.count} 0x{e.callee:x} {cline}",
                    f"0x{e.site:x} {line} " + " ".join(str(int(e.costs[c])) for c in COSTS)]
    for name, vec in pseudo:
        if any(vec):
            out += ["", f"fl={names_fl(ALLEGREX_FILE)}", f"fn={names_fn(name)}", "0x0 0 " + " ".join(map(str, vec))]
    return "\n".join(out) + "\n"


def _pseudo_rows(report: dict, image_totals: list, stub_hle: int) -> list:
    """What has no instruction address in the image, so that every event adds up to the
    run's count: OS interrupts, idle, HLE work outside stub calls, and the rest."""
    rows = {r["function"]: r["cycles"] for r in report["functions"] if r["function"].startswith("(")}
    os_tick = rows.get("(OS interrupts)", 0)
    idle = rows.get("(idle: all threads waiting)", 0)
    hle_total = report["stalls"][C.NAMES[C.STALL_SYSCALL]]
    hle_rest = hle_total - stub_hle
    got = dict(zip(COSTS, image_totals))
    outside = {"cycles": report["cycles"] - got["cycles"] - stub_hle - hle_rest - os_tick - idle,
               "instructions": report["instructions"] - got["instructions"],
               "icache_misses": report["caches"]["icache_misses"] - got["icache_misses"],
               "dcache_misses": report["caches"]["dcache_misses"] - got["dcache_misses"]}
    for k in C.PROF_STALL_KINDS:
        outside[C.NAMES[k]] = report["stalls"][C.NAMES[k]] - got[C.NAMES[k]]
    return [("(OS interrupts)", _vector(cycles=os_tick)), ("(idle: all threads waiting)", _vector(cycles=idle)),
            ("(HLE calls outside a stub)", _vector(cycles=hle_rest, hle_cycles=hle_rest)),
            ("(code outside the image)", _vector(**outside))]


def write_callgrind(path, profile, report: dict, edges=None, command: str = "") -> None:
    from allegrex.errors import AllegrexError
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(callgrind_text(profile, report, edges, command))
    except OSError as exc:
        raise AllegrexError(f"cannot write {path}: {exc.strerror}") from None
