"""What the firmware grants a program's memory, per PSP model: the user partition (24 MiB
from 0x08800000; with MEMSIZE=1 on a PSP-2000/3000 up to 0x0C000000, 56 MiB, as PPSSPP's
PSP_GetUserMemoryEnd gives: 0x08000000 + 64 MiB; a PSP-1000 keeps its 24 MiB) and the 4 MiB
volatile partition at 0x08400000 that any model lends through sceKernelVolatileMemTryLock
(pspautotests power/volatile/trylock: mode 0 gives 0x08400000 and 0x00400000)."""

import pytest

from allegrex.hle.sysmem import USER_PARTITION, VOLATILE_PARTITION
from helpers import call, make_kernel

SM, SU = "SysMemUserForUser", "sceSuspendForUser"
OUT = 0x08A00000
MIB = 1 << 20


@pytest.mark.parametrize("model,large,end", [("psp-1000", False, 0x0A000000), ("psp-2000", True, 0x0C000000),
                                             ("psp-3000", True, 0x0C000000)])
def test_the_user_partition_a_large_memory_program_gets(model, large, end):
    k = make_kernel(model=model)
    assert k.sysmem.enable_large_memory() is large
    part = k.sysmem.partitions[USER_PARTITION]
    assert (part.start, part.end) == (0x08800000, end)
    assert call(k, SM, "sceKernelTotalMemSize") == end - 0x08800000  # 24 or 56 MiB
    free = call(k, SM, "sceKernelTotalFreeMemSize")
    assert end - 0x08800000 - MIB < free  # all of it but the test thread's stack
    largest = call(k, SM, "sceKernelMaxFreeMemSize")
    assert call(k, SM, "sceKernelAllocPartitionMemory", USER_PARTITION, OUT + 0x100, 0, largest, 0) > 0


@pytest.mark.parametrize("model", ["psp-1000", "psp-2000"])
def test_every_model_lends_the_4mib_volatile_partition(model):
    k = make_kernel(model=model)
    assert call(k, SU, "sceKernelVolatileMemTryLock", 0, OUT, OUT + 4) == 0
    assert (k.memory.read_u32(OUT), k.memory.read_u32(OUT + 4)) == (0x08400000, 4 * MIB)
    part = k.sysmem.partitions[VOLATILE_PARTITION]
    assert (part.start, part.size) == (0x08400000, 4 * MIB)
    k.memory.write(0x08400000 + 4 * MIB - 4, b"\1\2\3\4")  # the memory is there on a 32 MiB model too
    assert k.memory.read(0x08400000 + 4 * MIB - 4, 4) == b"\1\2\3\4"
