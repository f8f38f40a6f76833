"""The list processor: jumps, calls and returns with BASE/ORIGIN/OFFSETADDR, matrix
uploads, stall addresses, the command budget and errors. Expected values come from the
PSP's own output where pspautotests records it (gpu/displaylist/alignment, gpu/ge/get)."""

import pytest

from allegrex.ge import processor
from allegrex.ge.commands import OPS
from allegrex.ge.state import (INT_END, INT_FINISH, INT_SIGNAL, MATRIX_BY_ID, R_COMMANDS, R_ERROR, R_IADR,
                               R_INTR, R_LISTADDR, R_VADR)
from gelists import LIST, Ge, cmd

AMB = "AMBIENTCOLOR"


def ambient(ge: Ge) -> int:
    return int(ge.state.cmds[OPS[AMB]])


def jump_list(op: str, offset: int):
    """gpu/displaylist/alignment's dlist2 (JUMP) / dlist3 (BJUMP after an empty bounding box)."""
    head = [cmd("BOUNDINGBOX", 0)] if op == "BJUMP" else []
    return head + [cmd("BASE"), cmd("ORIGIN"), cmd(AMB, 0), cmd(op, 0x18 + offset), cmd(AMB, 9), cmd("FINISH"),
                   cmd("END"), cmd("NOP", 0x5C5C5C), cmd(AMB, 2), cmd("FINISH"), cmd("END"), cmd("NOP")]


@pytest.mark.parametrize("op", ["JUMP", "BJUMP"])
@pytest.mark.parametrize("offset, want", [(0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (8, 0)])
def test_jumps_are_relative_to_origin_and_ignore_the_low_bits(op, offset, want):
    ge = Ge()
    ge.load(jump_list(op, offset))
    assert ge.run() == processor.EV_END
    assert ambient(ge) == (OPS[AMB] << 24) | want  # the PSP: 5c000002 ... / 5c000000 at +8


@pytest.mark.parametrize("offset, want", [(0, 4), (3, 4), (4, 4), (8, 0)])
def test_call_returns_after_the_call(offset, want):
    ge = Ge()  # alignment's dlist4
    ge.load([cmd("BASE"), cmd("ORIGIN"), cmd(AMB, 0), cmd("CALL", 0x14 + offset), cmd("FINISH"), cmd("END"),
             cmd("NOP", 0x5C5C5C), cmd(AMB, 4), cmd("RET"), cmd("NOP")])
    assert ge.run() == processor.EV_END
    assert ambient(ge) == (OPS[AMB] << 24) | want
    assert ge.state.regs[R_INTR] == INT_FINISH | INT_END


def test_matrix_indices_wrap_at_their_field_width():
    """gpu/ge/get: 100 bone values keep 96, 16 world keep 12, 20 projection values wrap."""
    ge = Ge()
    words = [cmd("BONEMATRIXNUMBER")] + [cmd("BONEMATRIXDATA", i) for i in range(100)]
    for name, n in (("WORLD", 16), ("VIEW", 16), ("PROJ", 20), ("TGEN", 16)):
        words += [cmd(f"{name}MATRIXNUMBER")] + [cmd(f"{name}MATRIXDATA", i) for i in range(n)]
    ge.load(words + [cmd("FINISH"), cmd("END")])
    ge.run()
    got = [ge.state.matrix_words(*MATRIX_BY_ID[i]) for i in range(12)]
    assert got[0] == list(range(12)) and got[7] == list(range(84, 96))
    assert got[8] == got[9] == got[11] == list(range(12))
    assert got[10] == [0x10, 0x11, 0x12, 0x13] + list(range(4, 16))


def test_a_stall_address_stops_the_list_until_it_moves():
    ge = Ge()
    ge.load([cmd(AMB, 1), cmd(AMB, 2), cmd("FINISH"), cmd("END")])
    assert ge.run(stall=LIST + 4) == processor.EV_STALL
    assert ge.state.regs[R_LISTADDR] == LIST + 4 and ambient(ge) & 0xFF == 1
    assert ge.run(addr=LIST + 4, stall=0) == processor.EV_END
    assert ambient(ge) & 0xFF == 2


def test_an_endless_list_returns_after_its_budget():
    ge = Ge()
    ge.load([cmd("BASE", (LIST >> 8) & 0xF0000), cmd("JUMP", (LIST + 4) & 0xFFFFFF)])
    assert ge.run(budget=1000) == processor.EV_BUDGET
    assert ge.state.regs[R_COMMANDS] == 1000


def test_signal_before_end_raises_both_flags_and_a_lone_signal_is_dropped():
    ge = Ge()
    ge.load([cmd("SIGNAL", 0x010000), cmd("NOP"), cmd("SIGNAL", 0x010000), cmd("END")])
    assert ge.run() == processor.EV_END
    assert ge.state.regs[R_INTR] == INT_SIGNAL | INT_END


@pytest.mark.parametrize("words, error", [
    ([cmd("BASE", 0x0F0000), cmd("JUMP", 0xFFFFF0)], processor.ERR_TARGET),
    ([cmd("BASE", (LIST >> 8) & 0xF0000), cmd("CALL", (LIST + 16) & 0xFFFFFF), cmd("END"), cmd("END"),
      cmd("CALL", (LIST + 24) & 0xFFFFFF), cmd("END"), cmd("CALL", (LIST + 24) & 0xFFFFFF)], processor.ERR_CALL_DEPTH),
])
def test_errors_stop_the_processor_with_their_reason(words, error):
    ge = Ge()
    ge.load(words)
    assert ge.run() == processor.EV_ERROR
    assert ge.state.regs[R_ERROR] == error


def test_a_list_outside_memory_is_an_error():
    ge = Ge()
    assert ge.run(addr=0x0C000000) == processor.EV_ERROR  # past the 64 MiB of RAM
    assert ge.state.regs[R_ERROR] == processor.ERR_LIST_ADDRESS


def test_drawing_moves_the_vertex_or_index_address_past_what_it_used():
    ge = Ge()
    vtype = 2 << 7  # s16 positions: 6 bytes a vertex
    ge.load([cmd("BASE", 0x080000), cmd("VERTEXTYPE", vtype), cmd("VADDR", 0xA00000), cmd("PRIM", (3 << 16) | 3),
             cmd("VERTEXTYPE", vtype | (2 << 11)), cmd("IADDR", 0xB00000), cmd("PRIM", (3 << 16) | 5),
             cmd("FINISH"), cmd("END")])
    ge.run()
    assert ge.state.regs[R_VADR] == 0x08A00000 + 3 * 6
    assert ge.state.regs[R_IADR] == 0x08B00000 + 5 * 2
