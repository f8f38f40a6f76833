"""vasin (vfpu/asin.py): the PSP's piecewise-quadratic arcsine, wrapped curvature included.

Facts: what a PSP printed for x = k/64 (pspautotests vector.expected), and single results
of the PSP's vasin as recorded in PPSSPP's hardware-derived tables (hrydgard/ppsspp,
assets/vfpu/vfpu_asin_*.dat, read for these values only)."""

import math

import numpy as np
import pytest

from vfpu.asin import asin_bits

# vasin(k / 64) for k = 0..64 as a PSP printed it ("%f"); negative k print the negation.
RECORDED = ("0.000000 0.009948 0.019898 0.029852 0.039815 0.049787 0.059771 0.069770 0.079786 "
            "0.089822 0.099881 0.109965 0.120077 0.130220 0.140396 0.150609 0.160861 0.171157 "
            "0.181498 0.191889 0.202333 0.212833 0.223395 0.234020 0.244715 0.255482 0.266328 "
            "0.277256 0.288272 0.299382 0.310591 0.321906 0.333333 0.344880 0.356555 0.368365 "
            "0.380321 0.392431 0.404706 0.417159 0.429802 0.442649 0.455717 0.469022 0.482584 "
            "0.496425 0.510571 0.525049 0.539893 0.555140 0.570835 0.587030 0.603788 0.621184 "
            "0.639314 0.658294 0.678277 0.699465 0.722135 0.746686 0.773732 0.804306 0.840428 "
            "0.887313 1.000000").split()
# PSP results (float32 bits) for inputs near 1, where its curvature field has wrapped.
HARDWARE_NEAR_ONE = [(0.5, 0x3EAAAAA8), (0.75, 0x3F0A366C), (1 - 2 ** -8, 0x3F75CF1C),
                     (1 - 2 ** -9, 0x3F7AE7A4), (1 - 2 ** -10, 0x3F7D73D8), (1 - 2 ** -16, 0x3F7FF5CC)]
# PSP results in 2.30 fixed point for inputs i * 2^-23 on the first piece [0, 2^-7].
HARDWARE_FIRST_PIECE = [(1, 81), (1000, 81488), (40000, 3259526), (65535, 5340326), (65536, 5340408)]


def vasin(x):
    word = int(np.array([x], dtype=np.float32).view(np.uint32)[0])
    return float(np.array([asin_bits(word)], dtype=np.uint32).view(np.float32)[0])


@pytest.mark.parametrize("k", range(-64, 65))
def test_prints_what_the_psp_printed_for_sixty_fourths(k):
    want = RECORDED[abs(k)]
    got = "%f" % vasin(k / 64)
    assert got == (want if k >= 0 else "-" + want) or (k == 0 and got in ("0.000000", "-0.000000"))


def test_the_psp_program_through_the_vfpu(vf):
    vf.write("C100", [0.875, -53 / 64, 1.0, 1.015625])
    vf.run("vasin.q C000, C100")
    got = vf.read("C000", 4)
    assert ["%f" % x for x in got[:3]] == ["0.678277", "-0.621184", "1.000000"] and math.isnan(got[3])


@pytest.mark.parametrize("x,hw_bits", HARDWARE_NEAR_ONE)
def test_within_four_units_of_the_psps_last_place_near_one(x, hw_bits):
    """The results have 23 significant bits (a unit is 2^-23 below 1); the PSP's own
    rounding scatters around our quadratic by up to 4 units (docs/vfpu.md)."""
    hw = float(np.array([hw_bits], dtype=np.uint32).view(np.float32)[0])
    assert abs(vasin(x) - hw) <= 4 * 2 ** -23


def test_the_wrapped_curvature_reproduces_the_psps_error_near_one():
    # 1 - 2^-9: the PSP says 0.980097, the true asin(x) / (pi/2) is 0.960205.
    x = 1 - 2 ** -9
    assert abs(vasin(x) - 0.980097) < 1e-6
    assert vasin(x) - math.asin(x) / (math.pi / 2) > 0.0198


@pytest.mark.parametrize("i,fixed", HARDWARE_FIRST_PIECE)
def test_first_piece_is_bit_exact(i, fixed):
    assert vasin(i * 2.0 ** -23) == fixed * 2.0 ** -30


def test_edges():
    assert vasin(1.0) == 1.0 and vasin(-1.0) == -1.0
    assert vasin(0.0) == 0.0 and math.copysign(1, vasin(-0.0)) == -1
    assert vasin(2.0 ** -24) == 0.0  # below the 9.23 input's last place
    for x in (1.0000001, -2.0, math.inf, math.nan):
        assert math.isnan(vasin(x))
    assert vasin(-0.3) == -vasin(0.3)
