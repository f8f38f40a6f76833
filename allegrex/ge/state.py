"""The GE's state: command registers, matrices, CLUT and the list processor's registers.

Layout (the shared GE interface, docs/ge.md):
- `cmds` uint32[256]: cmds[op] is the last word written for command op (op << 24 | arg).
  Every drawing function reads the GE state from it.
- `mtx` float32[148]: matrices uploaded by the *MATRIXDATA commands, in upload order
  (4x3 matrices column by column): bones 8 x 12, world, view, projection (16), texgen.
  A value is the float whose top 24 bits are the command's argument.
- `clut` uint8[1024]: the on-chip CLUT that LOADCLUT fills.
- `regs` int64[NREGS]: the hardware registers the firmware sees (list address, stall
  address, call return addresses, offset registers, execution and interrupt flags) plus
  the processor's bookkeeping (GE cycles spent, commands run, the error it stopped on).
"""

import numpy as np

# --- matrix slices in mtx ---
BONES, BONE_SIZE = 0, 12
WORLD = 96
VIEW = 108
PROJ = 120
TGEN = 136
MTX_SIZE = 148
MATRIX_SLICES = {"bones": slice(BONES, WORLD), "world": slice(WORLD, VIEW), "view": slice(VIEW, PROJ),
                 "proj": slice(PROJ, TGEN), "tgen": slice(TGEN, MTX_SIZE)}
# sceGeGetMtx ids 0-7 bones, 8 world, 9 view, 10 projection, 11 texgen -> (start, size)
MATRIX_BY_ID = [(BONES + BONE_SIZE * i, 12) for i in range(8)] + [(WORLD, 12), (VIEW, 12), (PROJ, 16), (TGEN, 12)]

# --- hardware registers (as the firmware's sceGeGetReg numbers them where it matters) ---
R_EXEC = 0  # bit 0 running, bit 1 bounding box said "inside", bits 8/9 call depth 1/2
R_LISTADDR = 1  # address of the next command
R_STALLADDR = 2  # the processor stops before fetching from here (0: no stall address)
R_RADR1 = 3  # return address of the first CALL level
R_RADR2 = 4  # ... of the second
R_VADR = 5  # vertex address (advanced by drawing)
R_IADR = 6  # index address
R_OADR = 7  # offset added to relative addresses
R_OADR1 = 8  # OADR saved by the first CALL level
R_OADR2 = 9  # ... by the second
R_INTR = 10  # raised interrupt flags (INT_*)
R_CYCLES = 11  # GE cycles spent by the current run (cost model)
R_COMMANDS = 12  # commands executed by the current run
R_ERROR = 13  # why the processor stopped with EV_ERROR (ERR_*)
R_ERROR_PC = 14  # address of the command that failed
R_ERROR_ADDR = 15  # the bad address it used
R_PIXELS = 16  # pixels written by the current run (statistics, cost model)
R_VERTICES = 17  # vertices processed by the current run
R_PRIM_LAST = 18  # primitive type of the last PRIM or VAP (type 7 continues it)
R_KEEP_COUNT = 19  # vertices of an unfinished primitive kept in `keep` for a continuation
R_IMM_FLAGS = 20  # flags of the VAP that started the current immediate primitive
R_WARN = 21  # first problem the processor worked around in this run (draw.WARN_*)
R_WARN_PC = 22  # ... the command's address
R_WARN_ADDR = 23  # ... the bad address
NREGS = 32

EXEC_RUNNING = 1
EXEC_BBOX_INSIDE = 2
EXEC_DEPTH1 = 0x100
EXEC_DEPTH2 = 0x200

INT_SIGNAL = 1
INT_END = 2
INT_FINISH = 4
INT_ERROR = 8

ADDR_MASK = 0x0FFFFFFF  # the GE sees 28-bit physical addresses (cached/uncached views alike)

KEEP_SLOTS = 4  # screen vertices of an unfinished primitive (a strip needs 3)
KEEP_LAST = 4  # keep's last row: the texture coordinates and normal of the last vertex that had them


class GeState:
    """The GE device's arrays; one per machine."""

    def __init__(self):
        self.cmds = np.zeros(256, dtype=np.uint32)
        self.mtx = np.zeros(MTX_SIZE, dtype=np.float32)
        self.clut = np.zeros(1024, dtype=np.uint8)
        self.regs = np.zeros(NREGS, dtype=np.int64)
        from allegrex.ge.geometry import S_SIZE
        self.keep = np.zeros((KEEP_SLOTS + 1, S_SIZE), dtype=np.float64)  # PRIM type 7, VAP, KEEP_LAST

    def matrix_words(self, start: int, size: int) -> list[int]:
        """The 24-bit arguments the matrix values were uploaded with."""
        return [int(v) >> 8 for v in self.mtx[start:start + size].view(np.uint32)]

    def reset_registers(self) -> None:
        self.regs[:] = 0
