"""PARAM.SFO and EBOOT.PBP: what we write reads back, and damage is named."""

import struct

import pytest

from loader.errors import LoaderError
from loader.pbp import SECTIONS, check_data_psp, read_pbp, write_pbp
from loader.sfo import read_sfo, write_sfo, homebrew_sfo


def test_sfo_round_trip_keeps_strings_and_integers():
    values = homebrew_sfo("Hello PSP", large_memory=True)
    assert read_sfo(write_sfo(values)) == values


def test_sfo_layout_matches_the_format():
    raw = write_sfo({"TITLE": "T", "MEMSIZE": 1})
    magic, version, key_start, data_start, count = struct.unpack_from("<4sIIII", raw)
    assert (magic, version, count) == (b"\x00PSF", 0x101, 2)
    assert raw[key_start:key_start + 8] == b"MEMSIZE\x00"  # keys are sorted
    assert data_start % 4 == 0


def test_pbp_sections_keep_their_order_and_sizes():
    sections = {"PARAM.SFO": b"s" * 40, "ICON0.PNG": b"i" * 3, "DATA.PSP": b"d" * 9}
    parsed = read_pbp(write_pbp(sections))
    assert list(parsed) == list(SECTIONS)
    assert parsed["DATA.PSP"] == b"d" * 9 and parsed["ICON0.PNG"] == b"iii" and parsed["PIC1.PNG"] == b""


@pytest.mark.parametrize("data,message", [
    (b"\x00PBP", "truncated"),
    (b"XXXX" + b"\x00" * 36, "wrong magic"),
    (struct.pack("<4sI8I", b"\x00PBP", 0x10000, 40, 40, 40, 40, 40, 40, 999, 40), "DATA.PSP"),
])
def test_damaged_pbp_is_refused_with_the_reason(data, message):
    with pytest.raises(LoaderError, match=message):
        read_pbp(data)


def test_encrypted_executable_is_refused():
    with pytest.raises(LoaderError, match="encrypted"):
        check_data_psp(b"~PSP" + b"\x00" * 100)


def test_damaged_sfo_is_refused():
    raw = write_sfo({"TITLE": "T"})
    with pytest.raises(LoaderError):
        read_sfo(raw[:24])
    with pytest.raises(LoaderError, match="magic"):
        read_sfo(b"JUNK" + raw[4:])
