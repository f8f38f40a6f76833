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

from functools import lru_cache

import numpy as np
from numba import njit

from allegrex.cpu import cop2
from allegrex.cpu.decode import (LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP, LOOKUP_START, SEM_OF_OP,
                                 SEMANTICS, decode_word)
from allegrex.cpu.events import (EV_BREAK, EV_BREAKPOINT, EV_BUDGET, EV_FAULT, EV_HALT, EV_JIT, EV_NONE,
                                 EV_SYSCALL, FAULT_FETCH, FAULT_LOAD, FAULT_OVERFLOW, FAULT_RESERVED,
                                 FAULT_STORE, FAULT_TRAP)
from allegrex.cpu.fields import (branch_target, code_of, cond_of, fd_of, fs_of, ft_of, imm_of, jump_target, rd_of,
                                 rs_of, rt_of, sa_of, uimm_of, vcc_of)
from allegrex.cpu.fpu import OP_ADD, ROUND_NEAREST, arith, compare_flags, float_to_word, round_to_f32
from allegrex.cpu.state import CYCLES, FCR0, FCR31, HI, IC, INSTRUCTIONS, LLBIT, LO, NPC, PC, VFPU_CC
from allegrex.hle.pure import answered, charge
from allegrex.memory import translate
from allegrex.timing.layout import T_ENABLED
from allegrex.timing.model import account

DCACHE_BITS = 16
DCACHE_SIZE = 1 << DCACHE_BITS
DCACHE_MASK = DCACHE_SIZE - 1
TRACE_SIZE = 64  # power of two: the ring of last executed PCs, indexed by the instruction count
# compiled regions log whole blocks retired (head | count << 32) and write their trace entries
# out when they leave (jit.runtime.trace_runs): a power of two, at least TRACE_SIZE blocks
TRACE_LOG = TRACE_SIZE
FCR31_WRITE_MASK = 0x0181FFFF  # ctc1 $31 keeps RM, flags, enables, cause, FCC (bit 23), FS (24)
FCC_BIT = 1 << 23
NO_CYCLE_LIMIT = np.iinfo(np.int64).max

# S_<NAME>: every semantic id of decode.SEMANTICS as a compile-time constant ("add.s" -> S_ADD_S).
for _id, _name in enumerate(SEMANTICS):
    globals()["S_" + _name.upper().replace(".", "_")] = _id
# The run loop tells forms of one branch apart by their order in SEMANTICS (`sem >= S_BEQL`:
# a likely branch; `OP_ADD + (sem - S_ADD_S)`: fpu's operation); keep these runs in order.
assert max(S_LWL, S_LWR) < min(S_SWL, S_SWR) and max(S_MADD, S_MADDU) < min(S_MSUB, S_MSUBU)
assert (max(S_BLEZ, S_BGTZ, S_BLTZ, S_BGEZ, S_BLTZAL, S_BGEZAL)
        < S_BEQL == min(S_BEQL, S_BNEL, S_BLEZL, S_BGTZL, S_BLTZL, S_BGEZL, S_BLTZALL, S_BGEZALL))
assert max(S_TEQ, S_TNE, S_TGE, S_TGEU, S_TLT, S_TLTU) == S_TLTU < min(S_TEQI, S_TNEI, S_TGEI, S_TGEIU, S_TLTI, S_TLTIU)
assert max(S_BC1F, S_BC1T) < S_BC1FL < S_BC1TL and max(S_BVF, S_BVT) < S_BVFL < S_BVTL
assert [S_SUB_S, S_MUL_S, S_DIV_S, S_SQRT_S] == [S_ADD_S + k for k in range(1, 5)]  # fpu.OP_ADD..OP_SQRT
assert [S_TRUNC_W_S, S_CEIL_W_S, S_FLOOR_W_S] == [S_ROUND_W_S + k for k in range(1, 4)]  # fpu.ROUND_*


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
def access(addr, size, fault, pc, ram_size, mapping):
    """A load's or store's (offset, code, value, extra, event_pc): the offset of `size` bytes
    at addr and no event, or offset -1 and the fault (`fault`: FAULT_LOAD or FAULT_STORE)
    the instruction at pc raises: `o, code, value, extra, event_pc = access(...)`, then
    `if o < 0: break`. Nothing but an event has set those names when a branch runs."""
    o = translate(addr, size, ram_size, mapping)
    if o < 0:
        return o, EV_FAULT, addr, fault, pc
    return o, EV_NONE, 0, 0, pc


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
def decode_cached(word, slot, dc_word, dc_val):
    """(op index << 8) | semantic id of `word`, through slot `slot` of the decode memo."""
    if dc_word[slot] != word:
        op = decode_word(word, LOOKUP_START, LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP)
        dc_val[slot] = (op << 8) | SEM_OF_OP[op]
        dc_word[slot] = word
    return dc_val[slot]


@njit(cache=True, inline="always")
def at_breakpoint(breakpoints, pc):
    for k in range(breakpoints.shape[0]):
        if breakpoints[k] == pc:
            return True
    return False


@njit(cache=True, inline="always")
def loop_turns_hot(jit_hot, jit_entries, jit_threshold, head):
    """Count a taken backward branch to `head`; True when the loop there is to run as a
    compiled region (it has one, or has just become hot)."""
    slot = (head >> 2) & (jit_hot.shape[0] - 1)
    if jit_entries[slot] == head:
        return True
    jit_hot[slot] += 1
    return jit_hot[slot] == jit_threshold


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
def run(regs, fpr, fpr_bits, vpr, vpr_bits, vctrl, counters, mem, mem16, mem32, memf32, ram_size, mapping,
        dc_word, dc_val, breakpoints, trace, max_instructions, cycle_limit, event, tm, prof, vscratch, vterms,
        jit_hot, jit_entries, jit_threshold, syscalls):
    """Execute from regs[PC] until an event; returns the event code (also in event[0]).

    mapping: what the code may reach (allegrex.memory.mapping: user or kernel mode, VRAM mirrors).
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
    syscalls: the system calls answered here rather than by Python (allegrex.hle.pure's table).
    """
    pc = np.int64(regs[PC])
    npc = np.int64(regs[NPC])
    cycles = counters[CYCLES]
    icount = counters[INSTRUCTIONS]
    budget = np.int64(max_instructions)
    tmask = trace.shape[0] - 1
    nbp = breakpoints.shape[0]
    first = True
    code = EV_NONE
    value = np.int64(0)
    extra = np.int64(0)
    event_pc = pc
    enter_at = np.int64(-1)  # a hot loop head reached by the last taken backward branch
    while True:
        if pc == enter_at and npc == pc + 4:
            code, value, event_pc = EV_JIT, pc, pc
            break
        if budget <= 0 or cycles >= cycle_limit:
            code, event_pc = EV_BUDGET, pc
            break
        if nbp > 0 and not first and at_breakpoint(breakpoints, pc):
            code, value, event_pc = EV_BREAKPOINT, pc, pc
            break
        first = False
        off = translate(pc, 4, ram_size, mapping)
        if off < 0:
            code, value, extra, event_pc = EV_FAULT, pc, FAULT_FETCH, pc
            break
        word = np.int64(mem32[off >> 2])
        val = decode_cached(word, (off >> 2) & DCACHE_MASK, dc_word, dc_val)
        sem = val & 0xFF
        rs, rt, rd = rs_of(word), rt_of(word), rd_of(word)
        addr = (np.int64(regs[rs]) + imm_of(word)) & 0xFFFFFFFF  # what a load/store/cache accesses
        next_pc = npc
        next_npc = npc + 4

        # ---- semantics: one branch per semantic id (compiled regions read these) ---------
        # A branch that faults sets code, value, extra, event_pc and breaks; an event that
        # lets the instruction retire (syscall...) sets them and falls through. Chain tests
        # are `sem == S_X` (or-ed) only: LLVM turns them into jump tables; ranges cost ~8%.
        if sem == S_ADDIU:
            regs[rt] = (np.int64(regs[rs]) + imm_of(word)) & 0xFFFFFFFF
        elif sem == S_ADDU:
            regs[rd] = (np.int64(regs[rs]) + np.int64(regs[rt])) & 0xFFFFFFFF
        elif sem == S_LW:
            o, code, value, extra, event_pc = access(addr, 4, FAULT_LOAD, pc, ram_size, mapping)
            if o < 0:
                break
            regs[rt] = mem32[o >> 2]
        elif sem == S_SW:
            o, code, value, extra, event_pc = access(addr, 4, FAULT_STORE, pc, ram_size, mapping)
            if o < 0:
                break
            mem32[o >> 2] = regs[rt]
        elif sem == S_SLL:
            regs[rd] = (np.int64(regs[rt]) << sa_of(word)) & 0xFFFFFFFF
        elif sem == S_BEQ:
            if regs[rs] == regs[rt]:
                next_npc = branch_target(npc, word)
        elif sem == S_BNE:
            if regs[rs] != regs[rt]:
                next_npc = branch_target(npc, word)
        elif sem == S_LUI:
            regs[rt] = uimm_of(word) << 16
        elif sem == S_ORI:
            regs[rt] = np.int64(regs[rs]) | uimm_of(word)
        elif sem == S_ANDI:
            regs[rt] = np.int64(regs[rs]) & uimm_of(word)
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
            regs[rt] = 1 if sx32(np.int64(regs[rs])) < imm_of(word) else 0
        elif sem == S_SLTIU:  # the sign-extended immediate, compared unsigned
            regs[rt] = 1 if np.int64(regs[rs]) < (imm_of(word) & 0xFFFFFFFF) else 0
        elif sem == S_XORI:
            regs[rt] = np.int64(regs[rs]) ^ uimm_of(word)
        elif sem == S_SRL:
            regs[rd] = np.int64(regs[rt]) >> sa_of(word)
        elif sem == S_SRA:
            regs[rd] = (sx32(np.int64(regs[rt])) >> sa_of(word)) & 0xFFFFFFFF
        elif sem == S_SLLV:
            regs[rd] = (np.int64(regs[rt]) << (np.int64(regs[rs]) & 31)) & 0xFFFFFFFF
        elif sem == S_SRLV:
            regs[rd] = np.int64(regs[rt]) >> (np.int64(regs[rs]) & 31)
        elif sem == S_SRAV:
            regs[rd] = (sx32(np.int64(regs[rt])) >> (np.int64(regs[rs]) & 31)) & 0xFFFFFFFF
        elif sem == S_ROTR or sem == S_ROTRV:
            sa = sa_of(word) if sem == S_ROTR else np.int64(regs[rs]) & 31
            v = np.int64(regs[rt])
            regs[rd] = ((v >> sa) | (v << (32 - sa))) & 0xFFFFFFFF
        elif sem == S_LB or sem == S_LBU:
            o, code, value, extra, event_pc = access(addr, 1, FAULT_LOAD, pc, ram_size, mapping)
            if o < 0:
                break
            b = np.int64(mem[o])
            regs[rt] = (((b ^ 0x80) - 0x80) & 0xFFFFFFFF) if sem == S_LB else b
        elif sem == S_LH or sem == S_LHU:
            o, code, value, extra, event_pc = access(addr, 2, FAULT_LOAD, pc, ram_size, mapping)
            if o < 0:
                break
            h = np.int64(mem16[o >> 1])
            regs[rt] = (((h ^ 0x8000) - 0x8000) & 0xFFFFFFFF) if sem == S_LH else h
        elif sem == S_SB:
            o, code, value, extra, event_pc = access(addr, 1, FAULT_STORE, pc, ram_size, mapping)
            if o < 0:
                break
            mem[o] = np.int64(regs[rt]) & 0xFF
        elif sem == S_SH:
            o, code, value, extra, event_pc = access(addr, 2, FAULT_STORE, pc, ram_size, mapping)
            if o < 0:
                break
            mem16[o >> 1] = np.int64(regs[rt]) & 0xFFFF
        elif sem == S_LWL or sem == S_LWR or sem == S_SWL or sem == S_SWR:  # the aligned word holding addr
            o, code, value, extra, event_pc = access(addr & ~3, 4, FAULT_LOAD if sem <= S_LWR else FAULT_STORE, pc,
                                                     ram_size, mapping)
            if o < 0:
                value = addr  # the address the program gave
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
            o, code, value, extra, event_pc = access(addr, 4, FAULT_LOAD, pc, ram_size, mapping)
            if o < 0:
                break
            regs[rt] = mem32[o >> 2]
            regs[LLBIT] = 1
        elif sem == S_SC:
            o, code, value, extra, event_pc = access(addr, 4, FAULT_STORE, pc, ram_size, mapping)
            if o < 0:
                break
            if regs[LLBIT] != 0:
                mem32[o >> 2] = regs[rt]
            regs[rt] = 1 if regs[LLBIT] != 0 else 0
            regs[LLBIT] = 0
        elif sem == S_ADD or sem == S_SUB or sem == S_ADDI:  # trap on signed overflow
            a = sx32(np.int64(regs[rs]))
            if sem == S_ADDI:
                s, dst = a + imm_of(word), rt
            elif sem == S_ADD:
                s, dst = a + sx32(np.int64(regs[rt])), rd
            else:
                s, dst = a - sx32(np.int64(regs[rt])), rd
            if s != sx32(s):
                code, value, extra, event_pc = EV_FAULT, word, FAULT_OVERFLOW, pc
                break
            regs[dst] = s & 0xFFFFFFFF
        elif sem == S_J:
            next_npc = jump_target(npc, word)
        elif sem == S_JAL:
            regs[31] = (npc + 4) & 0xFFFFFFFF
            next_npc = jump_target(npc, word)
        elif sem == S_JR:
            next_npc = np.int64(regs[rs])
        elif sem == S_JALR:
            target = np.int64(regs[rs])
            regs[rd] = (npc + 4) & 0xFFFFFFFF
            next_npc = target
        # branches on rs's sign, their -al (link) forms, and the -l (likely) forms of all
        elif (sem == S_BLEZ or sem == S_BGTZ or sem == S_BLTZ or sem == S_BGEZ or sem == S_BLTZAL or sem == S_BGEZAL
              or sem == S_BEQL or sem == S_BNEL or sem == S_BLEZL or sem == S_BGTZL or sem == S_BLTZL
              or sem == S_BGEZL or sem == S_BLTZALL or sem == S_BGEZALL):
            v = sx32(np.int64(regs[rs]))
            if sem == S_BEQL:
                taken = regs[rs] == regs[rt]
            elif sem == S_BNEL:
                taken = regs[rs] != regs[rt]
            elif sem == S_BLEZ or sem == S_BLEZL:
                taken = v <= 0
            elif sem == S_BGTZ or sem == S_BGTZL:
                taken = v > 0
            elif sem == S_BLTZ or sem == S_BLTZL or sem == S_BLTZAL or sem == S_BLTZALL:
                taken = v < 0
            else:
                taken = v >= 0
            if sem == S_BLTZAL or sem == S_BGEZAL or sem == S_BLTZALL or sem == S_BGEZALL:
                regs[31] = (npc + 4) & 0xFFFFFFFF
            if taken:
                next_npc = branch_target(npc, word)
            elif sem >= S_BEQL:  # likely, not taken: the delay slot is annulled
                next_pc, next_npc = npc + 4, npc + 8
        elif sem == S_MULT:
            p = sx32(np.int64(regs[rs])) * sx32(np.int64(regs[rt]))
            regs[LO] = p & 0xFFFFFFFF
            regs[HI] = (p >> 32) & 0xFFFFFFFF
        elif sem == S_MULTU:
            p = np.int64(regs[rs]) * np.int64(regs[rt])  # wraps in int64: same 64 bits
            regs[LO] = p & 0xFFFFFFFF
            regs[HI] = (p >> 32) & 0xFFFFFFFF
        elif sem == S_MADD or sem == S_MADDU or sem == S_MSUB or sem == S_MSUBU:  # HI:LO +/- the product
            acc = (np.int64(regs[HI]) << 32) | np.int64(regs[LO])
            if sem == S_MADD or sem == S_MSUB:
                p = sx32(np.int64(regs[rs])) * sx32(np.int64(regs[rt]))
            else:
                p = np.int64(regs[rs]) * np.int64(regs[rt])
            acc = acc + p if sem <= S_MADDU else acc - p
            regs[LO] = acc & 0xFFFFFFFF
            regs[HI] = (acc >> 32) & 0xFFFFFFFF
        elif sem == S_DIV:
            regs[LO], regs[HI] = div_signed(sx32(np.int64(regs[rs])), sx32(np.int64(regs[rt])))
        elif sem == S_DIVU:
            regs[LO], regs[HI] = div_unsigned(np.int64(regs[rs]), np.int64(regs[rt]))
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
        elif sem == S_MAX or sem == S_MIN:
            a = sx32(np.int64(regs[rs]))
            b = sx32(np.int64(regs[rt]))
            regs[rd] = (max(a, b) if sem == S_MAX else min(a, b)) & 0xFFFFFFFF
        elif sem == S_EXT:  # rd holds size - 1, sa the lowest bit
            regs[rt] = (np.int64(regs[rs]) >> sa_of(word)) & ((np.int64(1) << (rd + 1)) - 1)
        elif sem == S_INS:  # rd holds the field's highest bit, sa its lowest
            pos = sa_of(word)
            size = rd + 1 - pos
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
            code, value, event_pc = EV_SYSCALL, code_of(word), pc
        elif sem == S_BREAK:
            code, value, event_pc = EV_BREAK, code_of(word), pc
        elif sem == S_SYNC or sem == S_CACHE:
            pass  # no architectural effect; the timing model charges them
        elif sem == S_HALT:
            code, event_pc = EV_HALT, pc
        elif sem == S_MFIC:
            regs[rt] = regs[IC]
        elif sem == S_MTIC:
            regs[IC] = regs[rt]
        # traps: teq..tltu compare rs with rt, teqi..tltiu rs with the immediate
        elif (sem == S_TEQ or sem == S_TNE or sem == S_TGE or sem == S_TGEU or sem == S_TLT or sem == S_TLTU
              or sem == S_TEQI or sem == S_TNEI or sem == S_TGEI or sem == S_TGEIU or sem == S_TLTI or sem == S_TLTIU):
            a = np.int64(regs[rs])
            b = np.int64(regs[rt]) if sem <= S_TLTU else imm_of(word) & 0xFFFFFFFF
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
            o, code, value, extra, event_pc = access(addr, 4, FAULT_LOAD, pc, ram_size, mapping)
            if o < 0:
                break
            fpr_bits[ft_of(word)] = mem32[o >> 2]
        elif sem == S_SWC1:
            o, code, value, extra, event_pc = access(addr, 4, FAULT_STORE, pc, ram_size, mapping)
            if o < 0:
                break
            mem32[o >> 2] = fpr_bits[ft_of(word)]
        elif sem == S_ADD_S or sem == S_SUB_S or sem == S_MUL_S or sem == S_DIV_S or sem == S_SQRT_S:  # fpu.OP_ADD...
            # accessors at each use, no locals: a region's copy then indexes with constants
            r32, f31 = arith(OP_ADD + (sem - S_ADD_S), fpr[fs_of(word)], fpr[ft_of(word)],
                             np.int64(fpr_bits[fs_of(word)]), np.int64(fpr_bits[ft_of(word)]), np.int64(regs[FCR31]))
            fpr[fd_of(word)] = r32
            regs[FCR31] = f31
        elif sem == S_ABS_S:
            fpr_bits[fd_of(word)] = np.int64(fpr_bits[fs_of(word)]) & 0x7FFFFFFF
        elif sem == S_MOV_S:
            fpr_bits[fd_of(word)] = fpr_bits[fs_of(word)]
        elif sem == S_NEG_S:
            fpr_bits[fd_of(word)] = np.int64(fpr_bits[fs_of(word)]) ^ 0x80000000
        elif sem == S_ROUND_W_S or sem == S_TRUNC_W_S or sem == S_CEIL_W_S or sem == S_FLOOR_W_S:  # ROUND_NEAREST...
            fpr_bits[fd_of(word)] = float_to_word(fpr[fs_of(word)], ROUND_NEAREST + (sem - S_ROUND_W_S))
        elif sem == S_CVT_W_S:
            fpr_bits[fd_of(word)] = float_to_word(fpr[fs_of(word)], np.int64(regs[FCR31]) & 3)
        elif sem == S_CVT_S_W:
            # an int32 is exact in float64, so this rounds once, in FCR31's direction
            fpr[fd_of(word)] = round_to_f32(np.float64(sx32(np.int64(fpr_bits[fs_of(word)]))), 0.0,
                                            np.int64(regs[FCR31]) & 3)
        elif sem == S_C_COND_S:
            cond = cond_of(word)
            a = fpr[fs_of(word)]
            b = fpr[ft_of(word)]
            unordered = a != a or b != b
            result = (((cond & 1) != 0 and unordered) or ((cond & 2) != 0 and a == b)
                      or ((cond & 4) != 0 and a < b))
            f = np.int64(regs[FCR31])
            if unordered:
                f = compare_flags(f, cond, np.int64(fpr_bits[fs_of(word)]), np.int64(fpr_bits[ft_of(word)]))
            regs[FCR31] = (f | FCC_BIT) if result else (f & ~FCC_BIT & 0xFFFFFFFF)
        elif sem == S_MFC1:
            regs[rt] = fpr_bits[fs_of(word)]
        elif sem == S_MTC1:
            fpr_bits[fs_of(word)] = regs[rt]
        elif sem == S_CFC1:  # rd: the control register (31 FCR31, 0 FCR0; the rest read 0)
            regs[rt] = regs[FCR31] if rd == 31 else regs[FCR0] if rd == 0 else 0
        elif sem == S_CTC1:
            if rd == 31:
                regs[FCR31] = np.int64(regs[rt]) & FCR31_WRITE_MASK
        elif sem == S_BC1F or sem == S_BC1T or sem == S_BC1FL or sem == S_BC1TL:
            cc = (np.int64(regs[FCR31]) >> 23) & 1
            if cc == (1 if (sem == S_BC1T or sem == S_BC1TL) else 0):
                next_npc = branch_target(npc, word)
            elif sem >= S_BC1FL:  # likely, not taken: the delay slot is annulled
                next_pc, next_npc = npc + 4, npc + 8
        # ---- VFPU ----
        elif sem == S_BVF or sem == S_BVT or sem == S_BVFL or sem == S_BVTL:
            cc = (np.int64(vctrl[VFPU_CC]) >> vcc_of(word)) & 1
            if cc == (1 if (sem == S_BVT or sem == S_BVTL) else 0):
                next_npc = branch_target(npc, word)
            elif sem >= S_BVFL:  # likely, not taken: the delay slot is annulled
                next_pc, next_npc = npc + 4, npc + 8
        elif sem == S_VFPU:
            status = cop2.execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping,
                                  event, vscratch, vterms)
            if status != EV_NONE:
                code, value, extra, event_pc = status, event[1], event[3], pc
                if status == EV_FAULT:
                    break
        else:
            code, value, extra, event_pc = EV_FAULT, word, FAULT_RESERVED, pc
            break
        regs[0] = 0

        # ---- TIMING SEAM: cost of the instruction that just retired ----------------------
        # op index = val >> 8 (row of decode.TABLE); addr: the load/store address (from the
        # registers before execution); taken: a branch went to its target.
        taken = next_npc != npc + 4 and next_pc == npc
        if tm[T_ENABLED] == 0:  # the plain count, without a call: calls cost ~6x here
            cycles += 1
        else:
            cycles = account(tm, counters, prof, val >> 8, word, pc, addr, taken, cycles)
        # -----------------------------------------------------------------------------------
        if taken and jit_threshold > 0 and next_npc <= pc:  # a taken backward branch: a loop
            if loop_turns_hot(jit_hot, jit_entries, jit_threshold, next_npc):
                enter_at = next_npc

        trace[icount & tmask] = pc
        icount += 1
        budget -= 1
        pc = next_pc & 0xFFFFFFFF
        npc = next_npc & 0xFFFFFFFF
        if code != EV_NONE:
            if code == EV_SYSCALL:  # the call's cost lands after its timing step, whoever answers it
                cycles = charge(value, regs, counters, cycles, syscalls, event)
            if code != EV_SYSCALL or nbp > 0:  # (with breakpoints, Python's resume skips the next check)
                break
            # a call the loop answers
            answered_at = answered(value, regs, counters, cycles, syscalls, mem32, ram_size, mapping)
            if answered_at < 0:
                break
            cycles = answered_at
            code, value = EV_NONE, np.int64(0)

    return finish(regs, counters, event, pc, npc, cycles, icount, code, value, extra, event_pc)


def new_decode_cache():
    """Fresh decode memo arrays (dc_word, dc_val): every slot holds word 0 (`nop`)."""
    op = decode_word(0, LOOKUP_START, LOOKUP_COUNT, LOOKUP_MASK, LOOKUP_MATCH, LOOKUP_OP)
    dc_word = np.zeros(DCACHE_SIZE, dtype=np.uint32)
    dc_val = np.full(DCACHE_SIZE, (op << 8) | SEM_OF_OP[op], dtype=np.int32)
    return dc_word, dc_val


@lru_cache(maxsize=1)
def _source_fingerprint():
    """Digest of every source numba compiles into `run`: numba's cache only watches
    this file, so a change in cop2.py, decode.py, vfpu/ or timing/ must flush it (read
    once per process: every run loop and cached region helper checks its stamp against it;
    jit/runtime.py composes the region helpers, so a change there flushes them too)."""
    import hashlib
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent.parent
    files = sorted(list((root / "allegrex" / "cpu").glob("*.py")) + [root / "allegrex" / "memory.py"]
                   + [root / "allegrex" / "hle" / "pure.py", root / "allegrex" / "cpu" / "jit" / "runtime.py"]
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
