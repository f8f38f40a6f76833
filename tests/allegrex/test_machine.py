"""Machine's calls into the run loop: the compiled entry point it calls directly, the
notice of a compile the cache cannot spare, and what the loop's arguments hold (breakpoints,
the memory map, the timing arrays, the jit) changed between steps."""

import importlib.util
import struct

from allegrex.machine import Machine, compiled_entry

BASE = 0x08804000
ADDIU_V0_V0_1 = 0x24420001  # addiu $v0, $v0, 1
J_BASE = 0x08000000 | ((BASE >> 2) & 0x3FFFFFF)  # j BASE
NOP = 0


def _module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_compile_the_cache_cannot_spare_is_announced_and_a_cached_one_is_not(tmp_path):
    source = tmp_path / "kernel_for_entry.py"
    source.write_text("from numba import njit\n\n@njit(cache=True)\ndef triple(x):\n    return 3 * x\n")
    notices = []
    entry = compiled_entry(_module(source, "kernel_for_entry_a").triple, (7,), notices.append)
    assert entry(7) == 21 and len(notices) == 2 and "compiling" in notices[0] and "ready" in notices[1]
    again = []  # a fresh dispatcher of the same function: numba's cache has it now
    cached = _module(source, "kernel_for_entry_b").triple
    entry = compiled_entry(cached, (5,), again.append)
    assert entry(5) == 15 and again == []
    cached._cache.flush()  # an emptied index (as interp.py leaves it when its sources change)
    flushed = []
    entry = compiled_entry(_module(source, "kernel_for_entry_c").triple, (2,), flushed.append)
    assert entry(2) == 6 and len(flushed) == 2


def _counting_loop():
    m = Machine("psp-1000")
    m.load_raw(BASE, struct.pack("<3I", ADDIU_V0_V0_1, J_BASE, NOP), entry=BASE)
    return m


def test_a_breakpoint_set_between_steps_stops_the_next_and_a_cleared_one_does_not():
    m = _counting_loop()
    assert m.step(30).kind == "budget"
    m.breakpoints.add(BASE)
    event = m.step(1000)
    # the step starts at BASE itself (a step never stops at its first instruction): one more pass
    assert (event.kind, event.pc) == ("breakpoint", BASE) and m.instructions == 33
    m.breakpoints.clear()
    assert m.step(1000).kind == "budget" and m.instructions == 1033  # the same budget as the step that stopped
    assert m.step(3000).kind == "budget" and m.instructions == 4033


LUI_A0_KSEG = 0x3C048800  # lui $a0, 0x8800 (a kernel segment address)
LW_V1_A0 = 0x8C830000  # lw $v1, 0($a0)


def test_a_memory_map_changed_between_steps_holds_for_the_next():
    m = Machine("psp-1000")
    m.load_raw(BASE, struct.pack("<4I", LUI_A0_KSEG, LW_V1_A0, J_BASE, NOP), entry=BASE)
    m.set_kernel_mode(True)
    assert m.step(40).kind == "budget"  # kernel code may load from the kernel segment
    m.set_kernel_mode(False)
    assert m.step(40).kind == "fault"  # the same step's arguments, now for user code


def test_a_profile_enabled_between_steps_counts_the_next():
    from allegrex.timing.counters import PROF_COUNT
    m = _counting_loop()
    assert m.step(30).kind == "budget"
    m.timing.enable_profile(BASE, 12, m.cpu.counters)
    assert m.step(30).kind == "budget"
    assert m.timing.prof[PROF_COUNT].sum() == 30  # a replaced timing array reached the loop


def test_a_new_jit_between_steps_is_the_one_the_next_uses():
    from allegrex.cpu.jit import Jit
    m = _counting_loop()
    assert m.step(30).kind == "budget" and m.jit.hot.any()  # the loop counts its backward branch
    first = m.jit
    counted = first.hot.copy()
    m.jit = Jit(m._read_word, threshold=10**6)
    assert m.step(3000).kind == "budget" and m.jit.hot.any() and (first.hot == counted).all()


def test_advance_returns_the_code_of_the_event_step_returns():
    m, n = _counting_loop(), _counting_loop()
    code = m.advance(100)
    assert m.last_event() == n.step(100) and m.last_event().kind == "budget"
    assert (m.cpu.regs == n.cpu.regs).all() and code == 5  # EV_BUDGET


def test_compiling_a_new_long_loop_is_announced_and_loading_it_again_is_not(tmp_path, monkeypatch):
    from allegrex.cpu import jit
    from allegrex.cpu.jit import stored_key
    from tests.cpu.test_jit import BASE as LOOP_BASE, LONG_VFPU_BODY, load, machine, vfpu_loop
    monkeypatch.setenv("ALLEGREX_CACHE", str(tmp_path))  # nothing compiled: the loop's region is new
    monkeypatch.setattr(jit, "stored_key", lambda *key, stored=stored_key: stored(*key) + " (notice)")
    said = []
    for run in range(2):  # the second machine finds the region compiled
        m = machine(True)
        m.notice = lambda message: said.append(message) if "hot loop" in message else None  # (not the run loop's)
        load(m, vfpu_loop(40, LONG_VFPU_BODY))
        assert m.step(10**7).kind == "break" and m.jit.instructions > 0
        assert len(said) == 2
    assert said[0].startswith(f"compiling the hot loop at 0x{LOOP_BASE + 8:08x} (2 pieces of up to 32 instructions)")
    assert said[1].startswith("hot loop ready (")
