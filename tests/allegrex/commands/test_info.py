"""`allegrex info`: what a user sees about a PSP executable, as text and as JSON."""

import json

from allegrex.cli import main
from loader.pack import pack_eboot
from tests.loader import samples


def run_info(capsys, *args):
    assert main(["info", *map(str, args)]) == 0
    return capsys.readouterr().out


def test_text_report_of_a_prx(tmp_path, capsys):
    path = tmp_path / "sample.prx"
    path.write_bytes(samples.sample_prx())
    out = run_info(capsys, path)
    lines = out.splitlines()
    assert lines[0] == "sample.prx: PRX module (relocatable), bare ELF file"
    assert "  name        TestPrx" in lines and "  version     1.2" in lines
    assert "  attributes  0x0000 (user mode)" in lines
    assert "  entry       0x08804040  <_start>" in lines and "  gp          0x0880c400" in lines
    assert any(line.startswith("  0x08804000-0x08804400  r-x") for line in lines)
    assert any(line.startswith("  0x08804400-0x08814400  rw-") and "65024 zero-filled" in line for line in lines)
    assert "imports: 2 libraries, 3 functions" in lines
    assert "  IoFileMgrForUser  (version 0x0011, attributes 0x4001)" in lines
    assert any(line.split()[:4] == ["sceIoOpen", "function", "0x08804340", "NID"] for line in lines)
    assert any("unknown NID 0xdeadbeef" in line for line in lines)
    assert any("unknown NID 0x12345678" in line and "variable" in line for line in lines)
    assert any(line.split()[:2] == ["module_start", "function"] for line in lines)
    assert "PARAM.SFO" not in out


def test_text_report_of_a_pbp_lists_sfo_and_sections(tmp_path, capsys):
    path = tmp_path / "EBOOT.PBP"
    path.write_bytes(pack_eboot(samples.sample_elf(), "Hello PSP", large_memory=True))
    lines = run_info(capsys, path).splitlines()
    assert lines[0] == "EBOOT.PBP: static ELF executable, inside an EBOOT.PBP"
    assert "  TITLE           'Hello PSP'" in lines and "  MEMSIZE         1 (0x1)" in lines
    data_psp = [line for line in lines if line.startswith("  DATA.PSP")]
    assert data_psp == [f"  DATA.PSP    {len(samples.sample_elf()):>10} bytes"]
    assert "  name        StaticElf" in lines


def test_json_report_for_scripts(tmp_path, capsys):
    path = tmp_path / "sample.prx"
    path.write_bytes(samples.sample_prx())
    report = json.loads(run_info(capsys, path, "--json"))
    assert report["kind"] == "prx" and report["container"] == "elf"
    assert report["module"] == {"name": "TestPrx", "attributes": 0, "version": [1, 2], "kernel": False}
    assert report["entry"] == 0x08804040 and report["entry_symbol"] == "_start"
    assert [lib["library"] for lib in report["imports"]] == ["IoFileMgrForUser", "MyVarLib"]
    assert report["imports"][0]["functions"][1] == {"nid": 0x810C4BC3, "name": "sceIoClose", "stub": 0x08804348}
    assert [lib["library"] for lib in report["exports"]] == ["syslib", "MyLib"]
    assert report["sfo"] is None and report["symbols"] == 4


def test_real_module_report_reads_well(pspautotests, capsys):
    out = run_info(capsys, pspautotests / "tests/cpu/cpu_alu/cpu_alu.prx")
    assert "  name        TESTMODULE" in out
    assert "  IoFileMgrForUser  (version 0x0000, attributes 0x4001)" in out
    assert "unknown NID" not in out
    assert "<module_start>" in out  # no symbol table: the entry is named by the syslib export


def test_overlapping_import_entries_give_each_stub_the_library_the_loader_links(tmp_path, capsys):
    """sceCtrl's entry declares three functions but owns one stub; the two others are
    sceDisplay's, which the module loader writes after it (later entries win)."""
    path = tmp_path / "overlap.elf"
    path.write_bytes(samples.overlapping_imports_elf())
    lines = run_info(capsys, path).splitlines()
    assert "imports: 2 libraries, 3 functions" in lines
    ctrl = lines.index("  sceCtrl  (version 0x0000, attributes 0x4001)")
    assert lines[ctrl + 1].split()[:3] == ["sceCtrlReadBufferPositive", "function", "0x089000c0"]
    assert lines[ctrl + 2] == "    (declares 2 more function(s) whose stubs belong to sceDisplay)"
    assert [line.split()[0] for line in lines[ctrl + 4:ctrl + 6]] == ["sceDisplaySetMode", "sceDisplayWaitVblankStart"]
    report = json.loads(run_info(capsys, path, "--json"))
    assert [f["stub"] for f in report["imports"][1]["functions"]] == [0x089000C8, 0x089000D0]
    assert [o["owner"] for o in report["imports"][0]["overlapped"]] == ["sceDisplay", "sceDisplay"]
