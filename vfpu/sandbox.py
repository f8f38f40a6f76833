"""A VFPU on its own: CPU state + guest memory + the interpreter, driven from Python one
instruction at a time (tests, the teaching lab, quick experiments). Programs with
branches and plain MIPS code run through allegrex.machine.Machine instead."""

import numpy as np

from allegrex.cpu.events import EVENT_FIELDS, FAULT_NAMES
from allegrex.cpu.state import CpuState
from allegrex.errors import AllegrexError
from allegrex.memory import USER_START, Memory
from vfpu import regs
from vfpu.asm import assemble
from vfpu.exec import EV_OK, execute


class VfpuFault(AllegrexError):
    """A VFPU instruction stopped with an event (bad address, unknown word...)."""

    def __init__(self, text: str, kind: int, detail: int):
        self.kind, self.detail = kind, detail  # FAULT_* and the address (or word)
        super().__init__(f"{text}: {FAULT_NAMES.get(kind, kind)} (0x{detail & 0xFFFFFFFF:08x})")


class Sandbox:
    def __init__(self, model: str = "psp-2000"):
        self.state = CpuState()
        self.memory = Memory(model)
        self.event = np.zeros(EVENT_FIELDS, dtype=np.int64)
        self.data = USER_START  # a free spot in user RAM for test data

    def execute_word(self, word: int, text: str = "") -> None:
        s, m = self.state, self.memory
        code = execute(word, 0, s.regs, s.vpr, s.vpr_bits, s.vctrl, m.mem, m.mem32, m.memf32,
                       m.ram_size, m.mapping, self.event)
        if code != EV_OK:
            raise VfpuFault(text or f"0x{word:08x}", int(self.event[3]), int(self.event[1]))

    def run(self, source: str) -> None:
        """Assemble and execute VFPU instructions separated by newlines or ';'."""
        for line in source.replace(";", "\n").splitlines():
            line = line.split("#")[0].strip()
            if line:
                self.execute_word(assemble(line), line)

    def write(self, name: str, values, size=None) -> None:
        """Store float values into register `name` (size from len(values) unless given)."""
        values = np.asarray(values, dtype=np.float32).ravel()
        kind = size or (len(values) if name[0].upper() in "SCR" else f"m{int(len(values) ** 0.5)}")
        for cell, v in zip(regs.cells(regs.parse(name, kind), kind), values):
            self.state.vpr[cell] = v

    def write_bits(self, name: str, values, size=None) -> None:
        values = np.asarray(values, dtype=np.uint32).ravel()
        kind = size or len(values)
        for cell, v in zip(regs.cells(regs.parse(name, kind), kind), values):
            self.state.vpr_bits[cell] = v

    def read(self, name: str, size) -> np.ndarray:
        """Values of register `name` read with `size` (1-4, 's'/'p'/'t'/'q', 'm2'..'m4')."""
        return self.state.vpr[regs.cells(regs.parse(name, size), size)].copy()

    def read_bits(self, name: str, size) -> np.ndarray:
        return self.state.vpr_bits[regs.cells(regs.parse(name, size), size)].copy()
