"""The memory-stick model (allegrex/timing/memstick.py) against the figures measured on a
PSP-2000 (issue 19): large sequential reads 7-8 MB/s, scattered 256 KiB reads 4.6 MB/s,
a synced write tens of milliseconds; and the driver holding the CPU while it copies."""

import pytest

from allegrex.timing import memstick

KIB256 = 256 * 1024


def rate(nbytes, us):
    return nbytes / us  # bytes per microsecond = MB/s


def test_large_sequential_reads_run_at_7_to_8_mb_per_s():
    for size in (KIB256, 1 << 20, 16 << 20):
        assert 7.0 <= rate(size, memstick.read_us(size)) <= 8.0


def test_scattered_256k_reads_run_at_the_measured_4_6_mb_per_s():
    assert rate(KIB256, memstick.read_us(KIB256, sequential=False)) == pytest.approx(4.6, abs=0.001)


def test_a_synced_write_costs_tens_of_milliseconds():
    assert 10_000 <= memstick.SYNC_US < 100_000


def test_every_request_has_a_cost_and_sizes_must_be_counts():
    assert memstick.read_us(0) == memstick.REQUEST_US > 0
    with pytest.raises(ValueError):
        memstick.read_us(-1)
