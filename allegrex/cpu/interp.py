"""The run loop: one numba function that executes Allegrex code until an event.

No Python runs per instruction. Instruction words are decoded through a small
direct-mapped memo (word -> op) indexed by address bits: an entry is used only when
the cached word equals the word now in memory, and decoding depends on the word
alone, so patched stubs and self-modifying code can never run a stale decode.

Delay slots: `pc` is the instruction being executed, `npc` the one after it. A taken
branch sets the *following* npc to its target; a likely branch not taken skips its
delay slot. An event raised in a delay slot (e.g. `jr ra` + `syscall N`, the shape of
every PSP import stub) leaves regs[PC]/regs[NPC] exactly where execution continues.
"""

import numpy as np
from numba import njit

from allegrex.cpu import cop2
from allegrex.cpu.fpu import (OP_ADD, ROUND_DOWN, ROUND_NEAREST, ROUND_UP, ROUND_ZERO, arith, compare_flags,
                              float_to_word, round_to_f32)
from allegrex.cpu.decode import (LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP, LOOKUP_START,
                                 SEM, SEM_OF_OP, decode_word)
from allegrex.cpu.events import (EV_BREAK, EV_BREAKPOINT, EV_BUDGET, EV_FAULT, EV_HALT, EV_JIT, EV_NONE,
                                 EV_SYSCALL, FAULT_FETCH, FAULT_LOAD, FAULT_OVERFLOW, FAULT_RESERVED,
                                 FAULT_STORE, FAULT_TRAP)
from allegrex.cpu.state import CYCLES, FCR0, FCR31, HI, IC, INSTRUCTIONS, LLBIT, LO, NPC, PC, VFPU_CC
from allegrex.memory import translate
from allegrex.timing.layout import T_ENABLED
from allegrex.timing.model import account

DCACHE_BITS = 16
DCACHE_SIZE = 1 << DCACHE_BITS
DCACHE_MASK = DCACHE_SIZE - 1
TRACE_SIZE = 64  # power of two: the ring of last executed PCs, indexed by the instruction count
FCR31_WRITE_MASK = 0x0181FFFF  # ctc1 $31 keeps RM, flags, enables, cause, FCC (bit 23), FS (24)
FCC_BIT = 1 << 23
NO_CYCLE_LIMIT = np.iinfo(np.int64).max

# Semantic ids as compile-time constants (names from decode.SEMANTICS).
S_INVALID = SEM["invalid"]
S_ADDIU, S_ADDU, S_LW, S_SW, S_SLL = SEM["addiu"], SEM["addu"], SEM["lw"], SEM["sw"], SEM["sll"]
S_BEQ, S_BNE, S_LUI, S_ORI, S_ANDI = SEM["beq"], SEM["bne"], SEM["lui"], SEM["ori"], SEM["andi"]
S_AND, S_OR, S_XOR, S_NOR, S_SUBU = SEM["and"], SEM["or"], SEM["xor"], SEM["nor"], SEM["subu"]
S_SLT, S_SLTU, S_SLTI, S_SLTIU, S_XORI = SEM["slt"], SEM["sltu"], SEM["slti"], SEM["sltiu"], SEM["xori"]
S_SRL, S_SRA, S_SLLV, S_SRLV, S_SRAV = SEM["srl"], SEM["sra"], SEM["sllv"], SEM["srlv"], SEM["srav"]
S_ROTR, S_ROTRV = SEM["rotr"], SEM["rotrv"]
S_LB, S_LBU, S_LH, S_LHU, S_SB, S_SH = SEM["lb"], SEM["lbu"], SEM["lh"], SEM["lhu"], SEM["sb"], SEM["sh"]
S_LWL, S_LWR, S_SWL, S_SWR, S_LL, S_SC = SEM["lwl"], SEM["lwr"], SEM["swl"], SEM["swr"], SEM["ll"], SEM["sc"]
S_ADD, S_ADDI, S_SUB = SEM["add"], SEM["addi"], SEM["sub"]
S_J, S_JAL, S_JR, S_JALR = SEM["j"], SEM["jal"], SEM["jr"], SEM["jalr"]
S_BLEZ, S_BGTZ, S_BLTZ, S_BGEZ = SEM["blez"], SEM["bgtz"], SEM["bltz"], SEM["bgez"]
S_BLTZAL, S_BGEZAL = SEM["bltzal"], SEM["bgezal"]
S_BEQL, S_BNEL, S_BLEZL, S_BGTZL = SEM["beql"], SEM["bnel"], SEM["blezl"], SEM["bgtzl"]
S_BLTZL, S_BGEZL, S_BLTZALL, S_BGEZALL = SEM["bltzl"], SEM["bgezl"], SEM["bltzall"], SEM["bgezall"]
S_MULT, S_MULTU, S_DIV, S_DIVU = SEM["mult"], SEM["multu"], SEM["div"], SEM["divu"]
S_MADD, S_MADDU, S_MSUB, S_MSUBU = SEM["madd"], SEM["maddu"], SEM["msub"], SEM["msubu"]
S_MFHI, S_MTHI, S_MFLO, S_MTLO = SEM["mfhi"], SEM["mthi"], SEM["mflo"], SEM["mtlo"]
S_MOVZ, S_MOVN, S_CLZ, S_CLO = SEM["movz"], SEM["movn"], SEM["clz"], SEM["clo"]
S_MAX, S_MIN, S_EXT, S_INS = SEM["max"], SEM["min"], SEM["ext"], SEM["ins"]
S_SEB, S_SEH, S_WSBH, S_WSBW, S_BITREV = SEM["seb"], SEM["seh"], SEM["wsbh"], SEM["wsbw"], SEM["bitrev"]
S_SYSCALL, S_BREAK, S_SYNC, S_CACHE = SEM["syscall"], SEM["break"], SEM["sync"], SEM["cache"]
S_HALT, S_MFIC, S_MTIC = SEM["halt"], SEM["mfic"], SEM["mtic"]
S_TEQ, S_TNE, S_TGE, S_TGEU, S_TLT, S_TLTU = (SEM["teq"], SEM["tne"], SEM["tge"], SEM["tgeu"],
                                              SEM["tlt"], SEM["tltu"])
S_TEQI, S_TNEI, S_TGEI, S_TGEIU, S_TLTI, S_TLTIU = (SEM["teqi"], SEM["tnei"], SEM["tgei"],
                                                    SEM["tgeiu"], SEM["tlti"], SEM["tltiu"])
S_LWC1, S_SWC1, S_MFC1, S_MTC1, S_CFC1, S_CTC1 = (SEM["lwc1"], SEM["swc1"], SEM["mfc1"], SEM["mtc1"],
                                                  SEM["cfc1"], SEM["ctc1"])
S_ADD_S, S_SUB_S, S_MUL_S, S_DIV_S = SEM["add.s"], SEM["sub.s"], SEM["mul.s"], SEM["div.s"]
S_SQRT_S, S_ABS_S, S_MOV_S, S_NEG_S = SEM["sqrt.s"], SEM["abs.s"], SEM["mov.s"], SEM["neg.s"]
S_ROUND_W, S_TRUNC_W, S_CEIL_W, S_FLOOR_W = (SEM["round.w.s"], SEM["trunc.w.s"], SEM["ceil.w.s"],
                                             SEM["floor.w.s"])
S_CVT_S_W, S_CVT_W_S, S_C_COND = SEM["cvt.s.w"], SEM["cvt.w.s"], SEM["c.cond.s"]
S_BC1F, S_BC1T, S_BC1FL, S_BC1TL = SEM["bc1f"], SEM["bc1t"], SEM["bc1fl"], SEM["bc1tl"]
S_BVF, S_BVT, S_BVFL, S_BVTL = SEM["bvf"], SEM["bvt"], SEM["bvfl"], SEM["bvtl"]
S_VFPU = SEM["vfpu"]



@njit(cache=True, inline="always")
def sx32(v):
    """The signed value of the low 32 bits of v."""
    return ((v & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


@njit(cache=True, inline="always")
def clz32(v):
    v &= 0xFFFFFFFF
    n = 0
    bit = np.int64(0x80000000)
    while n < 32 and (v & bit) == 0:
        n += 1
        bit >>= 1
    return n


@njit(cache=True, inline="always")
def bitrev32(v):
    v = ((v >> 1) & 0x55555555) | ((v & 0x55555555) << 1)
    v = ((v >> 2) & 0x33333333) | ((v & 0x33333333) << 2)
    v = ((v >> 4) & 0x0F0F0F0F) | ((v & 0x0F0F0F0F) << 4)
    v = ((v >> 8) & 0x00FF00FF) | ((v & 0x00FF00FF) << 8)
    return ((v >> 16) | (v << 16)) & 0xFFFFFFFF


@njit(cache=True, inline="always")
def div_signed(a, b):
    """(lo, hi) of the Allegrex `div`: C truncation; b == 0 gives lo = -1 (a >= 0) or 1
    (a < 0) and hi = a; INT_MIN / -1 gives lo = INT_MIN, hi = -1 (PPSSPP's measured rules)."""
    if b == 0:
        return (1 if a < 0 else 0xFFFFFFFF), a & 0xFFFFFFFF
    if a == -2147483648 and b == -1:
        return 0x80000000, 0xFFFFFFFF
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q & 0xFFFFFFFF, (a - q * b) & 0xFFFFFFFF


@njit(cache=True, inline="always")
def div_unsigned(a, b):
    """(lo, hi) of `divu`; b == 0 gives lo = 0xFFFF (a <= 0xFFFF) or 0xFFFFFFFF, hi = a."""
    if b == 0:
        return (0xFFFF if a <= 0xFFFF else 0xFFFFFFFF), a
    return a // b, a % b


@njit(cache=True, inline="always")
def finish(regs, counters, event, pc, npc, cycles, icount, code, value, extra, event_pc):
    """Leave the run loop: where execution goes on, the counters, and the event."""
    regs[PC] = pc
    regs[NPC] = npc
    counters[CYCLES] = cycles
    counters[INSTRUCTIONS] = icount
    event[0] = code
    event[1] = value
    event[2] = event_pc
    event[3] = extra
    return code


# _nrt=False: run allocates nothing and only borrows its arguments, so reference counting is
# pure overhead; with it, every array argument of an inlined helper (the timing model) costs an
# atomic incref/decref pair per instruction, which was most of the timed run's time.
@njit(cache=True, error_model="numpy", _nrt=False)
def run(regs, fpr, fpr_bits, vpr, vpr_bits, vctrl, counters, mem, mem16, mem32, memf32, ram_size,
        dc_word, dc_val, breakpoints, trace, max_instructions, cycle_limit, event, tm, prof, vscratch, vterms,
        jit_hot, jit_entries, jit_threshold):
    """Execute from regs[PC] until an event; returns the event code (also in event[0]).

    dc_word/dc_val: the decode memo (uint32/int32[DCACHE_SIZE], see new_decode_cache).
    breakpoints: uint32 addresses that stop execution before they run (not checked for
    the first instruction of a call, so calling again resumes). trace: uint32[TRACE_SIZE]
    ring of executed PCs, slot = instruction count & (TRACE_SIZE-1).
    tm, prof: the timing model's state and per-address profile (allegrex.timing).
    vscratch, vterms: VFPU working storage (vfpu.exec.new_scratch()), so VFPU ops allocate nothing.
    jit_hot, jit_entries, jit_threshold: the region compiler's hooks (allegrex.cpu.jit): taken
    backward branches are counted per target slot; a target that reaches jit_threshold, or
    that has a compiled region (jit_entries), stops the loop with EV_JIT when execution
    arrives there. jit_threshold 0: never.
    """
    pc = np.int64(regs[PC])
    npc = np.int64(regs[NPC])
    cycles = counters[CYCLES]
    icount = counters[INSTRUCTIONS]
    budget = np.int64(max_instructions)
    nbp = breakpoints.shape[0]
    tmask = trace.shape[0] - 1
    first = True
    code = EV_NONE
    value = np.int64(0)
    extra = np.int64(0)
    event_pc = pc
    enter_at = np.int64(-1)  # a hot loop head reached by the last taken backward branch
    jmask = jit_hot.shape[0] - 1
    while True:
        if pc == enter_at and npc == pc + 4:
            code, value, event_pc = EV_JIT, pc, pc
            break
        if budget <= 0 or cycles >= cycle_limit:
            code = EV_BUDGET
            event_pc = pc
            break
        if nbp > 0 and not first:
            hit = False
            for k in range(nbp):
                if breakpoints[k] == pc:
                    hit = True
            if hit:
                code = EV_BREAKPOINT
                event_pc = pc
                value = pc
                break
        first = False
        off = translate(pc, 4, ram_size)
        if off < 0:
            code, value, extra, event_pc = EV_FAULT, pc, FAULT_FETCH, pc
            break
        widx = off >> 2
        word = np.int64(mem32[widx])
        ci = widx & DCACHE_MASK
        if dc_word[ci] != word:
            op = decode_word(word, LOOKUP_START, LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP)
            dc_val[ci] = (op << 8) | SEM_OF_OP[op]
            dc_word[ci] = word
        val = dc_val[ci]
        sem = val & 0xFF
        rs = (word >> 21) & 31
        rt = (word >> 16) & 31
        rd = (word >> 11) & 31
        next_pc = npc
        next_npc = npc + 4
        maddr = np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)  # for the timing model

        # ---- semantics: one branch per semantic id -------------------------------------
        if sem == S_ADDIU:
            regs[rt] = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
        elif sem == S_ADDU:
            regs[rd] = (np.int64(regs[rs]) + np.int64(regs[rt])) & 0xFFFFFFFF
        elif sem == S_LW:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 4, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_LOAD, pc
                break
            regs[rt] = mem32[o >> 2]
        elif sem == S_SW:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 4, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_STORE, pc
                break
            mem32[o >> 2] = regs[rt]
        elif sem == S_SLL:
            regs[rd] = (np.int64(regs[rt]) << ((word >> 6) & 31)) & 0xFFFFFFFF
        elif sem == S_BEQ:
            if regs[rs] == regs[rt]:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
        elif sem == S_BNE:
            if regs[rs] != regs[rt]:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
        elif sem == S_LUI:
            regs[rt] = (word & 0xFFFF) << 16
        elif sem == S_ORI:
            regs[rt] = np.int64(regs[rs]) | (word & 0xFFFF)
        elif sem == S_ANDI:
            regs[rt] = np.int64(regs[rs]) & (word & 0xFFFF)
        elif sem == S_AND:
            regs[rd] = np.int64(regs[rs]) & np.int64(regs[rt])
        elif sem == S_OR:
            regs[rd] = np.int64(regs[rs]) | np.int64(regs[rt])
        elif sem == S_XOR:
            regs[rd] = np.int64(regs[rs]) ^ np.int64(regs[rt])
        elif sem == S_NOR:
            regs[rd] = ~(np.int64(regs[rs]) | np.int64(regs[rt])) & 0xFFFFFFFF
        elif sem == S_SUBU:
            regs[rd] = (np.int64(regs[rs]) - np.int64(regs[rt])) & 0xFFFFFFFF
        elif sem == S_SLT:
            regs[rd] = 1 if sx32(np.int64(regs[rs])) < sx32(np.int64(regs[rt])) else 0
        elif sem == S_SLTU:
            regs[rd] = 1 if regs[rs] < regs[rt] else 0
        elif sem == S_SLTI:
            regs[rt] = 1 if sx32(np.int64(regs[rs])) < (((word & 0xFFFF) ^ 0x8000) - 0x8000) else 0
        elif sem == S_SLTIU:
            imm = (((word & 0xFFFF) ^ 0x8000) - 0x8000) & 0xFFFFFFFF
            regs[rt] = 1 if np.int64(regs[rs]) < imm else 0
        elif sem == S_XORI:
            regs[rt] = np.int64(regs[rs]) ^ (word & 0xFFFF)
        elif sem == S_SRL:
            regs[rd] = np.int64(regs[rt]) >> ((word >> 6) & 31)
        elif sem == S_SRA:
            regs[rd] = (sx32(np.int64(regs[rt])) >> ((word >> 6) & 31)) & 0xFFFFFFFF
        elif sem == S_SLLV:
            regs[rd] = (np.int64(regs[rt]) << (np.int64(regs[rs]) & 31)) & 0xFFFFFFFF
        elif sem == S_SRLV:
            regs[rd] = np.int64(regs[rt]) >> (np.int64(regs[rs]) & 31)
        elif sem == S_SRAV:
            regs[rd] = (sx32(np.int64(regs[rt])) >> (np.int64(regs[rs]) & 31)) & 0xFFFFFFFF
        elif sem == S_ROTR or sem == S_ROTRV:
            sa = (word >> 6) & 31 if sem == S_ROTR else np.int64(regs[rs]) & 31
            v = np.int64(regs[rt])
            regs[rd] = ((v >> sa) | (v << (32 - sa))) & 0xFFFFFFFF
        elif sem == S_LB or sem == S_LBU:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 1, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_LOAD, pc
                break
            b = np.int64(mem[o])
            if sem == S_LB:
                b = ((b ^ 0x80) - 0x80) & 0xFFFFFFFF
            regs[rt] = b
        elif sem == S_LH or sem == S_LHU:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 2, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_LOAD, pc
                break
            h = np.int64(mem16[o >> 1])
            if sem == S_LH:
                h = ((h ^ 0x8000) - 0x8000) & 0xFFFFFFFF
            regs[rt] = h
        elif sem == S_SB:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 1, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_STORE, pc
                break
            mem[o] = np.int64(regs[rt]) & 0xFF
        elif sem == S_SH:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 2, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_STORE, pc
                break
            mem16[o >> 1] = np.int64(regs[rt]) & 0xFFFF
        elif sem == S_LWL or sem == S_LWR or sem == S_SWL or sem == S_SWR:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr & ~3, 4, ram_size)
            if o < 0:
                is_load = sem == S_LWL or sem == S_LWR
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_LOAD if is_load else FAULT_STORE, pc
                break
            m = np.int64(mem32[o >> 2])
            r = np.int64(regs[rt])
            byte = addr & 3
            if sem == S_LWL:  # little-endian: the word's low bytes go to the register's top
                sh = (3 - byte) * 8
                regs[rt] = ((r & ((1 << sh) - 1)) | (m << sh)) & 0xFFFFFFFF
            elif sem == S_LWR:
                sh = byte * 8
                regs[rt] = (r & ~(0xFFFFFFFF >> sh) & 0xFFFFFFFF) | (m >> sh)
            elif sem == S_SWL:
                sh = (3 - byte) * 8
                mem32[o >> 2] = (m & ~(0xFFFFFFFF >> sh) & 0xFFFFFFFF) | (r >> sh)
            else:
                sh = byte * 8
                mem32[o >> 2] = ((m & ((1 << sh) - 1)) | (r << sh)) & 0xFFFFFFFF
        elif sem == S_LL:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 4, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_LOAD, pc
                break
            regs[rt] = mem32[o >> 2]
            regs[LLBIT] = 1
        elif sem == S_SC:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 4, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_STORE, pc
                break
            if regs[LLBIT] != 0:
                mem32[o >> 2] = regs[rt]
                regs[rt] = 1
            else:
                regs[rt] = 0
            regs[LLBIT] = 0
        elif sem == S_ADD or sem == S_SUB or sem == S_ADDI:
            a = sx32(np.int64(regs[rs]))
            if sem == S_ADD:
                s = a + sx32(np.int64(regs[rt]))
                dst = rd
            elif sem == S_SUB:
                s = a - sx32(np.int64(regs[rt]))
                dst = rd
            else:
                s = a + (((word & 0xFFFF) ^ 0x8000) - 0x8000)
                dst = rt
            if s != sx32(s):
                code, value, extra, event_pc = EV_FAULT, word, FAULT_OVERFLOW, pc
                break
            regs[dst] = s & 0xFFFFFFFF
        elif sem == S_J:
            next_npc = (npc & 0xF0000000) | ((word & 0x03FFFFFF) << 2)
        elif sem == S_JAL:
            regs[31] = (npc + 4) & 0xFFFFFFFF
            next_npc = (npc & 0xF0000000) | ((word & 0x03FFFFFF) << 2)
        elif sem == S_JR:
            next_npc = np.int64(regs[rs])
        elif sem == S_JALR:
            target = np.int64(regs[rs])
            regs[rd] = (npc + 4) & 0xFFFFFFFF
            next_npc = target
        elif sem == S_BLEZ or sem == S_BGTZ or sem == S_BLTZ or sem == S_BGEZ:
            v = sx32(np.int64(regs[rs]))
            if sem == S_BLEZ:
                taken = v <= 0
            elif sem == S_BGTZ:
                taken = v > 0
            elif sem == S_BLTZ:
                taken = v < 0
            else:
                taken = v >= 0
            if taken:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
        elif sem == S_BLTZAL or sem == S_BGEZAL:
            v = sx32(np.int64(regs[rs]))
            taken = v < 0 if sem == S_BLTZAL else v >= 0
            regs[31] = (npc + 4) & 0xFFFFFFFF
            if taken:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
        elif (sem == S_BEQL or sem == S_BNEL or sem == S_BLEZL or sem == S_BGTZL or sem == S_BLTZL
              or sem == S_BGEZL or sem == S_BLTZALL or sem == S_BGEZALL):
            v = sx32(np.int64(regs[rs]))
            if sem == S_BEQL:
                taken = regs[rs] == regs[rt]
            elif sem == S_BNEL:
                taken = regs[rs] != regs[rt]
            elif sem == S_BLEZL:
                taken = v <= 0
            elif sem == S_BGTZL:
                taken = v > 0
            elif sem == S_BLTZL or sem == S_BLTZALL:
                taken = v < 0
            else:
                taken = v >= 0
            if sem == S_BLTZALL or sem == S_BGEZALL:
                regs[31] = (npc + 4) & 0xFFFFFFFF
            if taken:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
            else:  # likely: the delay slot is annulled
                next_pc = npc + 4
                next_npc = npc + 8
        elif sem == S_MULT:
            p = sx32(np.int64(regs[rs])) * sx32(np.int64(regs[rt]))
            regs[LO] = p & 0xFFFFFFFF
            regs[HI] = (p >> 32) & 0xFFFFFFFF
        elif sem == S_MULTU:
            p = np.int64(regs[rs]) * np.int64(regs[rt])  # wraps in int64: same 64 bits
            regs[LO] = p & 0xFFFFFFFF
            regs[HI] = (p >> 32) & 0xFFFFFFFF
        elif sem == S_MADD or sem == S_MADDU or sem == S_MSUB or sem == S_MSUBU:
            acc = (np.int64(regs[HI]) << 32) | np.int64(regs[LO])
            if sem == S_MADD or sem == S_MSUB:
                p = sx32(np.int64(regs[rs])) * sx32(np.int64(regs[rt]))
            else:
                p = np.int64(regs[rs]) * np.int64(regs[rt])
            if sem == S_MADD or sem == S_MADDU:
                acc = acc + p
            else:
                acc = acc - p
            regs[LO] = acc & 0xFFFFFFFF
            regs[HI] = (acc >> 32) & 0xFFFFFFFF
        elif sem == S_DIV:
            lo, hi = div_signed(sx32(np.int64(regs[rs])), sx32(np.int64(regs[rt])))
            regs[LO] = lo
            regs[HI] = hi
        elif sem == S_DIVU:
            lo, hi = div_unsigned(np.int64(regs[rs]), np.int64(regs[rt]))
            regs[LO] = lo
            regs[HI] = hi
        elif sem == S_MFHI:
            regs[rd] = regs[HI]
        elif sem == S_MTHI:
            regs[HI] = regs[rs]
        elif sem == S_MFLO:
            regs[rd] = regs[LO]
        elif sem == S_MTLO:
            regs[LO] = regs[rs]
        elif sem == S_MOVZ:
            if regs[rt] == 0:
                regs[rd] = regs[rs]
        elif sem == S_MOVN:
            if regs[rt] != 0:
                regs[rd] = regs[rs]
        elif sem == S_CLZ:
            regs[rd] = clz32(np.int64(regs[rs]))
        elif sem == S_CLO:
            regs[rd] = clz32(~np.int64(regs[rs]))
        elif sem == S_MAX:
            a = sx32(np.int64(regs[rs]))
            b = sx32(np.int64(regs[rt]))
            regs[rd] = (a if a > b else b) & 0xFFFFFFFF
        elif sem == S_MIN:
            a = sx32(np.int64(regs[rs]))
            b = sx32(np.int64(regs[rt]))
            regs[rd] = (a if a < b else b) & 0xFFFFFFFF
        elif sem == S_EXT:
            pos = (word >> 6) & 31
            size = rd + 1
            regs[rt] = (np.int64(regs[rs]) >> pos) & ((np.int64(1) << size) - 1)
        elif sem == S_INS:
            pos = (word >> 6) & 31
            size = rd + 1 - pos  # msb field holds pos+size-1
            if size > 0:
                field = ((np.int64(1) << size) - 1) << pos
                regs[rt] = ((np.int64(regs[rt]) & ~field) | ((np.int64(regs[rs]) << pos) & field)) & 0xFFFFFFFF
        elif sem == S_SEB:
            regs[rd] = (((np.int64(regs[rt]) & 0xFF) ^ 0x80) - 0x80) & 0xFFFFFFFF
        elif sem == S_SEH:
            regs[rd] = (((np.int64(regs[rt]) & 0xFFFF) ^ 0x8000) - 0x8000) & 0xFFFFFFFF
        elif sem == S_WSBH:
            v = np.int64(regs[rt])
            regs[rd] = ((v & 0xFF00FF00) >> 8) | ((v & 0x00FF00FF) << 8)
        elif sem == S_WSBW:
            v = np.int64(regs[rt])
            regs[rd] = (((v & 0xFF) << 24) | ((v & 0xFF00) << 8) | ((v >> 8) & 0xFF00) | (v >> 24))
        elif sem == S_BITREV:
            regs[rd] = bitrev32(np.int64(regs[rt]))
        elif sem == S_SYSCALL:
            code, value, event_pc = EV_SYSCALL, (word >> 6) & 0xFFFFF, pc
        elif sem == S_BREAK:
            code, value, event_pc = EV_BREAK, (word >> 6) & 0xFFFFF, pc
        elif sem == S_SYNC or sem == S_CACHE:
            pass  # no architectural effect; the timing model charges them
        elif sem == S_HALT:
            code, event_pc = EV_HALT, pc
        elif sem == S_MFIC:
            regs[rt] = regs[IC]
        elif sem == S_MTIC:
            regs[IC] = regs[rt]
        elif (sem == S_TEQ or sem == S_TNE or sem == S_TGE or sem == S_TGEU or sem == S_TLT
              or sem == S_TLTU or sem == S_TEQI or sem == S_TNEI or sem == S_TGEI or sem == S_TGEIU
              or sem == S_TLTI or sem == S_TLTIU):
            a = np.int64(regs[rs])
            if sem == S_TEQ or sem == S_TNE or sem == S_TGE or sem == S_TGEU or sem == S_TLT or sem == S_TLTU:
                b = np.int64(regs[rt])
            else:
                b = (((word & 0xFFFF) ^ 0x8000) - 0x8000) & 0xFFFFFFFF
            if sem == S_TEQ or sem == S_TEQI:
                trap = a == b
            elif sem == S_TNE or sem == S_TNEI:
                trap = a != b
            elif sem == S_TGE or sem == S_TGEI:
                trap = sx32(a) >= sx32(b)
            elif sem == S_TGEU or sem == S_TGEIU:
                trap = a >= b
            elif sem == S_TLT or sem == S_TLTI:
                trap = sx32(a) < sx32(b)
            else:
                trap = a < b
            if trap:
                code, value, extra, event_pc = EV_FAULT, word, FAULT_TRAP, pc
                break
        # ---- FPU (single precision) ----
        elif sem == S_LWC1:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 4, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_LOAD, pc
                break
            fpr_bits[rt] = mem32[o >> 2]
        elif sem == S_SWC1:
            addr = (np.int64(regs[rs]) + (((word & 0xFFFF) ^ 0x8000) - 0x8000)) & 0xFFFFFFFF
            o = translate(addr, 4, ram_size)
            if o < 0:
                code, value, extra, event_pc = EV_FAULT, addr, FAULT_STORE, pc
                break
            mem32[o >> 2] = fpr_bits[rt]
        elif sem == S_ADD_S or sem == S_SUB_S or sem == S_MUL_S or sem == S_DIV_S or sem == S_SQRT_S:
            r32, f31 = arith(OP_ADD + (sem - S_ADD_S), fpr[rd], fpr[rt], np.int64(fpr_bits[rd]),
                             np.int64(fpr_bits[rt]), np.int64(regs[FCR31]))
            fpr[(word >> 6) & 31] = r32
            regs[FCR31] = f31
        elif sem == S_ABS_S:
            fpr_bits[(word >> 6) & 31] = np.int64(fpr_bits[rd]) & 0x7FFFFFFF
        elif sem == S_MOV_S:
            fpr_bits[(word >> 6) & 31] = fpr_bits[rd]
        elif sem == S_NEG_S:
            fpr_bits[(word >> 6) & 31] = np.int64(fpr_bits[rd]) ^ 0x80000000
        elif sem == S_ROUND_W:
            fpr_bits[(word >> 6) & 31] = float_to_word(fpr[rd], ROUND_NEAREST)
        elif sem == S_TRUNC_W:
            fpr_bits[(word >> 6) & 31] = float_to_word(fpr[rd], ROUND_ZERO)
        elif sem == S_CEIL_W:
            fpr_bits[(word >> 6) & 31] = float_to_word(fpr[rd], ROUND_UP)
        elif sem == S_FLOOR_W:
            fpr_bits[(word >> 6) & 31] = float_to_word(fpr[rd], ROUND_DOWN)
        elif sem == S_CVT_W_S:
            fpr_bits[(word >> 6) & 31] = float_to_word(fpr[rd], np.int64(regs[FCR31]) & 3)
        elif sem == S_CVT_S_W:
            # an int32 is exact in float64, so this rounds once, in FCR31's direction
            fpr[(word >> 6) & 31] = round_to_f32(np.float64(sx32(np.int64(fpr_bits[rd]))), 0.0,
                                                 np.int64(regs[FCR31]) & 3)
        elif sem == S_C_COND:
            a = fpr[rd]
            b = fpr[rt]
            cond = word & 0xF
            unordered = a != a or b != b
            result = (((cond & 1) != 0 and unordered) or ((cond & 2) != 0 and a == b)
                      or ((cond & 4) != 0 and a < b))
            f = np.int64(regs[FCR31])
            if unordered:
                f = compare_flags(f, cond, np.int64(fpr_bits[rd]), np.int64(fpr_bits[rt]))
            regs[FCR31] = (f | FCC_BIT) if result else (f & ~FCC_BIT & 0xFFFFFFFF)
        elif sem == S_MFC1:
            regs[rt] = fpr_bits[rd]
        elif sem == S_MTC1:
            fpr_bits[rd] = regs[rt]
        elif sem == S_CFC1:
            if rd == 31:
                regs[rt] = regs[FCR31]
            elif rd == 0:
                regs[rt] = regs[FCR0]
            else:
                regs[rt] = 0
        elif sem == S_CTC1:
            if rd == 31:
                regs[FCR31] = np.int64(regs[rt]) & FCR31_WRITE_MASK
        elif sem == S_BC1F or sem == S_BC1T or sem == S_BC1FL or sem == S_BC1TL:
            cc = (np.int64(regs[FCR31]) >> 23) & 1
            taken = cc == (1 if (sem == S_BC1T or sem == S_BC1TL) else 0)
            if taken:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
            elif sem == S_BC1FL or sem == S_BC1TL:
                next_pc = npc + 4
                next_npc = npc + 8
        # ---- VFPU ----
        elif sem == S_BVF or sem == S_BVT or sem == S_BVFL or sem == S_BVTL:
            cc = (np.int64(vctrl[VFPU_CC]) >> ((word >> 18) & 7)) & 1
            taken = cc == (1 if (sem == S_BVT or sem == S_BVTL) else 0)
            if taken:
                next_npc = npc + ((((word & 0xFFFF) ^ 0x8000) - 0x8000) << 2)
            elif sem == S_BVFL or sem == S_BVTL:
                next_pc = npc + 4
                next_npc = npc + 8
        elif sem == S_VFPU:
            status = cop2.execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, event,
                                  vscratch, vterms)
            if status != EV_NONE:
                code, value, extra, event_pc = status, event[1], event[3], pc
                if status == EV_FAULT:
                    break
        else:
            code, value, extra, event_pc = EV_FAULT, word, FAULT_RESERVED, pc
            break
        regs[0] = 0

        # ---- TIMING SEAM: cost of the instruction that just retired ----------------------
        # op index = val >> 8 (row of decode.TABLE); maddr: the load/store address (from the
        # registers before execution); taken: a branch went to its target.
        taken = next_npc != npc + 4 and next_pc == npc
        if tm[T_ENABLED] == 0:  # the plain count, without a call: calls cost ~6x here
            cycles += 1
        else:
            cycles = account(tm, counters, prof, val >> 8, word, pc, maddr, taken, cycles)
        # -----------------------------------------------------------------------------------
        if taken and jit_threshold > 0 and next_npc <= pc:
            slot = (next_npc >> 2) & jmask
            if jit_entries[slot] == next_npc:
                enter_at = next_npc
            else:
                jit_hot[slot] += 1
                if jit_hot[slot] == jit_threshold:
                    enter_at = next_npc

        trace[icount & tmask] = pc
        icount += 1
        budget -= 1
        pc = next_pc & 0xFFFFFFFF
        npc = next_npc & 0xFFFFFFFF
        if code != EV_NONE:
            break

    return finish(regs, counters, event, pc, npc, cycles, icount, code, value, extra, event_pc)


def new_decode_cache():
    """Fresh decode memo arrays (dc_word, dc_val): every slot holds word 0 (`nop`)."""
    op = decode_word(0, LOOKUP_START, LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP)
    dc_word = np.zeros(DCACHE_SIZE, dtype=np.uint32)
    dc_val = np.full(DCACHE_SIZE, (op << 8) | SEM_OF_OP[op], dtype=np.int32)
    return dc_word, dc_val


def _source_fingerprint():
    """Digest of every source numba compiles into `run`: numba's cache only watches
    this file, so a change in cop2.py, decode.py, vfpu/ or timing/ must flush it."""
    import hashlib
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent.parent
    files = sorted(list((root / "allegrex" / "cpu").glob("*.py")) + [root / "allegrex" / "memory.py"]
                   + list((root / "allegrex" / "timing").glob("*.py")) + list((root / "vfpu").glob("**/*.py"))
                   + list((root / "allegrex" / "timing").glob("*.csv")))
    files = [f for f in files if not f.name.startswith("lab")]  # vfpu/lab*.py: teaching tools, never compiled
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:24]


def flush_stale_cache(dispatcher, name: str) -> None:
    """Drop `dispatcher`'s numba cache when a source compiled into it changed (the stamp
    `<name>.sources` beside the cache holds the fingerprint it was compiled from)."""
    from pathlib import Path
    try:
        stamp = Path(dispatcher._cache._cache_path) / f"{name}.sources"
        current = _source_fingerprint()
        if stamp.exists() and stamp.read_text() == current:
            return
        dispatcher._cache.flush()
        stamp.write_text(current)
    except OSError:
        pass  # read-only install: numba then recompiles as needed


flush_stale_cache(run, "interp.run")
