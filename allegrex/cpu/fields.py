"""Where each operand sits in an instruction word: one accessor per field, as Spike's
`insn.rs1()`, `insn.i_imm()`...

numba functions inlined into the run loop (allegrex.cpu.interp); compiled regions fold
their calls to constants, since a region knows its words (allegrex.cpu.jit.semantics);
Python (the disassembler, the region finder) calls them as they are.
"""

from numba import njit

field = njit(cache=True, inline="always")

@field
def rs_of(word):
    """GPR field at bits 21-25 (base register of loads and stores)."""
    return (word >> 21) & 31


@field
def rt_of(word):
    """GPR field at bits 16-20 (also the `cache` function and an FPU load/store's ft)."""
    return (word >> 16) & 31


@field
def rd_of(word):
    """GPR field at bits 11-15 (also ext/ins's msb, cfc1/ctc1's control register)."""
    return (word >> 11) & 31


@field
def sa_of(word):
    """Shift amount at bits 6-10 (also ext/ins's lsb)."""
    return (word >> 6) & 31


@field
def fs_of(word):
    """FPU source register fs (bits 11-15)."""
    return (word >> 11) & 31


@field
def ft_of(word):
    """FPU source register ft (bits 16-20)."""
    return (word >> 16) & 31


@field
def fd_of(word):
    """FPU destination register fd (bits 6-10)."""
    return (word >> 6) & 31


@field
def imm_of(word):
    """The 16-bit immediate, sign-extended (arithmetic, offsets, branch displacements)."""
    return ((word & 0xFFFF) ^ 0x8000) - 0x8000


@field
def uimm_of(word):
    """The 16-bit immediate, zero-extended (andi/ori/xori/lui)."""
    return word & 0xFFFF


@field
def code_of(word):
    """syscall/break code (bits 6-25)."""
    return (word >> 6) & 0xFFFFF


@field
def cond_of(word):
    """c.cond.s condition bits (bit 0 unordered, 1 equal, 2 less than, 3 signalling)."""
    return word & 0xF


@field
def vcc_of(word):
    """Which VFPU condition bit bvf/bvt test (bits 18-20)."""
    return (word >> 18) & 7


@field
def branch_target(npc, word):
    """Target of a PC-relative branch whose delay slot is at `npc` (not wrapped to 32 bits)."""
    return npc + (imm_of(word) << 2)


@field
def jump_target(npc, word):
    """Target of j/jal: the 256 MiB region of the delay slot at `npc`, 26-bit word index."""
    return (npc & 0xF0000000) | ((word & 0x03FFFFFF) << 2)
