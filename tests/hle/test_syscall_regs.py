"""What a syscall leaves in the registers (pspautotests misc/deadbeef, pinned here too):
the caller-saved ones it does not answer in read 0xDEADBEEF, the rest survive."""

from allegrex.cpu.state import HI, LO
from helpers import call, make_kernel

DEADBEEF = 0xDEADBEEF
CLOBBERED = [1, *range(4, 16), 24, 25, HI, LO]
KEPT = [*range(16, 24), 28, 29, 30, 31]  # s0-s7, gp, sp, fp, ra


def test_a_syscall_clobbers_the_temporaries_and_keeps_the_saved_registers():
    k = make_kernel()
    regs = k.cpu.regs
    for r in CLOBBERED + KEPT:
        regs[r] = 0x13370000 + r
    assert call(k, "ThreadManForUser", "sceKernelGetThreadId") > 0  # v0 answers
    assert all(int(regs[r]) == DEADBEEF for r in CLOBBERED)
    assert all(int(regs[r]) == 0x13370000 + r for r in KEPT)


def test_a_new_thread_starts_with_deadbeef_registers_and_nan_fpu_registers():
    k = make_kernel()
    t = k.threads.create("t", 0x08804000, 0x20, 0x1000, 0, 0)
    k.threads.start(t, 0, 0)
    regs, fpr, _, _ = t.context
    assert int(regs[4]) == int(regs[5]) == 0  # no argument block
    assert all(int(regs[r]) == DEADBEEF for r in [1, 2, 3, *range(6, 26), HI, LO])
    assert all(int(b) == 0x7F800001 for b in fpr)
