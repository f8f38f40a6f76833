"""Builds are cached by content: an unchanged program is not recompiled, any change
to its inputs or options is."""

import time

from allegrex.sdk import build
from elftools.elf.elffile import ELFFile


def heap_symbol_value(elf_path):
    with open(elf_path, "rb") as f:
        elf = ELFFile(f)
        sym = next(s for s in elf.get_section_by_name(".symtab").iter_symbols() if s.name == "sce_newlib_heap_kb_size")
        for sec in elf.iter_sections():
            if sec["sh_addr"] <= sym["st_value"] < sec["sh_addr"] + sec["sh_size"]:
                off = sym["st_value"] - sec["sh_addr"]
                return int.from_bytes(sec.data()[off:off + 4], "little", signed=True)


def test_second_build_is_a_cache_hit(tmp_path):
    src = tmp_path / "prog.c"
    src.write_text('#include <stdio.h>\nint main(void) { printf("cached\\n"); return 0; }\n')
    first = build([src], tmp_path / "a.pbp").read_bytes()
    start = time.perf_counter()
    second = build([src], tmp_path / "b.pbp").read_bytes()
    assert time.perf_counter() - start < 1.0
    assert first == second


def test_changed_source_or_option_rebuilds(tmp_path):
    src = tmp_path / "prog.c"
    src.write_text('int main(void) { return 1; }\n')
    one = build([src], tmp_path / "one.elf", elf=True).read_bytes()
    src.write_text('int main(void) { return 2; }\n')
    two = build([src], tmp_path / "two.elf", elf=True).read_bytes()
    assert one != two
    src.write_text('#include <stdlib.h>\nint main(void) { return malloc(10) != 0; }\n')
    small = build([src], tmp_path / "small.elf", elf=True, heap_kb=-1024)
    assert heap_symbol_value(small) == -1024
    assert build([src], tmp_path / "t.pbp", title="A").read_bytes() != build([src], tmp_path / "t2.pbp", title="B").read_bytes()


def test_header_in_source_folder_is_part_of_the_key(tmp_path):
    (tmp_path / "value.h").write_text("#define VALUE 1\n")
    src = tmp_path / "prog.c"
    src.write_text('#include "value.h"\nint main(void) { return VALUE; }\n')
    one = build([src], tmp_path / "one.elf", elf=True).read_bytes()
    (tmp_path / "value.h").write_text("#define VALUE 2\n")
    assert build([src], tmp_path / "two.elf", elf=True).read_bytes() != one
