"""VFPU code running inside the CPU's numba loop (allegrex.machine.Machine), end to end."""

import numpy as np
import pytest

from allegrex.cpu.asm import code_bytes, enc
from allegrex.cpu.disasm import disassemble as cpu_disassemble
from allegrex.cpu.events import FAULT_LOAD
from allegrex.cpu.faults import GuestFault
from allegrex.machine import Machine
from tests.cpu.program import BASE, done
from vfpu.asm import assemble

DATA = 0x08900000
N = 64  # floats per vector


def dot_program():
    """a0, a1: the vectors; a2: number of quads; a3: where the float result goes."""
    words = [assemble("vzero.s S000")]
    loop = len(words)
    words += [
        assemble("lv.q C100, 0($a0)"),
        assemble("lv.q C200, 0($a1)"),
        enc("addiu", rt="a0", rs="a0", imm=16),
        enc("addiu", rt="a1", rs="a1", imm=16),
        enc("addiu", rt="a2", rs="a2", imm=-1),
        assemble("vdot.q S010, C100, C200"),
    ]
    bne_at = len(words)
    words.append(enc("bne", rs="a2", rt="zero", imm=loop - (bne_at + 1)))
    words.append(assemble("vadd.s S000, S000, S010"))  # delay slot: accumulate
    words.append(assemble("sv.s S000, 0($a3)"))
    return words


@pytest.fixture(scope="module")
def machine():
    return Machine("psp-1000")


def test_dot_product_loop_matches_numpy(machine):
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, N).astype(np.float32)
    y = rng.uniform(-1, 1, N).astype(np.float32)
    machine.memory.write(DATA, x.tobytes())
    machine.memory.write(DATA + 4 * N, y.tobytes())
    machine.cpu.regs[4:8] = (DATA, DATA + 4 * N, N // 4, DATA + 8 * N)
    machine.load_raw(BASE, code_bytes(dot_program() + [done(), 0]), entry=BASE)
    event = machine.step(10_000)
    assert event.kind == "syscall"
    got = machine.memory.read_f32(DATA + 8 * N)
    want = float(np.dot(x.astype(np.float64), y.astype(np.float64)))
    assert abs(got - want) < 1e-5 * max(1.0, abs(want))
    assert machine.cpu.vpr[0] == np.float32(got)


def test_vfpu_memory_fault_is_a_guest_fault_with_the_address(machine):
    machine.cpu.regs[4] = DATA + 4  # lv.q needs a 16-byte aligned address
    machine.load_raw(BASE, code_bytes([assemble("lv.q C000, 0($a0)"), done(), 0]), entry=BASE)
    event = machine.step(100)
    assert event.kind == "fault" and event.extra == FAULT_LOAD and event.value == DATA + 4
    with pytest.raises(GuestFault, match="lv.q C000, 0"):
        raise machine.fault(event)


def test_prefixes_and_branch_on_vfpu_condition(machine):
    words = [
        assemble("vone.q C000"),
        assemble("vpfxs [-x, y, z, w]"),
        assemble("vmov.q C010, C000"),  # (-1, 1, 1, 1)
        assemble("vcmp.q LT, C010, C020"),  # C020 is zero: lane 0 only
        enc("addiu", rt="v0", rs="zero", imm=1),
        assemble("bvt 0, 2"),  # CC bit 0 set: skip the next instruction after the delay slot
        0,
        enc("addiu", rt="v0", rs="zero", imm=2),
        done(), 0,
    ]
    machine.cpu.vpr[:] = 0
    machine.load_raw(BASE, code_bytes(words), entry=BASE)
    assert machine.step(100).kind == "syscall"
    assert machine.cpu.regs[2] == 1
    assert list(machine.cpu.vpr[4:8]) == [-1, 1, 1, 1]


def test_cpu_disassembler_shows_vfpu_text():
    assert cpu_disassemble(assemble("vdot.q S010, C100, C200"), BASE) == "vdot.q S010, C100, C200"
