"""The GE command table: one row per opcode, fields that fit their argument, readable
decodings (known values from pspsdk's pspgu.h encodings)."""

from allegrex.ge import commands
from allegrex.ge.commands import KINDS, TABLE, describe, float24
from gelists import cmd, f24


def test_every_opcode_has_one_row_with_a_unique_name_and_a_known_kind():
    assert [c.op for c in TABLE] == list(range(256))
    names = [c.name for c in TABLE]
    assert len(set(names)) == 256
    assert all(c.kind in KINDS for c in TABLE)


def test_fields_fit_the_24_bit_argument_without_overlapping():
    for c in TABLE:
        used = 0
        for f in c.fields:
            mask = ((1 << f.width) - 1) << f.lo
            assert f.lo + f.width <= 24, (c.name, f.name)
            assert not used & mask, (c.name, f.name)
            used |= mask


def test_float24_arguments_are_the_top_bits_of_a_float():
    assert float24(0x3F8000) == 1.0
    assert float24(f24(-32767.5)) == -32767.5
    assert float24(f24(0.5)) == 0.5


def test_decoded_words_name_their_fields():
    assert describe(cmd("PRIM", (6 << 16) | 2)) == "PRIM count=2 type=sprites"
    assert describe(cmd("SIGNAL", (0x11 << 16) | 0x1234)) == "SIGNAL data=0x1234 behaviour=call"
    assert describe(cmd("VIEWPORTXSCALE", f24(240.0))) == "VIEWPORTXSCALE value=240"
    vtype = 2 | (7 << 2) | (3 << 7) | (1 << 23)  # pspgu: GU_TEXTURE_16BIT | GU_COLOR_8888 | GU_VERTEX_32BITF | 2D
    assert describe(cmd("VERTEXTYPE", vtype)).startswith("VERTEXTYPE tc=u16 color=8888 normal=none pos=float")
    assert describe(cmd("TEXFUNC", 0x10100 | 3)) == "TEXFUNC func=replace alpha=1 double=1"
    assert describe(0xFE000000) == "UNKNOWNFE"


def test_the_markdown_table_lists_every_named_command():
    text = commands.markdown()
    for c in TABLE:
        if not c.name.startswith("UNKNOWN"):
            assert f"| {c.name} |" in text


def test_docs_ge_md_holds_the_table_as_generated():
    from pathlib import Path
    page = Path(__file__).resolve().parents[2] / "docs" / "ge.md"
    assert commands.markdown() in page.read_text(encoding="utf-8")
