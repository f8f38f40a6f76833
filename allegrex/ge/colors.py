"""The PSP's pixel formats as scalar numba helpers: 16-bit 5650/5551/4444 <-> RGBA8888.

RGBA8888 words hold red in the low byte (the PSP's memory order). Expanding a 5- or
6-bit channel replicates its top bits into the low ones (0x1F -> 0xFF), as the GE does
for textures, CLUT entries and frame buffer reads; packing truncates (keeps the top bits).
Format codes are the PSP's: 0 = 5650, 1 = 5551, 2 = 4444, 3 = 8888 (textures, CLUTs and
frame buffers use the same numbers).
"""

from numba import njit

FMT_5650, FMT_5551, FMT_4444, FMT_8888 = 0, 1, 2, 3


@njit(cache=True, inline="always")
def expand5(c):
    return (c << 3) | (c >> 2)


@njit(cache=True, inline="always")
def expand6(c):
    return (c << 2) | (c >> 4)


@njit(cache=True)
def from5650(p):
    r = expand5(p & 0x1F)
    g = expand6((p >> 5) & 0x3F)
    b = expand5((p >> 11) & 0x1F)
    return 0xFF000000 | (b << 16) | (g << 8) | r


@njit(cache=True)
def from5551(p):
    r = expand5(p & 0x1F)
    g = expand5((p >> 5) & 0x1F)
    b = expand5((p >> 10) & 0x1F)
    a = 0xFF if p & 0x8000 else 0
    return (a << 24) | (b << 16) | (g << 8) | r


@njit(cache=True)
def from4444(p):
    r = (p & 0xF) * 17
    g = ((p >> 4) & 0xF) * 17
    b = ((p >> 8) & 0xF) * 17
    a = ((p >> 12) & 0xF) * 17
    return (a << 24) | (b << 16) | (g << 8) | r


@njit(cache=True)
def from16(fmt, p):
    """RGBA8888 of a 16-bit pixel in format 0, 1 or 2."""
    if fmt == FMT_5650:
        return from5650(p)
    if fmt == FMT_5551:
        return from5551(p)
    return from4444(p)


@njit(cache=True)
def to16(fmt, c):
    """The 16-bit pixel (format 0, 1 or 2) of an RGBA8888 colour, by truncation."""
    r = c & 0xFF
    g = (c >> 8) & 0xFF
    b = (c >> 16) & 0xFF
    a = (c >> 24) & 0xFF
    if fmt == FMT_5650:
        return (r >> 3) | ((g >> 2) << 5) | ((b >> 3) << 11)
    if fmt == FMT_5551:
        return (r >> 3) | ((g >> 3) << 5) | ((b >> 3) << 10) | ((a >> 7) << 15)
    return (r >> 4) | ((g >> 4) << 4) | ((b >> 4) << 8) | ((a >> 4) << 12)
