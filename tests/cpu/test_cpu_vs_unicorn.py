"""Differential tests: random MIPS II integer code (straight-line, forward branches incl.
likely and linking forms, small loops) must leave every GPR, HI/LO and the data memory
exactly as Unicorn's MIPS32 core does. Only encodings both cores define the same way
are generated (no SPECIAL2: Allegrex's madd/clz live elsewhere), plus the MIPS32r2
words the Allegrex shares (ext, ins, seb, seh, wsbh, rotr, rotrv)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allegrex.cpu.asm import enc
from tests.cpu.unicorn_ref import DATA, DATA_SIZE, run_allegrex, run_unicorn

# Registers random code may write; s7 holds the data base, k0 the loop counter, at is
# scratch for safe division.
DEST = ["v0", "v1", "a0", "a1", "a2", "a3", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7",
        "s0", "s1", "s2", "s3", "s4", "s5", "s6", "t8", "t9", "gp", "fp"]
SRC = DEST + ["zero"]
R3 = ["addu", "subu", "and", "or", "xor", "nor", "slt", "sltu", "movz", "movn"]
SHIFT = ["sll", "srl", "sra", "rotr"]
SHIFTV = ["sllv", "srlv", "srav", "rotrv"]
IMM = ["addiu", "slti", "sltiu", "andi", "ori", "xori"]
R2 = ["seb", "seh", "wsbh"]
LOADS = {"lb": 1, "lbu": 1, "lh": 2, "lhu": 2, "lw": 4, "lwl": 1, "lwr": 1}
STORES = {"sb": 1, "sh": 2, "sw": 4, "swl": 1, "swr": 1}

reg = st.sampled_from(DEST)
src = st.sampled_from(SRC)
imm16 = st.integers(-0x8000, 0x7FFF)


@st.composite
def alu_insn(draw):
    """One or a few words that never branch, trap or fault."""
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return [enc(draw(st.sampled_from(R3)), rd=draw(reg), rs=draw(src), rt=draw(src))]
    if kind == 1:
        return [enc(draw(st.sampled_from(SHIFT)), rd=draw(reg), rt=draw(src), sa=draw(st.integers(0, 31)))]
    if kind == 2:
        return [enc(draw(st.sampled_from(SHIFTV)), rd=draw(reg), rt=draw(src), rs=draw(src))]
    if kind == 3:
        return [enc(draw(st.sampled_from(IMM)), rt=draw(reg), rs=draw(src), imm=draw(imm16))]
    if kind == 4:
        return [enc("lui", rt=draw(reg), imm=draw(st.integers(0, 0xFFFF)))]
    if kind == 5:
        return [enc(draw(st.sampled_from(["mult", "multu"])), rs=draw(src), rt=draw(src))]
    if kind == 6:  # divisor forced into 1..0x7FFF: MIPS32 leaves /0 unpredictable
        return [enc("andi", rt="at", rs=draw(src), imm=0x7FFF), enc("ori", rt="at", rs="at", imm=1),
                enc(draw(st.sampled_from(["div", "divu"])), rs=draw(src), rt="at")]
    if kind == 7:
        name = draw(st.sampled_from(["mfhi", "mflo", "mthi", "mtlo"]))
        return [enc(name, rd=draw(reg))] if name.startswith("mf") else [enc(name, rs=draw(src))]
    if kind == 8:
        return [enc(draw(st.sampled_from(R2)), rd=draw(reg), rt=draw(src))]
    if kind == 9:
        pos = draw(st.integers(0, 31))
        size = draw(st.integers(1, 32 - pos))
        if draw(st.booleans()):
            return [enc("ext", rt=draw(reg), rs=draw(src), sa=pos, rd=size - 1)]
        return [enc("ins", rt=draw(reg), rs=draw(src), sa=pos, rd=pos + size - 1)]
    if kind == 10:
        name = draw(st.sampled_from(sorted(LOADS)))
        off = draw(st.integers(0, DATA_SIZE // LOADS[name] - 1)) * LOADS[name]
        return [enc(name, rt=draw(reg), rs="s7", imm=off)]
    name = draw(st.sampled_from(sorted(STORES)))
    off = draw(st.integers(0, DATA_SIZE // STORES[name] - 1)) * STORES[name]
    return [enc(name, rt=draw(src), rs="s7", imm=off)]


@st.composite
def forward_branch(draw):
    """A forward conditional branch over a few instructions, with a delay slot."""
    name = draw(st.sampled_from(["beq", "bne", "blez", "bgtz", "bltz", "bgez", "beql", "bnel",
                                 "blezl", "bgtzl", "bltzl", "bgezl", "bltzal", "bgezal"]))
    skipped = draw(st.lists(alu_insn(), min_size=1, max_size=3))
    skipped = [w for ins in skipped for w in ins]
    delay = draw(alu_insn().filter(lambda ws: len(ws) == 1))
    words = [enc(name, rs=draw(src), rt=draw(src) if name in ("beq", "bne", "beql", "bnel") else 0,
                 imm=len(skipped) + 1)] + delay + skipped
    return words


@st.composite
def program(draw):
    body = draw(st.lists(st.one_of(alu_insn(), alu_insn(), forward_branch()), min_size=1, max_size=12))
    words = [w for ins in body for w in ins]
    if draw(st.booleans()):  # wrap in a small counted loop (k0 counts down)
        n = draw(st.integers(1, 4))
        delay = draw(alu_insn().filter(lambda ws: len(ws) == 1))
        words = ([enc("addiu", rt="k0", rs="zero", imm=n)] + words
                 + [enc("addiu", rt="k0", rs="k0", imm=-1), enc("bne", rs="k0", rt="zero", imm=-(len(words) + 2))]
                 + delay)
    return words


word32 = st.integers(0, 0xFFFFFFFF)
interesting = st.sampled_from([0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x8000, 0xFFFF, 0x80])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=program(), values=st.lists(st.one_of(word32, interesting), min_size=34, max_size=34),
       data=st.binary(min_size=DATA_SIZE, max_size=DATA_SIZE))
def test_random_integer_code_matches_unicorn(words, values, data):
    regs = list(values)
    regs[0] = 0
    regs[23] = DATA  # s7: data base
    want_regs, want_mem, _ = run_unicorn(words, regs, data)
    got_regs, got_mem, _ = run_allegrex(words, regs, data)
    assert got_regs == want_regs
    assert got_mem == want_mem
