"""How the CPU tests lay out a program: code at BASE, ending in a `syscall` with a code of
their own (instructions come from allegrex.cpu.asm)."""

from allegrex.cpu.asm import enc

BASE = 0x08804000
SYSCALL_DONE = 0x7777  # syscall code the tests use to mean "program finished"


def done():
    return enc("syscall", code=SYSCALL_DONE)
