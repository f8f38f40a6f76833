"""Direct offsets for the GE's hot loops: a byte range that lies whole in main RAM or in
VRAM's plain view (0x04000000-0x041FFFFF) maps to one stretch of the backing array, so
a texture or a frame-buffer row in it is read and written at offsets computed once,
without `memory.translate` per access. Anything else (scratchpad, the VRAM mirrors,
ranges crossing a region's end) returns -1 and the caller translates as before.
"""

from numba import njit

from allegrex.memory import ram_or_vram_offset


@njit(cache=True, inline="always")
def plain_offset(addr, nbytes, ram_size):
    """Offset in the backing array of the `nbytes` at GE address `addr` (below
    0x10000000, as the GE's 28-bit addresses are) when all of them are in RAM or in
    VRAM's plain view; -1 otherwise. Where it is not -1, `translate` of any aligned
    access inside the range gives the same offset (both read memory.ram_or_vram_offset)."""
    return ram_or_vram_offset(addr, nbytes, ram_size)
