"""The compressed 0x700000A1 relocation stream patches the same code correctly."""

import pytest

import loader
from tests.loader import samples
from tests.loader.samples import DATA_VADDR, FUNC, JUMP, T_CARRY, T_MID, T_PLAIN
from tests.loader.test_prx import effective


@pytest.fixture(scope="module")
def compressed():
    return samples.sample_prx_compressed()


@pytest.mark.parametrize("base", [0x08804000, 0x0880C000, 0x09000000])
def test_compressed_hi16_lo16_with_carry(compressed, base):
    image = loader.load(compressed, base=base)
    assert effective(image.read_u32(base), image.read_u32(base + 4)) == base + T_PLAIN
    assert effective(image.read_u32(base + 8), image.read_u32(base + 0xC)) == base + T_CARRY


@pytest.mark.parametrize("base", [0x08804000, 0x0880C000, 0x09000000])
def test_compressed_hi16_reusing_the_previous_low_half(compressed, base):
    image = loader.load(compressed, base=base)
    lo = image.read_u32(base + 0x18)
    for hi_at in (0x10, 0x14):
        assert effective(image.read_u32(base + hi_at), lo) == base + T_MID


@pytest.mark.parametrize("base", [0x08804000, 0x09000000])
def test_compressed_jumps_and_forced_opcodes(compressed, base):
    image = loader.load(compressed, base=base)
    for at, opcode, target in ((0x1C, 0x0C000000, FUNC), (0x24, 0x08000000, JUMP), (0x2C, 0x0C000000, FUNC)):
        op = image.read_u32(base + at)
        assert op & 0xFC000000 == opcode  # J26 made the jal at 0x24 a j; JAL26 made the j at 0x2C a jal
        assert (op & 0x03FFFFFF) << 2 | ((base + at) & 0xF0000000) == base + target


@pytest.mark.parametrize("base", [0x08804000, 0x09000000])
def test_compressed_words_in_another_segment(compressed, base):
    image = loader.load(compressed, base=base)
    assert image.read_u32(base + DATA_VADDR) == base + T_PLAIN
    assert image.read_u32(base + DATA_VADDR + 4) == base + DATA_VADDR + 8  # base set by a u32 operand


def test_untouched_words_stay(compressed):
    image = loader.load(compressed)
    assert image.read_u32(0x08804000 + 0x20) == samples.GPREL_WORD
    assert image.module_info.name == "Compressed"
