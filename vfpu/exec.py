"""Decode and run one VFPU word inside the CPU's numba loop.

`execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event)`
returns EV_NONE (0) when the instruction completed, else EV_FAULT with event[1] = the bad
guest address and event[3] = FAULT_LOAD / FAULT_STORE for memory faults, or event[1] =
the word and event[3] = FAULT_VFPU for a word the table does not know (the run loop's
conventions, allegrex/cpu/events.py).
Decoding goes through the one table in vfpu/table.py (ROW_* arrays, LUT_*).

Prefix consumption: every VFPU operation (groups 0x18-0x1B, 0x34, 0x37 immediates,
0x3C, 0x3F) resets the prefix registers to the identity after running; loads, stores,
COP2 moves and the prefix instructions themselves leave them pending (as on hardware:
prefixes apply to the next VFPU operation).
Register overlap: every operand is read in full before any result is written, so a
destination that overlaps its sources (vdot into a source, vmmul M000, M000, ...) sees
the old values. The hardware documents such overlaps for vmmul/vtfm/vhtfm/vqmul/vcrsp as
undefined; this is our (deterministic) choice for them.
"""

import numpy as np
from numba import njit

from allegrex.cpu.events import EV_FAULT, EV_NONE, FAULT_LOAD, FAULT_STORE, FAULT_VFPU
from allegrex.cpu.hints import unlikely
from allegrex.memory import translate
from vfpu.ops import D, FLOAT_OP, ONE_BITS, OPS, S, T, compare, compared_cc, dot_bits, flush, vector_op
from vfpu.plain import identity_prefixes, plain_op
from vfpu.prefix import read_source, write_dest
from vfpu.regs import MAT_CELLS, VEC_CELLS
from vfpu.table import (LUT_ROWS, LUT_START, ROW_DN, ROW_MASK, ROW_MATCH, ROW_OP, ROW_PFX, ROW_SIZE,
                        ROW_SN, ROW_TN)

EV_OK = EV_NONE

for _name, _num in OPS.items():
    globals()["OP_" + _name.upper().replace(".", "_")] = _num

VC_SPFX, VC_TPFX, VC_DPFX, VC_CC, VC_REV = 0, 1, 2, 3, 7
# Scratch layout (float32): vector_path's S/T/D lanes, then matrix_op's sources and results.
SCRATCH_LANES = 48
SCRATCH_MAT_SRC = SCRATCH_LANES
SCRATCH_MAT_RES = SCRATCH_MAT_SRC + 32
SCRATCH_SIZE = SCRATCH_MAT_RES + 16
PEND_S, PEND_T, PEND_D = 16, 17, 18
# Writable bits of each control register (128-143) for mtvc/vmtvc; REV is read-only.
CTRL_WRITE_MASK = np.array([0xFFFFF, 0xFFFFF, 0xFFF, 0x3F, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0]
                           + [0xFFFFFFFF] * 8, dtype=np.uint32)


@njit(cache=True, inline="always", error_model="numpy")
def decode(word):
    """Row index in the table for `word`, or -1."""
    top = word >> 16
    for k in range(LUT_START[top], LUT_START[top + 1]):
        r = LUT_ROWS[k]
        if (word & ROW_MASK[r]) == ROW_MATCH[r]:
            return r
    return -1


@njit(cache=True, inline="always", error_model="numpy")
def consume_prefixes(vctrl):
    vctrl[VC_SPFX] = 0xE4
    vctrl[VC_TPFX] = 0xE4
    vctrl[VC_DPFX] = 0
    vctrl[PEND_S] = 0
    vctrl[PEND_T] = 0
    vctrl[PEND_D] = 0


@njit(cache=True, inline="always", error_model="numpy")
def write_control(vctrl, num, value):
    idx = num - 128
    mask = CTRL_WRITE_MASK[idx]
    vctrl[idx] = (vctrl[idx] & ~mask) | (np.uint32(value) & mask)
    if idx <= 2:
        vctrl[16 + idx] = 1


@njit(cache=True, inline="always", error_model="numpy")
def mem_fault(event, addr, is_store):
    event[1] = addr
    event[3] = FAULT_STORE if is_store else FAULT_LOAD
    return EV_FAULT


@njit(cache=True, inline="always", error_model="numpy")
def reject(event, word):
    event[1] = word
    event[3] = FAULT_VFPU
    return EV_FAULT


@njit(cache=True, inline="always", error_model="numpy")
def mem_quad_reg(word):
    return ((word >> 16) & 0x1F) | ((word & 1) << 5)


@njit(cache=True, inline="always", error_model="numpy")
def mem_address(word, regs):
    """Guest address of a VFPU load or store: base register + the word's offset (low 2 bits clear)."""
    off = np.int64(word & 0xFFFC)
    if off >= 0x8000:
        off -= 0x10000
    return (np.int64(regs[(word >> 21) & 0x1F]) + off) & 0xFFFFFFFF


@njit(cache=True, inline="always", error_model="numpy")
def load_store_single(is_store, addr, cell, vpr_bits, mem32, ram_size, mapping, event):
    """lv.s / sv.s of VFPU cell `cell` at `addr`."""
    o = translate(addr, 4, ram_size, mapping)
    if o < 0:
        return mem_fault(event, addr, is_store)
    if is_store:
        mem32[o >> 2] = vpr_bits[cell]
    else:
        vpr_bits[cell] = mem32[o >> 2]
    return EV_OK


@njit(cache=True, inline="always", error_model="numpy")
def load_store_quad(is_store, addr, reg, vpr_bits, mem32, ram_size, mapping, event):
    """lv.q / sv.q of quad register `reg` (mem_quad_reg) at `addr`. The four words are
    read, then written: a column's cells are adjacent, and so the host moves them as one
    16-byte load and store (interleaved, the arrays might overlap). A vadd.q reads a
    column as one 16-byte load, which four small stores cannot forward: sim_speed's VFPU
    loop ran 1.02x as fast so (MEASURED 2026-12-07, sim_speed_ab, 5 of 6 rounds)."""
    o = translate(addr, 16, ram_size, mapping)
    if unlikely(o < 0):
        return mem_fault(event, addr, is_store)
    w = o >> 2
    c0, c1, c2, c3 = VEC_CELLS[4, reg, 0], VEC_CELLS[4, reg, 1], VEC_CELLS[4, reg, 2], VEC_CELLS[4, reg, 3]
    if is_store:
        x0, x1, x2, x3 = vpr_bits[c0], vpr_bits[c1], vpr_bits[c2], vpr_bits[c3]
        mem32[w], mem32[w + 1], mem32[w + 2], mem32[w + 3] = x0, x1, x2, x3
    else:
        x0, x1, x2, x3 = mem32[w], mem32[w + 1], mem32[w + 2], mem32[w + 3]
        vpr_bits[c0], vpr_bits[c1], vpr_bits[c2], vpr_bits[c3] = x0, x1, x2, x3
    return EV_OK


@njit(cache=True, inline="always", error_model="numpy")
def single_cell(word):
    """The VFPU cell lv.s / sv.s move."""
    return VEC_CELLS[1, ((word >> 16) & 0x1F) | ((word & 3) << 5), 0]


@njit(cache=True, inline="always", error_model="numpy")
def load_store(op, word, regs, vpr_bits, mem32, ram_size, mapping, event):
    addr = mem_address(word, regs)
    is_store = op == OP_SV_S or op == OP_SV_Q or op == OP_SVL_Q or op == OP_SVR_Q
    if op == OP_LV_S or op == OP_SV_S:
        return load_store_single(is_store, addr, single_cell(word), vpr_bits, mem32, ram_size, mapping, event)
    reg = mem_quad_reg(word)
    if op == OP_LV_Q or op == OP_SV_Q:
        return load_store_quad(is_store, addr, reg, vpr_bits, mem32, ram_size, mapping, event)
    # lvl/lvr/svl/svr: the word address's position k in its 16-byte line picks the lanes:
    # left forms move lanes 3-k..3 with the words line[0..k]; right forms lanes 0..3-k
    # with line[k..3] (like lwl/lwr on a little-endian quad).
    k = (addr >> 2) & 3
    line = addr & ~np.int64(15)
    o = translate(line, 16, ram_size, mapping)
    if o < 0:
        return mem_fault(event, addr, is_store)
    w = o >> 2
    left = op == OP_LVL_Q or op == OP_SVL_Q
    for i in range(4):
        if left:
            lane, slot = 3 - k + i, i
            if i > k:
                break
        else:
            lane, slot = i, k + i
            if slot > 3:
                break
        cell = VEC_CELLS[4, reg, lane]
        if is_store:
            mem32[w + slot] = vpr_bits[cell]
        else:
            vpr_bits[cell] = mem32[w + slot]
    return EV_OK


@njit(cache=True, inline="always", error_model="numpy")
def matrix_op(op, n, word, vpr, vpr_bits, scratch):
    """vmmul, vtfm*, vhtfm*, vmscl, vmmov, vmidt, vmzero, vmone (no prefixes)."""
    rd, rs, rt = word & 0x7F, (word >> 8) & 0x7F, (word >> 16) & 0x7F
    src = scratch[SCRATCH_MAT_SRC:SCRATCH_MAT_SRC + 32]  # views of the caller's scratch: no allocation
    res = scratch[SCRATCH_MAT_RES:SCRATCH_MAT_RES + 16]
    src_bits = src.view(np.uint32)
    res_bits = res.view(np.uint32)
    nn = n * n
    if op == OP_VMMUL:  # rd[r][c] = dot(rs vector c, rt vector r)
        for i in range(nn):
            src[i] = vpr[MAT_CELLS[n, rs, i]]
            src[16 + i] = vpr[MAT_CELLS[n, rt, i]]
        for r in range(n):
            for c in range(n):
                res_bits[r * n + c] = dot_bits(src_bits, c * n, 16 + r * n, n)
        for i in range(nn):
            vpr[MAT_CELLS[n, rd, i]] = res[i]
        return
    if op == OP_VMSCL or op == OP_VMMOV:
        scale = vpr[VEC_CELLS[1, rt, 0]]
        for i in range(nn):
            src[i] = vpr[MAT_CELLS[n, rs, i]]
        for i in range(nn):
            if op == OP_VMSCL:
                vpr[MAT_CELLS[n, rd, i]] = src[i] * scale
            else:
                vpr[MAT_CELLS[n, rd, i]] = src[i]
        return
    if op == OP_VMIDT or op == OP_VMZERO or op == OP_VMONE:
        for v in range(n):
            for k in range(n):
                x = 1.0 if (op == OP_VMONE or (op == OP_VMIDT and v == k)) else 0.0
                vpr[MAT_CELLS[n, rd, v * n + k]] = x
        return
    # vtfmN / vhtfmN: rd[i] = dot(rs vector i, rt) (+ rs[i][n-1] for the homogeneous form)
    homogeneous = op == OP_VHTFM2 or op == OP_VHTFM3 or op == OP_VHTFM4
    tn = n - 1 if homogeneous else n
    for i in range(nn):
        src[i] = vpr[MAT_CELLS[n, rs, i]]
    for k in range(tn):
        src[16 + k] = vpr[VEC_CELLS[n, rt, k]]  # rt is addressed as an n-vector
    if homogeneous:
        src_bits[16 + n - 1] = ONE_BITS  # rs[i][n-1] is added: its factor is 1
    for i in range(n):
        res_bits[i] = dot_bits(src_bits, i * n, 16, n)
    # Erratum (all models): vhtfm2/vhtfm3 with rd >= 64 write the result rotated along the
    # row/column: vhtfm2 one lane back, vhtfm3 one lane forward (vfpu-docs bugs.md).
    shift = 0
    if rd >= 64 and op == OP_VHTFM2:
        shift = 3
    elif rd >= 64 and op == OP_VHTFM3:
        shift = 1
    for i in range(n):
        vpr[VEC_CELLS[n, rd, (i + shift) & 3]] = res[i]


def new_scratch():
    """Working storage for execute_with (float32 lanes, the dot unit's uint32[8] operand
    staging), allocated once per machine, not per instruction."""
    return np.zeros(SCRATCH_SIZE, dtype=np.float32), np.zeros(8, dtype=np.uint32)


@njit(cache=True, error_model="numpy")
def execute(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event):
    """Run one VFPU word; EV_NONE, or EV_FAULT with event[1] / event[3] filled."""
    return execute_with(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event,
                        np.zeros(SCRATCH_SIZE, dtype=np.float32), np.zeros(8, dtype=np.uint32))


@njit(cache=True, inline="always", error_model="numpy")
def is_load_store(op):
    return op == OP_LV_S or op == OP_SV_S or op == OP_LV_Q or op == OP_SV_Q or \
        op == OP_LVL_Q or op == OP_LVR_Q or op == OP_SVL_Q or op == OP_SVR_Q


@njit(cache=True, inline="always", error_model="numpy")
def execute_with(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch,
                 terms):
    """execute, with float32[SCRATCH_SIZE] working storage from the caller (see new_scratch).
    Inlined into its callers (the run loop): loads, stores and the prefix-free common
    operations (vfpu/plain.py) run without a call; the rest calls execute_rest. A call
    passing a dozen arrays cost more than most operations themselves."""
    word = np.uint32(word)
    row = decode(word)
    if row >= 0:
        op = ROW_OP[row]
        if is_load_store(op):
            return load_store(op, word, regs, vpr_bits, mem32, ram_size, mapping, event)
        if identity_prefixes(vctrl) and plain_op(op, ROW_SIZE[row], word, vpr, vpr_bits, terms, vctrl):
            consume_prefixes(vctrl)  # clears the pending flags an explicit identity prefix set
            return EV_OK
    return execute_rest(word, row, regs, vpr, vpr_bits, vctrl, event, scratch, terms)


@njit(cache=True, error_model="numpy")
def execute_called(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch,
                   terms):
    """execute_with as a function of its own, compiled once: what compiled regions call
    (inlined into each region it made compiling a VFPU loop ~4x slower)."""
    return execute_with(word, pc, regs, vpr, vpr_bits, vctrl, mem, mem32, memf32, ram_size, mapping, event, scratch,
                        terms)


@njit(cache=True, error_model="numpy")
def execute_rest(word, row, regs, vpr, vpr_bits, vctrl, event, scratch, terms):
    """Every word but the loads and stores, with the full prefix machinery; row: decode(word)."""
    if row < 0:
        return reject(event, word)
    op = ROW_OP[row]
    n = ROW_SIZE[row]

    # --- words that do not consume prefixes ---
    if op == OP_VPFXS or op == OP_VPFXT or op == OP_VPFXD:
        k = op - OP_VPFXS
        vctrl[k] = word & (0xFFF if k == 2 else 0xFFFFF)
        vctrl[16 + k] = 1
        return EV_OK
    if op == OP_MFV or op == OP_MTV or op == OP_MFVC or op == OP_MTVC:
        rt = (word >> 16) & 0x1F
        if op == OP_MFV:
            if rt:
                regs[rt] = vpr_bits[VEC_CELLS[1, word & 0x7F, 0]]
        elif op == OP_MTV:
            vpr_bits[VEC_CELLS[1, word & 0x7F, 0]] = regs[rt]
        elif op == OP_MFVC:
            if rt:
                regs[rt] = vctrl[(word & 0xFF) - 128]
        else:
            write_control(vctrl, word & 0xFF, regs[rt])
        return EV_OK
    if op == OP_VMFVC:
        vpr_bits[VEC_CELLS[1, word & 0x7F, 0]] = vctrl[((word >> 8) & 0xFF) - 128]
        return EV_OK
    if op == OP_VMTVC:
        write_control(vctrl, word & 0xFF, vpr_bits[VEC_CELLS[1, (word >> 8) & 0x7F, 0]])
        return EV_OK
    if op == OP_BVF or op == OP_BVT or op == OP_BVFL or op == OP_BVTL:
        return reject(event, word)  # branches belong to the CPU's loop

    # --- operations (consume prefixes) ---
    if op == OP_VNOP or op == OP_VSYNC or op == OP_VFLUSH:
        consume_prefixes(vctrl)
        return EV_OK
    if op == OP_VMMUL or op == OP_VMSCL or op == OP_VMMOV or op == OP_VMIDT or op == OP_VMZERO or \
            op == OP_VMONE or (op >= OP_VTFM2 and op <= OP_VHTFM4):
        matrix_op(op, n, word, vpr, vpr_bits, scratch)
        consume_prefixes(vctrl)
        return EV_OK
    if op == OP_VRNDS:
        vctrl[8] = vpr_bits[VEC_CELLS[1, (word >> 8) & 0x7F, 0]]
        consume_prefixes(vctrl)
        return EV_OK

    return vector_path(row, op, n, word, vpr, vpr_bits, vctrl, event, scratch, terms)


@njit(cache=True, inline="always", error_model="numpy")
def vector_path(row, op, n, word, vpr, vpr_bits, vctrl, event, scratch, terms):
    """Single/vector operations: read S and T through the prefixes, compute, write D."""
    buf = scratch  # lanes 0..47 (S, T, D); zeroed as a fresh buffer would be
    for i in range(SCRATCH_LANES):
        buf[i] = 0.0
    bits = buf.view(np.uint32)
    pf = ROW_PFX[row]
    use = (pf >> 6) == 0 or n == 1
    ms = (pf & 3) if use else 0
    mt = ((pf >> 2) & 3) if use else 0
    md = ((pf >> 4) & 3) if use else 0
    rd, rs, rt = word & 0x7F, (word >> 8) & 0x7F, (word >> 16) & 0x7F
    if op == OP_VIIM or op == OP_VFIM:
        rd = rt  # the 16-bit immediate forms keep their destination in bits 16-22
    sn, tn, dn = ROW_SN[row], ROW_TN[row], ROW_DN[row]
    if sn:
        read_source(vpr_bits, rs, sn, vctrl[VC_SPFX], ms, bits, S)
    if tn:
        read_source(vpr_bits, rt, tn, vctrl[VC_TPFX], mt, bits, T)
    is_float = FLOAT_OP[op]
    if is_float:
        flush(buf, bits, S, 4)
        flush(buf, bits, T, 4)

    if op == OP_VCMP:
        cond = word & 0xF
        hits = np.int64(0)
        for i in range(n):
            if compare(cond, buf[S + i], buf[T + i]):
                hits |= 1 << i
        vctrl[VC_CC] = compared_cc(vctrl[VC_CC], n, hits)
        consume_prefixes(vctrl)
        return EV_OK
    if op == OP_VCMOVT or op == OP_VCMOVF:
        sel = (word >> 16) & 7
        want = 1 if op == OP_VCMOVT else 0
        ccr = vctrl[VC_CC]
        for i in range(n):
            bit = i if sel == 6 else sel
            if sel == 7 or ((ccr >> bit) & 1) != want:
                bits[D + i] = vpr_bits[VEC_CELLS[n, rd, i]]  # keep the old value
            else:
                bits[D + i] = bits[S + i]
        write_dest(vpr, vpr_bits, rd, n, buf, bits, D, vctrl[VC_DPFX], md, 0)
        consume_prefixes(vctrl)
        return EV_OK

    if not vector_op(op, n, buf, bits, word, vctrl, terms):
        return reject(event, word)
    if is_float and op != OP_VF2IN and op != OP_VF2IZ and op != OP_VF2IU and op != OP_VF2ID:
        flush(buf, bits, D, dn)
    write_dest(vpr, vpr_bits, rd, dn, buf, bits, D, vctrl[VC_DPFX], md, 0)
    consume_prefixes(vctrl)
    return EV_OK
