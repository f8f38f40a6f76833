"""Character code conversion (sceCcc): UTF-8, UTF-16 and Shift JIS strings. Shift JIS goes
through the program's own tables (sceCccSetTable: 64 Ki UCS-2 values indexed by JIS code,
and the reverse), as on the PSP, where the tables come from the font library.

Each conversion writes whole characters while one more still leaves room for the
terminating NUL, writes the NUL if it fits, and returns the characters converted; it
stops at the first malformed character (measured: pspautotests ccc/convertstring)."""

from allegrex.hle.registry import Ptr, U32, hle

LIB = "sceCcc"
TABLE_ENTRIES = 0x10000
STRING_LIMIT = 0x10000  # characters read at most from one source string


class CccState:
    """The program's conversion tables and error characters (kernel.ccc)."""

    def __init__(self, kernel):
        self.jis2ucs = 0  # guest addresses of the program's tables (0: none set)
        self.ucs2jis = 0
        self.error_char = {"utf8": 0, "utf16": 0, "sjis": 0}  # written for a character with no mapping


# --- decoders: yield code points until the NUL; a malformed character ends the string ---
def _utf8_length(lead: int) -> int:
    if lead < 0x80:
        return 1
    for low, high, length in ((0xC2, 0xDF, 2), (0xE0, 0xEF, 3), (0xF0, 0xF4, 4)):
        if low <= lead <= high:
            return length
    return 0


def decode_utf8(memory, addr: int):
    for _ in range(STRING_LIMIT):
        lead = memory.read_u8(addr)
        length = _utf8_length(lead)
        if lead == 0 or length == 0:
            return
        try:
            char = memory.read(addr, length).decode("utf-8")
        except UnicodeDecodeError:
            return
        yield ord(char)
        addr += length


def decode_utf16(memory, addr: int):
    for _ in range(STRING_LIMIT):
        unit = memory.read_u16(addr)
        if unit == 0 or 0xDC00 <= unit <= 0xDFFF:
            return
        if 0xD800 <= unit <= 0xDBFF:
            low = memory.read_u16(addr + 2)
            if not 0xDC00 <= low <= 0xDFFF:
                return
            yield 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            addr += 4
            continue
        yield unit
        addr += 2


def _sjis_is_lead(byte: int) -> bool:
    return 0x81 <= byte <= 0x9F or 0xE0 <= byte <= 0xFC


def sjis_to_jis(lead: int, trail: int) -> int:
    """The JIS X 0208 code of a two-byte Shift JIS character."""
    row = (lead - (0x81 if lead < 0xE0 else 0xC1)) * 2
    if trail >= 0x9F:
        return ((row + 0x22) << 8) | (trail - 0x7E)
    return ((row + 0x21) << 8) | (trail - (0x1F if trail < 0x7F else 0x20))


def jis_to_sjis(code: int) -> bytes:
    if code < 0x100:
        return bytes([code])
    high, low = code >> 8, code & 0xFF
    lead = ((high + 1) >> 1) + (0x70 if high <= 0x5E else 0xB0)
    if high & 1:
        trail = low + 0x1F + (1 if low >= 0x60 else 0)
    else:
        trail = low + 0x7E
    return bytes([lead, trail])


def decode_sjis_codes(memory, addr: int):
    """JIS codes of a Shift JIS string (single bytes are their own code)."""
    for _ in range(STRING_LIMIT):
        lead = memory.read_u8(addr)
        if lead == 0:
            return
        if not _sjis_is_lead(lead):
            if not (lead < 0x80 or 0xA1 <= lead <= 0xDF):  # ASCII and half-width kana only
                return
            yield lead
            addr += 1
            continue
        trail = memory.read_u8(addr + 1)
        if not (0x40 <= trail <= 0xFC and trail != 0x7F):
            return
        yield sjis_to_jis(lead, trail)
        addr += 2


# --- encoders ---
def encode_utf8(code: int) -> bytes:
    return chr(code).encode("utf-8", "surrogatepass")


def encode_utf16(code: int) -> bytes:
    return chr(code).encode("utf-16-le", "surrogatepass")


def _table(k, base: int, index: int) -> int:
    return k.memory.read_u16(base + 2 * (index & 0xFFFF))


def _ucs_to_jis(k, code: int) -> int:
    s = k.ccc
    jis = _table(k, s.ucs2jis, code) if code < TABLE_ENTRIES else 0
    return jis or s.error_char["sjis"]


def _jis_to_ucs(k, code: int, error: str) -> int:
    s = k.ccc
    return _table(k, s.jis2ucs, code) or s.error_char[error]


def _convert(k, dst: int, size: int, codes, encode, unit: int) -> int:
    """Write encode(c) for each code while one more NUL still fits in `size` bytes."""
    if not dst or not k.memory.is_valid(dst):
        return 0
    end = dst + size - size % unit
    count = 0
    for code in codes:
        data = encode(code)
        if dst + len(data) >= end:
            break
        k.memory.write(dst, data)
        dst += len(data)
        count += 1
    if dst < end:
        k.memory.write(dst, bytes(unit))
    return count


def _sources(k, src: int, decoder):
    if not src or not k.memory.is_valid(src):
        return None
    return decoder(k.memory, src)


@hle(LIB)
def sceCccSetTable(k, jis2ucs: Ptr, ucs2jis: Ptr) -> int:
    s = k.ccc
    s.jis2ucs, s.ucs2jis = jis2ucs, ucs2jis
    return 0


def _conversion(decoder, encoder, unit: int, needs: str | None):
    """A conversion call: decoder reads the source, encoder(k, code) gives the bytes out;
    `needs` names the table it needs (without it nothing is converted)."""
    def call(k, dst: Ptr, size: U32, src: Ptr) -> int:
        if needs and not getattr(k.ccc, needs):
            k.warn_once(("ccc", needs), "sceCcc: Shift JIS conversion before sceCccSetTable")
            return 0
        codes = _sources(k, src, decoder)
        if codes is None:
            return 0
        return _convert(k, dst, size, codes, lambda code: encoder(k, code), unit)
    return call


def _to_sjis(k, code: int) -> bytes:
    return jis_to_sjis(_ucs_to_jis(k, code))


CONVERSIONS = {
    "sceCccUTF8toUTF16": (decode_utf8, lambda k, c: encode_utf16(c), 2, None),
    "sceCccUTF8toSJIS": (decode_utf8, _to_sjis, 1, "ucs2jis"),
    "sceCccUTF16toUTF8": (decode_utf16, lambda k, c: encode_utf8(c), 1, None),
    "sceCccUTF16toSJIS": (decode_utf16, _to_sjis, 1, "ucs2jis"),
    "sceCccSJIStoUTF8": (decode_sjis_codes, lambda k, c: encode_utf8(_jis_to_ucs(k, c, "utf8")), 1, "jis2ucs"),
    "sceCccSJIStoUTF16": (decode_sjis_codes, lambda k, c: encode_utf16(_jis_to_ucs(k, c, "utf16")), 2, "jis2ucs"),
}
for _name, (_decoder, _encoder, _unit, _needs) in CONVERSIONS.items():
    hle(LIB, name=_name)(_conversion(_decoder, _encoder, _unit, _needs))


def _strlen(decoder):
    def call(k, src: Ptr) -> int:
        codes = _sources(k, src, decoder)
        return 0 if codes is None else sum(1 for _ in codes)
    return call


for _name, _decoder in (("UTF8", decode_utf8), ("UTF16", decode_utf16), ("SJIS", decode_sjis_codes)):
    hle(LIB, name=f"sceCccStrlen{_name}")(_strlen(_decoder))


def _set_error_char(which: str):
    def call(k, char: U32) -> int:
        s = k.ccc
        previous, s.error_char[which] = s.error_char[which], char & 0xFFFF
        return previous
    return call


for _name, _which in (("UTF8", "utf8"), ("UTF16", "utf16"), ("SJIS", "sjis")):
    hle(LIB, name=f"sceCccSetErrorChar{_name}")(_set_error_char(_which))


@hle(LIB)
def sceCccUCStoJIS(k, code: U32, alt: U32) -> int:
    s = k.ccc
    jis = _table(k, s.ucs2jis, code) if s.ucs2jis and code < TABLE_ENTRIES else 0
    return jis or alt & 0xFFFF


@hle(LIB)
def sceCccJIStoUCS(k, code: U32, alt: U32) -> int:
    s = k.ccc
    ucs = _table(k, s.jis2ucs, code) if s.jis2ucs else 0
    return ucs or alt & 0xFFFF
