"""The measured figures of docs/reference/allegrex-timing.md (a copy of the shared
hardware reference), parsed into named figures the fidelity benchmark and the tests
compare against. Figure names follow the microbenchmark's printed names."""

import re
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent.parent.parent / "docs" / "reference" / "allegrex-timing.md"

BRANCH_NAMES = {"bvt (taken)": "bvt", "bvf (taken)": "bvf", "bvtl (taken)": "bvtl",
                "bvfl (taken)": "bvfl", "j (taken)": "j", "jr (taken)": "jr", "beq (taken)": "beq",
                "vcmp -> bvt latency": "vcmp->bvt"}
MEM_COLUMNS = ("mem seq latency", "mem random latency", "mem lw throughput", "mem lv.q throughput")


def _rows(text, heading):
    """Table rows (lists of cells) under a '## heading' line."""
    part = text.split("## " + heading, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in part.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows[1:]  # drop the header


def figures(path=REFERENCE) -> dict:
    """{figure name: measured cycles}, e.g. 'vadd.q throughput', 'mem random latency 64 KiB'."""
    text = Path(path).read_text()
    out = {}
    for name, cycles in _rows(text, "Compare / branch"):
        out[BRANCH_NAMES[name]] = float(cycles)
    for heading in ("FPU and integer ALU", "VFPU"):
        for inst, tput, lat in _rows(text, heading):
            out[f"{inst} throughput"] = float(tput)
            out[f"{inst} latency"] = float(lat)
    for row in _rows(text, "Memory"):
        size = int(re.match(r"(\d+) KiB", row[0]).group(1))
        for col, val in zip(MEM_COLUMNS, row[1:]):
            out[f"{col} {size} KiB"] = float(val)
    return out
