"""sceCcc against Python's codecs: the Shift JIS <-> JIS arithmetic over every JIS X 0208
character, and whole-string conversions through tables built from euc_jp (JIS + 0x8080);
and the read-only system registry (sceReg)."""

import struct

from allegrex.hle import ccc, codes
from helpers import call, make_kernel

JIS2UCS, UCS2JIS, SRC, DST = 0x08A00000, 0x08A20000, 0x08A40000, 0x08A50000
TEXT = "Hello, ひらがな カタカナ 漢字 ｶﾅ!"


def jis_characters():
    """(JIS code, character) for every assigned JIS X 0208 code Python knows."""
    for row in range(0x21, 0x7F):
        for col in range(0x21, 0x7F):
            try:
                yield (row << 8) | col, bytes([row | 0x80, col | 0x80]).decode("euc_jp")
            except UnicodeDecodeError:
                continue


def test_sjis_jis_arithmetic_matches_python_for_every_jis_character():
    checked = 0
    for code, char in jis_characters():
        try:
            sjis = char.encode("shift_jis")
        except UnicodeEncodeError:
            continue  # characters Python's shift_jis maps elsewhere (a few symbols)
        if len(sjis) != 2:
            continue
        assert ccc.jis_to_sjis(code) == sjis, hex(code)
        assert ccc.sjis_to_jis(sjis[0], sjis[1]) == code, hex(code)
        checked += 1
    assert checked > 6000


def _tables(k):
    jis2ucs, ucs2jis = [0] * 0x10000, [0] * 0x10000
    for code in list(range(0x20, 0x7F)) + list(range(0xA1, 0xE0)):
        char = bytes([code]).decode("shift_jis")
        jis2ucs[code], ucs2jis[ord(char)] = ord(char), code
    for code, char in jis_characters():
        if ord(char) < 0x10000 and not ucs2jis[ord(char)]:
            jis2ucs[code], ucs2jis[ord(char)] = ord(char), code
    k.memory.write(JIS2UCS, struct.pack("<65536H", *jis2ucs))
    k.memory.write(UCS2JIS, struct.pack("<65536H", *ucs2jis))
    assert call(k, "sceCcc", "sceCccSetTable", JIS2UCS, UCS2JIS) == 0


def test_string_conversions_agree_with_python():
    k = make_kernel()
    _tables(k)
    k.memory.write(SRC, TEXT.encode("shift_jis") + b"\0")
    assert call(k, "sceCcc", "sceCccSJIStoUTF8", DST, 256, SRC) == len(TEXT)
    assert k.memory.read_cstring(DST).decode("utf-8") == TEXT
    assert call(k, "sceCcc", "sceCccSJIStoUTF16", DST, 256, SRC) == len(TEXT)
    assert k.memory.read(DST, 2 * len(TEXT) + 2) == TEXT.encode("utf-16-le") + b"\0\0"
    k.memory.write(SRC, TEXT.encode("utf-16-le") + b"\0\0")
    assert call(k, "sceCcc", "sceCccUTF16toSJIS", DST, 256, SRC) == len(TEXT)
    assert k.memory.read_cstring(DST) == TEXT.encode("shift_jis")
    k.memory.write(SRC, TEXT.encode("utf-8") + b"\0")
    assert call(k, "sceCcc", "sceCccUTF8toUTF16", DST, 256, SRC) == len(TEXT)
    assert call(k, "sceCcc", "sceCccStrlenUTF8", SRC) == len(TEXT)


def test_output_stops_where_the_next_character_and_nul_no_longer_fit():
    k = make_kernel()
    k.memory.write(SRC, "aé漢".encode("utf-8") + b"\0")
    k.memory.write(DST, b"\xcc" * 8)
    assert call(k, "sceCcc", "sceCccUTF8toUTF16", DST, 5, SRC) == 1  # 5 bytes: 2 units, one for the NUL
    assert k.memory.read(DST, 6) == b"a\0\0\0\xcc\xcc"
    k.memory.write(SRC, "é\ud800".encode("utf-16-le", "surrogatepass") + b"A\0\0\0")  # a lone surrogate ends it
    assert call(k, "sceCcc", "sceCccUTF16toUTF8", DST, 16, SRC) == 1
    assert k.memory.read_cstring(DST).decode("utf-8") == "é"


def test_registry_keys_read_back_with_their_types_and_sizes():
    from allegrex.hle import reg
    k = make_kernel()
    k.memory.write(SRC, b"/CONFIG/SYSTEM/XMB\0")
    assert call(k, "sceReg", "sceRegOpenCategory", 0, SRC, 2, DST) == 0
    handle = k.memory.read_u32(DST)
    assert call(k, "sceReg", "sceRegGetKeysNum", handle, DST) == 0
    assert k.memory.read_u32(DST) == len(reg.TREE["CONFIG"]["SYSTEM"]["XMB"])
    k.memory.write(SRC, b"language\0")
    assert call(k, "sceReg", "sceRegGetKeyInfoByName", handle, SRC, DST, DST + 4) == 0
    assert (k.memory.read_u32(DST), k.memory.read_u32(DST + 4)) == (reg.TYPE_INT, 4)
    assert call(k, "sceReg", "sceRegGetKeyValueByName", handle, SRC, DST + 8, 4) == 0
    assert k.memory.read_u32(DST + 8) == 1  # English
    k.memory.write(SRC, b"nothing\0")
    assert call(k, "sceReg", "sceRegGetKeyInfoByName", handle, SRC, DST, DST + 4) == -1
    k.memory.write(SRC, b"/CONFIG/NOPE\0")
    assert call(k, "sceReg", "sceRegOpenCategory", 0, SRC, 2, DST) == codes.REG_CATEGORY_NOT_FOUND - (1 << 32)
    assert k.memory.read_u32(DST) == 0xFFFFFFFF
