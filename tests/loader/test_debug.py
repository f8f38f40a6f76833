"""loader.debug: a stripped program takes its symbols and source lines from the
unstripped file of the same build, and from no other file."""

import io
import shutil
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

import loader
from allegrex.cpu.disasm import disassemble
from loader.debug import SymbolsMismatch, with_symbols
from loader.nids import nid_for_name
from tests.saxpy_app import APP, build_saxpy, source_line


@pytest.fixture(scope="module")
def saxpy(tmp_path_factory):
    return build_saxpy(tmp_path_factory.mktemp("debug"))


def _mnemonic(text: str) -> str:
    """First word of a source line or disassembly, labels (`1:`) skipped."""
    words = [w for w in text.replace(",", " ").split() if not w.endswith(":")]
    return words[0] if words else ""


def test_a_stripped_eboot_gets_the_symbols_of_its_elf(saxpy):
    eboot, elf = saxpy
    bare = loader.load(eboot)
    assert bare.symbols == [] and bare.lines is None and bare.abi == "o32"
    image = with_symbols(bare, elf)
    symtab = ELFFile(io.BytesIO(elf.read_bytes())).get_section_by_name(".symtab")  # pyelftools reads the same
    want = {s.name: (s["st_value"], s["st_size"]) for s in symtab.iter_symbols() if s["st_info"]["type"] == "STT_FUNC"}
    for name in ("main", "saxpy_c", "saxpy_vfpu", "saxpy_vfpu2"):
        sym = image.symbol_named(name)
        assert (sym.addr, sym.size) == want[name]
    assert image.segments == bare.segments  # the program is the EBOOT's, only named


def test_every_word_of_the_vfpu_kernels_has_the_line_it_was_written_on(saxpy):
    """VFPU lines become .word directives before assembly: each word's DWARF line must
    still be the line whose mnemonic our disassembler reads back from it."""
    image = with_symbols(loader.load(saxpy[0]), saxpy[1])
    for name in ("saxpy_vfpu", "saxpy_vfpu2"):
        sym = image.symbol_named(name)
        for addr in range(sym.addr, sym.addr + sym.size, 4):
            line = image.lines.at(addr)
            assert line.name == "saxpy.S" and line.file == str(APP / "saxpy.S")
            text = disassemble(image.read_u32(addr), addr)
            assert _mnemonic(line.text()) == _mnemonic(text), (hex(addr), line, text)


def test_c_lines_come_from_the_compiler(saxpy):
    image = with_symbols(loader.load(saxpy[0]), saxpy[1])
    sym = image.symbol_named("saxpy_c")
    lines = {image.lines.at(a).line for a in range(sym.addr, sym.addr + sym.size, 4)}
    body = source_line("saxpy.c", "y[i] += a * x[i];")
    assert body in lines and lines <= set(range(source_line("saxpy.c", "void saxpy_c"), body + 2))


def test_the_line_table_is_the_one_readelf_decodes(saxpy):
    """binutils' readelf, an independent DWARF reader, decodes the same rows (of rows at
    one address, the last one holds)."""
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("binutils' readelf is not installed (the mnemonic test above still checks the lines)")
    image = with_symbols(loader.load(saxpy[0]), saxpy[1])
    out = subprocess.run([readelf, "--debug-dump=decodedline", str(saxpy[1])], capture_output=True, text=True).stdout
    rows = {}
    for row in out.splitlines():
        parts = row.split()
        if len(parts) >= 3 and parts[2].startswith("0x"):
            rows[int(parts[2], 16)] = (parts[0], int(parts[1]) if parts[1].isdigit() else None)
    mine = {addr: row for addr, row in rows.items() if row[0] in ("saxpy.S", "saxpy.c")}
    for addr, (name, line) in mine.items():
        got = image.lines.at(addr)
        assert (got.name, got.line) == (name, line) if line is not None else got is None, hex(addr)
    assert len(mine) > 30


def test_symbols_of_another_program_are_refused(saxpy, tmp_path):
    from allegrex.sdk import build
    other = build([APP.parent / "hello" / "main.c"], tmp_path / "hello.elf", elf=True)
    with pytest.raises(SymbolsMismatch, match="does not belong to"):
        with_symbols(loader.load(saxpy[0]), other)


def test_symbols_of_another_build_of_the_same_program_are_refused(saxpy, tmp_path):
    _, elf3 = build_saxpy(tmp_path, reps=3)  # main differs (REPS), the kernels do not
    with pytest.raises(SymbolsMismatch, match=r"their code differs from 0x088"):
        with_symbols(loader.load(saxpy[0]), elf3)


def test_a_stripped_symbols_file_is_no_help(saxpy, tmp_path):
    with pytest.raises(loader.LoaderError, match="has no symbol table"):
        with_symbols(loader.load(saxpy[0]), saxpy[0])


def test_real_psp_gcc_release_and_its_elf(pspautotests):
    """pspautotests' demos ship stripped EBOOTs beside their ELFs (built by psp-gcc):
    morph's pair is one build, blit's two different ones."""
    demos = pspautotests / "demos"
    image = with_symbols(loader.load(demos / "morph.pbp"), demos / "morph.elf")
    symtab = ELFFile(io.BytesIO((demos / "morph.elf").read_bytes())).get_section_by_name(".symtab")
    named = {s.name for s in symtab.iter_symbols() if s.name and s["st_shndx"] != "SHN_UNDEF"
             and s["st_info"]["type"] not in ("STT_SECTION", "STT_FILE")}
    assert {s.name for s in image.symbols} == named and image.abi == "eabi32"
    assert image.lines is not None and image.lines.at(image.symbol_named("memset").addr).name == "memset.c"
    with pytest.raises(SymbolsMismatch, match="does not belong to"):
        with_symbols(loader.load(demos / "blit.pbp"), demos / "blit.elf")


def test_disasm_with_symbols_shows_functions_and_source_lines(saxpy, capsys):
    from allegrex.cli import main
    eboot, elf = saxpy
    assert main(["disasm", str(eboot), "--symbols", str(elf), "--function", "saxpy_vfpu2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "saxpy_vfpu2:"
    vscl = source_line("saxpy.S", "vscl.q  C110, C110, S000")
    at = out.index(f"    # saxpy.S:{vscl}  vscl.q  C110, C110, S000")
    assert out[at + 1].endswith("vscl.q C110, C110, S000")
    assert main(["disasm", str(eboot), "--function", "saxpy_vfpu2"]) != 0  # stripped: no such symbol
    assert "no symbol named 'saxpy_vfpu2'" in capsys.readouterr().err


def test_a_prx_module_takes_its_symbols_and_lines_at_the_base_it_is_loaded_at(tmp_path):
    """Our SDK's -g PRX: the module ships without DWARF, the full module lies beside it
    (x.debug.prx). Loaded at any base, the full module is relocated the same way, its
    code compared, and its symbols and line addresses moved by the base."""
    from allegrex.sdk import build
    module = APP.parent / "modules"
    prx = build([module / "greeter.c"], tmp_path / "greeter.prx", prx=True, exports=module / "greeter.exp",
                debug=True)
    full = tmp_path / "greeter.debug.prx"
    assert not ELFFile(io.BytesIO(prx.read_bytes())).has_dwarf_info() and full.exists()
    add_line = next(n for n, t in enumerate((module / "greeter.c").read_text().splitlines(), 1) if "greeter_add(" in t)
    found = {}
    for base in (0x08804000, 0x09A40100):
        image = with_symbols(loader.load(prx, base=base), full)
        sym = image.symbol_named("greeter_add")
        exported = {e.nid: e.addr for e in image.exports[1].functions}  # the shipped module's own export table
        assert sym.addr == exported[nid_for_name("greeter_add")]
        found[base] = sym.addr - base
        assert image.lines.at(sym.addr).line in range(add_line, add_line + 4)  # its definition or first statement
    assert found[0x08804000] == found[0x09A40100]


def test_run_takes_symbols_too(saxpy, capsys):
    from allegrex.cli import main
    eboot, elf = saxpy
    assert main(["run", str(eboot), "--symbols", str(elf), "--quiet"]) == 0
    assert "vfpu matches, vfpu2 matches" in capsys.readouterr().out
    assert main(["run", str(eboot), "--symbols", str(eboot), "--quiet"]) != 0
    err = capsys.readouterr().err
    assert "has no symbol table" in err and len(err.strip().splitlines()) == 1
