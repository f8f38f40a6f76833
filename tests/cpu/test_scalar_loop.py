"""The run loop compiled without the VFPU (allegrex.cpu.scalar_loop): a program runs in it
until its first VFPU word, then in the loop with the VFPU (allegrex.cpu.vfpu_loop) from that
word on, ending with exactly the registers, VFPU state, cycles and counters of a run in the
loop with the VFPU from the start."""

import struct

import numpy as np

from allegrex.machine import Machine
from vfpu.asm import assemble

BASE = 0x08804000
T0, T1, V0 = 8, 9, 2


def addiu(rt, rs, imm):
    return 0x24000000 | (rs << 21) | (rt << 16) | (imm & 0xFFFF)


def bne(rs, rt, words_back):
    return 0x14000000 | (rs << 21) | (rt << 16) | (-words_back & 0xFFFF)


SYSCALL_DONE = (0x77 << 6) | 0x0C
# five passes of an integer loop whose branch has a VFPU word in its delay slot: the first
# VFPU word the program meets is in a delay slot, with the branch already taken
LOOP = [addiu(T0, 0, 5),                      # t0 = 5
        addiu(T0, T0, -1),                    # loop: t0 -= 1
        addiu(V0, V0, 3),                     # v0 += 3
        bne(T0, 0, 3),                        # back to loop while t0 != 0
        assemble("vadd.s S000, S000, S010"),  # delay slot: S000 += S010
        assemble("vmul.q C100, C000, C000"),
        addiu(T1, V0, 1),
        SYSCALL_DONE, 0]


def run(words, vfpu_loop_from_start):
    m = Machine("psp-2000")
    m.vfpu_loop = vfpu_loop_from_start
    m.cpu.vpr[:] = np.arange(128, dtype=np.float32) / 8
    m.load_raw(BASE, struct.pack(f"<{len(words)}I", *words), entry=BASE)
    return m, m.step(1000)


def test_the_first_vfpu_word_hands_over_to_the_vfpu_loop_with_nothing_run_twice():
    m, event = run(LOOP, False)
    ref, ref_event = run(LOOP, True)
    assert m.vfpu_loop and event == ref_event and event.kind == "syscall"
    assert (m.cpu.regs == ref.cpu.regs).all() and (m.cpu.vpr_bits == ref.cpu.vpr_bits).all()
    assert (m.cpu.counters == ref.cpu.counters).all() and m.instructions == 1 + 5 * 4 + 3
    assert m.cpu.vpr[0] == np.float32(5 * 0.5)  # S010 (vpr[4] = 4 / 8) added five times


def test_a_program_without_vfpu_words_never_needs_the_vfpu_loop():
    words = LOOP[:4] + [0] + LOOP[6:]  # the delay slot a nop, no vmul
    m, event = run(words, False)
    ref, _ = run(words, True)
    assert event.kind == "syscall" and not m.vfpu_loop
    assert (m.cpu.regs == ref.cpu.regs).all() and (m.cpu.counters == ref.cpu.counters).all()
