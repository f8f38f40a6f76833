"""Assembler and disassembler: both read vfpu/table.py, so they must invert each other for
every instruction form, and agree with encodings produced by the real toolchain."""

import random
import struct

import pytest

from vfpu.asm import VfpuAsmError, assemble, rewrite_vfpu_lines
from vfpu.disasm import disassemble
from vfpu.table import BY_NAME, ROWS, find

SAMPLES_PER_FORM = 40


def random_words(row, rng, count):
    free = ~row.mask & 0xFFFFFFFF
    for _ in range(count):
        word = row.match | (rng.getrandbits(32) & free)
        if find(word) is row:
            yield word


@pytest.mark.parametrize("row", ROWS, ids=[r.text_name for r in ROWS])
def test_round_trip_every_form(row):
    rng = random.Random(row.id)
    seen = 0
    for word in random_words(row, rng, SAMPLES_PER_FORM):
        text = disassemble(word)
        assert text.split()[0] == row.text_name
        assert assemble(text) == word, text
        assert disassemble(assemble(text)) == text
        seen += 1
    assert seen > 0


@pytest.mark.parametrize("text,word", [
    ("vnop", 0xFFFF0000),  # fixed encodings given by vfpu-docs
    ("vsync", 0xFFFF0320),
    ("vflush", 0xFFFF040D),
    ("vc2i.q C010, S000", 0xD0398081),  # hand-encoded in pspautotests convert_asm.S
    ("vuc2i.q C010, S000", 0xD0388081),
    ("vadd.q C000, C010, C020", 0x60000000 | 2 << 16 | 0x8000 | 1 << 8 | 0x80),
    ("lv.q C000, 16($a0)", 0xD8000000 | 4 << 21 | 16),
    ("sv.q R001, 0($sp), wb", 0xF8000000 | 29 << 21 | 1 << 16 | 2 | 1),
    ("mfv $t0, S001", 0x48600000 | 8 << 16 | 32),
    ("mtvc $a1, $131", 0x48E00000 | 5 << 16 | 131),
    ("vpfxs [x, y, z, w]", 0xDC0000E4),
    ("vpfxd [0:1, , -1:1, m]", 0xDE000000 | 1 | 3 << 4 | 1 << 11),
])
def test_known_encodings(text, word):
    assert assemble(text) == word
    assert disassemble(word) == text


@pytest.mark.parametrize("text,canonical", [
    ("VADD.Q c000 , c010,c020", "vadd.q C000, C010, C020"),
    ("lv.q C000.q, 12(a0)", "lv.q C000, 12($a0)"),
    ("lv.s s001, -4($4)", "lv.s S001, -4($a0)"),
    ("vpfxs -w, -z, -y, -x", "vpfxs [-w, -z, -y, -x]"),
    ("vpfxt 1/3, |y|, |z|, |x|", "vpfxt [1/3, |y|, |z|, |x|]"),
    ("vrot.q R000, s601, [c, s, s, s]", "vrot.q R000, S601, [c, s, s, s]"),
    ("vcst.s S000, pi", "vcst.s S000, VFPU_PI"),
    ("vfim.s S500, 0.011111111111111112", "vfim.s S500, 0.0111083984375"),
    ("viim.s S002, -32768", "viim.s S002, -32768"),
    ("vmtvc VFPU_RCX0, S000", "vmtvc $136, S000"),
])
def test_accepted_spellings_print_canonically(text, canonical):
    assert disassemble(assemble(text)) == canonical


@pytest.mark.parametrize("text,why", [
    ("vadd.q C000, C010", "3 operand"),
    ("vadd.x C000, C010, C020", "unknown"),
    ("vdot.q C000, C010, C020", "single"),
    ("lv.q C000, 3($a0)", "multiple of 4"),
    ("lv.q C002, 0($a0)", "0-63"),
    ("vcmp.q XX, C000, C010", "condition"),
    ("vpfxs [x, q, z, w]", "lane"),
    ("vmmul.q M000, M011, M100", "matrix"),
])
def test_bad_text_gives_a_clear_error(text, why):
    with pytest.raises(VfpuAsmError, match=why):
        assemble(text)


def test_non_vfpu_words_are_not_claimed():
    assert disassemble(0x00000000) is None  # nop (sll)
    assert disassemble(0x8FBF0010) is None  # lw ra, 16(sp)


def test_rewrite_keeps_labels_comments_and_other_lines():
    src = (
        "#include <foo.h>\n"
        ".text\n"
        "dot:  lv.q C000, 0(a0)   # the first vector\n"
        "    lv.q C010, 0($a1); vdot.q S020, C000, C010\n"
        "    jr $ra\n"
        "    sv.s S020, 0($a2)  // result\n"
    )
    out = rewrite_vfpu_lines(src).splitlines()
    assert out[0] == "#include <foo.h>" and out[1] == ".text" and out[4] == "    jr $ra"
    assert out[2].startswith("dot:  .word 0x%08x" % assemble("lv.q C000, 0($a0)"))
    assert out[2].endswith("# the first vector")
    assert f".word 0x{assemble('vdot.q S020, C000, C010'):08x}" in out[3]
    assert out[5].endswith("// result")


def test_rewrite_error_names_the_line():
    with pytest.raises(VfpuAsmError, match="line 2"):
        rewrite_vfpu_lines("nop\nvadd.q C000, C010, XYZ\n")


def test_rewrite_branch_to_label_leaves_the_offset_to_the_assembler():
    out = rewrite_vfpu_lines("bvt 3, done\n")
    assert out.startswith(".word (0x%08x + (((done) - . - 4) >> 2 & 0xffff))" % (BY_NAME["bvt"].match | 3 << 18))


# ---------------------------------------------------------------- against the real toolchain

def text_words(prx_path):
    elftools = pytest.importorskip("elftools.elf.elffile")
    with open(prx_path, "rb") as fh:
        elf = elftools.ELFFile(fh)
        words = []
        for sec in elf.iter_sections():
            if sec["sh_flags"] & 4:  # executable
                data = sec.data()
                words += struct.unpack_from(f"<{len(data) // 4}I", data)
    return words


VFPU_MAJOR = {0x18, 0x19, 0x1B, 0x34, 0x37, 0x3C, 0x3F, 0x32, 0x35, 0x36, 0x3A, 0x3D, 0x3E}


def test_every_vfpu_word_in_the_conformance_programs_decodes(autotests):
    """The pspautotests .prx were built by the PSP toolchain: every word in a VFPU opcode
    space must decode, and re-assemble to itself."""
    count = 0
    for prx in sorted(autotests.glob("*.prx")):
        for w in text_words(prx):
            if w >> 26 in VFPU_MAJOR or (w >> 21) in (0x243, 0x247) or (w >> 21) == 0x248:
                text = disassemble(w)
                assert text is not None, f"{prx.name}: 0x{w:08x} not decoded"
                assert assemble(text) == w, text
                count += 1
    assert count > 1000


@pytest.mark.parametrize("name", ["colors", "convert"])
def test_assembling_the_test_sources_gives_the_toolchains_words(autotests, name):
    """Our .S filter on pspautotests' VFPU assembly gives words the real assembler put
    into the same program."""
    words = set(text_words(autotests / f"{name}.prx"))
    out = rewrite_vfpu_lines((autotests / f"{name}_asm.S").read_text())
    ours = [int(line.split(".word")[1].split()[0], 16) for line in out.splitlines() if ".word 0x" in line
            and "/*" in line]
    assert len(ours) > 10
    assert all(w in words for w in ours), [hex(w) for w in ours if w not in words]


# ---------------------------------------------------------------- against the reference table

def yaml_words(doc):
    """(mnemonic.size, word) for each instruction of inst-vfpu-desc.yaml with every variable
    field zero (control register 128), built from its encoding template."""
    yield_list = []
    encodings = doc["encodings"]
    for name, inst in doc["instructions"].items():
        enc = encodings[inst["encoding"]]
        template, fields = enc["encoding"], enc["fields"]
        flavors = inst.get("flavors") or ""
        for flavor in flavors or [""]:
            n = "_sptq".index(flavor) if flavor else 0
            bits = []
            values = {}
            for letter in dict.fromkeys(template):
                if letter in "01":
                    continue
                field = fields[letter]
                width = template.count(letter)
                if field in inst:
                    v = inst[field]
                    v = int(v, 2) if isinstance(v, str) else int(v)
                elif field in ("sizehi", "sizelo"):
                    code = n - 1
                    v = (code >> 1) & 1 if field == "sizehi" else code & 1
                elif field in ("sizehi-m1", "sizelo-m1"):
                    code = n - 2
                    v = (code >> 1) & 1 if field == "sizehi-m1" else code & 1
                elif field == "ccreg":
                    v = 128
                else:
                    v = 0
                values[letter] = format(v, f"0{width}b")
            pos = {k: 0 for k in values}
            for ch in template:
                if ch in "01":
                    bits.append(ch)
                else:
                    bits.append(values[ch][pos[ch]])
                    pos[ch] += 1
            yield_list.append((name + (f".{flavor}" if flavor else ""), int("".join(bits), 2)))
    return yield_list


ALIASES = {"vuc2ifs": "vuc2i"}


def test_table_agrees_with_the_reference_yaml(vfpu_docs):
    yaml = pytest.importorskip("yaml")
    doc = yaml.safe_load((vfpu_docs / "inst-vfpu-desc.yaml").read_text())
    checked = 0
    for text_name, word in yaml_words(doc):
        base, _, size = text_name.partition(".")
        ours = ALIASES.get(base, base) + (f".{size}" if size else "")
        row = find(word)
        assert row is not None, f"{text_name}: 0x{word:08x} not decoded"
        assert row.text_name == ours, f"{text_name}: 0x{word:08x} decodes as {row.text_name}"
        checked += 1
    assert checked > 250
