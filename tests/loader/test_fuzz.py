"""Random and mutated files: the loader either loads them or raises LoaderError,
never any other exception."""

import os
import struct

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import loader
from loader.pbp import write_pbp
from tests.loader import samples

PRX = samples.sample_prx()
COMPRESSED = samples.sample_prx_compressed()
ELF = samples.sample_elf()
PBP = write_pbp({"DATA.PSP": ELF})
INTERESTING = [0, 1, 4, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]

# LOADER_FUZZ_EXAMPLES=5000 for a deeper run than the suite's quick one.
FUZZ = settings(max_examples=int(os.environ.get("LOADER_FUZZ_EXAMPLES", 150)), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def loads_or_refuses(data: bytes) -> None:
    try:
        image = loader.load(data)
    except loader.LoaderError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert image.segments  # a loaded image is complete enough to describe
    image.symbol_at(image.entry)


@FUZZ
@given(st.binary(max_size=600), st.sampled_from([b"", b"\x7fELF\x01\x01\x01", b"\x00PBP", b"~PSP"]))
def test_random_bytes(tail, magic):
    loads_or_refuses(magic + tail)


def mutations(original: bytes):
    position = st.integers(0, len(original) - 1)
    byte_edits = st.lists(st.tuples(position, st.integers(0, 255)), min_size=1, max_size=8)
    word_edits = st.lists(st.tuples(position.map(lambda p: p & ~3), st.sampled_from(INTERESTING)),
                          min_size=1, max_size=4)
    return st.tuples(byte_edits, word_edits, st.integers(0, len(original)))


def mutate(original: bytes, edits) -> bytes:
    byte_edits, word_edits, cut = edits
    out = bytearray(original)
    for at, value in byte_edits:
        out[at] = value
    for at, value in word_edits:
        if at + 4 <= len(out):
            struct.pack_into("<I", out, at, value)
    return bytes(out[:cut] if cut > len(out) // 4 else out)


@FUZZ
@given(mutations(PRX))
def test_mutated_prx(edits):
    loads_or_refuses(mutate(PRX, edits))


@FUZZ
@given(mutations(COMPRESSED))
def test_mutated_compressed_prx(edits):
    loads_or_refuses(mutate(COMPRESSED, edits))


@FUZZ
@given(mutations(PBP))
def test_mutated_pbp(edits):
    loads_or_refuses(mutate(PBP, edits))


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 0x33), st.integers(0, 255)), min_size=1, max_size=6))
def test_mutated_prx_header(edits):
    """Most random edits land in code; these hit the ELF header's fields."""
    out = bytearray(PRX)
    for at, value in edits:
        out[at] = value
    loads_or_refuses(bytes(out))


def structured_regions(data: bytes) -> list[int]:
    """File offsets of the PRX's tables: headers, library tables, module info, relocations."""
    phoff, shoff = struct.unpack_from("<II", data, 28)
    shnum = struct.unpack_from("<H", data, 48)[0]
    seg0 = struct.unpack_from("<I", data, phoff + 4)[0]
    offsets = list(range(0, phoff + 64)) + list(range(seg0 + 0x200, seg0 + 0x360))
    offsets += list(range(shoff, shoff + 40 * shnum))
    for i in range(shnum):
        type_, _, _, offset, size = struct.unpack_from("<IIIII", data, shoff + 40 * i + 4)
        if type_ == 0x700000A0:
            offsets += list(range(offset, offset + size))
    return offsets


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(structured_regions(PRX)), st.integers(0, 255)), min_size=1, max_size=6))
@example([(808, 10), (1792, 0)])  # (an import library named "\noFileMgrForUser", its stubs outside the image)
def test_mutated_prx_tables(edits):
    out = bytearray(PRX)
    for at, value in edits:
        out[at] = value
    loads_or_refuses(bytes(out))
