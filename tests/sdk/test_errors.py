"""Bad input gets one clear message: the compiler's own for C errors, the function's
name for an unknown import (found before linking), never a traceback from the CLI."""

import subprocess
import sys

import pytest

from allegrex.sdk import CompileError, SdkError, UnknownImportError, build
from allegrex.sdk.imports import count_arg_words, parse_imports
from sdk_paths import ROOT


def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "allegrex", "cc", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_compile_error_is_the_compilers_message(tmp_path):
    src = tmp_path / "broken.c"
    src.write_text("int main(void)\n{\n    return undefined_variable;\n}\n")
    with pytest.raises(CompileError) as err:
        build([src], tmp_path / "out.pbp")
    assert "broken.c:3" in str(err.value) and "undefined_variable" in str(err.value)


def test_compile_error_from_the_command_line(tmp_path):
    src = tmp_path / "broken.c"
    src.write_text("int main(void) { return 1 +; }\n")
    result = cli(src, "-o", tmp_path / "EBOOT.PBP")
    assert result.returncode != 0
    assert "broken.c:1" in result.stderr and "error" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "EBOOT.PBP").exists()


def test_unknown_import_is_reported_by_name_before_linking(tmp_path):
    src = tmp_path / "unknown.c"
    src.write_text("extern int sceMadeUpFunction(int);\nint main(void) { return sceMadeUpFunction(1); }\n")
    with pytest.raises(UnknownImportError) as err:
        build([src], tmp_path / "out.pbp")
    message = str(err.value)
    assert "sceMadeUpFunction" in message and "imports.txt" in message and "unknown.c" in message
    result = cli(src, "-o", tmp_path / "EBOOT.PBP")
    assert result.returncode != 0 and "sceMadeUpFunction" in result.stderr and "Traceback" not in result.stderr


def test_missing_source_and_bad_options(tmp_path):
    with pytest.raises(SdkError, match="not found"):
        build([tmp_path / "nope.c"], tmp_path / "out.pbp")
    src = tmp_path / "ok.c"
    src.write_text("int main(void) { return 0; }\n")
    with pytest.raises(SdkError, match="optimisation level"):
        build([src], tmp_path / "out.pbp", opt="-O9")
    result = cli(tmp_path / "nope.c", "-o", tmp_path / "x")
    assert result.returncode != 0 and "not found" in result.stderr and "Traceback" not in result.stderr


def test_heap_size_set_twice_is_refused(tmp_path):
    src = tmp_path / "heap.c"
    src.write_text('#include <pspsdk.h>\nPSP_HEAP_SIZE_KB(100);\nint main(void) { return 0; }\n')
    with pytest.raises(SdkError, match="heap size is set twice"):
        build([src], tmp_path / "out.pbp", heap_kb=200)


def test_import_list_errors_name_the_line():
    with pytest.raises(SdkError, match="imports.txt:2"):
        parse_imports("[Lib 0x40010000]\nthis is not a prototype\n")
    with pytest.raises(SdkError, match="before any"):
        parse_imports("int sceX(int a);\n")
    with pytest.raises(SdkError, match="argument words"):
        parse_imports("[Lib 0x40010000]\nint sceWide(long long a, long long b, long long c, long long d, int e);\n")


@pytest.mark.parametrize("params, words", [
    ("void", 0), ("", 0), ("int a", 1), ("SceUID fd, SceOff offset, int whence", 5),
    ("SceOff a", 2), ("int a, SceInt64 *p", 2), ("const char *n, SceKernelThreadEntry e, int p, int s, SceUInt a, void *o", 6)])
def test_argument_words_follow_o32_pairing(params, words):
    assert count_arg_words(params) == words


def test_bad_vfpu_line_names_file_and_line(tmp_path):
    src = tmp_path / "bad.S"
    src.write_text("    .text\n    .globl f\nf:\n    vdot.q  S020, C000\n    jr $ra\n    nop\n")
    with pytest.raises(SdkError) as err:
        build([src], tmp_path / "out.pbp")
    assert "bad.S" in str(err.value) and "line 4" in str(err.value)
