"""One function's profile, instruction by instruction or source line by source line
(`allegrex profile --annotate FUNC [--by-line]`), from the per-address rows the cycle
model keeps while profiling (Timing.prof).

    ann = annotate(profile, "saxpy")       # after the run
    print(format_annotation(ann))          # or format_by_line(ann)

Per row: executions, cycles, stall cycles by cause (counters.PROF_STALL_KINDS: load-use,
HI/LO, FPU, VFPU, VFPU issue, branch, I-cache, D-cache) and D-cache misses. The rows are
the addresses the profile report charges to the function, so the totals are the
report's row for it.
"""

import difflib
from allegrex.cpu.disasm import disassemble
from allegrex.errors import AllegrexError
from allegrex.timing import counters as C

CAUSES = tuple(C.NAMES[k] for k in C.PROF_STALL_KINDS)
COUNTS = ("count", "cycles") + CAUSES + ("dcache_misses",)
HEADINGS = {"count": "execs", "cycles": "cycles", "dcache_misses": "D$ miss", "mult/div": "hi/lo",
            "vfpu-issue": "v-issue", "i-cache": "I$", "d-cache": "D$"}
NO_LINE = "(no line information)"


class UnknownFunction(AllegrexError):
    """A function name the program's symbols do not have."""


def find_function(image, name: str):
    """The symbol of function `name`, or UnknownFunction naming close matches."""
    symbol = image.symbol_named(name)
    if symbol is not None:
        return symbol
    what = image.path or "the program"
    if not image.symbols:
        raise UnknownFunction(f"{what} has no symbols, so no function {name!r}: give the unstripped ELF "
                              "or PRX of the same build with --symbols FILE")
    close = difflib.get_close_matches(name, sorted({s.name for s in image.symbols}), n=4)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UnknownFunction(f"no function named {name!r} in {what}{hint}")


def annotate(profile, name: str) -> dict:
    """Rows for each instruction of function `name` (its symbol's words that the profile
    charges to it) and their totals."""
    image = profile.image
    symbol = find_function(image, name)
    addrs = []
    addr = symbol.addr
    end = profile.base + profile.size
    while addr < end and profile.function_of(addr) == name and (symbol.size == 0 or addr < symbol.addr + symbol.size):
        addrs.append(addr)
        addr += 4
    if not addrs:
        raise UnknownFunction(f"{name!r} (0x{symbol.addr:08x}) is not code in the profiled image")
    slots = profile.slots(addrs)
    lines = getattr(image, "lines", None)
    rows = []
    for k, a in enumerate(addrs):
        word = image.read_u32(a)
        row = {"addr": a, "word": word, "text": disassemble(word, a, image),
               "line": lines.at(a) if lines is not None else None}
        for key in COUNTS:
            row[key] = int(slots[key][k])
        rows.append(row)
    return {"function": name, "addr": symbol.addr, "rows": rows, "total": _total(rows)}


def _total(rows) -> dict:
    total = {key: sum(r[key] for r in rows) for key in COUNTS}
    total["stalls"] = sum(total[c] for c in CAUSES)
    return total


def by_line(ann: dict) -> list:
    """The annotation's rows summed per source line, in file and line order (rows
    without a line last); each has `line` (SourceLine or None) and `addrs`."""
    groups = {}
    for r in ann["rows"]:
        g = groups.setdefault(r["line"], {"line": r["line"], "addrs": [], **{k: 0 for k in COUNTS}})
        g["addrs"].append(r["addr"])
        for key in COUNTS:
            g[key] += r[key]
    return sorted(groups.values(), key=lambda g: (g["line"] is None, g["line"].file if g["line"] else "",
                                                  g["line"].line if g["line"] else 0))


def _columns(rows, total):
    widths = {key: max(len(HEADINGS.get(key, key)), len(f"{total[key]:,}")) for key in COUNTS}
    head = "  ".join(f"{HEADINGS.get(k, k):>{widths[k]}}" for k in COUNTS)
    fmt = lambda r: "  ".join(f"{r[k]:>{widths[k]},}" for k in COUNTS)  # noqa: E731
    return head, fmt


def _summary(ann) -> str:
    t = ann["total"]
    cpi = t["cycles"] / t["count"] if t["count"] else 0.0
    return (f"{ann['function']} at 0x{ann['addr']:08x}: {t['cycles']:,} cycles, {t['count']:,} instructions "
            f"(CPI {cpi:.2f}), {t['stalls']:,} stall cycles, {t['dcache_misses']:,} D-cache misses")


def format_annotation(ann: dict) -> str:
    """The function's disassembly with each instruction's counts (source line when known)."""
    head, fmt = _columns(ann["rows"], ann["total"])
    lines = [_summary(ann), f"{'address':8s}  {head}  instruction"]
    last = None
    for r in ann["rows"]:
        if r["line"] is not None and r["line"] != last:
            lines.append(f"{'':8s}  {'':{len(head)}s}  {r['line']}: {r['line'].text()}".rstrip())
            last = r["line"]
        lines.append(f"{r['addr']:08x}  {fmt(r)}  {r['text']}")
    lines.append(f"{'total':8s}  {fmt(ann['total'])}")
    return "\n".join(lines)


def format_by_line(ann: dict) -> str:
    """The function's counts per source line, with the line's text when the file is found."""
    groups = by_line(ann)
    head, fmt = _columns(groups, ann["total"])
    width = max([len(str(g["line"])) if g["line"] else len(NO_LINE) for g in groups] + [4])
    lines = [_summary(ann), f"{'line':{width}s}  {head}  source"]
    for g in groups:
        where = str(g["line"]) if g["line"] else NO_LINE
        lines.append(f"{where:{width}s}  {fmt(g)}  {(g['line'].text() if g['line'] else '')}".rstrip())
    lines.append(f"{'total':{width}s}  {fmt(ann['total'])}")
    return "\n".join(lines)
