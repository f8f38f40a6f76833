"""Block transfers (TRANSFERSTART, sceGuCopyImage): a width x height rectangle of 16- or
32-bit pixels from TRANSFERSRC at (x, y) to TRANSFERDST, each with its stride.

Rows are copied top to bottom, each in 64-byte chunks left to right (the order decides
what an overlapping copy leaves, as pspautotests gpu/transfer/overlap records). A stride
keeps bits 3-10 and counts as 0 above 1024 pixels. Addresses that run past the VRAM
window (0x04800000) wrap to its start, as the GE does; bytes outside memory are skipped
(regs[R_WARN] notes it).
"""

import numpy as np
from numba import njit

from allegrex.ge import cost
from allegrex.ge.state import R_CYCLES, R_LISTADDR, R_WARN, R_WARN_ADDR, R_WARN_PC
from allegrex.memory import translate
from allegrex.ge.regs import (TRANSFERSRC, TRANSFERSRCW, TRANSFERDST, TRANSFERDSTW, TRANSFERSRCPOS,
                             TRANSFERDSTPOS, TRANSFERSIZE)

WARN_TRANSFER = 2  # regs[R_WARN]: a block transfer touched memory outside every region
CHUNK = 64


@njit(cache=True, error_model="numpy")
def _stride(word):
    s = word & 0x7F8
    return 0 if s > 0x400 else s


@njit(cache=True, error_model="numpy")
def _address(lo, hi):
    return (lo & 0xFFFFF0) | ((hi & 0xFF0000) << 8)


@njit(cache=True, error_model="numpy")
def _wrap(addr):
    """GE addresses past the VRAM window wrap to its start."""
    addr &= 0xFFFFFFFF
    if (addr & 0x04800000) == 0x04800000:
        addr &= ~0x00800000
    return addr


@njit(cache=True, error_model="numpy")
def block_transfer(mem, ram_size, mapping, regs, cmds, bpp32):
    bpp = 4 if bpp32 else 2
    src_base = _address(cmds[TRANSFERSRC], cmds[TRANSFERSRCW])
    dst_base = _address(cmds[TRANSFERDST], cmds[TRANSFERDSTW])
    src_stride, dst_stride = _stride(cmds[TRANSFERSRCW]), _stride(cmds[TRANSFERDSTW])
    sx, sy = cmds[TRANSFERSRCPOS] & 0x3FF, (cmds[TRANSFERSRCPOS] >> 10) & 0x3FF
    dx, dy = cmds[TRANSFERDSTPOS] & 0x3FF, (cmds[TRANSFERDSTPOS] >> 10) & 0x3FF
    width, height = (cmds[TRANSFERSIZE] & 0x3FF) + 1, ((cmds[TRANSFERSIZE] >> 10) & 0x3FF) + 1
    row_bytes = width * bpp
    regs[R_CYCLES] += row_bytes * height * cost.TRANSFER_CYCLES_PER_16_BYTES // 16
    chunk = np.zeros(CHUNK, dtype=np.uint8)
    valid = np.zeros(CHUNK, dtype=np.bool_)
    for y in range(height):
        src_row = _wrap(src_base + ((y + sy) * src_stride + sx) * bpp)
        dst_row = _wrap(dst_base + ((y + dy) * dst_stride + dx) * bpp)
        for start in range(0, row_bytes, CHUNK):
            n = min(CHUNK, row_bytes - start)
            for i in range(n):  # read the whole chunk first: a chunk moves like memmove
                off = translate(_wrap(src_row + start + i), 1, ram_size, mapping)
                valid[i] = off >= 0
                if off < 0:
                    _warn(regs, src_row + start + i)
                else:
                    chunk[i] = mem[off]
            for i in range(n):
                off = translate(_wrap(dst_row + start + i), 1, ram_size, mapping)
                if off < 0:
                    _warn(regs, dst_row + start + i)
                elif valid[i]:
                    mem[off] = chunk[i]


@njit(cache=True, error_model="numpy")
def _warn(regs, addr):
    if regs[R_WARN] == 0:
        regs[R_WARN] = WARN_TRANSFER
        regs[R_WARN_PC] = regs[R_LISTADDR] - 4
        regs[R_WARN_ADDR] = addr
