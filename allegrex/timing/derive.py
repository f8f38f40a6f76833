"""Derive the VFPU timing table (vfpu_timing.csv) from the measured reference.

    PYTHONPATH=. python -m allegrex.timing.derive > allegrex/timing/vfpu_timing.csv

The reference's figures include the measuring loop's own cost (sub + bnez + nop per
256 timed instructions = 5 cycles) and the OS tick's share of wall time (model.py,
OS_TICK_*: ~0.85%). Undoing both gives the hardware's cycles:
  throughput figure t -> issue   = round_to_quarter((t * 256 / (1 + F) - 5) / 256)
  latency figure l    -> latency = round(pair - 1 - frac(issue)), where
                         pair = ((l + 1) * 256 / (1 + F) - 5) / 256
(the latency test pairs each instruction with a dependent vabs.q and subtracts 1).
Exceptions are listed in OVERRIDES with the reason. Instructions the reference does not
measure get an ESTIMATE row from ESTIMATES.
"""

from allegrex.timing.reference import figures

F = 0.0085  # OS tick share of wall time (see model.OS_TICK_COST)
LOOP = 5  # sub + taken bnez (3) + nop per 256 timed instructions

OVERRIDES = {
    # The throughput test's instruction i reads what instruction i-6 wrote; a 7-cycle
    # result then stalls one cycle in six (1.17 + overhead = 1.20): issue is 1.
    "vdot.p": (1, None), "vdot.t": (1, None), "vdot.q": (1, None), "vdet.p": (1, None),
    "vhdp.p": (1, None), "vhdp.t": (1, None), "vhdp.q": (1, None),
}

# (instruction, issue, latency, note): not in the reference.
ESTIMATES = [
    ("vuc2i.s", 1, 3, "as vc2i.s"), ("vuc2i.q", 1, 3, "as vc2i.s"), ("vc2i.q", 1, 3, "as vc2i.s"),
    ("vus2i.s", 1, 3, "as vs2i.s"), ("vnop", 1, 0, "no result"),
    ("vsync", 1, 0, "ordering only"), ("vflush", 1, 0, "ordering only"),
    ("vpfxs", 1, 1, "vfpu-docs perf class 'prefix'"), ("vpfxt", 1, 1, "vfpu-docs perf class 'prefix'"),
    ("vpfxd", 1, 1, "vfpu-docs perf class 'prefix'"),
    ("mfv", 1, 2, "VFPU -> GPR crossing, as mfc1"), ("mtv", 1, 2, "GPR -> VFPU crossing, as mtc1"),
    ("mfvc", 1, 2, "as mfv; waits VCMP_TO_MFVC after a vcmp"), ("mtvc", 1, 2, "as mtv"),
    ("vmfvc", 1, 3, "as vmov"), ("vmtvc", 1, 3, "as vmov"),
    ("lv.s", 1, 3, "as lw, plus the D-cache"), ("lv.q", 1, 3, "as lw; issue 1 measured (8 KiB lv.q 1.07)"),
    ("lvl.q", 1, 3, "as lv.q"), ("lvr.q", 1, 3, "as lv.q"),
    ("sv.s", 1, 0, "as sw"), ("sv.q", 1, 0, "as sw"), ("svl.q", 1, 0, "as sw"), ("svr.q", 1, 0, "as sw"),
    ("vrnds.p", 1, 1, "as vrnds.s"),
]


def quarter(x):
    return round(x * 4) / 4


def derive():
    fig = figures()
    rows = []
    names = sorted({k.rsplit(" ", 1)[0] for k in fig if k.endswith(" throughput")})
    for inst in names:
        if inst in ("add.s", "mul.s", "div.s", "sqrt.s", "mult", "div"):
            continue
        t, lat = fig[f"{inst} throughput"], fig[f"{inst} latency"]
        issue = quarter((t * 256 / (1 + F) - LOOP) / 256)
        pair = ((lat + 1) * 256 / (1 + F) - LOOP) / 256
        o_issue, o_lat = OVERRIDES.get(inst, (None, None))
        issue = o_issue if o_issue is not None else max(issue, 1.0)
        latency = round(pair - 1 - (issue - int(issue)))
        latency = o_lat if o_lat is not None else latency
        note = "issue from the test's dependency distance" if inst in OVERRIDES else ""
        rows.append((inst, issue, latency, "MEASURED", note))
    for inst, issue, latency, note in ESTIMATES:
        rows.append((inst, float(issue), latency, "ESTIMATE", note))
    return rows


def main():
    print("instruction,issue,latency,source,note")
    for inst, issue, latency, source, note in derive():
        print(f"{inst},{issue:g},{latency},{source},{note}")


if __name__ == "__main__":
    main()
