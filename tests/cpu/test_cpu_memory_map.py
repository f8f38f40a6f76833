"""The memory map as the CPU sees it, interpreted and in compiled regions alike: user code
faults on the kernel segments (a store at 0x88000000 included), kernel-mode code reaches
them; the VRAM mirrors answer loads and stores as allegrex.memory.Memory does
(tests/allegrex/test_memory.py holds those against the hardware's orders)."""

import numpy as np
import pytest

from allegrex.cpu.asm import code_bytes, enc
from allegrex.cpu.events import FAULT_FETCH, FAULT_LOAD, FAULT_STORE
from allegrex.machine import Machine
from tests.cpu.program import BASE
from tests.cpu.test_jit import run_both
from vfpu.asm import assemble

KERNEL_VIEWS = (0x88900000, 0xA8900000, 0xC8900000)  # kseg0, kseg1 and the uncached kernel view of 0x08900000


def run(words, kernel=False):
    m = Machine("psp-2000")
    m.set_kernel_mode(kernel)
    m.load_raw(BASE, code_bytes(words), entry=BASE)
    return m, m.run(max_instructions=10_000, raise_on_fault=False)


def at(reg, addr):
    return [enc("lui", rt=reg, imm=addr >> 16), enc("ori", rt=reg, rs=reg, imm=addr & 0xFFFF)]


ACCESSES = {  # one load or store through t0, the fault it raises from user code
    "sw": ([enc("sw", rt="t1", rs="t0", imm=8)], FAULT_STORE),
    "sb": ([enc("sb", rt="t1", rs="t0", imm=8)], FAULT_STORE),
    "lw": ([enc("lw", rt="v0", rs="t0", imm=8)], FAULT_LOAD),
    "lhu": ([enc("lhu", rt="v0", rs="t0", imm=8)], FAULT_LOAD),
    "lwc1": ([enc("lwc1", ft=2, rs="t0", imm=8)], FAULT_LOAD),
    "lv.q": ([assemble("lv.q C000, 16(t0)")], FAULT_LOAD),
    "sv.s": ([assemble("sv.s S000, 8(t0)")], FAULT_STORE),
}


@pytest.mark.parametrize("view", KERNEL_VIEWS)
@pytest.mark.parametrize("access", sorted(ACCESSES))
def test_user_code_faults_on_kernel_memory_and_kernel_code_does_not(access, view):
    words, kind = ACCESSES[access]
    program = at("t0", view) + [enc("addiu", rt="t1", rs="zero", imm=0x5A)] + words + [enc("break")]
    m, ev = run(program)
    assert (ev.kind, ev.extra, ev.pc) == ("fault", kind, BASE + 12)
    assert ev.value in (view + 8, view + 16)
    assert "kernel memory: user-mode code may not touch it" in str(m.fault(ev))
    m, ev = run(program, kernel=True)
    assert ev.kind == "break"
    if kind == FAULT_STORE and not access.startswith("sv"):
        assert m.memory.read_u8(0x08900008) == 0x5A  # the same RAM as the user view


def test_fetching_from_a_kernel_segment_faults_in_user_mode():
    m, ev = run(at("t0", 0x80000000 | (BASE + 0x40)) + [enc("jr", rs="t0"), 0])
    assert (ev.kind, ev.extra, ev.pc) == ("fault", FAULT_FETCH, 0x80000000 | (BASE + 0x40))
    body = at("t0", 0x80000000 | (BASE + 0x40)) + [enc("jr", rs="t0"), 0]
    m, ev = run(body + [0] * (16 - len(body)) + [enc("addiu", rt="v0", rs="zero", imm=3), enc("break")], kernel=True)
    assert ev.kind == "break" and m.cpu.regs[2] == 3


def mirror_loop(n):
    """Stores i through VRAM mirror 1 (uncached), reads it back through mirror 3, n times."""
    return (at("a0", 0x44200010) + at("a1", 0x04600000) + [enc("addiu", rt="a2", rs="zero", imm=n)]
            + [enc("sw", rt="a2", rs="a0"), enc("lw", rt="t0", rs="a1", imm=0x600),
               enc("addu", rd="v0", rs="v0", rt="t0"), enc("addiu", rt="a0", rs="a0", imm=36),
               enc("addiu", rt="a2", rs="a2", imm=-1),
               enc("bne", rs="a2", rt="zero", imm=-6), enc("addiu", rt="a1", rs="a1", imm=36), enc("break")])


@pytest.mark.parametrize("kernel", [False, True])
def test_vram_mirrors_in_compiled_loops_as_interpreted(kernel):
    a, b, events = run_both(mirror_loop(300), kernel=kernel)
    assert events[-1].kind == "break" and b.jit.instructions > 0.9 * b.instructions
    assert np.array_equal(a.memory.mem, b.memory.mem)
    for i in range(300):  # each store landed where Memory's mirror 1 puts it
        assert a.memory.read_u32(0x04200010 + 36 * i) == 300 - i


def test_a_compiled_loop_whose_last_store_reaches_kernel_memory_faults_as_interpreted():
    # stores a2 at a0, a0 += 4, 300 times; the last store sets bit 31 of its address
    words = at("a0", 0x08900000) + [enc("addiu", rt="a2", rs="zero", imm=300),
                                    enc("sltiu", rt="t1", rs="a2", imm=2), enc("sll", rd="t1", rt="t1", sa=31),
                                    enc("or", rd="t2", rs="a0", rt="t1"), enc("sw", rt="a2", rs="t2"),
                                    enc("addiu", rt="a2", rs="a2", imm=-1), enc("bne", rs="a2", rt="zero", imm=-6),
                                    enc("addiu", rt="a0", rs="a0", imm=4), enc("break")]
    _, b, events = run_both(words)
    assert (events[0].kind, events[0].extra, events[0].value) == ("fault", FAULT_STORE, 0x88900000 + 4 * 299)
    assert b.jit.instructions > 0
    a, _, events = run_both(words, kernel=True)
    assert events[0].kind == "break" and a.memory.read_u32(0x08900000 + 4 * 299) == 1
