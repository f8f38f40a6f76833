"""VFPU words -> assembly text (the syntax vfpu.asm reads back), from the one table."""

from vfpu import regs, syntax
from vfpu.table import Row, find


def reg_text(row: Row, operand: str, field: int) -> str:
    kind, _ = getattr(row, operand)
    n = row.count(operand)
    return regs.name(field, f"m{n}" if kind == "m" else n)


def mem_field(row: Row, word: int) -> int:
    if row.fmt == "mems":
        return ((word >> 16) & 0x1F) | ((word & 3) << 5)
    return ((word >> 16) & 0x1F) | ((word & 1) << 5)


def disassemble(word: int, pc: int | None = None) -> str | None:
    """Text of a VFPU word, or None when the word is not a VFPU instruction. With `pc`,
    bvf/bvt show their absolute target; without it the signed offset in words."""
    word &= 0xFFFFFFFF
    row = find(word)
    if row is None:
        return None
    name, fmt = row.text_name, row.fmt
    rd, rs, rt = word & 0x7F, (word >> 8) & 0x7F, (word >> 16) & 0x7F
    imm5 = (word >> 16) & 0x1F
    if fmt == "none":
        return name
    if fmt == "dst":
        ops = [reg_text(row, "d", rd), reg_text(row, "s", rs), reg_text(row, "t", rt)]
    elif fmt == "ds":
        ops = [reg_text(row, "d", rd), reg_text(row, "s", rs)]
    elif fmt == "d":
        ops = [reg_text(row, "d", rd)]
    elif fmt == "s":
        ops = [reg_text(row, "s", rs)]
    elif fmt == "cmp":
        ops = [syntax.COND_NAMES[word & 0xF], reg_text(row, "s", rs), reg_text(row, "t", rt)]
    elif fmt == "dsi5":
        ops = [reg_text(row, "d", rd), reg_text(row, "s", rs), str(imm5)]
    elif fmt == "rot":
        text = syntax.rotation_text(imm5, row.size)
        shown = text if syntax.rotation_imm(text, row.size) == imm5 else str(imm5)
        ops = [reg_text(row, "d", rd), reg_text(row, "s", rs), shown]
    elif fmt == "cst":
        ops = [reg_text(row, "d", rd), syntax.cst_text(imm5)]
    elif fmt == "iim":
        imm = word & 0xFFFF
        ops = [reg_text(row, "d", rt), str(imm - 0x10000 if imm & 0x8000 else imm)]
    elif fmt == "fim":
        ops = [reg_text(row, "d", rt), syntax.half_text(word & 0xFFFF)]
    elif fmt == "wbn":
        ops = [reg_text(row, "d", rd), reg_text(row, "s", rs), str((word >> 16) & 0xFF)]
    elif fmt == "cmov":
        ops = [reg_text(row, "d", rd), reg_text(row, "s", rs), str((word >> 16) & 7)]
    elif fmt == "vc":
        ops = [reg_text(row, "d", rd), f"${(word >> 8) & 0xFF}"]
    elif fmt == "cv":
        ops = [f"${word & 0xFF}", reg_text(row, "s", rs)]
    elif fmt in ("pfxs", "pfxt"):
        ops = [syntax.source_prefix_text(word & 0xFFFFFF)]
    elif fmt == "pfxd":
        ops = [syntax.dest_prefix_text(word & 0xFFFFFF)]
    elif fmt == "gv":
        ops = [syntax.gpr_text((word >> 16) & 0x1F), regs.name(word & 0x7F, 1)]
    elif fmt == "gc":
        ops = [syntax.gpr_text((word >> 16) & 0x1F), f"${word & 0xFF}"]
    elif fmt == "br":
        off = word & 0xFFFF
        off = off - 0x10000 if off & 0x8000 else off
        target = f"0x{(pc + 4 + 4 * off) & 0xFFFFFFFF:08x}" if pc is not None else str(off)
        ops = [str((word >> 18) & 7), target]
    elif fmt in ("mems", "memq", "memlr"):
        off = word & 0xFFFC
        off = off - 0x10000 if off & 0x8000 else off
        reg = regs.name(mem_field(row, word), 1 if fmt == "mems" else 4)
        ops = [reg, f"{off}({syntax.gpr_text((word >> 21) & 0x1F)})"]
        if fmt == "memq" and word & 2:
            ops.append("wb")
    else:  # pragma: no cover - a table format without a printer is a bug
        raise AssertionError(f"no printer for format {fmt}")
    return f"{name} {', '.join(ops)}"
