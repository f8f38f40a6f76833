"""Run the same machine code on Unicorn (MIPS32 little-endian) and on allegrex, and
return both final states for comparison."""

import struct

import numpy as np
import unicorn
from unicorn import mips_const as M

from allegrex.cpu.asm import code_bytes, enc
from allegrex.cpu.state import HI, LO
from allegrex.machine import Machine
from tests.cpu.program import BASE, SYSCALL_DONE

DATA = 0x08900000  # data area both sides see at the same address
DATA_SIZE = 1024
FDATA = DATA + DATA_SIZE  # floats for the FPU tests
UC_GPR = [getattr(M, f"UC_MIPS_REG_{i}") for i in range(32)]
UC_FPR = [getattr(M, f"UC_MIPS_REG_F{i}") for i in range(32)]


def run_unicorn(words, regs, data, fprs=None):
    uc = unicorn.Uc(unicorn.UC_ARCH_MIPS, unicorn.UC_MODE_MIPS32 | unicorn.UC_MODE_LITTLE_ENDIAN)
    uc.mem_map(0x08800000, 0x200000)
    uc.mem_write(BASE, code_bytes(words))
    uc.mem_write(DATA, bytes(data))
    for i in range(1, 32):
        uc.reg_write(UC_GPR[i], regs[i])
    uc.reg_write(M.UC_MIPS_REG_HI, regs[32])
    uc.reg_write(M.UC_MIPS_REG_LO, regs[33])
    if fprs is not None:
        for i, bits in enumerate(fprs):
            uc.reg_write(UC_FPR[i], bits)
    uc.emu_start(BASE, BASE + 4 * len(words), count=100_000)
    out = [0] + [uc.reg_read(UC_GPR[i]) & 0xFFFFFFFF for i in range(1, 32)]
    out += [uc.reg_read(M.UC_MIPS_REG_HI) & 0xFFFFFFFF, uc.reg_read(M.UC_MIPS_REG_LO) & 0xFFFFFFFF]
    fout = [uc.reg_read(UC_FPR[i]) & 0xFFFFFFFF for i in range(32)] if fprs is not None else None
    return out, bytes(uc.mem_read(DATA, DATA_SIZE)), fout


_machine = None


def run_allegrex(words, regs, data, fprs=None):
    global _machine
    if _machine is None:
        _machine = Machine("psp-1000")
    m = _machine
    m.cpu.regs[:34] = np.array(regs[:34], dtype=np.uint32)
    m.cpu.regs[0] = 0
    if fprs is not None:
        m.cpu.fpr_bits[:] = np.array(fprs, dtype=np.uint32)
    m.load_raw(BASE, code_bytes(list(words) + [enc("syscall", code=SYSCALL_DONE), 0]), entry=BASE)
    m.memory.write(DATA, bytes(data))
    ev = m.step(100_000)
    assert ev.kind == "syscall" and ev.code == SYSCALL_DONE, f"allegrex stopped with {ev}"
    out = [int(v) for v in m.cpu.regs[:32]] + [int(m.cpu.regs[HI]), int(m.cpu.regs[LO])]
    fout = [int(v) for v in m.cpu.fpr_bits] if fprs is not None else None
    return out, m.memory.read(DATA, DATA_SIZE), fout
