"""Disassembler driven by the decode table (allegrex.cpu.decode.TABLE)."""

from allegrex.cpu import decode
from allegrex.cpu.fields import (branch_target, code_of, fd_of, fs_of, ft_of, imm_of, jump_target, rd_of, rs_of, rt_of,
                                 sa_of, uimm_of, vcc_of)
from allegrex.cpu.state import GPR_NAMES

_CACHE_OPS = {0x14: "icache.fill", 0x08: "icache.index_inv", 0x18: "dcache.index_wb_inv",
              0x19: "dcache.index_unlock", 0x1A: "dcache.create_dirty_excl", 0x1B: "dcache.hit_wb_inv",
              0x1E: "dcache.fill", 0x1F: "dcache.fill_lock"}


def _symbolize(addr, symbols):
    """`0x%08x` plus ` <name+off>` when a symbol lookup is given and knows the address.
    `symbols` is an object with symbol_at(addr) -> (Symbol, offset) | None, or that callable."""
    text = f"0x{addr:08x}"
    if symbols is None:
        return text
    lookup = getattr(symbols, "symbol_at", symbols)
    try:
        found = lookup(addr)
    except (KeyError, LookupError, ValueError):
        found = None
    if found:
        sym, off = found
        text += f" <{sym.name}+0x{off:x}>" if off else f" <{sym.name}>"
    return text


def _vfpu_text(word, pc):
    from vfpu import disasm as vdis  # vfpu imports the CPU: imported here, when first needed
    return vdis.disassemble(word, pc) or f".word 0x{word:08x}  # VFPU?"


def disassemble(word: int, pc: int = 0, symbols=None) -> str:
    """One instruction as text, e.g. `addiu  sp, sp, -32` or `jal  0x08804100 <main>`."""
    word &= 0xFFFFFFFF
    ins = decode.lookup(word)
    if ins is None:
        return f".word 0x{word:08x}"
    if word == 0:
        return "nop"
    if ins.fmt == decode.F_VFPU:
        return _vfpu_text(word, pc)
    rs, rt, rd = GPR_NAMES[rs_of(word)], GPR_NAMES[rt_of(word)], GPR_NAMES[rd_of(word)]
    sa = sa_of(word)
    fs, ft, fd = f"$f{fs_of(word)}", f"$f{ft_of(word)}", f"$f{fd_of(word)}"
    simm = imm_of(word)
    branch = _symbolize(branch_target(pc + 4, word) & 0xFFFFFFFF, symbols)
    f = ins.fmt
    if f == decode.F_NONE:
        ops = ""
    elif f == decode.F_RD_RS_RT:
        ops = f"{rd}, {rs}, {rt}"
    elif f == decode.F_RD_RT_RS:
        ops = f"{rd}, {rt}, {rs}"
    elif f == decode.F_RD_RT_SA:
        ops = f"{rd}, {rt}, {sa}"
    elif f in (decode.F_RD_RS,):
        ops = f"{rd}, {rs}"
    elif f == decode.F_RD_RT:
        ops = f"{rd}, {rt}"
    elif f == decode.F_RS_RT:
        ops = f"{rs}, {rt}"
    elif f == decode.F_RD:
        ops = rd
    elif f == decode.F_RS:
        ops = rs
    elif f == decode.F_RT:
        ops = rt
    elif f == decode.F_JALR:
        ops = rs if rd == "ra" else f"{rd}, {rs}"
    elif f == decode.F_RT_RS_IMM:
        ops = f"{rt}, {rs}, {simm}"
    elif f == decode.F_RT_RS_UIMM:
        ops = f"{rt}, {rs}, 0x{uimm_of(word):x}"
    elif f == decode.F_RT_UIMM:
        ops = f"{rt}, 0x{uimm_of(word):x}"
    elif f == decode.F_RS_IMM:
        ops = f"{rs}, {simm}"
    elif f == decode.F_MEM:
        ops = f"{rt}, {simm}({rs})"
    elif f == decode.F_FMEM:
        ops = f"{ft}, {simm}({rs})"
    elif f == decode.F_CACHE:
        op = rt_of(word)
        ops = f"{_CACHE_OPS.get(op, hex(op))}, {simm}({rs})"
    elif f == decode.F_BR2:
        ops = f"{rs}, {rt}, {branch}"
    elif f == decode.F_BR1:
        ops = f"{rs}, {branch}"
    elif f == decode.F_BR0:
        ops = branch
    elif f == decode.F_BRV:
        ops = f"{vcc_of(word)}, {branch}"
    elif f == decode.F_JUMP:
        ops = _symbolize(jump_target(pc + 4, word), symbols)
    elif f == decode.F_CODE:
        code = code_of(word)
        ops = f"0x{code:x}" if code else ""
    elif f == decode.F_EXT:
        ops = f"{rt}, {rs}, {sa}, {rd_of(word) + 1}"
    elif f == decode.F_INS:
        ops = f"{rt}, {rs}, {sa}, {rd_of(word) + 1 - sa}"
    elif f == decode.F_FD_FS_FT:
        ops = f"{fd}, {fs}, {ft}"
    elif f == decode.F_FD_FS:
        ops = f"{fd}, {fs}"
    elif f == decode.F_FS_FT:
        ops = f"{fs}, {ft}"
    elif f == decode.F_RT_FS:
        ops = f"{rt}, {fs}"
    elif f == decode.F_RT_FCR:
        ops = f"{rt}, ${rd_of(word)}"
    else:  # a format the table uses but this function forgot: say so rather than guess
        ops = f"?{f}"
    return f"{ins.mnemonic:<8}{ops}".rstrip()


def disassemble_range(read_u32, start: int, count: int, symbols=None):
    """(address, word, text) for `count` words from `start`; read_u32(addr) -> int."""
    out = []
    for i in range(count):
        addr = (start + 4 * i) & 0xFFFFFFFF
        word = read_u32(addr)
        out.append((addr, word, disassemble(word, addr, symbols)))
    return out
