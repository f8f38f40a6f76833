"""The seam between the run loop and the VFPU.

Every word of the VFPU opcode space (COP2 except the bvf/bvt branches, opcodes 0x18,
0x19, 0x1B, 0x34, 0x37, 0x3C, 0x3F and the VFPU loads/stores 0x32, 0x35, 0x36, 0x3A,
0x3D, 0x3E) is handed to `execute`. It returns 0 when the instruction completed (the
run loop then advances PC as for any non-branch instruction), or an event code
(allegrex.cpu.events.EV_*) after filling event[1] (value) and event[3] (extra).

The body forwards to vfpu.exec.execute_with (decoded through vfpu/table.py). Both are
inlined into the run loop, so loads, stores and the common operations without prefixes
run there without a call, and no separately cached copy can hold stale VFPU code: vfpu/
refreshes its own kernels' cache, and the run loop's cache watches vfpu/ too.
"""

from numba import njit

from vfpu.exec import execute_with as vfpu_execute


@njit(cache=True, inline="always")
def execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch, terms):
    """scratch, terms: vfpu.exec.new_scratch(), kept by the machine so no VFPU op allocates."""
    return vfpu_execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch,
                        terms)
