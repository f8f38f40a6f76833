"""The guest address map over one numpy byte array.

Layout of the backing array `mem` (uint8), in this order:
    [ main RAM (ram_size) ][ VRAM (2 MiB) ][ scratchpad (16 KiB) ]
Views of the same buffer (`mem.view(np.uint32)` and friends) give the numba
interpreter aligned word access. Every guest address goes through `translate`,
which returns an offset into `mem` or -1; nothing indexes the array otherwise.

What the CPU sees (physical address = the low 29 bits):
- segments, by the top three address bits: 0x00000000 and 0x40000000 (uncached) in any
  mode; 0x80000000 (kseg0), 0xA0000000 (kseg1, uncached) and 0xC0000000 (the uncached
  kernel view PPSSPP maps) in kernel mode only; 0x20000000, 0x60000000 and 0xE0000000
  map nothing. A user-mode access to a kernel segment faults, as on the PSP.
- scratchpad 0x00010000-0x00013FFF; RAM from 0x08000000 (32 or 64 MiB). The kernel
  partition 0x08000000-0x087FFFFF stays reachable in user mode (on a PSP the firmware's
  memory protection closes it): the HLE kernel keeps its return trampolines, interrupt
  stack and scratch words there and runs them as user code.
- VRAM 0x04000000-0x041FFFFF and three mirrors up to 0x047FFFFF. Mirror 2 (0x04400000)
  is plain; mirrors 1 and 3 (0x04200000, 0x04600000) show the 2 MiB in the EDRAM's
  depth-swizzled orders, which depend on the GE's address translation value (0x400 at
  boot; sceGeEdramSetAddrTranslation: 0, 0x200, 0x400, 0x800, 0x1000): pspautotests
  gpu/ge/edramswizzle.cpp states each order, and real hardware matched it.

`mapping` (an int: `mapping(kernel_mode, edram_translation)`) carries the mode and the
translation value, so the run loop, compiled regions and Memory check alike. The GE
translates its (physical) addresses with the machine's `mapping` too: it sees the mirrors
in the translation current when it runs (pspautotests gpu/transfer/mirrors).
"""

import numpy as np
from numba import njit

from allegrex.errors import GuestMemoryError

SCRATCH_START = 0x00010000
SCRATCH_SIZE = 16 * 1024
VRAM_START = 0x04000000
VRAM_SIZE = 2 * 1024 * 1024
VRAM_SPAN = 4 * VRAM_SIZE  # VRAM and its three mirrors
RAM_START = 0x08000000
USER_START = 0x08800000  # user partition; below it the kernel's 8 MiB

# RAM per model, in bytes. psp-2000/3000 have 64 MiB; user space gets the upper part
# only in large-memory mode (see hle/sysmem), but the whole array always exists.
RAM_SIZE = {"psp-1000": 32 * 1024 * 1024, "psp-2000": 64 * 1024 * 1024, "psp-3000": 64 * 1024 * 1024}

PHYS_MASK = 0x1FFFFFFF
PRIVILEGED_BITS = 0xA0000000  # either set: a kernel segment, or a segment that maps nothing
KERNEL_START, KERNEL_END = 0x80000000, 0xE0000000  # kseg0, kseg1 (uncached), 0xC0000000 (uncached)
# `mapping`: bit 0 kernel mode; bits 16 and up: the EDRAM address translation's index in
# EDRAM_TRANSLATIONS.
KERNEL_MODE = 1
EDRAM_SHIFT = 16
EDRAM_FIELD = 7
EDRAM_TRANSLATIONS = (0, 0x200, 0x400, 0x800, 0x1000)
EDRAM_TRANSLATION_AT_BOOT = 0x400  # pspautotests gpu/ge/edram.expected: SetAddrTranslation(0) returns 0x400


def mapping(kernel_mode: bool = False, edram_translation: int = EDRAM_TRANSLATION_AT_BOOT) -> int:
    """The `mapping` argument of translate: reachable segments and the VRAM mirrors' order."""
    if edram_translation not in EDRAM_TRANSLATIONS:
        raise ValueError(f"EDRAM address translation must be one of {EDRAM_TRANSLATIONS}")
    return (KERNEL_MODE if kernel_mode else 0) | (EDRAM_TRANSLATIONS.index(edram_translation) << EDRAM_SHIFT)


USER_MAPPING = mapping()


def _mirror_blocks():
    """[translation index * 2 + (mirror 3), block]: the VRAM block a 32-byte block of a
    64 KiB stretch of mirror 1 or 3 shows. The orders of pspautotests gpu/ge/edramswizzle
    (vram byte i appears at mirror offset f(i); hardware matched them), inverted."""
    table = np.zeros((2 * len(EDRAM_TRANSLATIONS), 2048), dtype=np.int16)
    for k, t in enumerate(EDRAM_TRANSLATIONS):
        for i in range(0, 0x10000, 32):
            m1 = i ^ (0x600 if t == 0 else (t << 3) | 0x40)
            if t == 0:
                m3 = i ^ 0x600 if (i & 0x600) in (0, 0x600) else i
            else:
                shift = t.bit_length() - 7  # 0x200 -> 3 ... 0x1000 -> 6
                m3 = (((i ^ (t << 3)) & ~(t - 0x20)) | ((i & (t - 0x80)) >> 1) | ((~i & 0x40) >> 1)
                      | ((i & 0x20) << shift))
            table[2 * k, m1 >> 5] = i >> 5
            table[2 * k + 1, m3 >> 5] = i >> 5
    return table


MIRROR_BLOCKS = _mirror_blocks()


@njit(cache=True)  # a call: only mirror accesses pay for the block table
def vram_mirror(off, ram_size, mapping):
    """Offset of VRAM offset `off` (2 MiB and up, from 0x04000000) in the backing array,
    or -1 past the mirrors; mirror 2 is plain, 1 and 3 reorder 32-byte blocks."""
    if off >= VRAM_SPAN:
        return -1
    if off & VRAM_SIZE:
        row = 2 * ((mapping >> EDRAM_SHIFT) & EDRAM_FIELD) + ((off >> 22) & 1)
        off = (off & ~0xFFE0) | (np.int64(MIRROR_BLOCKS[row, (off >> 5) & 0x7FF]) << 5)
    return ram_size + (off & (VRAM_SIZE - 1))


@njit(cache=True, inline="always")
def physical(phys, size, ram_size, mapping):
    """Offset of `size` bytes at physical address `phys` (below 0x20000000), or -1."""
    if phys >= RAM_START:
        off = phys - RAM_START
        if off + size <= ram_size:
            return off
        return -1
    if phys >= VRAM_START:
        off = phys - VRAM_START
        if off < VRAM_SIZE:
            return ram_size + off
        return vram_mirror(off, ram_size, mapping)
    if phys >= SCRATCH_START and phys + size <= SCRATCH_START + SCRATCH_SIZE:
        return ram_size + VRAM_SIZE + phys - SCRATCH_START
    return -1


@njit(cache=True)  # a call: the user-mode path inlined into the run loop stays as small as it was
def kernel_segment(addr, size, ram_size, mapping):
    """translate for an address with PRIVILEGED_BITS set: kernel mode's segments, or -1."""
    if (mapping & KERNEL_MODE) == 0 or not KERNEL_START <= addr < KERNEL_END:
        return -1
    return physical(addr & PHYS_MASK, size, ram_size, mapping)


@njit(cache=True)  # a call: every address but the common ones in translate
def translate_other(addr, size, ram_size, mapping):
    """translate for any address: alignment, the segment `mapping` reaches, then the region."""
    if addr & (size - 1):
        return -1
    if addr & PRIVILEGED_BITS:
        return kernel_segment(addr, size, ram_size, mapping)
    return physical(addr & PHYS_MASK, size, ram_size, mapping)


@njit(cache=True, inline="always")
def ram_or_vram_offset(addr, size, ram_size):
    """Offset of the `size` bytes at `addr` when all of them lie in main RAM or in VRAM's
    plain view as the 0x00000000 segment shows them (reachable in every mode), else -1;
    alignment is not checked. Two range tests: translate's inlined part, and the GE's
    offsets of whole rows and textures (ge/direct.py)."""
    off = addr - RAM_START
    if 0 <= off <= ram_size - size:
        return off
    off = addr - VRAM_START
    if 0 <= off <= VRAM_SIZE - size:
        return ram_size + off
    return -1


@njit(cache=True, inline="always")
def translate(addr, size, ram_size, mapping):
    """Offset into the backing array of `size` bytes at guest `addr`, or -1 when the
    access is misaligned (size must be a power of two), in a segment `mapping` does not
    reach, or outside every region.

    Inlined into every load and store: only aligned accesses to main RAM and VRAM through
    the 0x00000000 segment are answered here (ram_or_vram_offset); the rest is a call.
    A larger inlined body slowed the run loop and compiled regions."""
    addr = addr & 0xFFFFFFFF
    if (addr & (size - 1)) == 0:
        off = ram_or_vram_offset(addr, size, ram_size)
        if off >= 0:
            return off
    return translate_other(addr, np.int64(size), ram_size, mapping)  # one compile, not one per literal size


_plain_offset = ram_or_vram_offset.py_func  # its range tests as Python: Memory's accessors answer the common case


class Memory:
    """The guest memory of one machine, with checked accessors for Python code (HLE,
    loader, tests). The numba interpreter uses `mem`, its views and `translate`."""

    def __init__(self, model: str = "psp-2000"):
        if model not in RAM_SIZE:
            raise ValueError(f"unknown PSP model {model!r}; choose one of {', '.join(RAM_SIZE)}")
        self.model = model
        self.ram_size = RAM_SIZE[model]
        self.kernel_mode = False  # user mode: the kernel segments (0x80000000 and up) fault
        self.edram_translation = EDRAM_TRANSLATION_AT_BOOT
        self.mapping = USER_MAPPING  # translate's `mapping`, from the two above
        self.mapping_changed = None  # a Machine's hook, called after `mapping` changes (its run loop takes it)
        self.mem = np.zeros(self.ram_size + VRAM_SIZE + SCRATCH_SIZE, dtype=np.uint8)
        self.mem16 = self.mem.view(np.uint16)
        self.mem32 = self.mem.view(np.uint32)
        self.memf32 = self.mem.view(np.float32)

    def set_kernel_mode(self, on: bool) -> None:
        """Let the code (and these accessors) reach the kernel segments, or not."""
        self.kernel_mode = bool(on)
        self.mapping = mapping(self.kernel_mode, self.edram_translation)
        if self.mapping_changed is not None:
            self.mapping_changed()

    def set_edram_translation(self, value: int) -> None:
        """The GE's EDRAM address translation (sceGeEdramSetAddrTranslation): how VRAM
        mirrors 1 and 3 are ordered. ValueError for a value the hardware refuses."""
        self.mapping = mapping(self.kernel_mode, value)
        self.edram_translation = value
        if self.mapping_changed is not None:
            self.mapping_changed()

    def offset(self, addr: int, size: int, what: str = "access") -> int:
        """Offset of an aligned access of 1, 2, 4, 8 or 16 bytes; raises GuestMemoryError."""
        if not addr & (size - 1):  # translate's own first test, in Python (a numba call costs ~0.4 us)
            off = _plain_offset(addr, size, self.ram_size)
            if off >= 0:
                return off
        off = translate(addr, size, self.ram_size, self.mapping)
        if off < 0:
            raise GuestMemoryError(addr, size, what)
        return off

    def span(self, addr: int, length: int, what: str = "access") -> int:
        """Offset of `length` contiguous bytes at `addr` (any alignment), checked at both
        ends and required to stay inside one region."""
        if length <= 0:
            return self.offset(addr, 1, what) if length == 0 else self._fail(addr, length, what)
        off = _plain_offset(addr, length, self.ram_size)  # all of it in RAM or plain VRAM: both ends agree
        if off >= 0:
            return off
        first = translate(addr, 1, self.ram_size, self.mapping)
        last = translate((addr + length - 1) & 0xFFFFFFFF, 1, self.ram_size, self.mapping)
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
