"""The lab's snippet assembler: plain MIPS words checked against an independent
disassembler (Capstone), labels, pseudo-instructions, data directives and errors."""

import struct

import pytest

from vfpu.lab_asm import DATA_BASE, TEXT_BASE, LabAsmError, assemble_snippet

capstone = pytest.importorskip("capstone")

# (source line, what Capstone prints for it: mnemonic and operands)
CASES = [
    ("addiu $a0, $a1, -4", "addiu $a0, $a1, -4"),
    ("addu $t0, $t1, $t2", "addu $t0, $t1, $t2"),
    ("subu $v0, $a0, $a1", "subu $v0, $a0, $a1"),
    ("ori $t3, $zero, 0xbeef", "ori $t3, $zero, 0xbeef"),
    ("andi $s0, $s1, 255", "andi $s0, $s1, 0xff"),
    ("lui $at, 0x1234", "lui $at, 0x1234"),
    ("sll $t0, $t1, 3", "sll $t0, $t1, 3"),
    ("srav $t0, $t1, $t2", "srav $t0, $t1, $t2"),
    ("slt $v1, $a2, $a3", "slt $v1, $a2, $a3"),
    ("mult $a0, $a1", "mult $a0, $a1"),
    ("mflo $t9", "mflo $t9"),
    ("lw $ra, 16($sp)", "lw $ra, 0x10($sp)"),
    ("sw $s8, -8($sp)", "sw $fp, -8($sp)"),
    ("lbu $t0, 3($a0)", "lbu $t0, 3($a0)"),
    ("sh $t1, 2($a0)", "sh $t1, 2($a0)"),
    ("lwc1 $f2, 8($a0)", "lwc1 $f2, 8($a0)"),
    ("add.s $f0, $f1, $f2", "add.s $f0, $f1, $f2"),
    ("mul.s $f4, $f4, $f6", "mul.s $f4, $f4, $f6"),
    ("mfc1 $t0, $f12", "mfc1 $t0, $f12"),
    ("ext $t0, $t1, 4, 8", "ext $t0, $t1, 4, 8"),
    ("ins $t0, $t1, 4, 8", "ins $t0, $t1, 4, 8"),
    ("seb $v0, $a0", "seb $v0, $a0"),
    ("jr $ra", "jr $ra"),
]


def capstone_text(word, addr):
    md = capstone.Cs(capstone.CS_ARCH_MIPS, capstone.CS_MODE_MIPS32 + capstone.CS_MODE_LITTLE_ENDIAN)
    (ins,) = list(md.disasm(struct.pack("<I", word), addr))
    return f"{ins.mnemonic} {ins.op_str}".strip()


@pytest.mark.parametrize("line, shown", CASES)
def test_plain_mips_words_match_capstone(line, shown):
    prog = assemble_snippet(line)
    assert capstone_text(prog.words[0], TEXT_BASE) == shown


def test_branches_and_jumps_reach_their_labels():
    prog = assemble_snippet("top: addiu $t0, $t0, -1\n bne $t0, $zero, top\n nop\n j top\n nop\n"
                            " beqz $t0, out\n nop\nout: nop")
    texts = [capstone_text(w, TEXT_BASE + 4 * i) for i, w in enumerate(prog.words)]
    assert texts[1] == f"bnez $t0, 0x{TEXT_BASE:x}"  # Capstone shows bne x, $zero as bnez
    assert texts[3] == f"j 0x{TEXT_BASE:x}"
    assert texts[5] == f"beqz $t0, 0x{prog.labels['out']:x}"


def test_li_and_la_build_full_addresses():
    prog = assemble_snippet("li $t0, 5\n li $t1, 0x12345678\n la $a0, v\n .data\n .space 8\n v: .float 1")
    assert prog.labels["v"] == DATA_BASE + 8
    texts = [capstone_text(w, 0) for w in prog.words]
    assert texts[0] == "addiu $t0, $zero, 5"
    assert texts[1:3] == ["lui $t1, 0x1234", "ori $t1, $t1, 0x5678"]
    assert texts[3:5] == ["lui $a0, 0x881", "ori $a0, $a0, 8"]


def test_data_directives_lay_out_memory():
    prog = assemble_snippet("nop\n.data\na: .float 1.5, -2\nb: .word 7, a\n.align 4\nc: .space 4")
    assert prog.labels == {"a": DATA_BASE, "b": DATA_BASE + 8, "c": DATA_BASE + 16}
    assert struct.unpack("<2f2I", bytes(prog.data[:16])) == (1.5, -2.0, 7, DATA_BASE)
    assert len(prog.data) == 20


def test_vfpu_lines_and_semicolons_share_a_line():
    prog = assemble_snippet("vzero.q C000; vone.s S010 # comment\n// another\nbvt 0, end; nop\nend: vnop")
    assert len(prog.words) == 5
    assert prog.words[2] == 0x49010000 | 1  # branch over the nop to `end`


@pytest.mark.parametrize("source, message", [
    ("frobnicate $t0", "unknown instruction 'frobnicate'"),
    ("addu $t0, $t1", "takes 3 operand"),
    ("addiu $t0, $t1, 70000", "out of range"),
    ("vadd.q C000, C010", "vadd.q takes 3 operand"),
    ("lw $t0, 4[$a0]", "bad memory operand"),
    ("b nowhere", "bad number 'nowhere'"),
    ("x: nop\nx: nop", "label 'x' defined twice"),
    (".data\nnop", "instructions belong in .text"),
    (".float 1", ".float in .text"),
    (".data\n.float one", "bad .float value"),
])
def test_bad_lines_are_named(source, message):
    with pytest.raises(LabAsmError, match="line [0-9]+") as err:
        assemble_snippet(source)
    assert message in str(err.value)
