"""The guest address map over one numpy byte array.

Layout of the backing array `mem` (uint8), in this order:
    [ main RAM (ram_size) ][ VRAM (2 MiB) ][ scratchpad (16 KiB) ]
Views of the same buffer (`mem.view(np.uint32)` and friends) give the numba
interpreter aligned word access. Every guest address goes through `translate`,
which returns an offset into `mem` or -1; nothing indexes the array otherwise.

Guest views: bit 30 (0x40000000) selects the uncached view and bit 31 the kernel
view of the same physical memory, so they are masked off; bit 29 set is unmapped.
"""

import numpy as np
from numba import njit

from allegrex.errors import GuestMemoryError

SCRATCH_START = 0x00010000
SCRATCH_SIZE = 16 * 1024
VRAM_START = 0x04000000
VRAM_SIZE = 2 * 1024 * 1024
RAM_START = 0x08000000
USER_START = 0x08800000  # user partition; below it the kernel's 8 MiB

# RAM per model, in bytes. psp-2000/3000 have 64 MiB; user space gets the upper part
# only in large-memory mode (see hle/sysmem), but the whole array always exists.
RAM_SIZE = {"psp-1000": 32 * 1024 * 1024, "psp-2000": 64 * 1024 * 1024, "psp-3000": 64 * 1024 * 1024}

PHYS_MASK = 0x1FFFFFFF
UNMAPPED_VIEW_BIT = 0x20000000


@njit(cache=True, inline="always")
def translate(addr, size, ram_size):
    """Offset into the backing array of `size` bytes at guest `addr`, or -1 when the
    access is misaligned (size must be a power of two) or outside every region."""
    addr = addr & 0xFFFFFFFF
    if addr & (size - 1):
        return -1
    if addr & UNMAPPED_VIEW_BIT:
        return -1
    phys = addr & PHYS_MASK
    if phys >= RAM_START:
        off = phys - RAM_START
        if off + size <= ram_size:
            return off
        return -1
    if phys >= VRAM_START:
        off = phys - VRAM_START
        if off + size <= VRAM_SIZE:
            return ram_size + off
        return -1
    if phys >= SCRATCH_START and phys + size <= SCRATCH_START + SCRATCH_SIZE:
        return ram_size + VRAM_SIZE + phys - SCRATCH_START
    return -1


class Memory:
    """The guest memory of one machine, with checked accessors for Python code (HLE,
    loader, tests). The numba interpreter uses `mem`, its views and `translate`."""

    def __init__(self, model: str = "psp-2000"):
        if model not in RAM_SIZE:
            raise ValueError(f"unknown PSP model {model!r}; choose one of {', '.join(RAM_SIZE)}")
        self.model = model
        self.ram_size = RAM_SIZE[model]
        self.mem = np.zeros(self.ram_size + VRAM_SIZE + SCRATCH_SIZE, dtype=np.uint8)
        self.mem16 = self.mem.view(np.uint16)
        self.mem32 = self.mem.view(np.uint32)
        self.memf32 = self.mem.view(np.float32)

    def offset(self, addr: int, size: int, what: str = "access") -> int:
        """Offset of an aligned access of 1, 2, 4, 8 or 16 bytes; raises GuestMemoryError."""
        off = translate(addr, size, self.ram_size)
        if off < 0:
            raise GuestMemoryError(addr, size, what)
        return off

    def span(self, addr: int, length: int, what: str = "access") -> int:
        """Offset of `length` contiguous bytes at `addr` (any alignment), checked at both
        ends and required to stay inside one region."""
        if length <= 0:
            return self.offset(addr, 1, what) if length == 0 else self._fail(addr, length, what)
        first = translate(addr, 1, self.ram_size)
        last = translate((addr + length - 1) & 0xFFFFFFFF, 1, self.ram_size)
        if first < 0 or last < 0 or last - first != length - 1:
            self._fail(addr, length, what)
        return first

    @staticmethod
    def _fail(addr, length, what):
        raise GuestMemoryError(addr, length, what)

    def is_valid(self, addr: int, length: int = 1) -> bool:
        try:
            self.span(addr, length)
        except GuestMemoryError:
            return False
        return True

    # --- bytes ---
    def read(self, addr: int, length: int) -> bytes:
        off = self.span(addr, length, "read")
        return self.mem[off:off + length].tobytes()

    def write(self, addr: int, data: bytes) -> None:
        off = self.span(addr, len(data), "write")
        self.mem[off:off + len(data)] = np.frombuffer(bytes(data), dtype=np.uint8)

    def fill(self, addr: int, value: int, length: int) -> None:
        off = self.span(addr, length, "write")
        self.mem[off:off + length] = value & 0xFF

    def read_cstring(self, addr: int, limit: int = 4096) -> bytes:
        """A NUL-terminated string at `addr`, at most `limit` bytes (without the NUL)."""
        out = bytearray()
        for i in range(limit):
            b = self.mem[self.offset(addr + i, 1, "read")]
            if b == 0:
                return bytes(out)
            out.append(int(b))
        raise GuestMemoryError(addr, limit, "unterminated string read")

    # --- scalars (little-endian, naturally aligned) ---
    def read_u8(self, addr: int) -> int:
        return int(self.mem[self.offset(addr, 1, "read")])

    def read_u16(self, addr: int) -> int:
        return int(self.mem16[self.offset(addr, 2, "read") >> 1])

    def read_u32(self, addr: int) -> int:
        return int(self.mem32[self.offset(addr, 4, "read") >> 2])

    def read_s32(self, addr: int) -> int:
        value = self.read_u32(addr)
        return value - (1 << 32) if value & 0x80000000 else value

    def read_u64(self, addr: int) -> int:
        off = self.offset(addr, 8, "read")
        return int(self.mem32[off >> 2]) | (int(self.mem32[(off >> 2) + 1]) << 32)

    def read_f32(self, addr: int) -> float:
        return float(self.memf32[self.offset(addr, 4, "read") >> 2])

    def write_u8(self, addr: int, value: int) -> None:
        self.mem[self.offset(addr, 1, "write")] = value & 0xFF

    def write_u16(self, addr: int, value: int) -> None:
        self.mem16[self.offset(addr, 2, "write") >> 1] = value & 0xFFFF

    def write_u32(self, addr: int, value: int) -> None:
        self.mem32[self.offset(addr, 4, "write") >> 2] = value & 0xFFFFFFFF

    def write_u64(self, addr: int, value: int) -> None:
        off = self.offset(addr, 8, "write") >> 2
        self.mem32[off] = value & 0xFFFFFFFF
        self.mem32[off + 1] = (value >> 32) & 0xFFFFFFFF

    def write_f32(self, addr: int, value: float) -> None:
        self.memf32[self.offset(addr, 4, "write") >> 2] = value
