"""Guest faults: bad addresses, overflow traps, reserved and VFPU words end in a clean
GuestFault report (kind, pc, instruction, symbol, registers, recent pcs), never a host
crash; random instruction words only ever produce events."""

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allegrex.cpu.asm import code_bytes, enc, gpr
from allegrex.cpu.events import (FAULT_FETCH, FAULT_LOAD, FAULT_OVERFLOW, FAULT_RESERVED, FAULT_STORE,
                                 FAULT_VFPU)
from allegrex.cpu.faults import GuestFault
from allegrex.cpu.state import PC
from allegrex.errors import AllegrexError
from allegrex.machine import Machine
from allegrex.memory import RAM_SIZE, RAM_START
from tests.cpu.program import BASE

Symbol = namedtuple("Symbol", "name addr size")


def symbol_at(addr):
    if BASE <= addr < BASE + 0x100:
        return Symbol("main", BASE, 0x100), addr - BASE
    return None


def fault_of(words, regs=None):
    m = Machine("psp-1000")
    m.symbol_lookup = symbol_at
    for name, value in (regs or {}).items():
        m.cpu.regs[gpr(name)] = value & 0xFFFFFFFF
    m.load_raw(BASE, code_bytes(words), entry=BASE)
    with pytest.raises(GuestFault) as info:
        m.run(max_instructions=1000)
    return m, info.value


def test_load_from_address_zero():
    m, fault = fault_of([enc("addiu", rt="t0", rs="zero", imm=3), enc("lw", rt="v0", rs="zero", imm=0)])
    assert isinstance(fault, AllegrexError)
    assert fault.kind == FAULT_LOAD and fault.pc == BASE + 4 and fault.address == 0
    text = str(fault)
    assert "load from a bad address" in text and "<main+0x4>" in text
    assert "lw      v0, 0(zero)" in text and "address: 0x00000000" in text
    assert "t0=00000003" in text  # registers
    assert f"0x{BASE:08x} <main>" in text  # the instruction executed before the fault
    assert m.cpu.regs[PC] == BASE + 4  # state left at the faulting instruction


def test_store_past_the_end_of_ram():
    end = RAM_START + RAM_SIZE["psp-1000"]
    _, fault = fault_of([enc("lui", rt="t0", imm=end >> 16), enc("sw", rt="zero", rs="t0", imm=0)])
    assert fault.kind == FAULT_STORE and fault.address == end


def test_misaligned_word_load():
    _, fault = fault_of([enc("lui", rt="t0", imm=BASE >> 16), enc("lw", rt="v0", rs="t0", imm=2)])
    assert fault.kind == FAULT_LOAD and fault.address == (BASE & 0xFFFF0000) + 2


def test_jump_into_unmapped_memory_faults_at_the_target():
    _, fault = fault_of([enc("lui", rt="t0", imm=0x2000), enc("jr", rs="t0"), 0])
    assert fault.kind == FAULT_FETCH and fault.pc == 0x20000000 and fault.address == 0x20000000
    assert "instruction fetch" in str(fault)


def test_add_overflow_traps_but_addu_wraps():
    _, fault = fault_of([enc("lui", rt="t0", imm=0x7FFF), enc("ori", rt="t0", rs="t0", imm=0xFFFF),
                         enc("addu", rd="t1", rs="t0", rt="t0"), enc("addi", rt="t2", rs="t0", imm=1)])
    assert fault.kind == FAULT_OVERFLOW and fault.pc == BASE + 12
    _, fault = fault_of([enc("lui", rt="t0", imm=0x8000), enc("sub", rd="t1", rs="t0", rt="t3")],
                        regs={"t3": 1})
    assert fault.kind == FAULT_OVERFLOW


def test_int_min_divided_by_minus_one_does_not_trap():
    m = Machine("psp-1000")
    m.load_raw(BASE, code_bytes([enc("lui", rt="t0", imm=0x8000), enc("addiu", rt="t1", rs="zero", imm=-1),
                                 enc("div", rs="t0", rt="t1"), enc("syscall", code=1)]), entry=BASE)
    assert m.run().kind == "syscall"


def test_reserved_and_vfpu_words():
    _, fault = fault_of([0x7000003F])  # SPECIAL2 funct 0x3F: nothing on the Allegrex
    assert fault.kind == FAULT_RESERVED and ".word 0x7000003f" in str(fault)
    _, fault = fault_of([0x48000000])  # COP2 mfc2: no VFPU instruction has this encoding
    assert fault.kind == FAULT_VFPU and "VFPU instruction fault" in str(fault)
    _, fault = fault_of([0xC8000000])  # lv.s S000, 0(zero): the VFPU reports the bad address
    assert fault.kind == FAULT_LOAD and fault.address == 0


def test_fault_in_a_delay_slot_reports_the_slot():
    _, fault = fault_of([enc("beq", rs="zero", rt="zero", imm=4), enc("lw", rt="v0", rs="zero", imm=8)])
    assert fault.kind == FAULT_LOAD and fault.pc == BASE + 4 and fault.address == 8


@settings(max_examples=150, deadline=None)
@given(words=st.lists(st.integers(0, 0xFFFFFFFF), min_size=1, max_size=16),
       regs=st.lists(st.integers(0, 0xFFFFFFFF), min_size=32, max_size=32))
def test_random_words_only_ever_produce_events(words, regs):
    """Whatever the words and registers, the loop returns an event, never crashes or
    writes outside guest memory (the arrays' sizes and the other machine state hold)."""
    m = _shared_machine()
    m.cpu.regs[:32] = np.array(regs, dtype=np.uint32)
    m.cpu.regs[0] = 0
    m.load_raw(BASE, code_bytes(words), entry=BASE)
    for _ in range(4):
        ev = m.step(200)
        assert ev.kind in ("syscall", "break", "fault", "halt", "budget")
        if ev.kind == "fault":
            assert "guest fault" in str(m.fault(ev))
            break
    assert m.memory.mem.shape[0] == m.memory.ram_size + 2 * 1024 * 1024 + 16 * 1024


_machine = None


def _shared_machine():
    global _machine
    if _machine is None:
        _machine = Machine("psp-1000")
    return _machine
