"""The guest address map: every view of each region, and faults outside them."""

import pytest

from allegrex.errors import GuestMemoryError
from allegrex.memory import Memory


@pytest.fixture
def mem():
    return Memory("psp-2000")


def test_cached_uncached_and_kernel_views_alias_the_same_ram(mem):
    mem.write_u32(0x08800000, 0x12345678)
    assert mem.read_u32(0x48800000) == 0x12345678
    assert mem.read_u32(0x88800000) == 0x12345678
    assert mem.read_u32(0xC8800000) == 0x12345678


def test_regions_have_their_documented_bounds(mem):
    assert mem.is_valid(0x00010000, 16 * 1024)
    assert not mem.is_valid(0x00014000, 1)
    assert mem.is_valid(0x04000000, 2 * 1024 * 1024)
    assert not mem.is_valid(0x04200000, 1)
    assert mem.is_valid(0x0BFFFFFC, 4)
    assert not mem.is_valid(0x0C000000, 1)
    assert not Memory("psp-1000").is_valid(0x0A000000, 1)


@pytest.mark.parametrize("addr,size", [(0, 4), (0x08800001, 4), (0x08800002, 4), (0x28800000, 4), (0xFFFFFFFC, 4)])
def test_unmapped_or_misaligned_access_is_a_guest_error(mem, addr, size):
    with pytest.raises(GuestMemoryError):
        mem.offset(addr, size)


def test_a_span_may_not_cross_out_of_its_region(mem):
    with pytest.raises(GuestMemoryError):
        mem.read(0x0BFFFFFE, 4)


def test_cstring_stops_at_nul_and_refuses_runaway_strings(mem):
    mem.write(0x08800000, b"ms0:/x\x00junk")
    assert mem.read_cstring(0x08800000) == b"ms0:/x"
    mem.fill(0x08900000, 0x41, 64)
    with pytest.raises(GuestMemoryError):
        mem.read_cstring(0x08900000, limit=16)
