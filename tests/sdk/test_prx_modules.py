"""PRX modules built by the SDK: relocatable (the same code at any base), with the export
tables the module loader reads, and clear errors for bad export declarations."""

import pytest

import loader
from allegrex.sdk import SdkError, build
from allegrex.sdk.prx import parse_exports
from loader.nids import nid_for_name
from sdk_paths import APPS

MODULE = APPS / "modules"


@pytest.fixture(scope="module")
def greeter(out_dir):
    return build([MODULE / "greeter.c"], out_dir / "greeter.prx", prx=True, exports=MODULE / "greeter.exp")


def test_a_built_module_is_a_prx_exporting_its_libraries(greeter):
    image = loader.load(greeter)
    assert image.kind == "prx" and image.module_info.name == "Greeter" and image.module_info.version == (1, 2)
    syslib, greeter_lib = image.exports
    assert syslib.name is None and [e.nid for e in syslib.functions] == [nid_for_name("module_start"),
                                                                         nid_for_name("module_stop")]
    assert [e.nid for e in syslib.variables] == [nid_for_name("module_info")]
    assert greeter_lib.name == "Greeter"
    assert [e.nid for e in greeter_lib.functions] == [nid_for_name("greeter_argument"), nid_for_name("greeter_add")]
    assert image.entry == syslib.functions[0].addr  # the entry is module_start


def test_a_built_module_is_the_same_code_at_any_base(greeter):
    """Loaded at two bases, every word differs by the base difference exactly where a
    relocation moves it and nowhere else, and the export addresses move with the code."""
    low, high = loader.load(greeter, base=0x08900000), loader.load(greeter, base=0x09A40100)
    delta = high.base - low.base
    a, b = low.segments[0].data, high.segments[0].data
    assert len(a) == len(b)
    for (e1, e2) in zip(low.exports[1].functions, high.exports[1].functions):
        assert e2.addr - e1.addr == delta
    moved = sum(a[i:i + 4] != b[i:i + 4] for i in range(0, len(a), 4))
    assert 0 < moved < len(a) // 4  # some words are addresses, most are not


def test_bad_export_declarations_are_refused_with_the_line(tmp_path):
    with pytest.raises(SdkError, match="exports:2"):
        parse_exports("[Lib]\nnot a name\n")
    with pytest.raises(SdkError, match="before any"):
        parse_exports("orphan\n")
    with pytest.raises(SdkError, match="declared twice"):
        parse_exports("[Lib]\nf\n[Lib]\ng\n")
    src = tmp_path / "nostart.c"
    src.write_text("int helper(void) { return 1; }\n")
    with pytest.raises(SdkError, match="module_start"):
        build([src], tmp_path / "x.prx", prx=True)
    with pytest.raises(SdkError, match="PRX"):
        build([src], tmp_path / "x.pbp", exports=MODULE / "greeter.exp")
