"""The guest address map: every view of each region in user and kernel mode, the VRAM
mirrors in the orders real hardware shows, and faults outside them."""

import pytest

from allegrex.errors import GuestMemoryError
from allegrex.memory import EDRAM_TRANSLATION_AT_BOOT, EDRAM_TRANSLATIONS, Memory, ram_or_vram_offset

RAM_VIEWS = {"cached": 0x08800000, "uncached": 0x48800000}
KERNEL_RAM_VIEWS = {"kseg0": 0x88800000, "kseg1": 0xA8800000, "uncached kernel": 0xC8800000}
SCRATCH_VIEWS = (0x00010000, 0x40010000)
KERNEL_SCRATCH_VIEWS = (0x80010000, 0xA0010000, 0xC0010000)


@pytest.fixture
def mem():
    return Memory("psp-2000")


@pytest.fixture
def kmem():
    m = Memory("psp-2000")
    m.set_kernel_mode(True)
    return m


def test_user_code_sees_ram_cached_and_uncached(mem):
    mem.write_u32(0x08800000, 0x12345678)
    assert all(mem.read_u32(a) == 0x12345678 for a in RAM_VIEWS.values())


@pytest.mark.parametrize("view", sorted(KERNEL_RAM_VIEWS))
def test_user_code_may_not_touch_the_kernel_segments(mem, view):
    """A store at 0x88000000 from user code faults on a PSP; so does every kernel view."""
    with pytest.raises(GuestMemoryError):
        mem.write_u32(KERNEL_RAM_VIEWS[view], 1)
    with pytest.raises(GuestMemoryError):
        mem.read_u32(KERNEL_RAM_VIEWS[view])


def test_kernel_code_sees_ram_through_every_view(kmem):
    kmem.write_u32(0xA8800000, 0xCAFEF00D)
    assert all(kmem.read_u32(a) == 0xCAFEF00D for a in list(RAM_VIEWS.values()) + list(KERNEL_RAM_VIEWS.values()))


def test_scratchpad_views(mem, kmem):
    mem.write_u32(0x00010010, 7)
    assert [mem.read_u32(a + 0x10) for a in SCRATCH_VIEWS] == [7, 7]
    assert not any(mem.is_valid(a) for a in KERNEL_SCRATCH_VIEWS)
    kmem.write_u32(0x00010010, 9)
    assert [kmem.read_u32(a + 0x10) for a in SCRATCH_VIEWS + KERNEL_SCRATCH_VIEWS] == [9] * 5


@pytest.mark.parametrize("segment", [0x20000000, 0x60000000, 0xE0000000])
def test_segments_that_map_nothing(mem, kmem, segment):
    for m in (mem, kmem):
        assert not m.is_valid(segment | 0x08800000) and not m.is_valid(segment | 0x04000000)


def test_regions_have_their_documented_bounds(mem):
    assert mem.is_valid(0x00010000, 16 * 1024)
    assert not mem.is_valid(0x00014000, 1)
    assert mem.is_valid(0x04000000, 2 * 1024 * 1024)
    assert mem.is_valid(0x04400000, 2 * 1024 * 1024)  # the plain mirror
    assert not mem.is_valid(0x04800000, 1)
    assert mem.is_valid(0x0BFFFFFC, 4)
    assert not mem.is_valid(0x0C000000, 1)
    assert not Memory("psp-1000").is_valid(0x0A000000, 1)


def test_vram_mirrors_homebrew_uses(mem):
    """Addresses real homebrew was seen using (issue 16): just past the first 2 MiB of
    VRAM and its uncached view; a PSP serves them from mirror 1."""
    mem.write_u32(0x04220000, 0x11223344)
    mem.write_u32(0x44200010, 0x55667788)
    assert mem.read_u32(0x44220000) == 0x11223344 and mem.read_u32(0x04200010) == 0x55667788


def _mirror1(i, t):
    """pspautotests gpu/ge/edramswizzle.cpp: vram[i] is mirror 1's byte at this offset."""
    return i ^ (0x0600 if t == 0 else (t << 3) | 0x40)


def _mirror3(i, t):
    """The same test's validatePattern* formulas for mirror 3 (matched on hardware)."""
    if t == 0:
        return i ^ 0x0600 if (i & 0x0600) in (0, 0x0600) else i
    shift = {0x200: 3, 0x400: 4, 0x800: 5, 0x1000: 6}[t]
    m = i ^ (t << 3)
    return (m & ~(t - 0x20)) | ((i & (t - 0x80)) >> 1) | ((~i & 0x0040) >> 1) | ((i & 0x0020) << shift)


@pytest.mark.parametrize("translation", EDRAM_TRANSLATIONS)
def test_vram_mirrors_follow_the_edram_address_translation(mem, translation):
    """Mirror 2 is plain; mirrors 1 and 3 show VRAM reordered in 32-byte blocks as
    edramswizzle.expected records for each sceGeEdramSetAddrTranslation value."""
    mem.set_edram_translation(translation)
    for i in list(range(0, 0x10000, 32)) + [0x1FFFE0, 0x123460]:
        mem.write_u32(0x04000000 + i, 0xA5000000 | i)
        assert mem.read_u32(0x04400000 + i) == 0xA5000000 | i
        assert mem.read_u32(0x04200000 + _mirror1(i, translation)) == 0xA5000000 | i
        assert mem.read_u32(0x04600000 + _mirror3(i, translation)) == 0xA5000000 | i
        assert mem.read_u32(0x44600000 + _mirror3(i, translation)) == 0xA5000000 | i


def test_edram_translation_starts_at_the_boot_value_and_refuses_others(mem):
    assert mem.edram_translation == EDRAM_TRANSLATION_AT_BOOT == 0x400  # gpu/ge/edram.expected
    with pytest.raises(ValueError):
        mem.set_edram_translation(0x100)
    assert mem.edram_translation == 0x400


def test_a_span_through_a_swizzled_mirror_must_stay_in_one_block(mem):
    assert mem.read(0x04200000, 32) == mem.read(0x04200000, 32)  # one 32-byte block: contiguous
    with pytest.raises(GuestMemoryError):
        mem.read(0x04200000, 64 * 1024)  # blocks move apart: not one run of bytes


@pytest.mark.parametrize("addr,size", [(0, 4), (0x08800001, 4), (0x08800002, 4), (0x28800000, 4), (0xFFFFFFFC, 4)])
def test_unmapped_or_misaligned_access_is_a_guest_error(mem, addr, size):
    with pytest.raises(GuestMemoryError):
        mem.offset(addr, size)


def test_a_span_may_not_cross_out_of_its_region(mem):
    with pytest.raises(GuestMemoryError):
        mem.read(0x0BFFFFFE, 4)


RAM_END = 0x08000000 + 64 * 1024 * 1024


@pytest.mark.parametrize("addr,size,whole", [
    (0x08000000, 4, True), (RAM_END - 16, 16, True), (RAM_END - 8, 16, False), (0x07FFFFFC, 8, False),
    (0x04000000, 64, True), (0x041FFFFC, 4, True), (0x041FFFFC, 8, False),  # the next byte is mirror 1's
    (0x04400000, 4, False), (0x00010000, 4, False)])  # the plain mirror and the scratchpad are not covered
def test_a_range_in_ram_or_plain_vram_has_one_offset_the_uncached_view_agrees_with(mem, addr, size, whole):
    """ram_or_vram_offset (translate's inlined tests, the GE's row and texture offsets):
    where it gives an offset, the same bytes read through the uncached view (which
    translates by the segment and region rules) are at that offset and the next ones."""
    off = ram_or_vram_offset(addr, size, mem.ram_size)
    if not whole:
        assert off == -1
        return
    assert off >= 0
    assert [mem.span(0x40000000 | a, 1) for a in (addr, addr + size - 1)] == [off, off + size - 1]


def test_cstring_stops_at_nul_and_refuses_runaway_strings(mem):
    mem.write(0x08800000, b"ms0:/x\x00junk")
    assert mem.read_cstring(0x08800000) == b"ms0:/x"
    mem.fill(0x08900000, 0x41, 64)
    with pytest.raises(GuestMemoryError):
        mem.read_cstring(0x08900000, limit=16)
