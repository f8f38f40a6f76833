"""VFPU assembly text -> words, from the one table; and the .S filter the SDK runs.

Syntax (what vfpu.disasm prints):
    vadd.q C000, C010, R200          vdot.t S000, C100, C110
    vmmul.q M000, E100, M200         vcmp.q EQ, C000, C010
    vrot.q R000, S601, [c, s, s, s]  vcst.s S000, VFPU_PI
    vi2f.q C000, C010, 16            viim.s S000, -8       vfim.s S001, 0.5
    vpfxs [x, -y, |z|, 1/2]          vpfxd [0:1, , -1:1, m]
    lv.q C000, 16($a0)               sv.q C010, 0(a1), wb  lv.s S000, -4($sp)
    mfv $t0, S000  mtv $t0, S000  mfvc $t0, $131  mtvc $t0, VFPU_CC  vmfvc S000, $131
    bvt 2, 5  (offset in words; `assemble(text, pc)` also takes an absolute target)
Register names are case-insensitive; GPRs may be written $a0, a0 or $4.
"""

import re

from vfpu import regs, syntax
from vfpu.syntax import VfpuAsmError
from vfpu.table import BY_NAME, ROWS, Row

MNEMONICS = frozenset(BY_NAME)


def split_operands(text: str) -> list[str]:
    """Comma-separated operands, keeping [a, b, c] together."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip() or out:
        out.append(cur.strip())
    return out


def reg_field(row: Row, operand: str, text: str) -> int:
    kind, _ = getattr(row, operand)
    n = row.count(operand)
    try:
        return regs.parse(text, f"m{n}" if kind == "m" else n)
    except regs.VfpuRegisterError as exc:
        raise VfpuAsmError(str(exc)) from None


_MEM_RE = re.compile(r"^(.*)\(\s*(\$?\w+)\s*\)$")


def _mem(row: Row, ops: list[str]) -> int:
    if len(ops) not in (2, 3):
        raise VfpuAsmError(f"{row.text_name} takes a register and offset(base)")
    m = _MEM_RE.match(ops[1].replace(" ", ""))
    if not m:
        raise VfpuAsmError(f"bad memory operand {ops[1]!r} (expected offset(base))")
    off = syntax.parse_int(m.group(1) or "0", -32768, 32767, "offset")
    if off & 3:
        raise VfpuAsmError(f"offset {off} is not a multiple of 4")
    base = syntax.parse_gpr(m.group(2))
    size = 1 if row.fmt == "mems" else 4
    try:
        field = regs.parse(ops[0], size)
    except regs.VfpuRegisterError as exc:
        raise VfpuAsmError(str(exc)) from None
    word = row.match | base << 21 | (off & 0xFFFC) | ((field & 0x1F) << 16)
    if size == 1:
        word |= field >> 5
    else:
        if field >= 64:
            raise VfpuAsmError(f"{ops[0]} cannot be used by {row.text_name} (quads 0-63 only)")
        word |= field >> 5
    if len(ops) == 3:
        if row.fmt != "memq" or ops[2].lower() != "wb":
            raise VfpuAsmError(f"unexpected operand {ops[2]!r}")
        word |= 2
    return word


def _expect(row: Row, ops: list[str], count: int):
    if len(ops) != count:
        raise VfpuAsmError(f"{row.text_name} takes {count} operand(s), got {len(ops)}")


def assemble(text: str, pc: int | None = None) -> int:
    """One VFPU instruction -> its 32-bit word. Raises VfpuAsmError."""
    text = text.strip()
    parts = text.split(None, 1)
    if not parts:
        raise VfpuAsmError("empty instruction")
    mnemonic = parts[0].lower()
    row = BY_NAME.get(mnemonic)
    if row is None:
        raise VfpuAsmError(f"unknown VFPU instruction {parts[0]!r}")
    ops = split_operands(parts[1]) if len(parts) > 1 else []
    fmt, w = row.fmt, row.match
    if fmt == "none":
        _expect(row, ops, 0)
        return w
    if fmt in ("mems", "memq", "memlr"):
        return _mem(row, ops)
    if fmt == "dst":
        _expect(row, ops, 3)
        return w | reg_field(row, "d", ops[0]) | reg_field(row, "s", ops[1]) << 8 | reg_field(row, "t", ops[2]) << 16
    if fmt == "ds":
        _expect(row, ops, 2)
        return w | reg_field(row, "d", ops[0]) | reg_field(row, "s", ops[1]) << 8
    if fmt == "d":
        _expect(row, ops, 1)
        return w | reg_field(row, "d", ops[0])
    if fmt == "s":
        _expect(row, ops, 1)
        return w | reg_field(row, "s", ops[0]) << 8
    if fmt == "cmp":
        if not 1 <= len(ops) <= 3:
            raise VfpuAsmError("vcmp takes a condition and up to two registers")
        cond = ops[0].upper()
        if cond not in syntax.COND_NAMES:
            raise VfpuAsmError(f"bad vcmp condition {ops[0]!r} ({', '.join(syntax.COND_NAMES)})")
        w |= syntax.COND_NAMES.index(cond)
        if len(ops) > 1:
            w |= reg_field(row, "s", ops[1]) << 8
        if len(ops) > 2:
            w |= reg_field(row, "t", ops[2]) << 16
        return w
    if fmt == "dsi5":
        _expect(row, ops, 3)
        imm = syntax.parse_int(ops[2], 0, 31, "scale")
        return w | reg_field(row, "d", ops[0]) | reg_field(row, "s", ops[1]) << 8 | imm << 16
    if fmt == "rot":
        _expect(row, ops, 3)
        imm = syntax.rotation_imm(ops[2], row.size)
        return w | reg_field(row, "d", ops[0]) | reg_field(row, "s", ops[1]) << 8 | imm << 16
    if fmt == "cst":
        _expect(row, ops, 2)
        return w | reg_field(row, "d", ops[0]) | syntax.parse_cst(ops[1]) << 16
    if fmt == "iim":
        _expect(row, ops, 2)
        imm = syntax.parse_int(ops[1], -32768, 65535, "immediate")
        return w | reg_field(row, "d", ops[0]) << 16 | (imm & 0xFFFF)
    if fmt == "fim":
        _expect(row, ops, 2)
        return w | reg_field(row, "d", ops[0]) << 16 | syntax.parse_half(ops[1])
    if fmt == "wbn":
        _expect(row, ops, 3)
        imm = syntax.parse_int(ops[2], 0, 255, "immediate")
        return w | reg_field(row, "d", ops[0]) | reg_field(row, "s", ops[1]) << 8 | imm << 16
    if fmt == "cmov":
        _expect(row, ops, 3)
        imm = syntax.parse_int(ops[2], 0, 7, "condition bit")
        return w | reg_field(row, "d", ops[0]) | reg_field(row, "s", ops[1]) << 8 | imm << 16
    if fmt == "vc":
        _expect(row, ops, 2)
        return w | reg_field(row, "d", ops[0]) | (_control(ops[1]) & 0x7F) << 8
    if fmt == "cv":
        _expect(row, ops, 2)
        return w | (_control(ops[0]) & 0x7F) | reg_field(row, "s", ops[1]) << 8
    if fmt in ("pfxs", "pfxt"):
        return w | syntax.parse_source_prefix(", ".join(ops))
    if fmt == "pfxd":
        return w | syntax.parse_dest_prefix(", ".join(ops))
    if fmt == "gv":
        _expect(row, ops, 2)
        try:
            field = regs.parse(ops[1], 1)
        except regs.VfpuRegisterError as exc:
            raise VfpuAsmError(str(exc)) from None
        return w | syntax.parse_gpr(ops[0]) << 16 | field
    if fmt == "gc":
        _expect(row, ops, 2)
        return w | syntax.parse_gpr(ops[0]) << 16 | (_control(ops[1]) & 0x7F)
    if fmt == "br":
        _expect(row, ops, 2)
        cc = syntax.parse_int(ops[0], 0, 7, "condition bit")
        if pc is not None and ops[1].lower().startswith("0x"):
            target = syntax.parse_int(ops[1], 0, 0xFFFFFFFF, "branch target")
            off = (target - pc - 4) >> 2
        else:
            off = syntax.parse_int(ops[1], -32768, 32767, "branch offset")
        return w | cc << 18 | (off & 0xFFFF)
    raise AssertionError(f"no parser for format {fmt}")  # pragma: no cover


def _control(text: str) -> int:
    try:
        return regs.control_index(text)
    except regs.VfpuRegisterError as exc:
        raise VfpuAsmError(str(exc)) from None


# ---------------------------------------------------------------- .S filter

_LABEL_RE = re.compile(r"^(\s*(?:[A-Za-z_.$][\w.$]*|\d+)\s*:\s*)")
_BRANCH_MNEMONICS = {"bvf", "bvt", "bvfl", "bvtl"}


def _split_comment(line: str) -> tuple[str, str]:
    cut = len(line)
    for marker in ("#", "//", "/*"):
        k = line.find(marker)
        if k >= 0:
            cut = min(cut, k)
    return line[:cut], line[cut:]


def _rewrite_statement(stmt: str) -> str | None:
    """'.word 0x...' for a VFPU statement, None for anything else."""
    body = stmt.strip()
    if not body:
        return None
    mnemonic = body.split(None, 1)[0].lower()
    if mnemonic in _BRANCH_MNEMONICS:
        ops = split_operands(body.split(None, 1)[1]) if " " in body or "\t" in body else []
        if len(ops) == 2:
            try:
                syntax.parse_int(ops[1], -32768, 32767, "offset")
            except VfpuAsmError:
                # A label target: let the assembler compute the word offset.
                base = BY_NAME[mnemonic].match | syntax.parse_int(ops[0], 0, 7, "condition bit") << 18
                return f".word (0x{base:08x} + ((({ops[1]}) - . - 4) >> 2 & 0xffff))"
    if mnemonic not in MNEMONICS:
        return None
    return f".word 0x{assemble(body):08x}"


def rewrite_vfpu_lines(asm_source_text: str) -> str:
    """Rewrite every VFPU instruction of a MIPS .S source into a `.word 0x...` directive
    (followed by the original text as a comment), leaving other lines, labels and comments
    as they were. Raises VfpuAsmError naming the line number on a bad VFPU line."""
    out = []
    for lineno, line in enumerate(asm_source_text.splitlines(keepends=True), 1):
        stripped = line.lstrip()
        if stripped.startswith("#") and stripped[1:2].isalpha():  # preprocessor directive
            out.append(line)
            continue
        ending = line[len(line.rstrip("\r\n")):]
        code, comment = _split_comment(line.rstrip("\r\n"))
        label = ""
        m = _LABEL_RE.match(code)
        while m:
            label += m.group(1)
            code = code[m.end():]
            m = _LABEL_RE.match(code)
        changed = False
        stmts = []
        for stmt in code.split(";"):
            try:
                new = _rewrite_statement(stmt)
            except VfpuAsmError as exc:
                raise VfpuAsmError(f"line {lineno}: {stmt.strip()}: {exc}") from None
            if new is None:
                stmts.append(stmt)
            else:
                indent = stmt[:len(stmt) - len(stmt.lstrip())]
                stmts.append(f"{indent}{new} /* {stmt.strip()} */")
                changed = True
        if not changed:
            out.append(line)
            continue
        out.append(label + ";".join(stmts) + comment + ending)
    return "".join(out)


def all_rows() -> list[Row]:
    """Every encodable instruction form (for tests and tools)."""
    return list(ROWS)
