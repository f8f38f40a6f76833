"""The seam between the run loop and the VFPU.

Every word of the VFPU opcode space (COP2 except the bvf/bvt branches, opcodes 0x18,
0x19, 0x1B, 0x34, 0x37, 0x3C, 0x3F and the VFPU loads/stores 0x32, 0x35, 0x36, 0x3A,
0x3D, 0x3E) is handed to `execute`. It returns 0 when the instruction completed (the
run loop then advances PC as for any non-branch instruction), or an event code
(allegrex.cpu.events.EV_*) after filling event[1] (value) and event[3] (extra).

Until the VFPU lands this body reports a clean "VFPU instruction not available" fault.
The VFPU implementation replaces the body (keep the signature; it is numba-compiled
into the run loop, whose cache is refreshed automatically when this file changes).
"""

from numba import njit

from allegrex.cpu.events import EV_FAULT, FAULT_VFPU_UNAVAILABLE


@njit(cache=True)
def execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, event):
    event[1] = word
    event[3] = FAULT_VFPU_UNAVAILABLE
    return EV_FAULT
