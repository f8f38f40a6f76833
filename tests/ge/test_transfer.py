"""Block transfers (allegrex/ge/transfer.py) through VRAM's mirrors: the GE addresses
them in the EDRAM address translation the machine has when it runs, as the CPU does
(pspautotests gpu/transfer/mirrors, real-PSP output: after sceGeEdramSetAddrTranslation(0)
a copy into mirror 1 or 3 reads back unchanged through the CPU), and addresses past the
VRAM window wrap to its start (gpu/transfer/invalid)."""

import numpy as np
import pytest

from allegrex.ge import processor
from allegrex.memory import EDRAM_TRANSLATIONS
from gelists import LIST, Ge, cmd

VRAM = 0x04000000
MIRROR1, MIRROR2, MIRROR3 = 0x04200000, 0x04400000, 0x04600000
ROW = 1024  # bytes per row: 512 16-bit pixels
ROWS = 16


def copy_list(src: int, dst: int) -> list:
    """A 512 x 16 copy of 16-bit pixels, stride 512 on both sides."""
    return [cmd("TRANSFERSRC", src & 0xFFFFFF), cmd("TRANSFERSRCW", ((src >> 8) & 0xFF0000) | 512),
            cmd("TRANSFERSRCPOS", 0), cmd("TRANSFERDST", dst & 0xFFFFFF), cmd("TRANSFERDSTW", ((dst >> 8) & 0xFF0000) | 512),
            cmd("TRANSFERDSTPOS", 0), cmd("TRANSFERSIZE", ((ROWS - 1) << 10) | 511), cmd("TRANSFERSTART", 0),
            cmd("FINISH"), cmd("END")]


def transfer(ge: Ge, src: int, dst: int) -> None:
    ge.load(copy_list(src, dst))
    assert ge.run() == processor.EV_END


def read(ge: Ge, addr: int, length: int) -> bytes:
    """The CPU's view, 32 bytes at a time (a swizzled mirror keeps only its 32-byte blocks whole)."""
    return b"".join(ge.memory.read(a, 32) for a in range(addr, addr + length, 32))


def write(ge: Ge, addr: int, data: bytes) -> None:
    for i in range(0, len(data), 32):
        ge.memory.write(addr + i, data[i:i + 32])


def pattern(seed: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, ROW * ROWS, dtype=np.uint8).tobytes()


@pytest.mark.parametrize("translation", EDRAM_TRANSLATIONS)
@pytest.mark.parametrize("mirror", [MIRROR1, MIRROR3])
def test_a_copy_into_a_swizzled_mirror_reads_back_through_the_cpu(translation, mirror):
    ge = Ge()
    ge.memory.set_edram_translation(translation)
    data = pattern(translation + mirror)
    ge.memory.write(VRAM, data)
    transfer(ge, VRAM, mirror + 0x100000)
    assert read(ge, mirror + 0x100000, len(data)) == data
    # ... and not in plain order: the GE wrote through the swizzle, not around it
    assert ge.memory.read(MIRROR2 + 0x100000, len(data)) != data


@pytest.mark.parametrize("translation", EDRAM_TRANSLATIONS)
def test_a_copy_out_of_a_swizzled_mirror_reads_what_the_cpu_wrote_there(translation):
    ge = Ge()
    ge.memory.set_edram_translation(translation)
    data = pattern(translation)
    write(ge, MIRROR3 + 0x40000, data)
    transfer(ge, MIRROR3 + 0x40000, VRAM + 0x100000)
    assert ge.memory.read(VRAM + 0x100000, len(data)) == data


def test_rows_past_the_vram_window_wrap_to_its_start():
    """gpu/transfer/invalid: 16 bytes left before 0x04800000, the rest of the rows land at
    0x04000000 on."""
    ge = Ge()
    data = pattern(1)
    ge.memory.write(VRAM + 0x100000, data)
    transfer(ge, VRAM + 0x100000, 0x047FFFF0)
    assert ge.memory.read(0x047FFFF0, 16) == data[:16]
    assert ge.memory.read(VRAM, ROW - 16) == data[16:ROW]
