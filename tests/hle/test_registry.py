"""The HLE registry: NIDs from names, PSP EABI argument layout, unknown imports."""

import io
from types import SimpleNamespace

from loader.nids import nid_for_name

from allegrex.hle import registry
from allegrex.hle.kernel import RunOptions
from allegrex.hle.registry import F32, Ptr, S64, layout
from helpers import call, make_kernel


def test_nid_is_sha1_of_the_name():
    registry.load_all()
    assert registry.BY_NAME[("IoFileMgrForUser", "sceIoOpen")].nid == 0x109F50BC
    assert registry.lookup("IoFileMgrForUser", 0x109F50BC).name == "sceIoOpen"


def test_explicit_nids_for_renamed_functions():
    assert registry.lookup("SysMemUserForUser", 0x91DE343C).name == "sceKernelSetCompiledSdkVersion500_505"


def test_64_bit_arguments_take_an_aligned_register_pair():
    def f(k, fd: int, offset: S64, whence: int) -> S64: ...
    params, result = layout(f)
    assert params == [("s32", 4), ("s64", 6), ("s32", 8)]  # a0, a2:a3, t0
    assert result == "64"


def test_32_bit_arguments_read_in_one_go_as_one_by_one():
    """Functions whose parameters are all 32-bit integers read a0..t3 in one unpack: the
    values the per-parameter loop reads (ints signed or not as annotated, 8 registers)."""
    from allegrex.cpu.state import A0, CpuState
    from allegrex.hle.registry import U32

    def f(k, a: int, b: Ptr, c: U32, d: int, e: int, g: Ptr, h: int, i: U32) -> int: ...
    params, result = layout(f)
    entry = registry.HleFunction("lib", "f", 0, f, 0, params, result)
    one_by_one = registry.HleFunction("lib", "f", 0, f, 0, params + [("cstr", 0)], result)  # (not all 32-bit)
    cpu = CpuState()
    cpu.regs[A0:A0 + 8] = [0xFFFFFFFF, 0x80000000, 0xFFFFFFFE, 5, 0x7FFFFFFF, 0, 0x80000001, 0x12345678]
    assert entry.words is not None and one_by_one.words is None
    assert list(entry.read_args(cpu, None)) == one_by_one.read_args(cpu, None)[:8] \
        == [-1, 0x80000000, 0xFFFFFFFE, 5, 0x7FFFFFFF, 0, -0x7FFFFFFF, 0x12345678]


def test_floats_come_from_f12_and_do_not_use_gprs():
    def f(k, a: Ptr, x: F32, b: int, y: F32): ...
    params, _ = layout(f)
    assert params == [("u32", 4), ("f32", 12), ("s32", 5), ("f32", 13)]


def test_lseek_returns_64_bit_position_in_v0_v1(tmp_path):
    k = make_kernel(RunOptions(ms0=str(tmp_path)))
    (tmp_path / "f.bin").write_bytes(b"x" * 10)
    k.memory.write(0x08A00000, b"ms0:/f.bin\0")
    fd = call(k, "IoFileMgrForUser", "sceIoOpen", 0x08A00000, 1, 0)
    assert fd >= 3
    # offset 8 in a2:a3, whence SEEK_SET in t0
    k.cpu.regs[6], k.cpu.regs[7], k.cpu.regs[8] = 8, 0, 0
    assert call(k, "IoFileMgrForUser", "sceIoLseek", fd) == 8
    assert int(k.cpu.regs[3]) == 0


def test_unknown_import_is_listed_at_load_and_stops_the_run_when_called():
    """A firmware library function allegrex does not provide (here a codec library's,
    which stay unimplemented): named at load, and the run stops naming it when called."""
    err = io.StringIO()
    k = make_kernel(RunOptions(stderr=err))
    nid = nid_for_name("sceMpegInit")
    lib = SimpleNamespace(name="sceMpeg", functions=[SimpleNamespace(nid=nid, name="sceMpegInit", stub_addr=0x08900800)],
                          variables=[])
    k.install_imports([lib])
    assert f"sceMpeg 0x{nid:08X} (sceMpegInit)" in err.getvalue()
    code = int(k.memory.read_u32(0x08900804)) >> 6
    assert k.memory.read_u32(0x08900800) == 0x03E00008  # jr ra
    k.cpu.regs[31] = 0x08880010
    k.on_syscall(code)
    assert k.stop.kind == "unknown-import"
    assert "sceMpeg" in k.stop.message and "sceMpegInit" in k.stop.message and "0x08880010" in k.stop.message
    assert "sceMpeg is a codec/media library, which allegrex does not emulate" in k.stop.message


def test_every_codec_library_the_libraries_page_lists_is_named_as_one_when_called():
    from pathlib import Path
    from allegrex.hle.linker import MEDIA_LIBRARIES
    page = (Path(__file__).resolve().parents[2] / "docs" / "hle-libraries.md").read_text()
    listed = page.split("- Codecs and media:", 1)[1].split("\n- ", 1)[0]
    assert {name.strip(" .\n") for name in listed.split(",")} == set(MEDIA_LIBRARIES)


def test_every_call_costs_its_documented_cycles():
    k = make_kernel()
    before = int(k.cpu.counters[0])
    call(k, "ThreadManForUser", "sceKernelGetThreadId")
    entry = registry.BY_NAME[("ThreadManForUser", "sceKernelGetThreadId")]
    assert int(k.cpu.counters[0]) - before == entry.cost


def test_every_library_allegrex_answers_is_on_the_libraries_page():
    """docs/hle-libraries.md says what a program finds: it must name every library here."""
    from pathlib import Path
    page = (Path(__file__).resolve().parents[2] / "docs" / "hle-libraries.md").read_text()
    registry.load_all()
    assert sorted(lib for lib in registry.LIBRARIES if lib not in page) == []
