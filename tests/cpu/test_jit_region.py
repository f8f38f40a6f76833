"""Which code a compiled region holds (allegrex.cpu.jit.region.discover): the loop at
its entry, with nested loops and called functions, never code that only runs after
the loop, never an instruction that must reach Python (break; a syscall stays, see
allegrex.hle.pure)."""

from allegrex.cpu.asm import enc
from allegrex.cpu.jit.region import discover
from tests.cpu.program import BASE


def reader(words):
    return lambda addr: words[(addr - BASE) // 4] if 0 <= addr - BASE < 4 * len(words) else None


def pcs(region):
    return sorted((pc - BASE) // 4 for pc in region.words)


def test_a_loop_without_the_code_after_it():
    words = [enc("addiu", rt="s0", rs="zero", imm=9),  # 0: before the loop
             enc("addiu", rt="v0", rs="v0", imm=1),  # 1: loop head
             enc("addiu", rt="s0", rs="s0", imm=-1),
             enc("bne", rs="s0", rt="zero", imm=-3), 0,
             enc("addu", rd="v1", rs="v0", rt="v0"),  # 5: after the loop
             enc("jr", rs="ra"), 0]
    region = discover(BASE + 4, reader(words))
    assert pcs(region) == [1, 2, 3, 4]
    assert region.heads == [BASE + 4]


def test_nested_loops_and_a_called_function_are_included():
    f = BASE + 4 * 10
    words = [enc("addiu", rt="s1", rs="zero", imm=3),  # 0: outer head
             enc("addiu", rt="s0", rs="zero", imm=4),  # 1
             enc("jal", target=f), 0,  # 2: inner head, a call
             enc("addiu", rt="s0", rs="s0", imm=-1),  # 4
             enc("bne", rs="s0", rt="zero", imm=-4), 0,  # 5 -> 2
             enc("addiu", rt="s1", rs="s1", imm=-1),  # 7
             enc("bne", rs="s1", rt="zero", imm=-9), 0,  # 8 -> 0
             enc("addu", rd="v0", rs="v0", rt="a0"),  # 10: f
             enc("jr", rs="ra"), 0]
    region = discover(BASE + 8, reader(words))
    assert pcs(region) == list(range(0, 13))
    assert region.entry == BASE + 8


def test_the_loops_own_return_is_left_and_a_called_functions_return_is_kept():
    # a return through `jr ra` goes back into the region only from a function the region
    # calls; the loop's own function returns to a caller outside it
    f = BASE + 4 * 9
    words = [enc("addiu", rt="s0", rs="zero", imm=4),  # 0: before the loop
             enc("jal", target=f), 0,  # 1: loop head, a call
             enc("addiu", rt="s0", rs="s0", imm=-1),  # 3: the call's return point
             enc("bne", rs="s0", rt="zero", imm=-4), 0,  # 4 -> 1
             enc("addiu", rt="v0", rs="v0", imm=7),  # 6: after the loop: the function's end
             enc("jr", rs="ra"), 0,
             enc("addu", rd="v0", rs="v0", rt="a0"),  # 9: f
             enc("jr", rs="ra"), 0]
    assert pcs(discover(BASE + 4, reader(words))) == [1, 2, 3, 4, 5, 9, 10, 11]


def test_a_syscall_stays_in_the_region_and_a_break_ends_it_before_it():
    words = [enc("addiu", rt="v0", rs="v0", imm=1), enc("syscall", code=5),
             enc("bne", rs="v0", rt="zero", imm=-3), 0]
    assert pcs(discover(BASE, reader(words))) == [0, 1, 2, 3]  # answered in the region or left at
    words[1] = enc("break")
    assert pcs(discover(BASE, reader(words))) == [0]


def test_an_entry_that_cannot_be_compiled_gives_no_region():
    assert discover(BASE, reader([enc("break")])) is None
    assert discover(BASE - 64, reader([0])) is None


def test_a_transfer_in_a_delay_slot_is_left_to_the_interpreter():
    words = [enc("addiu", rt="v0", rs="v0", imm=1), enc("bne", rs="v0", rt="zero", imm=-2),
             enc("j", target=BASE)]
    region = discover(BASE, reader(words))
    assert pcs(region) == [0]


def test_the_size_limit_keeps_the_innermost_loop():
    inner = [enc("addiu", rt="v0", rs="v0", imm=1), enc("bne", rs="v0", rt="zero", imm=-2), 0]
    words = inner + [enc("addiu", rt="t0", rs="t0", imm=k) for k in range(40)] + [
        enc("bne", rs="t0", rt="zero", imm=-(3 + 40 + 1)), 0]
    region = discover(BASE, reader(words), limit=10)
    assert pcs(region) == [0, 1, 2]


def test_a_loop_whose_first_block_is_over_the_limit_is_not_compiled():
    # numba's SSA pass recurses per basic block: a long straight loop body would exhaust
    # Python's stack while compiling, so it stays with the interpreter
    body = [enc("addiu", rt="t0", rs="t0", imm=k) for k in range(20)]
    words = body + [enc("bne", rs="t0", rt="zero", imm=-(len(body) + 1)), 0]
    assert discover(BASE, reader(words), limit=10) is None
    assert pcs(discover(BASE, reader(words), limit=22)) == list(range(22))
