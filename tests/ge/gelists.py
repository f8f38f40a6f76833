"""Display lists built in Python for the GE tests: words from the command table's names."""

import struct

import numpy as np

from allegrex.ge.commands import OPS
from allegrex.ge.state import GeState, R_LISTADDR, R_STALLADDR
from allegrex.memory import Memory

LIST = 0x08980000  # clear of helpers.STUB_BASE (0x08900000), where bare-kernel tests put import stubs


def cmd(name: str, arg: int = 0) -> int:
    return (OPS[name] << 24) | (arg & 0xFFFFFF)


def f24(value: float) -> int:
    """The 24-bit argument that holds `value` (its float's top 24 bits)."""
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 8


def write_words(memory: Memory, addr: int, words) -> None:
    for i, word in enumerate(words):
        memory.write_u32(addr + 4 * i, word)


class Ge:
    """A GE state on its own memory, running lists with the numba processor."""

    def __init__(self):
        self.memory = Memory()
        self.state = GeState()
        self.trace = np.zeros(1, dtype=np.int64)

    @property
    def space(self) -> tuple:
        """The GE functions' first arguments: memory, RAM size, address mapping."""
        return self.memory.mem, self.memory.ram_size, self.memory.mapping

    def run(self, addr: int = LIST, stall: int = 0, budget: int = 100_000) -> int:
        from allegrex.ge import processor
        st = self.state
        st.regs[R_LISTADDR], st.regs[R_STALLADDR] = addr, stall
        return processor.run(*self.space, st.regs, st.cmds, st.mtx, st.clut, st.keep, budget, self.trace)

    def load(self, words, addr: int = LIST) -> None:
        write_words(self.memory, addr, words)
