"""Damaged or unsupported files fail with one LoaderError line naming the problem."""

import io
import struct
import time

import pytest
from elftools.elf.elffile import ELFFile

import loader
from allegrex.cli import main
from loader.pbp import write_pbp
from loader.sfo import homebrew_sfo, write_sfo
from tests.loader import samples

PRX = samples.sample_prx()


def section(data: bytes, name: str):
    return ELFFile(io.BytesIO(data)).get_section_by_name(name)


def patched(data: bytes, offset: int, fmt: str, *values) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, *values)
    return bytes(out)


def with_rel_entry(r_offset: int, r_info: int) -> bytes:
    """The sample PRX with the first .rel.text entry replaced."""
    return patched(PRX, section(PRX, ".rel.text")["sh_offset"], "<II", r_offset, r_info)


def fails(data, match, base=None):
    with pytest.raises(loader.LoaderError, match=match) as caught:
        loader.load(data, base=base)
    assert "\n" not in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("size", [0, 3, 20, 51, 60, 200, len(PRX) // 2, len(PRX) - 1])
def test_truncated_prx(size):
    fails(PRX[:size], r"truncated|past the end|not a PSP executable")


def test_wrong_magic():
    fails(b"MZ\x90\x00" + bytes(100), "not a PSP executable")
    fails(b"\x7fELF" + bytes(100), r"not a 32-bit little-endian ELF")


def test_wrong_machine_and_type():
    fails(patched(PRX, 18, "<H", 3), "not MIPS")
    fails(patched(PRX, 16, "<H", 1), "neither a static executable")


def test_program_header_table_past_the_end():
    fails(patched(PRX, 28, "<I", len(PRX) - 8), "program header table .* runs past the end")


def test_segment_past_the_end():
    fails(patched(PRX, 52 + 4, "<I", len(PRX) - 4), "segment 0 .* runs past the end")


def test_section_offset_past_the_end():
    index = section(PRX, ".rel.text")
    shoff = struct.unpack_from("<I", PRX, 32)[0]
    number = [s.name for s in ELFFile(io.BytesIO(PRX)).iter_sections()].index(".rel.text")
    fails(patched(PRX, shoff + 40 * number + 16, "<I", len(PRX) + 4), f"section {number} .* runs past the end")
    assert index["sh_size"] > 0


def test_section_name_table_index_out_of_range():
    fails(patched(PRX, 50, "<H", 200), "section-name table index 200")


def test_relocation_outside_the_image():
    fails(with_rel_entry(0x20000, 2), r"relocation section .rel.text entry 0 \(R_MIPS_32\) at 0x08824000 "
                                      "is outside the loaded image")


def test_relocation_into_bss_is_refused():
    fails(with_rel_entry(0x800, 2), "zero-filled")


def test_relocation_naming_a_missing_segment():
    fails(with_rel_entry(0, 2 | 5 << 8), "names segment 5, which is not a loaded segment")


def test_relocation_of_an_unsupported_type():
    fails(with_rel_entry(0, 3), "unsupported relocation type 3")


def test_misaligned_relocation():
    fails(with_rel_entry(2, 4), "not word-aligned")


def test_hi16_without_lo16():
    rel = section(PRX, ".rel.text")
    entries = rel.data()
    # keep only the first entry (a HI16) and blank the rest to R_MIPS_NONE
    only_hi = entries[:8] + bytes(len(entries) - 8)
    out = bytearray(PRX)
    out[rel["sh_offset"]:rel["sh_offset"] + len(entries)] = only_hi
    fails(bytes(out), "no R_MIPS_LO16 after it")


def test_relocation_section_not_whole_entries():
    shoff = struct.unpack_from("<I", PRX, 32)[0]
    number = [s.name for s in ELFFile(io.BytesIO(PRX)).iter_sections()].index(".rel.text")
    fails(patched(PRX, shoff + 40 * number + 20, "<I", 12), "not a whole number of 8-byte relocation entries")


def test_zero_length_relocation_section_relocates_nothing():
    shoff = struct.unpack_from("<I", PRX, 32)[0]
    number = [s.name for s in ELFFile(io.BytesIO(PRX)).iter_sections()].index(".rel.text")
    image = loader.load(patched(PRX, shoff + 40 * number + 20, "<I", 0))
    assert image.read_u32(0x08804000) == samples.lui(4, 0)  # the lui kept its unrelocated immediate


def test_zero_length_module_info_section_in_a_static_elf():
    elf = samples.sample_elf()
    shoff = struct.unpack_from("<I", elf, 32)[0]
    number = [s.name for s in ELFFile(io.BytesIO(elf)).iter_sections()].index(".rodata.sceModuleInfo")
    fails(patched(elf, shoff + 40 * number + 20, "<I", 0), r"\.rodata\.sceModuleInfo is 0 bytes")


def test_module_info_offset_outside_the_segments():
    fails(patched(PRX, 52 + 12, "<I", 4), "module info file offset 0x4")


def test_import_table_that_ends_before_it_starts():
    at = struct.unpack_from("<I", PRX, 52 + 12)[0]  # module info's file offset
    fails(patched(PRX, at + 48, "<I", 0), "import table ends")


def test_huge_segment_is_refused():
    fails(patched(PRX, 52 + 20, "<I", 0x7FFFFFFF), "more than a PSP has")


def test_bad_base():
    fails(PRX, "not a word-aligned address", base=0x08804002)
    fails(PRX, "does not fit", base=0xFFFFF000)


def test_pbp_with_encrypted_data_psp():
    fails(write_pbp({"PARAM.SFO": write_sfo(homebrew_sfo("x")), "DATA.PSP": b"~PSP" + bytes(300)}), "encrypted")
    fails(b"~PSP" + bytes(300), "encrypted")


def test_pbp_with_empty_data_psp():
    fails(write_pbp({"PARAM.SFO": write_sfo(homebrew_sfo("x"))}), "empty DATA.PSP")


def test_pbp_with_a_section_offset_past_the_end():
    pbp = write_pbp({"DATA.PSP": PRX})
    fails(patched(pbp, 8 + 4 * 6, "<I", len(pbp) + 100), "DATA.PSP starts at offset")


def test_pbp_with_damaged_sfo():
    fails(write_pbp({"PARAM.SFO": b"\x00PSX" + bytes(40), "DATA.PSP": PRX}), "PARAM.SFO has wrong magic")


def test_pbp_whose_data_psp_is_truncated():
    fails(write_pbp({"DATA.PSP": PRX[:100]}), "DATA.PSP .*runs past the end")


def test_missing_file(tmp_path):
    fails(tmp_path / "nothing.prx", "cannot read .*nothing.prx")


def test_cli_prints_one_line_and_exits_non_zero(tmp_path, capsys):
    bad = tmp_path / "bad.prx"
    bad.write_bytes(PRX[:200])
    assert main(["info", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("allegrex info: error: ") and captured.err.count("\n") == 1
    assert main(["info", str(tmp_path / "missing.pbp")]) == 2


def _prx_with_many_headers(count: int, block: int, as_sections: bool) -> bytes:
    """A PRX whose one code segment is followed by `count` relocation headers (program
    headers, or section headers) that all name the same block of zero (R_MIPS_NONE) entries."""
    code, zeros = struct.pack("<4I", 0x03E00008, 0, 0, 0), bytes(block)
    phnum = 1 if as_sections else 1 + count
    code_off = 52 + 32 * phnum
    zero_off = code_off + len(code)
    shoff = zero_off + block
    headers = struct.pack("<8I", 1, code_off, 0, 0, len(code), len(code), 5, 16)
    sections = b""
    if as_sections:  # a null section, the code as section 1 (allocated), the relocations for it
        sections = bytes(40) + struct.pack("<10I", 0, 1, 6, 0, code_off, len(code), 0, 0, 16, 0)
        sections += struct.pack("<10I", 0, 0x700000A0, 0, 0, zero_off, block, 0, 1, 4, 8) * count
    else:
        headers += struct.pack("<8I", 0x700000A0, zero_off, 0, 0, block, 0, 0, 4) * count
    shnum = 2 + count if as_sections else 0
    ehdr = struct.pack("<4sBBBB8xHHIIIIIHHHHHH", b"\x7fELF", 1, 1, 1, 0, 0xFFA0, 8, 1, 0, 52,
                       shoff if as_sections else 0, 0, 52, 32, phnum, 40, shnum, 0)
    return ehdr + headers + code + zeros + sections


@pytest.mark.parametrize("as_sections", [False, True], ids=["segments", "sections"])
def test_relocation_headers_over_the_same_bytes_are_refused_at_once(as_sections):
    """65,533 headers naming one 64 KiB block would make the loader apply 500 million
    relocations (minutes) before it found anything wrong; a file can hold no more
    relocation data than its own size, so it is refused before any is applied."""
    start = time.process_time()
    message = fails(_prx_with_many_headers(65533, 0x10000, as_sections), "more than the whole file")
    assert time.process_time() - start < 5 and "they overlap" in message


def test_segments_wanting_more_memory_in_all_than_a_psp_has():
    """Each of 2,000 side-by-side 64 KiB segments is plausible alone; together they want
    125 MiB, refused before any is allocated."""
    count, size = 2000, 0x10000
    phoff, data_off = 52, 52 + 32 * count
    headers = b"".join(struct.pack("<8I", 1, data_off, 0x08800000 + size * i, 0, 8, size, 5, 16) for i in range(count))
    ehdr = struct.pack("<4sBBBB8xHHIIIIIHHHHHH", b"\x7fELF", 1, 1, 1, 0, 2, 8, 1, 0x08800000, phoff, 0, 0, 52, 32,
                       count, 0, 0, 0)
    fails(ehdr + headers + struct.pack("<2I", 0x03E00008, 0), "segments want 131072000 bytes of memory in all")
