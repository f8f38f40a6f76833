"""The GE list processor: a numba loop that executes display-list commands.

`run` starts at regs[R_LISTADDR] and executes until something the firmware (Python,
allegrex/ge/queue.py) must handle: END (with the SIGNAL/FINISH flags raised before it),
the stall address, an error, or the command budget (an endless list keeps the GE busy
without hanging the host: the queue runs it again later in simulated time). It keeps
the hardware's registers in `regs` (state.R_*): list address, 2-level CALL return
addresses, offset registers, the bounding-box flag, raised interrupts. State commands
store their word in cmds[]; drawing and transfers call the drawing code directly; every
command adds its cost (allegrex/ge/cost.py) to regs[R_CYCLES].

Opcodes and kinds come from the command table (allegrex/ge/commands.py).
"""

import hashlib
import sys
from pathlib import Path

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

from allegrex.ge import cost, draw, transfer
from allegrex.ge.commands import OPS
from allegrex.ge.texture import load_clut
from allegrex.ge.state import (ADDR_MASK, EXEC_BBOX_INSIDE, EXEC_DEPTH1, EXEC_DEPTH2, EXEC_RUNNING, INT_END,
                               INT_FINISH, INT_SIGNAL, PROJ, R_CYCLES, R_ERROR, R_ERROR_ADDR, R_ERROR_PC, R_EXEC,
                               R_IADR, R_INTR, R_LISTADDR, R_OADR, R_OADR1, R_OADR2, R_RADR1, R_RADR2,
                               R_STALLADDR, R_VADR, TGEN, VIEW, WORLD, BONES, R_COMMANDS, GeState)
from allegrex.memory import RAM_SIZE, USER_MAPPING, VRAM_SIZE, translate
from allegrex.ge.regs import (NOP, VADDR, IADDR, PRIM, BEZIER, SPLINE, BOUNDINGBOX, JUMP, BJUMP, CALL, RET,
                             END, SIGNAL, FINISH, BASE, OFFSETADDR, ORIGIN, BONEMATRIXNUMBER, BONEMATRIXDATA,
                             WORLDMATRIXNUMBER, WORLDMATRIXDATA, VIEWMATRIXNUMBER, VIEWMATRIXDATA,
                             PROJMATRIXNUMBER, PROJMATRIXDATA, TGENMATRIXNUMBER, TGENMATRIXDATA, LOADCLUT,
                             TRANSFERSTART, VAP)

# events: why run() returned
EV_END = 1  # END executed (regs[R_INTR] says whether SIGNAL or FINISH came before it)
EV_STALL = 2  # the list address reached the stall address
EV_BUDGET = 3  # the command budget ran out; the GE is still running
EV_ERROR = 4  # regs[R_ERROR] says what went wrong, at regs[R_ERROR_PC]
EVENT_NAMES = {EV_END: "end", EV_STALL: "stall", EV_BUDGET: "budget", EV_ERROR: "error"}

# errors: the GE cannot go on
ERR_LIST_ADDRESS = 1  # the list address is outside memory
ERR_TARGET = 2  # JUMP/BJUMP/CALL/RET to an address outside memory
ERR_CALL_DEPTH = 3  # a third nested CALL (the hardware keeps two return addresses)
ERROR_TEXT = {ERR_LIST_ADDRESS: "the list runs outside memory", ERR_TARGET: "jump target outside memory",
              ERR_CALL_DEPTH: "CALL nested deeper than the GE's 2 levels"}


# per matrix-data opcode: its index command, where the matrix starts in mtx, how many
# values it holds, and the index field's mask (7 bits for bones, 4 for the others)
MATRIX_INDEX_OP = np.zeros(256, dtype=np.int64)
MATRIX_START = np.zeros(256, dtype=np.int64)
MATRIX_SIZE = np.zeros(256, dtype=np.int64)
MATRIX_INDEX_MASK = np.zeros(256, dtype=np.int64)
for _data, _index, _start, _size, _mask in ((BONEMATRIXDATA, BONEMATRIXNUMBER, BONES, 96, 0x7F),
                                           (WORLDMATRIXDATA, WORLDMATRIXNUMBER, WORLD, 12, 0xF),
                                           (VIEWMATRIXDATA, VIEWMATRIXNUMBER, VIEW, 12, 0xF),
                                           (PROJMATRIXDATA, PROJMATRIXNUMBER, PROJ, 16, 0xF),
                                           (TGENMATRIXDATA, TGENMATRIXNUMBER, TGEN, 12, 0xF)):
    MATRIX_INDEX_OP[_data], MATRIX_START[_data], MATRIX_SIZE[_data], MATRIX_INDEX_MASK[_data] = _index, _start, _size, _mask


@njit(cache=True, error_model="numpy")
def relative(cmds, regs, arg):
    """An address argument made absolute: BASE's high bits, plus the offset register."""
    return ((((np.int64(cmds[BASE]) << 8) & 0x0F000000) | arg) + regs[R_OADR]) & ADDR_MASK


@njit(cache=True, error_model="numpy", inline="always")
def _fail(regs, error, pc, addr):
    regs[R_ERROR] = error
    regs[R_ERROR_PC] = pc
    regs[R_ERROR_ADDR] = addr
    return EV_ERROR


@njit(cache=True, error_model="numpy")
def _valid(target, ram_size, mapping):
    return translate(target, 4, ram_size, mapping) >= 0


@njit(cache=True, error_model="numpy")
def _matrix_data(cmds, mtx_bits, num_op, word, start, size, index_mask):
    """Store one matrix value at the upload index and advance it (the index wraps at
    its field width: 16 for the 4-bit ones, so a 4x3 matrix ignores indices 12-15)."""
    index = cmds[num_op] & index_mask
    if index < size:
        mtx_bits[start + index] = (word & 0xFFFFFF) << 8
    cmds[num_op] = (num_op << 24) | ((index + 1) & index_mask)


@njit(cache=True, error_model="numpy")
def run(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, budget, trace):
    """Execute from regs[R_LISTADDR] until an event (EV_*); at most `budget` commands.
    ram_size and mapping are allegrex.memory.translate's: the machine's, so the GE sees
    VRAM's mirrors in the EDRAM address translation current when it runs, as the CPU does.
    trace: int64[1 + n]; when n > 0 the addresses of executed commands are appended
    (trace[0] counts them, up to n) for the list dump."""
    mem32 = mem.view(np.uint32)
    mtx_bits = mtx.view(np.uint32)
    executed = 0
    while True:
        pc = regs[R_LISTADDR] & ADDR_MASK
        stall = regs[R_STALLADDR] & ADDR_MASK
        if stall != 0 and pc == stall:
            return EV_STALL
        if executed >= budget:
            return EV_BUDGET
        off = translate(pc, 4, ram_size, mapping)
        if off < 0:
            return _fail(regs, ERR_LIST_ADDRESS, pc, pc)
        word = np.int64(mem32[off >> 2])
        op = word >> 24
        arg = word & 0xFFFFFF
        if regs[R_INTR] & INT_FINISH and op != END:
            return EV_END  # FINISH without END: the firmware stops the GE there
        if op != END:
            regs[R_INTR] &= ~INT_SIGNAL  # a SIGNAL not followed by END is acknowledged and ignored
        executed += 1
        if trace[0] < trace.shape[0] - 1:
            trace[0] += 1
            trace[trace[0]] = pc
        regs[R_COMMANDS] += 1
        regs[R_CYCLES] += cost.COMMAND
        regs[R_LISTADDR] = pc + 4
        if MATRIX_SIZE[op]:
            _matrix_data(cmds, mtx_bits, MATRIX_INDEX_OP[op], word, MATRIX_START[op], MATRIX_SIZE[op],
                         MATRIX_INDEX_MASK[op])
            cmds[op] = word
            continue
        cmds[op] = word
        if op == NOP:
            continue
        if op == VADDR:
            regs[R_VADR] = relative(cmds, regs, arg)
        elif op == IADDR:
            regs[R_IADR] = relative(cmds, regs, arg)
        elif op == PRIM:
            draw.primitive(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, arg & 0xFFFF, (arg >> 16) & 7)
        elif op == BEZIER or op == SPLINE:
            draw.patch(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, op == SPLINE, arg)
        elif op == BOUNDINGBOX:
            draw.bounding_box(mem, ram_size, mapping, regs, cmds, mtx, arg & 0xFFFF)
        elif op == VAP:
            draw.immediate_vertex(mem, ram_size, mapping, regs, cmds, mtx, clut, keep, arg)
        elif op == TRANSFERSTART:
            transfer.block_transfer(mem, ram_size, mapping, regs, cmds, arg & 1)
        elif op == LOADCLUT:
            load_clut(mem, ram_size, mapping, cmds, clut)
            regs[R_CYCLES] += (arg & 0x3F) * 32 // cost.CLUT_BYTES
        elif op == JUMP or op == BJUMP:
            if op == BJUMP and regs[R_EXEC] & EXEC_BBOX_INSIDE:
                regs[R_EXEC] &= ~EXEC_BBOX_INSIDE
                continue
            target = relative(cmds, regs, arg & 0xFFFFFC)
            if not _valid(target, ram_size, mapping):
                return _fail(regs, ERR_TARGET, pc, target)
            regs[R_LISTADDR] = target
        elif op == CALL:
            target = relative(cmds, regs, arg & 0xFFFFFC)
            if not _valid(target, ram_size, mapping):
                return _fail(regs, ERR_TARGET, pc, target)
            if regs[R_EXEC] & EXEC_DEPTH2:
                return _fail(regs, ERR_CALL_DEPTH, pc, target)
            if regs[R_EXEC] & EXEC_DEPTH1:
                regs[R_RADR2] = pc + 4
                regs[R_OADR2] = regs[R_OADR]
                regs[R_EXEC] = (regs[R_EXEC] & ~EXEC_DEPTH1) | EXEC_DEPTH2
            else:
                regs[R_RADR1] = pc + 4
                regs[R_OADR1] = regs[R_OADR]
                regs[R_EXEC] |= EXEC_DEPTH1
            regs[R_LISTADDR] = target
        elif op == RET:
            if regs[R_EXEC] & EXEC_DEPTH2:
                regs[R_LISTADDR] = regs[R_RADR2]
                regs[R_OADR] = regs[R_OADR2]
                regs[R_EXEC] = (regs[R_EXEC] & ~EXEC_DEPTH2) | EXEC_DEPTH1
            elif regs[R_EXEC] & EXEC_DEPTH1:
                regs[R_LISTADDR] = regs[R_RADR1]
                regs[R_OADR] = regs[R_OADR1]
                regs[R_EXEC] &= ~EXEC_DEPTH1
            # a RET outside any CALL does nothing
        elif op == OFFSETADDR:
            regs[R_OADR] = (arg << 8) & 0xFFFFFFFF
        elif op == ORIGIN:
            regs[R_OADR] = pc
        elif op == SIGNAL:
            regs[R_INTR] |= INT_SIGNAL
        elif op == FINISH:
            regs[R_INTR] |= INT_FINISH
        elif op == END:
            regs[R_INTR] |= INT_END
            regs[R_EXEC] &= ~EXEC_RUNNING
            regs[R_CYCLES] += cost.END
            return EV_END


def warm_up() -> None:
    """Compile `run` (the whole drawing path: about two minutes of CPU the first time on
    the shared machine, docs/ge.md; then loaded from numba's cache in under a second) by running an empty list on scratch
    state, so that a caller can do it outside a program's time limit."""
    ram_size = min(RAM_SIZE.values())
    mem = np.zeros(ram_size + VRAM_SIZE, dtype=np.uint8)
    mem[:8].view(np.uint32)[:] = (OPS["FINISH"] << 24, OPS["END"] << 24)
    state = GeState()
    state.regs[R_LISTADDR] = 0x08000000
    run(mem, ram_size, USER_MAPPING, state.regs, state.cmds, state.mtx, state.clut, state.keep, 2,
        np.zeros(1, dtype=np.int64))


def _source_fingerprint() -> str:
    """Digest of the sources numba compiles into `run` (every GE module, memory.py)."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for f in sorted(here.glob("*.py")) + [here.parent / "memory.py"]:
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:24]


def _flush_stale_caches() -> None:
    """numba's cache only watches each function's own file, and `run` is compiled with
    the whole drawing path inside it: when any GE source changes, flush every GE
    function's cached code (as interp.py does for the CPU loop)."""
    try:
        stamp = Path(run._cache._cache_path) / "ge.sources"
        current = _source_fingerprint()
        if stamp.exists() and stamp.read_text() == current:
            return
        for name, module in list(sys.modules.items()):
            if name.startswith("allegrex.ge.") and module is not None:
                for value in vars(module).values():
                    if isinstance(value, CPUDispatcher) and value.__module__ == name:
                        value._cache.flush()
        stamp.write_text(current)
    except OSError:
        pass  # read-only install: numba then recompiles as needed


_flush_stale_caches()
