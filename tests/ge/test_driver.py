"""The sceGe driver on a bare kernel: when lists finish on the simulated timeline (the
cost model), and what a bad list does (a clear warning naming the command and address,
no exception, no host hang)."""

import io

from allegrex.ge import cost, hardware
from allegrex.hle.kernel import RunOptions
from gelists import LIST, cmd, write_words
from helpers import call, make_kernel

GE = "sceGe_user"


def kernel():
    return make_kernel(RunOptions(stderr=io.StringIO()))


def transfer_list(rows: int):
    """A 512 x rows 32-bit block transfer inside RAM, then FINISH/END."""
    return [cmd("TRANSFERSRC", 0xA00000), cmd("TRANSFERSRCW", 0x080000 | 512), cmd("TRANSFERSRCPOS", 0),
            cmd("TRANSFERDST", 0xB00000), cmd("TRANSFERDSTW", 0x080000 | 512), cmd("TRANSFERDSTPOS", 0),
            cmd("TRANSFERSIZE", ((rows - 1) << 10) | 511), cmd("TRANSFERSTART", 1), cmd("FINISH"), cmd("END")]


def test_draw_sync_waits_until_the_list_has_had_its_time():
    k = kernel()
    write_words(k.memory, LIST, transfer_list(64))
    k.memory.write(0x08A00000, bytes(range(256)) * 512)
    from allegrex.hle import costs
    entry = k.clock.now_exact()  # the enqueue's cost is charged first; the GE starts at its entry
    assert call(k, GE, "sceGeListEnQueue", LIST, 0, -1, 0) >= 0
    q = k.ge
    assert k.memory.read(0x08B00000, 256) == bytes(range(256))  # the work happened; its time has not passed
    assert call(k, GE, "sceGeDrawSync", 1) == 2  # DRAWING
    main = k.threads.current
    call(k, GE, "sceGeDrawSync", 0)
    assert main.wait is not None and main.wait.kind == "GE draw sync"
    cycles = (cost.LIST_START + 10 * cost.COMMAND + cost.END
              + 512 * 4 * 64 * cost.TRANSFER_CYCLES_PER_16_BYTES // 16)
    assert abs(q.hw.free_at - (entry + cycles / cost.GE_MHZ)) < 1e-6
    assert q.hw.free_at > entry + costs.GE_ENQUEUE / k.clock.cpu_mhz  # this one outlasts the call
    while main.wait is not None:
        assert k.idle_until_next_event()
    assert k.clock.now_exact() >= q.hw.free_at  # woken when the GE finished, not before


def test_a_jump_outside_memory_stops_the_list_with_a_named_warning():
    k = kernel()
    write_words(k.memory, LIST, [cmd("NOP"), cmd("BASE", 0x0F0000), cmd("JUMP", 0xFFFFF0), cmd("FINISH"),
                                 cmd("END")])
    assert call(k, GE, "sceGeListEnQueue", LIST, 0, -1, 0) >= 0
    text = k.stderr.getvalue()
    assert f"GE list stopped at command 0x{LIST + 8:08x}: jump target outside memory (address 0x0ffffff0)" in text
    assert call(k, GE, "sceGeDrawSync", 1) == 2  # the list never completes, as on the PSP
    call(k, GE, "sceGeDrawSync", 0)
    assert not k.idle_until_next_event()  # nothing will wake it: the kernel reports the deadlock


def test_an_endless_list_keeps_the_ge_busy_in_simulated_time():
    k = kernel()
    write_words(k.memory, LIST, [cmd("BASE", 0x080000), cmd("JUMP", (LIST + 4) & 0xFFFFFF)])
    assert call(k, GE, "sceGeListEnQueue", LIST, 0, -1, 0) >= 0
    assert "ran 200000 commands without ending" in k.stderr.getvalue()
    before = k.ge.hw.stats["commands"]
    for _ in range(3):
        assert k.idle_until_next_event()
    assert k.ge.hw.stats["commands"] >= before + 3 * hardware.BUDGET  # it goes on, a budget at a time
    assert call(k, GE, "sceGeDrawSync", 1) == 2


def test_vertices_outside_memory_skip_the_primitive_with_a_warning():
    k = kernel()
    write_words(k.memory, LIST, [cmd("BASE", 0x0F0000), cmd("VERTEXTYPE", 3 << 7), cmd("VADDR", 0xFFFFF0),
                                 cmd("PRIM", (3 << 16) | 3), cmd("FINISH"), cmd("END")])
    assert call(k, GE, "sceGeListEnQueue", LIST, 0, -1, 0) >= 0
    assert f"GE command at 0x{LIST + 12:08x} reads vertices or indices outside memory" in k.stderr.getvalue()
    while k.idle_until_next_event():
        pass
    assert call(k, GE, "sceGeDrawSync", 1) == 0  # the rest of the list ran
