"""Tiny instruction encoder for the CPU tests: a row of the decode table plus fields.

Register arguments are names or numbers: enc("addiu", rt="v0", rs="zero", imm=5).
"""

import struct

from allegrex.cpu.decode import OP_INDEX, TABLE
from allegrex.cpu.state import GPR_NAMES

REG = {name: i for i, name in enumerate(GPR_NAMES)}
BASE = 0x08804000


def _r(v):
    return REG[v] if isinstance(v, str) else int(v)


def enc(name, rs=0, rt=0, rd=0, sa=0, imm=0, target=0, code=0, fs=0, ft=0, fd=0):
    row = TABLE[OP_INDEX[name]]
    word = row.match
    word |= (_r(rs) & 31) << 21 | (_r(rt) & 31) << 16 | (_r(rd) & 31) << 11 | (sa & 31) << 6
    word |= (ft & 31) << 16 | (fs & 31) << 11 | (fd & 31) << 6
    word |= imm & 0xFFFF
    word |= (target >> 2) & 0x03FFFFFF
    word |= (code & 0xFFFFF) << 6
    assert word & row.mask == row.match, f"fields overlap the opcode bits of {name}"
    return word


def code_bytes(words):
    return struct.pack(f"<{len(words)}I", *words)


SYSCALL_DONE = 0x7777  # syscall code the tests use to mean "program finished"


def done():
    return enc("syscall", code=SYSCALL_DONE)
