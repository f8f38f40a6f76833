"""CPU state as flat numpy arrays, shared by the numba interpreter, the VFPU, the HLE
(thread contexts are copies of these arrays) and the tools that show registers.

`regs` (uint32) holds the GPRs and the scalar control state at fixed indices, so one
array carries a thread's integer context. Floating-point registers are float32 arrays
with uint32 views of the same memory, so bit patterns (NaN payloads, -0) survive.
"""

import numpy as np

# regs[] indices past the 32 GPRs
HI = 32
LO = 33
PC = 34  # address of the next instruction to execute
NPC = 35  # address of the one after it (differs from PC+4 inside a branch delay slot)
LLBIT = 36  # set by ll, cleared by an intervening store or exception return; read by sc
FCR31 = 37  # FPU control/status: condition bit 23, rounding mode bits 0-1, flags
FCR0 = 38  # FPU implementation/revision register (read-only to the guest)
IC = 39  # Allegrex interrupt-enable state seen by mfic/mtic
NREGS = 40

# VFPU: vpr[m*16 + c*4 + r] is the single S<m><c><r> (matrix m, column c, row r).
NVPR = 128
# vctrl[] indices 0-15 are the hardware control registers 128-143 (mfvc/mtvc numbering).
VFPU_SPFX, VFPU_TPFX, VFPU_DPFX, VFPU_CC, VFPU_INF4, VFPU_RSV5, VFPU_RSV6, VFPU_REV = range(8)
VFPU_RCX0 = 8  # RCX0..RCX7: the pseudo-random generator's state
# 16-18: whether a vpfxs / vpfxt / vpfxd prefix is pending for the next instruction.
VFPU_PFX_S_PENDING, VFPU_PFX_T_PENDING, VFPU_PFX_D_PENDING = 16, 17, 18
NVCTRL = 32

# counters[] (int64): simulated time and what the timing model counts.
CYCLES = 0
INSTRUCTIONS = 1
NCOUNTERS = 64  # the rest are owned by allegrex.timing

GPR_NAMES = (
    "zero", "at", "v0", "v1", "a0", "a1", "a2", "a3",
    "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7",
    "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7",
    "t8", "t9", "k0", "k1", "gp", "sp", "fp", "ra",
)
# GPR indices by name (regs[V0], regs[SP]...), in GPR_NAMES order
(ZERO, AT, V0, V1, A0, A1, A2, A3, T0, T1, T2, T3, T4, T5, T6, T7,
 S0, S1, S2, S3, S4, S5, S6, S7, T8, T9, K0, K1, GP, SP, FP, RA) = range(32)


class CpuState:
    """One hardware thread's registers plus the machine-wide counters."""

    def __init__(self):
        self.regs = np.zeros(NREGS, dtype=np.uint32)
        self.fpr = np.zeros(32, dtype=np.float32)
        self.fpr_bits = self.fpr.view(np.uint32)
        self.vpr = np.zeros(NVPR, dtype=np.float32)
        self.vpr_bits = self.vpr.view(np.uint32)
        self.vctrl = np.zeros(NVCTRL, dtype=np.uint32)
        self.counters = np.zeros(NCOUNTERS, dtype=np.int64)
        self.reset_control()

    def reset_control(self):
        self.regs[FCR0] = 0x00003351  # the Allegrex FPU's implementation/revision id (pspautotests fcr.expected)
        self.regs[FCR31] = 0x00000E00  # what a PSP user thread starts with (pspautotests fcr.expected)
        self.vctrl[:] = 0
        self.vctrl[VFPU_SPFX] = 0x000000E4  # identity swizzle x,y,z,w
        self.vctrl[VFPU_TPFX] = 0x000000E4
        self.vctrl[VFPU_DPFX] = 0  # no saturation, no mask
        self.vctrl[VFPU_CC] = 0x3F
        self.vctrl[VFPU_REV] = 0x7772CEAB  # read-only revision id seen on hardware
        # Pseudo-random generator state after reset: 1.0 with low bits 1, 2, 4, 8, then 1.0.
        self.vctrl[VFPU_RCX0:VFPU_RCX0 + 8] = (0x3F800001, 0x3F800002, 0x3F800004, 0x3F800008,
                                               0x3F800000, 0x3F800000, 0x3F800000, 0x3F800000)

    @property
    def pc(self) -> int:
        return int(self.regs[PC])

    def jump(self, addr: int) -> None:
        """Continue execution at `addr` (outside any delay slot)."""
        self.regs[PC] = addr & 0xFFFFFFFF
        self.regs[NPC] = (addr + 4) & 0xFFFFFFFF

    def save_context(self) -> tuple:
        """A copy of everything a thread switch must preserve (not the counters)."""
        return (self.regs.copy(), self.fpr_bits.copy(), self.vpr_bits.copy(), self.vctrl.copy())

    def load_context(self, context: tuple) -> None:
        regs, fpr_bits, vpr_bits, vctrl = context
        self.regs[:] = regs
        self.fpr_bits[:] = fpr_bits
        self.vpr_bits[:] = vpr_bits
        self.vctrl[:] = vctrl
