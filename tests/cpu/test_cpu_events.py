"""The run loop's events: syscalls (also in a delay slot), break, halt, budget,
breakpoints, and resuming after each."""

import numpy as np

from allegrex.cpu.asm import code_bytes, enc, gpr
from allegrex.cpu.state import NPC, PC
from allegrex.machine import Machine
from tests.cpu.conftest import run_program
from tests.cpu.program import BASE, SYSCALL_DONE


def test_straight_line_code_stops_at_syscall_with_pc_past_it(machine):
    ev = run_program(machine, [enc("addiu", rt="v0", rs="zero", imm=5),
                               enc("addiu", rt="v1", rs="zero", imm=-7),
                               enc("addu", rd="a0", rs="v0", rt="v1")])
    assert ev.kind == "syscall" and ev.code == SYSCALL_DONE
    assert ev.pc == BASE + 12
    assert machine.cpu.regs[gpr("a0")] == 0xFFFFFFFE
    assert machine.cpu.regs[PC] == BASE + 16 and machine.cpu.regs[NPC] == BASE + 20


def test_import_stub_shape_jr_ra_with_syscall_in_delay_slot_resumes_at_caller():
    m = Machine("psp-1000")
    stub = BASE + 0x100
    caller = [enc("jal", target=stub), enc("nop") if False else 0,  # jal stub; nop
              enc("addiu", rt="s0", rs="v0", imm=1),  # uses the syscall's result
              enc("syscall", code=SYSCALL_DONE)]
    m.load_raw(BASE, code_bytes(caller), entry=BASE)
    m.load_raw(stub, code_bytes([enc("jr", rs="ra"), enc("syscall", code=0x2015)]))
    ev = m.step(100)
    assert (ev.kind, ev.code, ev.pc) == ("syscall", 0x2015, stub + 4)
    assert m.cpu.regs[PC] == BASE + 8 and m.cpu.regs[NPC] == BASE + 12
    m.cpu.regs[gpr("v0")] = 41  # the HLE's return value
    ev = m.step(100)
    assert ev.code == SYSCALL_DONE and m.cpu.regs[gpr("s0")] == 42


def test_run_passes_syscalls_to_the_handler_until_it_says_stop():
    m = Machine("psp-1000")
    prog = [enc("syscall", code=1), enc("addu", rd="s0", rs="v0", rt="v0"),
            enc("syscall", code=2), 0]
    m.load_raw(BASE, code_bytes(prog), entry=BASE)
    seen = []

    def handler(machine, code):
        seen.append(code)
        if code == 1:
            machine.cpu.regs[gpr("v0")] = 21
            return None
        return Machine.STOP

    ev = m.run(syscall_handler=handler)
    assert seen == [1, 2] and ev.code == 2 and m.cpu.regs[gpr("s0")] == 42


def test_break_and_halt_are_events():
    m = Machine("psp-1000")
    m.load_raw(BASE, code_bytes([enc("break", code=7), enc("halt")]), entry=BASE)
    ev = m.run()
    assert (ev.kind, ev.code, ev.pc) == ("break", 7, BASE)
    ev = m.run()
    assert (ev.kind, ev.pc) == ("halt", BASE + 4)


def test_budget_counts_instructions_and_resumes_inside_a_loop():
    m = Machine("psp-1000")
    # t0 = 1000; loop: t0 -= 1; bne t0, zero, loop (delay slot: t1 += 1)
    prog = [enc("addiu", rt="t0", rs="zero", imm=1000),
            enc("addiu", rt="t0", rs="t0", imm=-1),
            enc("bne", rs="t0", rt="zero", imm=-2),
            enc("addiu", rt="t1", rs="t1", imm=1),
            enc("syscall", code=SYSCALL_DONE)]
    m.load_raw(BASE, code_bytes(prog), entry=BASE)
    events = []
    while True:
        ev = m.step(7)  # odd budget: stops land in delay slots too
        events.append(ev.kind)
        if ev.kind != "budget":
            break
    assert ev.code == SYSCALL_DONE
    assert m.cpu.regs[gpr("t1")] == 1000
    assert m.instructions == 1 + 3 * 1000 + 1
    # the timing model charges every cycle beyond one per instruction to a stall counter
    from allegrex.timing import counters as C
    c = m.cpu.counters
    assert m.cycles == m.instructions + sum(int(c[k]) for k in C.STALLS) + int(c[C.OS_TICK_CYCLES])


def test_breakpoint_stops_before_the_instruction_and_resumes():
    m = Machine("psp-1000")
    prog = [enc("addiu", rt="t0", rs="zero", imm=1), enc("addiu", rt="t0", rs="t0", imm=1),
            enc("syscall", code=SYSCALL_DONE)]
    m.load_raw(BASE, code_bytes(prog), entry=BASE)
    m.breakpoints.add(BASE + 4)
    ev = m.run()
    assert (ev.kind, ev.pc) == ("breakpoint", BASE + 4) and m.cpu.regs[gpr("t0")] == 1
    ev = m.run()
    assert ev.kind == "syscall" and m.cpu.regs[gpr("t0")] == 2


def test_patched_code_is_never_run_from_a_stale_decode():
    m = Machine("psp-1000")
    m.load_raw(BASE, code_bytes([enc("addiu", rt="v0", rs="zero", imm=1), enc("syscall", code=1)]),
               entry=BASE)
    m.step(10)
    assert m.cpu.regs[gpr("v0")] == 1
    m.memory.write_u32(BASE, enc("addiu", rt="v0", rs="zero", imm=2))  # e.g. an import stub patch
    m.cpu.jump(BASE)
    m.step(10)
    assert m.cpu.regs[gpr("v0")] == 2


def test_self_modifying_code_sees_its_own_store():
    m = Machine("psp-1000")
    new_word = enc("addiu", rt="v0", rs="zero", imm=99)
    target = BASE + 5 * 4
    prog = [enc("lui", rt="t0", imm=new_word >> 16), enc("ori", rt="t0", rs="t0", imm=new_word & 0xFFFF),
            enc("lui", rt="t1", imm=target >> 16), enc("ori", rt="t1", rs="t1", imm=target & 0xFFFF),
            enc("sw", rt="t0", rs="t1", imm=0),
            enc("addiu", rt="v0", rs="zero", imm=1),  # overwritten before it runs
            enc("syscall", code=1)]
    m.load_raw(BASE, code_bytes(prog), entry=BASE)
    for _ in range(2):  # second pass: the memo already holds the old word's decode
        m.memory.write_u32(target, enc("addiu", rt="v0", rs="zero", imm=1))
        m.cpu.jump(BASE)
        m.step(100)
        assert m.cpu.regs[gpr("v0")] == 99


def test_zero_register_stays_zero(machine):
    run_program(machine, [enc("addiu", rt="zero", rs="zero", imm=5), enc("lui", rt="zero", imm=1),
                          enc("addu", rd="t0", rs="zero", rt="zero")])
    assert machine.cpu.regs[0] == 0 and machine.cpu.regs[gpr("t0")] == 0
