"""The lab's timing is the cycle model's: a snippet stepped in the lab and the same code
run normally under the profiler (allegrex.timing.profile) give the same cycles, stalls
and instruction counts, address by address and cause by cause; and the latencies the lab
observes are the model's table latencies."""

import pytest

from allegrex.machine import Machine
from allegrex.timing import counters as C
from allegrex.timing.classes import OP_LATENCY
from allegrex.timing.profile import Profile
from allegrex.timing.vfpu_classes import ROW_ISSUE_Q4, ROW_LATENCY
from allegrex.cpu import decode as D
from vfpu import lab, lab_timing
from vfpu.table import find as vfpu_row

LOOP = """
    la $a0, x
    li $t0, 4
    vzero.q C000
loop:
    lv.q C100, 0($a0)
    vdot.q S010, C100, C100
    vadd.s S000, S000, S010
    addiu $t0, $t0, -1
    bnez $t0, loop
    addiu $a0, $a0, 16
    mfv $t1, S000
    mult $t1, $t1
    mflo $t2
.data
x:  .float 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
"""

CHAIN = ("vone.q C000; vadd.q C010, C000, C000; vmul.q C020, C010, C010; vdot.q S030, C020, C010; "
         "vmmul.q M100, M000, M000; vtfm4.q C200, M100, C000")

PREFIXES = ("vone.q C000; vpfxs [w, z, y, x]; vpfxt [1, 2, 1/2, -x]; vadd.q C010, C000, C000; "
            "vcmp.q GT, C010, C000; bvt 4, end; nop; vone.s S100; end: vnop")


def profiled_run(source, warm):
    """Run the snippet's words normally (no stepping) under the profiler."""
    prog = lab.assemble_snippet(source)
    m = Machine()
    code = prog.code_bytes() + lab.BREAK_WORD.to_bytes(4, "little")
    m.load_raw(prog.text_base, code, entry=prog.text_base)
    if prog.data:
        m.load_raw(prog.data_base, bytes(prog.data))
    if warm:
        lab_timing.warm_caches(m, prog.text_base, len(code), [(prog.data_base, len(prog.data))] if prog.data else [])
    profile = Profile.start(m, base=prog.text_base, size=len(code), symbols=[(prog.text_base, len(code), "snippet")])
    event = m.run()
    assert event.kind == "break"
    return prog, m, profile.report()


@pytest.mark.parametrize("source", [LOOP, CHAIN, PREFIXES], ids=["loop", "chain", "prefixes"])
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_lab_and_profiler_agree(source, warm):
    trace = lab.run_snippet(source, warm=warm)
    prog, m, report = profiled_run(source, warm)
    prof = m.timing.prof
    break_slot = len(prog.words)
    # address by address: cycles, stall cycles and executions
    per_pc = {}
    for s in trace.steps:
        row = per_pc.setdefault((s.pc - prog.text_base) // 4, [0, 0, 0])
        row[0] += s.timing.cycles
        row[1] += s.timing.cycles - 1
        row[2] += 1
    for slot in range(break_slot):
        assert per_pc.get(slot, [0, 0, 0]) == [int(prof[0, slot]), int(prof[1, slot]), int(prof[3, slot])], slot
    # whole run: the lab's total is the profile's minus the terminating break
    assert trace.total_cycles == report["cycles"] - int(prof[0, break_slot])
    assert len(trace.steps) == report["instructions"] - 1
    # cause by cause (the break may add its own i-cache stall)
    lab_stalls = {}
    for s in trace.steps:
        for cause, n in s.timing.stalls.items():
            lab_stalls[cause] = lab_stalls.get(cause, 0) + n
    for cause, n in report["stalls"].items():
        assert lab_stalls.get(cause, 0) <= n
    assert sum(report["stalls"].values()) - sum(lab_stalls.values()) == int(prof[1, break_slot])


def test_observed_latencies_are_the_model_tables():
    trace = lab.run_snippet(LOOP + "\n.text\nvadd.q C300, C000, C000\nvmmul.q M400, M000, M000", warm=True)
    checked = 0
    for s in trace.steps:
        row = vfpu_row(s.word)
        if row is not None:
            if ROW_ISSUE_Q4[row.id] % 4 == 0 and s.timing.latency is not None and row.fmt not in ("cmp", "gv"):
                assert s.timing.latency == ROW_LATENCY[row.id], s.text
                checked += 1
        else:
            op = D.decode(s.word)
            if s.timing.latency is not None and D.TABLE[op].timing in ("alu", "mul"):
                assert s.timing.latency == OP_LATENCY[op], s.text
                checked += 1
    assert checked >= 10


def test_a_stall_names_the_register_it_waited_for():
    trace = lab.run_snippet("vone.q C000\nvadd.q C010, C000, C000\nvdot.q S100, C010, C000", warm=True)
    add, dot = trace.steps[1], trace.steps[2]
    assert add.timing.stalls.keys() == {"vfpu"}
    assert add.timing.waited_for.startswith("S00")
    assert add.timing.issue == add.timing.waited_until == trace.steps[0].timing.ready
    assert dot.timing.waited_for.startswith("S01")
    assert dot.timing.issue == add.timing.ready


def test_same_snippet_same_timing():
    a = lab.run_snippet(LOOP).as_dict()
    b = lab.run_snippet(LOOP).as_dict()
    assert a == b
    assert a["total_cycles"] > a["instructions"] and C.CYCLES == 0
