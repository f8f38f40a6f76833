"""Terminal rendering of a lab trace: one block per instruction, the register file as
the 8 4x4 matrices (rows down, columns across, as vfpu-docs draws them) with written
cells marked '*' and read cells '+' (ANSI colours instead when writing to a terminal),
and register-name pictures for --explain."""

from vfpu import lab_timing
from vfpu.lab import bits_value, cell_name, fmt_value

WRITE_ON, READ_ON, OFF = "\x1b[1;30;43m", "\x1b[30;46m", "\x1b[0m"


def _values(a) -> str:
    if a.kind in ("gpr", "hilo", "vctrl"):  # integer registers read best in hex
        vals = [f"0x{int(v) & 0xFFFFFFFF:08x}" for v in a.values]
    else:
        vals = [fmt_value(v) for v in a.values]
    if not vals:
        return ""
    return vals[0] if len(vals) == 1 else "(" + ", ".join(vals) + ")"


def _access(verb, a) -> str:
    text = f"    {verb:<6} {a.name}"
    if a.note:
        text += f" {a.note}"
    v = _values(a)
    return text + (f" = {v}" if v else "")


def timing_line(st, timed: bool) -> str:
    if not timed:
        return f"    time   @{st.start}: {st.cycles} cycle (no cycle model on this checkout)"
    parts = []
    if st.stalls:
        why = []
        for cause, n in st.stalls.items():
            text = lab_timing.CAUSE_TEXT.get(cause, cause)
            if cause in ("vfpu", "load-use", "fpu", "mult/div") and st.waited_for:
                text += f": {st.waited_for} ready @{st.waited_until}"
            why.append(text if len(st.stalls) == 1 else f"{n} {text}")
        parts.append(f"start @{st.start}, stall {st.stall} (" + "; ".join(why) + ")")
    parts.append(f"issue @{st.issue}")
    if st.latency is not None:
        parts.append(f"latency {st.latency} (ready @{st.ready})")
    return "    time   " + ", ".join(parts)


def render_step(step, timed: bool = True) -> list[str]:
    lines = [f"#{step.index:<3} {step.pc:08x}  {step.word:08x}  {step.text}"]
    seen = set()
    for a in step.reads:
        key = (a.name, a.note, tuple(a.cells))
        if key in seen:
            continue
        seen.add(key)
        lines.append(_access("read", a))
    for a in step.writes:
        lines.append(_access("wrote", a))
    lines.append(timing_line(step.timing, timed))
    return lines


def _cell_text(v) -> str:
    """At most 6 characters where possible, so neighbouring cells never touch."""
    for digits in (4, 3, 2, 1):
        text = fmt_value(v, digits)
        if len(text) <= 6:
            break
    return text


def render_matrices(vpr_bits, written=(), read=(), only=None, color=False) -> list[str]:
    """The register file as matrices M0..M7, two side by side; `only`: matrix numbers."""
    written, read = set(written), set(read)
    mats = [m for m in range(8) if only is None or m in only]
    lines = []
    for k in range(0, len(mats), 2):
        pair = mats[k:k + 2]
        head = "    ".join(f"M{m}  " + "".join(f"{'c' + str(c):>7} " for c in range(4)) for m in pair)
        lines.append(head.rstrip())
        for r in range(4):
            row = []
            for m in pair:
                cells = f"r{r}   "
                for c in range(4):
                    cell = m * 16 + c * 4 + r
                    text = _cell_text(bits_value(vpr_bits[cell]))
                    mark = "*" if cell in written else "+" if cell in read else " "
                    if color and mark != " ":
                        on = WRITE_ON if mark == "*" else READ_ON
                        cells += " " * (7 - len(text)) + on + text + OFF + " "
                    else:
                        cells += f"{text:>7}{mark}"
                row.append(cells)
            lines.append("    ".join(row).rstrip())
        lines.append("")
    return lines


def used_matrices(cells) -> list[int]:
    return sorted({c >> 4 for c in cells})


def render_trace(trace, color=False, matrices="all") -> str:
    out = []
    for s in trace.steps:
        out.extend(render_step(s, trace.timed))
    out.append("")
    changed = trace.changed_cells
    only = None if matrices == "all" else used_matrices(changed)
    if only is not None and not only:
        out.append("register file: no VFPU register written")
    else:
        out.append("register file (* = written by the snippet):")
        out.extend(render_matrices(trace.final_vpr_bits, written=changed, only=only, color=color))
    clock = f" at {trace.clock_mhz} MHz" if trace.clock_mhz else ""
    out.append(f"{len(trace.steps)} instructions, {trace.total_cycles} cycles{clock}")
    return "\n".join(out) + "\n"


def render_table(trace) -> str:
    """One line per instruction: when it issued, what it waited for, its latency; then the total."""
    out = ["  #  issue  stall  lat  instruction"]
    for s in trace.steps:
        st = s.timing
        lat = "-" if st.latency is None else str(st.latency)
        why = ""
        if st.stalls:
            causes = [lab_timing.CAUSE_TEXT.get(c, c) for c in st.stalls]
            why = "  <- " + ", ".join(causes)
            if st.waited_for:
                why += f" ({st.waited_for})"
        out.append(f"{s.index:>3}  {st.issue:>5}  {st.stall:>5}  {lat:>3}  {s.text}{why}")
    last = next((a for s in reversed(trace.steps) for a in s.writes if a.kind == "vpr"), None)
    if last is not None:
        out.append(f"last VFPU result: {last.name} = {_values(last)}")
    clock = f" at {trace.clock_mhz} MHz" if trace.clock_mhz else ""
    out.append(f"{len(trace.steps)} instructions, {trace.total_cycles} cycles{clock}")
    return "\n".join(out) + "\n"


def render_step_view(step, color=False) -> str:
    """One instruction and the matrices it touched (for --step)."""
    lines = render_step(step, True)
    written = {c for a in step.writes if a.kind == "vpr" for c in a.cells}
    read = {c for a in step.reads if a.kind == "vpr" for c in a.cells}
    only = used_matrices(written | read)
    if only:
        lines.append("")
        lines.extend(render_matrices(step.vpr_bits, written, read, only, color))
        lines.append("(* written, + read by this instruction)")
    return "\n".join(lines)


def render_explain(info, color=False) -> str:
    """Words plus a picture: the covered cells of the matrix, numbered in element order
    (vector.element for matrices)."""
    cells = info["order"]
    n = info["size"]
    mat = cells[0] >> 4
    label = {}
    for i, c in enumerate(cells):
        label[c] = f"{i // n}.{i % n}" if info["kind"] == "m" else str(i)
    lines = [info["text"], "", f"M{mat}  " + "".join(f"{'c' + str(c):>6}" for c in range(4))]
    for r in range(4):
        row = f"r{r}   "
        for c in range(4):
            cell = mat * 16 + c * 4 + r
            text = label.get(cell, ".")
            if color and cell in label:
                row += " " * (6 - len(text)) + WRITE_ON + text + OFF
            else:
                row += f"{text:>6}"
        lines.append(row)
    legend = "numbers: element order" if info["kind"] == "v" else "v.e: vector v, element e"
    lines.append(f"({legend}; cells {', '.join(info['cells'])})")
    return "\n".join(lines) + "\n"


__all__ = ["render_trace", "render_step", "render_matrices", "render_explain", "render_step_view", "cell_name"]
