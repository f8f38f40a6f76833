"""Compiled regions (allegrex.cpu.jit) against the interpreter: for the same program the
machine must end in exactly the same state with and without them: registers, memory,
every counter and the whole timing state (caches, scoreboard), the trace ring and the
profile, at every budget and cycle limit, through faults, calls and code that rewrites
itself. The interpreter is the independent truth here (it is checked against Unicorn and
real-hardware outputs elsewhere)."""

import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allegrex.cpu.asm import enc
from allegrex.cpu.decode import BRANCH, CACHE_OP, EVENT, JUMP, TABLE, VFPU_OP
from allegrex.cpu import jit
from allegrex.cpu.jit import HOT_MASK, JUDGE_AFTER, Jit, stored_key
from allegrex.cpu.jit.codegen import region_source
from allegrex.cpu.jit.region import MAX_BLOCK, MAX_INSTRUCTIONS, PIECE, discover
from allegrex.machine import Machine
from allegrex.timing import counters as C
from allegrex.timing.layout import T_VMEMO_ROW, T_VMEMO_WORD, VMEMO_SIZE
from tests.cpu.program import BASE
from tests.cpu.test_cpu_vs_unicorn import program

DATA = 0x08900000


def machine(jit: bool, timing=True, model="psp-2000", kernel=False):
    m = Machine(model, timing=timing)
    m.set_kernel_mode(kernel)
    # compile on the first hot branch (a real run waits for COMPILE_AFTER more)
    m.jit = Jit(m._read_word, threshold=3 if jit else 0, compile_after=0)
    return m


def load(m, words, data=b""):
    m.memory.write(DATA, data or bytes(range(256)) * 16)
    m.load_raw(BASE, struct.pack(f"<{len(words)}I", *words), entry=BASE)


def same_state(a, b):
    assert np.array_equal(a.cpu.regs, b.cpu.regs)
    assert np.array_equal(a.cpu.fpr_bits, b.cpu.fpr_bits)
    assert np.array_equal(a.cpu.vpr_bits, b.cpu.vpr_bits)
    assert np.array_equal(a.cpu.vctrl, b.cpu.vctrl)  # the prefixes, the CC, the rest of the control registers
    assert np.array_equal(a.cpu.counters, b.cpu.counters)
    # every figure of the timing model; not the interpreter's VFPU decode memo, a cache keyed
    # by the word that regions leave alone (timing_gen._vfpu)
    memo = np.arange(T_VMEMO_WORD, T_VMEMO_ROW + VMEMO_SIZE)
    assert np.array_equal(np.delete(a.timing.tm, memo), np.delete(b.timing.tm, memo))
    assert np.array_equal(a.timing.prof, b.timing.prof)
    assert np.array_equal(a._trace, b._trace)
    assert a.memory.read(DATA, 4096) == b.memory.read(DATA, 4096)


def run_both(words, steps=None, timing=True, profile=False, calls=False, kernel=False, data=b"", **limits):
    """Run `words` on an interpreting and a compiling machine; returns both and their
    events (one per step; `steps`: a list of instruction budgets, else one run).
    calls=True profiles with call tracking (its stack, edges and log are in tm)."""
    pair = []
    for jit in (False, True):
        m = machine(jit, timing, kernel=kernel)
        load(m, words, data)
        if profile or calls:
            m.timing.enable_profile(BASE, 4 * len(words), m.cpu.counters, calls=calls, log_entries=64)
        events = [m.step(n, **limits) for n in (steps or [10**7])]
        pair.append((m, events))
    (a, ea), (b, eb) = pair
    assert ea == eb
    same_state(a, b)
    return a, b, eb


def int8_dot(n, repeat):
    """sum of a[i]*b[i] over n int8 pairs, `repeat` times; v0 accumulates."""
    body = [enc("lb", rt="t0", rs="a0"), enc("lb", rt="t1", rs="a0", imm=1024), enc("addiu", rt="a0", rs="a0", imm=1),
            enc("mult", rs="t0", rt="t1"), enc("mflo", rd="t2"), enc("addiu", rt="a2", rs="a2", imm=-1)]
    outer = [enc("lui", rt="a0", imm=DATA >> 16), enc("addiu", rt="a2", rs="zero", imm=n)]
    inner = body + [enc("bne", rs="a2", rt="zero", imm=-(len(body) + 1)), enc("addu", rd="v0", rs="v0", rt="t2")]
    close = [enc("addiu", rt="s0", rs="s0", imm=-1)]
    close += [enc("bne", rs="s0", rt="zero", imm=-(len(outer) + len(inner) + len(close) + 1)), 0]
    return [enc("addiu", rt="s0", rs="zero", imm=repeat)] + outer + inner + close + [enc("break")]


def float_mac(n):
    body = [enc("lwc1", ft=0, rs="a0"), enc("lwc1", ft=1, rs="a0", imm=512), enc("mul.s", fd=2, fs=0, ft=1),
            enc("add.s", fd=3, fs=3, ft=2), enc("div.s", fd=4, fs=3, ft=1), enc("addiu", rt="a0", rs="a0", imm=4),
            enc("addiu", rt="a2", rs="a2", imm=-1)]
    return ([enc("lui", rt="a0", imm=DATA >> 16), enc("addiu", rt="a2", rs="zero", imm=n)] + body
            + [enc("bne", rs="a2", rt="zero", imm=-(len(body) + 1)), 0, enc("break")])


def test_float_operations_on_two_nans_give_the_interpreters_nan_compiled():
    """add/sub/mul/div.s with NaNs of different payloads and signs in both operands: the
    region's copy of the arithmetic must pick the interpreter's NaN (run_both compares the
    registers and the stored results)."""
    nans_a = [0xFFC00001, 0x7FC00000, 0x7F800001, 0x3F800000, 0xFF800003]
    nans_b = [0x7FC00000, 0xFFC00001, 0xFFC00002, 0xFF800003, 0x7FC00005]
    data = struct.pack("<256I", *[nans_a[i % 5] for i in range(128)], *[nans_b[i % 5] for i in range(128)])
    body = [enc("lwc1", ft=0, rs="a0"), enc("lwc1", ft=1, rs="a0", imm=512)]
    for k, name in enumerate(("add.s", "mul.s", "sub.s", "div.s")):
        body += [enc(name, fd=2 + k, fs=0, ft=1), enc("swc1", ft=2 + k, rs="a0", imm=1024 + 512 * k)]
    body += [enc("addiu", rt="a0", rs="a0", imm=4), enc("addiu", rt="a2", rs="a2", imm=-1)]
    words = ([enc("lui", rt="a0", imm=DATA >> 16), enc("addiu", rt="a2", rs="zero", imm=100)] + body
             + [enc("bne", rs="a2", rt="zero", imm=-(len(body) + 1)), 0, enc("break")])
    a, b, events = run_both(words, data=data)
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions


def test_a_hot_loop_runs_compiled_and_ends_exactly_as_interpreted():
    a, b, events = run_both(int8_dot(200, 30))
    assert events[-1].kind == "break"
    assert b.jit.compiled >= 1 and b.jit.instructions > 0.9 * b.instructions
    assert a.jit.instructions == 0


def test_a_profile_switched_on_between_two_entries_of_a_region_is_kept_as_interpreted():
    """A machine keeps each region's machine code for the run's argument types; a profile
    switched on replaces the timing arrays, and the region entered again after it counts
    into the new profile exactly as the interpreter does."""
    pair = []
    for jit in (False, True):
        m = machine(jit)
        load(m, int8_dot(50, 10))
        first = m.step(2_000)
        m.timing.enable_profile(BASE, 4 * 16, m.cpu.counters)
        pair.append((m, [first, m.step(10**7)]))
    (a, ea), (b, eb) = pair
    assert ea == eb and eb[-1].kind == "break"
    same_state(a, b)
    assert b.jit.entered >= 2 and a.jit.entered == 0


def test_float_loop_with_fpu_latencies_and_the_divider():
    _, b, _ = run_both(float_mac(100))
    assert b.jit.instructions > 0


@pytest.mark.parametrize("timing", [False, True])
def test_plain_count_and_profile_modes(timing):
    run_both(int8_dot(50, 10), timing=timing, profile=timing)


def test_every_instruction_budget_stops_at_the_same_instruction():
    # odd budgets end inside blocks and delay slots; each step resumes where the last stopped
    run_both(int8_dot(64, 20), steps=[7, 1, 333, 2, 4099, 5, 13, 100000])


def test_cycle_limits_stop_at_the_same_instruction():
    for limit in (1000, 4321, 20001):
        _, _, events = run_both(int8_dot(64, 20), max_cycles=limit)
        assert events[0].kind == "budget"


def test_a_fault_inside_a_compiled_loop_is_the_interpreters_fault():
    # walks a0 upward by 1 MiB per iteration until it leaves RAM: a load fault
    words = [enc("lui", rt="a0", imm=DATA >> 16), enc("lui", rt="t3", imm=0x10),
             enc("lw", rt="t0", rs="a0"), enc("addu", rd="a0", rs="a0", rt="t3"), enc("addu", rd="v0", rs="v0", rt="t0"),
             enc("bne", rs="a0", rt="zero", imm=-4), 0, enc("break")]
    _, b, events = run_both(words)
    assert events[0].kind == "fault" and b.jit.instructions > 0


def test_calls_inside_the_loop_run_compiled():
    # loop: jal f; f: t1 += a0; jr ra
    f = BASE + 4 * 8
    words = [enc("addiu", rt="s0", rs="zero", imm=500),
             enc("jal", target=f), enc("addiu", rt="a0", rs="a0", imm=3),
             enc("addiu", rt="s0", rs="s0", imm=-1), enc("bne", rs="s0", rt="zero", imm=-4), 0,
             enc("break"), 0,
             enc("addu", rd="t1", rs="t1", rt="a0"), enc("jr", rs="ra"), enc("sll", rd="t2", rt="t1", sa=1)]
    _, b, _ = run_both(words)
    assert b.jit.instructions > 0.9 * b.instructions


def loops_in_a_row(repeat):
    """Loop A then loop B (each 3 instructions a turn, their turns read from DATA and
    DATA + 4), the pair run `repeat` times by a jump through a register, which a region
    does not follow: A and B are regions of their own, A left exactly where B begins.
    Returns the words, A's and B's addresses and the length of the code between B and A."""
    a = BASE + 4 * 6
    start = [enc("lui", rt="t9", imm=a >> 16), enc("ori", rt="t9", rs="t9", imm=a & 0xFFFF),
             enc("lui", rt="t8", imm=DATA >> 16), enc("addiu", rt="s0", rs="zero", imm=repeat),
             enc("lw", rt="a1", rs="t8"), enc("lw", rt="a2", rs="t8", imm=4)]
    loop_a = [enc("addiu", rt="a1", rs="a1", imm=-1), enc("bne", rs="a1", rt="zero", imm=-2),
              enc("addu", rd="v0", rs="v0", rt="a1")]
    loop_b = [enc("addiu", rt="a2", rs="a2", imm=-1), enc("bne", rs="a2", rt="zero", imm=-2),
              enc("addu", rd="v1", rs="v1", rt="a2")]
    tail = [enc("addiu", rt="s0", rs="s0", imm=-1), enc("beq", rs="s0", rt="zero", imm=3), enc("lw", rt="a1", rs="t8"),
            enc("jr", rs="t9"), enc("lw", rt="a2", rs="t8", imm=4)]
    return start + loop_a + loop_b + tail + [enc("break")], a, a + 12, len(tail)


def test_a_region_left_at_the_entry_of_another_enters_it_directly():
    """Control passes from region to region without the interpreter: A's region ends
    where B's begins, so B runs compiled from its first turn (the interpreter enters
    regions only at loop heads it branches back to: it would run B's first turn itself)."""
    repeat, turns = 40, 20
    words, _, _, between = loops_in_a_row(repeat)
    _, b, events = run_both(words, data=struct.pack("<II", turns, turns))
    assert events[-1].kind == "break" and b.cpu.regs[3] == repeat * turns * (turns - 1) // 2  # v1: B's sums
    assert b.instructions - b.jit.instructions < repeat * (between + 3)  # not B's first turn each time round


def test_a_region_that_runs_too_little_per_entry_is_left_to_the_interpreter():
    """A loop of two turns per visit costs a round trip for six instructions: after
    JUDGE_AFTER entries its region is dropped and the interpreter runs it in its own call."""
    words, a, b_head, _ = loops_in_a_row(200)
    _, b, _ = run_both(words, data=struct.pack("<II", 2, 2))
    assert b.jit.entered == 2 * JUDGE_AFTER and not b.jit.regions
    assert all(b.jit.hot[(head >> 2) & HOT_MASK] < 0 for head in (a, b_head))


def test_the_loops_of_one_nest_share_their_words_not_their_compiled_code():
    """Entered at the inner or at the outer head, a nest's region holds the same words; each
    is compiled on its own (one entered at the other's head would leave at once)."""
    m = machine(True)
    load(m, int8_dot(8, 4))
    inner, outer = discover(BASE + 12, m._read_word), discover(BASE + 4, m._read_word)
    assert inner.words == outer.words
    assert stored_key(inner, True, False) != stored_key(outer, True, False)


def test_a_scan_is_reused_while_every_word_it_read_is_unchanged(monkeypatch):
    """Machines of one process share region scans (a program run again meets the same
    loops), but a word the scan read that is now different, even outside the region
    found, means scanning again."""
    scans = []
    monkeypatch.setattr(jit, "SCANS", {})
    monkeypatch.setattr(jit, "discover", lambda pc, read: scans.append(pc) or discover(pc, read))
    words = int8_dot(8, 4)
    found = []
    for last in (enc("break"), enc("break"), enc("break", code=1)):  # the scan reads the break after the nest
        m = Machine()
        load(m, words[:-1] + [last])
        found.append(m.jit._scan(BASE + 12))
    assert scans == [BASE + 12, BASE + 12]
    assert found[0] is found[1] and found[2] is not found[0] and found[2].words == found[0].words


@pytest.mark.parametrize("steps", [None, [7, 1, 333, 2, 4099, 5, 13, 100000]])
def test_call_tracking_is_the_same_compiled(steps):
    """jal and jalr calls from a hot loop, returns through jr ra: the call stack, edge
    table and event log (all in tm) end the same, also when budgets split delay slots."""
    f, g = BASE + 4 * 12, BASE + 4 * 15
    words = [enc("addiu", rt="s0", rs="zero", imm=300), enc("lui", rt="t9", imm=g >> 16),
             enc("ori", rt="t9", rs="t9", imm=g & 0xFFFF),
             enc("jal", target=f), enc("addiu", rt="a0", rs="a0", imm=3),
             enc("jalr", rd="ra", rs="t9"), 0,
             enc("addiu", rt="s0", rs="s0", imm=-1), enc("bne", rs="s0", rt="zero", imm=-6), 0,
             enc("break"), 0,
             enc("addu", rd="t1", rs="t1", rt="a0"), enc("jr", rs="ra"), enc("sll", rd="t2", rt="t1", sa=1),
             enc("mult", rs="t1", rt="t2"), enc("mflo", rd="t3"), enc("jr", rs="ra"), 0]
    a, b, _ = run_both(words, steps=steps, calls=True)
    assert b.jit.instructions > 0  # (g, reached through a register, is interpreted: handovers mid-call)
    if steps is None:  # (the budgets run on past the break)
        from allegrex.timing.callgraph import read_edges
        assert {(e.site, e.callee): e.count for e in read_edges(b.timing.tm)} == {
            (BASE + 12, f): 300, (BASE + 20, g): 300}


def test_code_that_rewrites_its_own_loop():
    # the loop body's `addiu v0, v0, K` gets K = iteration count stored over it each time
    target = BASE + 4 * 3
    words = [enc("addiu", rt="s0", rs="zero", imm=300), enc("lui", rt="t5", imm=target >> 16),
             enc("ori", rt="t5", rs="t5", imm=target & 0xFFFF),
             enc("addiu", rt="v0", rs="v0", imm=1),
             enc("lui", rt="t6", imm=enc("addiu", rt="v0", rs="v0") >> 16), enc("or", rd="t6", rs="t6", rt="s0"),
             enc("sw", rt="t6", rs="t5"),
             enc("addiu", rt="s0", rs="s0", imm=-1), enc("bne", rs="s0", rt="zero", imm=-6), 0, enc("break")]
    a, b, _ = run_both(words)
    assert a.cpu.regs[2] != 300  # the rewritten immediates did count
    assert b.jit.stale[BASE + 4 * 3] == 2  # found stale twice, then left to the interpreter


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(parts=st.lists(program(), min_size=2, max_size=4), seed=st.integers(0, 2**31))
def test_random_code_in_a_hot_loop(parts, seed):
    """Random integer code (the Unicorn differential test's generator) run 40 times."""
    body = [w for p in parts for w in p]
    rng = np.random.default_rng(seed)
    init = [enc("lui", rt=r, imm=int(rng.integers(0, 0x10000))) for r in range(2, 26) if r != 23]
    words = init + [enc("lui", rt="s7", imm=DATA >> 16), enc("addiu", rt="k1", rs="zero", imm=40)] + body
    words += [enc("addiu", rt="k1", rs="k1", imm=-1), enc("bne", rs="k1", rt="zero", imm=-(len(body) + 2)), 0,
              enc("break")]
    run_both(words)


def test_a_region_that_cannot_be_built_leaves_the_loop_to_the_interpreter(monkeypatch, capsys):
    import allegrex.cpu.jit as jit

    def unwritable(*_):
        raise PermissionError("read-only cache folder")
    monkeypatch.setattr(jit, "load", unwritable)
    m = machine(True)
    load(m, int8_dot(50, 10))
    ev = m.step(10**7)
    want = machine(False)
    load(want, int8_dot(50, 10))
    assert ev == want.step(10**7)
    same_state(m, want)
    assert m.jit.instructions == 0
    assert capsys.readouterr().err.count("hot loops stay interpreted") == 1


def test_a_region_that_fails_to_compile_is_interpreted_and_not_tried_again(monkeypatch, tmp_path, capsys):
    import allegrex.cpu.jit as jit_module
    monkeypatch.setenv("ALLEGREX_CACHE", str(tmp_path))
    tries = []

    def broken(source_for, key):
        tries.append(key)

        def region(*args):
            raise RecursionError("maximum recursion depth exceeded")
        return region
    monkeypatch.setattr(jit_module, "load", broken)
    a = machine(jit=False)
    load(a, int8_dot(50, 10))
    a.step(10**7)
    tried = []
    for _ in range(2):  # a second machine is a later run: it must not try again
        b = machine(jit=True)
        load(b, int8_dot(50, 10))
        b.step(10**7)
        same_state(a, b)
        assert b.jit.instructions == 0
        tried.append(len(tries))
    assert tried[0] >= 1 and tried[1] == tried[0]  # (the nest's inner head, then its outer one)
    assert "compiling the loop at 0x" in capsys.readouterr().err


def vfpu_loop(n, body_text, advance=None):
    """`body_text` (VFPU assembly, `;`-separated, or a list of VFPU lines and words) run n times, then `advance` (a word moving a0;
    default: 32 bytes on); ends in break."""
    from vfpu.asm import assemble
    body = [assemble(t.strip()) if isinstance(t, str) else t
            for t in (body_text.split(";") if isinstance(body_text, str) else body_text)]
    body += [advance or enc("addiu", rt="a0", rs="a0", imm=32), enc("addiu", rt="a2", rs="a2", imm=-1)]
    return ([enc("lui", rt="a0", imm=DATA >> 16), enc("addiu", rt="a2", rs="zero", imm=n)] + body
            + [enc("bne", rs="a2", rt="zero", imm=-(len(body) + 1)), 0, enc("break")])


# Every word a region runs directly (jit.vfpu_gen), on the data's mix of normal, denormal,
# infinite and NaN floats, with destinations overlapping sources and row (transposed) operands.
PLAIN_VFPU_BODY = ("lv.q C000, 0(a0); lv.q C010, 16(a0); lv.s S020, 4(a0); vadd.q C100, C000, C010; "
                   "vsub.t C110, C000, C010; vmul.p C120, C000, C010; vscl.q C130, C000, S020; "
                   "vdot.q S200, C000, C010; vc2i.s C210, S000; vi2f.q C220, C210, 3; vadd.s S230, S230, S200; "
                   "vmul.q C010, C010, C000; vsub.q R300, R300, C010; vdot.t S201, C000, R300; "
                   "vscl.p C310, C310, S201; vi2f.s S320, S010, 31; sv.q C100, 2048(a0); sv.s S200, 2064(a0)")
# The rest of the short path's operations (vfpu.plain): lane-wise float ones, vf2i*, moves, vi2* packings,
# vcmp (the loop's vfpu state, CC included, must end as the interpreter's).
PLAIN_MATH_BODY = ("vmin.q C400, C000, C010; vmax.t C410, C010, C000; vmax.s S420, S000, S203; vsgn.q C430, C000; "
                   "vabs.p C500, C010; vneg.q R400, R400; vmov.t C510, C000; vzero.p C520; vone.s S530; "
                   "vdiv.q C600, C000, C010; vsge.t C610, C010, C000; vslt.p C620, C000, C010; "
                   "vscmp.q C630, C000, R600; vocp.s S700, S000; vsat0.q C710, C000; vsat1.p C720, C010; "
                   "vf2in.q C730, C000, 4; vf2iz.t C600, C010, 31; vf2iu.s S601, S000, 0; vf2id.p C602, C000, 12; "
                   "vi2c.q S521, C730; vi2uc.q S522, C600; vi2s.q C532, C730; vi2us.p S523, C602; "
                   "vcmp.q LT, C000, C010; vcmp.s EZ, S420, S420")


@pytest.mark.parametrize("timing", [False, True])
def test_vfpu_loop_of_plain_operations_loads_and_stores(timing):
    a, b, events = run_both(vfpu_loop(40, f"{PLAIN_VFPU_BODY}; {PLAIN_MATH_BODY}"), timing=timing)
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions
    assert a.memory.read(DATA + 2048, 16) != bytes(range(16))  # the stores did write


def test_every_plain_operation_runs_as_its_piece_in_a_region():
    from vfpu.plain import LANE_OPS, MOVE_OPS
    from vfpu.table import OPS
    m = machine(True)
    load(m, vfpu_loop(40, f"{PLAIN_VFPU_BODY}; {PLAIN_MATH_BODY}"))
    source = region_source(discover(BASE + 4 * 2, m._read_word), "f", True, False)
    for name in ("vmin", "vmax", "vsgn", "vabs", "vneg", "vmov", "vadd", "vscl", "vdiv", "vsge", "vslt", "vscmp",
                 "vocp", "vsat0", "vsat1"):
        piece = "vfpu_plain_arith" if OPS[name] in LANE_OPS else "vfpu_plain_mov"
        assert OPS[name] in LANE_OPS + MOVE_OPS and f"{piece}({OPS[name]}, " in source, name
    assert source.count("vfpu_plain_f2i(") == 4
    assert source.count("vfpu_plain_pack(") == 4
    assert source.count("vfpu_plain_cmp(") == 2


# Every step of the VFPU timing as regions write it with constants (model.vfpu_account's):
# matrix and transposed operands, GPRs and control registers in and out, vcmp's CC,
# quarter-cycle issues (vzero) and vocp's late cycle, long issues (vmmul), loads and
# stores, between integer words reading and writing the same registers.
MIXED_VFPU_BODY = ["lv.q C000, 0(a0)", enc("lw", rt="t1", rs="a0", imm=8), "mtv t1, S010",
                   "vmmul.q M100, M000, E200", "vcmp.q LT, C000, C010", "mfvc t2, $131",
                   enc("addu", rd="t3", rs="t2", rt="t1"), "mtvc t3, $131", "vocp.q C300, C000", "vzero.t C310",
                   "vmzero.p M320", "vmfvc S330, $131", "vmtvc $132, S330", "vtfm4.q C100, M000, C200",
                   "vrcp.q C110, C200", "mfv t0, S000", enc("addu", rd="t4", rs="t0", rt="t0"),
                   "sv.q C100, 2048(a0)", "lv.s S020, 4(a0)", "vadd.q C200, C200, C020", "vsin.s S001, S002"]


@pytest.mark.parametrize("profile", [False, True])
def test_vfpu_timing_steps_are_the_models_cycle_for_cycle(profile):
    a, b, events = run_both(vfpu_loop(40, MIXED_VFPU_BODY), profile=profile)
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions
    assert b.cpu.counters[C.STALL_VFPU] > 0 and b.cpu.counters[C.STALL_STRUCTURAL] > 0  # the steps did charge


# Words reading what earlier words of their block produced (regions compare those results'
# ready cycles kept in locals, jit.timing_gen.BlockResults): a whole operand from one
# producer and from two of different stall kinds, an operand partly from the block and
# partly from the loop's previous pass, a transposed one, a scalar out of a quad.
BLOCK_RESULTS_BODY = ("lv.q C000, 0(a0); vadd.q C010, C000, C000; vmul.q C020, C000, C010; "
                      "vadd.q C030, C020, C200; vmov.t C200, C030; vdot.q S201, C030, R000; vadd.s S202, S001, S201")


def test_vfpu_words_waiting_for_results_of_their_own_block_stall_as_interpreted():
    a, b, events = run_both(vfpu_loop(40, BLOCK_RESULTS_BODY))
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions
    assert b.cpu.counters[C.STALL_VFPU] > 0 and b.cpu.counters[C.STALL_LOAD_USE] > 0  # both kinds named a wait


def test_vfpu_loop_budgets_stop_at_the_same_instruction():
    run_both(vfpu_loop(40, PLAIN_VFPU_BODY), steps=[9, 1, 201, 3, 77, 100000])


@pytest.mark.parametrize("access", ["lv.q C000, 0(a0)", "sv.q C000, 0(a0)", "lv.s S000, 0(a0)",
                                    "sv.s S000, 0(a0)"])
def test_a_vfpu_load_or_store_fault_in_a_compiled_loop_is_the_interpreters(access):
    # a0 walks by 64 KiB per iteration until it leaves RAM
    words = [enc("lui", rt="t3", imm=1)] + vfpu_loop(1000, access + "; vadd.q C100, C100, C000",
                                                     advance=enc("addu", rd="a0", rs="a0", rt="t3"))
    _, b, events = run_both(words)
    assert events[0].kind == "fault" and b.jit.instructions > 0


def test_vfpu_prefixes_inside_a_compiled_loop_take_the_full_path():
    # vpfxs/vpfxt/vpfxd before plain operations: the identity guard fails, execute_called runs them
    body = ("lv.q C000, 0(a0); lv.q C010, 16(a0); vpfxs [-x, y, |z|, 1]; vadd.q C100, C000, C010; "
            "vpfxt [x, x, y, 0]; vdot.q S200, C000, C010; vpfxd [0:1, , m, -1:1]; vmul.q C110, C000, C010; "
            "vscl.q C120, C110, S200; vpfxs [y, x, w, z]; vi2f.q C130, C000, 1; vpfxd [, m, , ]; "
            "vc2i.s C210, S010; sv.q C100, 2048(a0)")
    a, b, events = run_both(vfpu_loop(40, body))
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions


def test_vfpu_prefixes_pending_when_a_compiled_loop_is_entered_are_honoured():
    # The inner loop's region runs vadd.q unguarded (every way round it leaves the prefixes
    # consumed); the outer path, too long to join the region, sets vpfxs and branches
    # back to the loop head: the region must decline that entry and the interpreter apply it.
    from vfpu.asm import assemble
    inner = [assemble("lv.q C000, 0(a0)"), assemble("vadd.q C100, C100, C000"), enc("addiu", rt="a0", rs="a0", imm=16),
             enc("addiu", rt="a2", rs="a2", imm=-1)]
    inner += [enc("bne", rs="a2", rt="zero", imm=-(len(inner) + 1)), 0]
    outer = [assemble("vpfxs [-x, y, |z|, 1]"), enc("addiu", rt="a2", rs="zero", imm=5)] + [0] * MAX_BLOCK
    outer += [enc("addiu", rt="s0", rs="s0", imm=-1)]
    outer += [enc("bne", rs="s0", rt="zero", imm=-(len(outer) + len(inner) + 1)), 0]
    words = [enc("lui", rt="a0", imm=DATA >> 16), enc("addiu", rt="a2", rs="zero", imm=5),
             enc("addiu", rt="s0", rs="zero", imm=6)] + inner + outer + [enc("break")]
    _, b, events = run_both(words)
    assert events[-1].kind == "break" and b.jit.instructions > 0
    assert b.jit.entered <= 2 * 6  # a declined entry is not tried again at once (one try, one run per outer turn)


def test_what_each_vfpu_word_leaves_in_the_prefix_registers_is_what_vfpu_gen_assumes():
    # vfpu_gen.consumed_after's rule, checked against the interpreter for every row of the
    # table: with all three prefixes pending, a keeper leaves them as they were, and any other
    # word but a setter either consumes them (the identity) or raises an event.
    from allegrex.cpu.jit.vfpu_gen import PREFIX_KEEPERS, PREFIX_SETTERS
    from vfpu.exec import execute
    from vfpu.table import ROWS
    m = Machine("psp-2000")
    c, mem = m.cpu, m.memory
    pending = np.array([0x1E4, 0x4E4, 0x3, 1, 1, 1], dtype=np.uint32)  # s, t, d values; their pending flags
    for row in ROWS:
        c.vctrl[[0, 1, 2, 16, 17, 18]] = pending
        status = execute(np.uint32(row.match), BASE, c.regs, c.vpr, c.vpr_bits, c.vctrl, mem.mem, mem.mem32,
                         mem.memf32, mem.ram_size, mem.mapping, m._event)
        left = c.vctrl[[0, 1, 2, 16, 17, 18]]
        if row.op in PREFIX_KEEPERS:
            assert np.array_equal(left, pending), row.text_name
        elif row.op not in PREFIX_SETTERS:
            assert status != 0 or np.array_equal(left, [0xE4, 0xE4, 0, 0, 0, 0]), row.text_name


# A loop body longer than a piece (jit.region.PIECE): its block is compiled as functions of
# PIECE instructions each, and state crosses from one to the next through their arguments;
# words read results produced in an earlier piece, budgets, cycle limits, faults and
# rewritten code end the run inside a piece.
LONG_VFPU_BODY = MIXED_VFPU_BODY + BLOCK_RESULTS_BODY.split(";") + PLAIN_VFPU_BODY.split(";")


def test_a_loop_body_longer_than_a_piece_is_compiled_in_pieces():
    words = vfpu_loop(40, LONG_VFPU_BODY)
    assert len(LONG_VFPU_BODY) > PIECE
    m = machine(True)
    load(m, words)
    region = discover(BASE + 4 * 2, m._read_word)
    assert [len(b.instructions) for b in region.blocks] == [len(LONG_VFPU_BODY) + 4]
    assert region_source(region, "f", True, False).count("def f_piece") == -(-(len(LONG_VFPU_BODY) + 2) // PIECE)
    a, b, events = run_both(words)
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions
    assert b.cpu.counters[C.STALL_VFPU] > 0 and b.cpu.counters[C.STALL_LOAD_USE] > 0


def test_budgets_and_cycle_limits_stop_inside_a_piece_as_interpreted():
    run_both(vfpu_loop(40, LONG_VFPU_BODY), steps=[9, 1, 201, 3, 77, 1000, 33, 100000])
    for limit in (2345, 5432):  # (the whole run: ~7,500 cycles)
        _, _, events = run_both(vfpu_loop(40, LONG_VFPU_BODY), max_cycles=limit)
        assert events[0].kind == "budget"


def test_a_fault_inside_a_piece_is_the_interpreters_fault():
    # a0 walks by 64 KiB per iteration until the load in the body's second piece leaves RAM
    body = [enc("addiu", rt="v1", rs="v1", imm=1)] * (PIECE + 5) + ["lv.q C000, 0(a0)", "vadd.q C110, C110, C000"]
    words = [enc("lui", rt="t3", imm=1)] + vfpu_loop(1000, body, advance=enc("addu", rd="a0", rs="a0", rt="t3"))
    _, b, events = run_both(words)
    assert events[0].kind == "fault" and b.jit.instructions > 0


def test_code_rewritten_from_inside_a_piece():
    # the long body's last piece stores over its first word's immediate each time round
    target = BASE + 4 * 3
    pad = [enc("addiu", rt="v1", rs="v1", imm=k) for k in range(PIECE + 3)]
    words = [enc("addiu", rt="s0", rs="zero", imm=300), enc("lui", rt="t5", imm=target >> 16),
             enc("ori", rt="t5", rs="t5", imm=target & 0xFFFF),
             enc("addiu", rt="v0", rs="v0", imm=1)] + pad + [
             enc("lui", rt="t6", imm=enc("addiu", rt="v0", rs="v0") >> 16), enc("or", rd="t6", rs="t6", rt="s0"),
             enc("sw", rt="t6", rs="t5"),
             enc("addiu", rt="s0", rs="s0", imm=-1), enc("bne", rs="s0", rt="zero", imm=-(len(pad) + 6)), 0,
             enc("break")]
    a, b, _ = run_both(words)
    assert a.cpu.regs[2] != 300
    assert b.jit.stale[target] == 2


def _every_scalar_word():
    """One word of each scalar instruction that neither branches nor raises an event (the
    traps given operands that do not trap): destinations t2/t4/f3, sources t0 = 1, t1 = 2,
    memory at s7 (DATA), f1/f2 loaded from it."""
    fields = {"rd,rt,sa": dict(rd="t2", rt="t1", sa=3), "rd,rt,rs": dict(rd="t2", rt="t1", rs="t0"),
              "rd,rs,rt": dict(rd="t2", rs="t0", rt="t1"), "": {}, "rd": dict(rd="t2"), "rs": dict(rs="t0"),
              "rd,rs": dict(rd="t2", rs="t1"), "rs,rt": dict(rs="t0", rt="t1"), "rs,imm": dict(rs="t0", imm=7),
              "rt,rs,imm": dict(rt="t4", rs="t1", imm=-5), "rt,rs,uimm": dict(rt="t4", rs="t1", imm=0x8001),
              "rt,uimm": dict(rt="t4", imm=0x1234), "rt,off(rs)": dict(rt="t4", rs="s7", imm=8),
              "ft,off(rs)": dict(ft=3, rs="s7", imm=12), "rt": dict(rt="t4"), "rt,rs,pos,size": dict(rt="t4", rs="t1", sa=3, rd=4),
              "rt,rs,pos,isize": dict(rt="t4", rs="t1", sa=3, rd=6), "rd,rt": dict(rd="t2", rt="t1"),
              "rt,fs": dict(rt="t4", fs=1), "rt,fcr": dict(rt="zero", rd=31), "fd,fs,ft": dict(fd=3, fs=1, ft=2),
              "fd,fs": dict(fd=3, fs=2), "fs,ft": dict(fs=1, ft=2)}
    not_trapping = {"tge": dict(rs="t0", rt="t1"), "tgeu": dict(rs="t0", rt="t1"), "tlt": dict(rs="t1", rt="t0"),
                    "tltu": dict(rs="t1", rt="t0"), "teq": dict(rs="t0", rt="t1"), "tne": dict(rs="t0", rt="t0"),
                    "tlti": dict(rs="t1", imm=0), "tltiu": dict(rs="t1", imm=1), "tnei": dict(rs="t0", imm=1)}
    skip = BRANCH | JUMP | EVENT | CACHE_OP | VFPU_OP
    return [enc(row.mnemonic, **not_trapping.get(row.mnemonic, fields[row.fmt]))
            for row in TABLE if not row.flags & skip]


def test_every_scalar_instruction_runs_in_a_piece_as_interpreted():
    """A piece's text goes through fewer numba passes than numba's default (jit.passes): every
    instruction's semantics must compile and run there as the interpreter runs them."""
    body = _every_scalar_word()
    assert len(body) > 3 * PIECE
    words = [enc("addiu", rt="t0", rs="zero", imm=1), enc("addiu", rt="t1", rs="zero", imm=2),
             enc("lui", rt="s7", imm=DATA >> 16), enc("lwc1", ft=1, rs="s7"), enc("lwc1", ft=2, rs="s7", imm=4),
             enc("addiu", rt="k1", rs="zero", imm=8)] + body + [
             enc("addiu", rt="k1", rs="k1", imm=-1), enc("bne", rs="k1", rt="zero", imm=-(len(body) + 2)), 0,
             enc("break")]
    a, b, events = run_both(words, data=struct.pack("<4f", 1.5, -0.375, 3.0, 2.0) * 64)
    assert events[-1].kind == "break" and b.jit.instructions > 0.5 * b.instructions
