import pytest

from allegrex.cpu.asm import code_bytes
from allegrex.machine import Machine
from tests.cpu.program import BASE, done


@pytest.fixture(scope="module")
def machine():
    """One Machine per test module (numba code is shared; memory is reset per program)."""
    return Machine("psp-1000")


def run_program(machine, words, regs=None, max_instructions=10_000):
    """Load `words` + a final `syscall` at BASE, set regs {index: value}, run to the end.
    Returns the last Event."""
    machine.cpu.regs[:32] = 0
    machine.cpu.regs[32:34] = 0
    for index, value in (regs or {}).items():
        machine.cpu.regs[index] = value & 0xFFFFFFFF
    machine.load_raw(BASE, code_bytes(list(words) + [done(), 0]), entry=BASE)
    return machine.step(max_instructions)
