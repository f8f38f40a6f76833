"""scePower's stepped clocks, pinned to figures a real PSP printed (pspautotests power/freq
and power/cpu), so they hold without the conformance checkout too."""

import struct

import pytest

from allegrex.hle import power
from helpers import call, make_kernel

INVALID_VALUE = 0x800001FE - (1 << 32)


@pytest.mark.parametrize("desired,pll,printed", [
    (1, 222.0, "0.868885"), (4, 222.0, "3.909981"), (32, 222.0, "31.714285"), (166, 222.0, "165.956940"),
    (222, 222.0, "222.000000"), (19, 190.285721, "18.991333"), (223, 266.399994, "222.608215"),
    (267, 333.0, "266.530334"), (333, 333.0, "333.000000"),
])
def test_cpu_frequency_is_a_multiple_of_pll_over_511(desired, pll, printed):
    assert f"{float(power.cpu_mhz(desired, power.f32(pll))):f}" == printed


def float_result(k) -> float:
    return struct.unpack("<f", struct.pack("<I", int(k.cpu.fpr_bits[0])))[0]


def test_set_and_read_back_through_the_calls():
    k = make_kernel()
    assert call(k, "scePower", "scePowerSetCpuClockFrequency", 166) == 0
    assert call(k, "scePower", "scePowerGetCpuClockFrequency") == 165  # power/cpu: 166 reads 165
    assert call(k, "scePower", "scePowerSetCpuClockFrequency", 223) == INVALID_VALUE  # above the 222 PLL
    assert call(k, "scePower", "scePowerSetBusClockFrequency", 112) == INVALID_VALUE
    assert call(k, "scePower", "scePowerSetClockFrequency", 333, 333, 166) == 0
    assert [call(k, "scePower", f"scePowerGet{w}ClockFrequencyInt") for w in ("Cpu", "Bus", "Pll")] == [333, 166, 333]
    call(k, "scePower", "scePowerGetBusClockFrequencyFloat")
    assert float_result(k) == pytest.approx(166.5)
    assert (k.clock.cpu_mhz, k.clock.bus_mhz) == (333, 166)  # the simulated CPU runs at the new rate


def test_changing_the_pll_step_makes_the_caller_wait():
    k = make_kernel()
    before = k.now_us()
    assert call(k, "scePower", "scePowerSetClockFrequency", 333, 333, 166) == 0
    assert k.now_us() - before >= power.PLL_SWITCH_US
    before = k.now_us()
    assert call(k, "scePower", "scePowerSetClockFrequency", 333, 200, 166) == 0  # same step: no wait
    assert k.now_us() - before < 100
