"""Names of the cycle-model counters in CpuState.counters (int64[64]).

CYCLES (0) and INSTRUCTIONS (1) belong to the CPU; the rest are owned here. Stall
counters hold cycles lost waiting, by cause; the cache counters count accesses.
"""

from allegrex.cpu.state import CYCLES, INSTRUCTIONS  # noqa: F401  (re-exported)

STALL_LOAD_USE = 2  # waiting for a load's result (GPR, FPR or VFPU register)
STALL_MULDIV = 3  # waiting for HI/LO (mult/div/madd) or for the busy integer divider
STALL_FPU = 4  # waiting for an FPU result or the busy FPU divider
STALL_VFPU = 5  # waiting for a VFPU result, a VFPU condition code, or a multi-cycle VFPU op
STALL_BRANCH = 6  # taken-branch and jump refill bubbles, annulled likely delay slots
STALL_ICACHE = 7  # instruction cache line fills
STALL_DCACHE = 8  # data cache fills, write-backs, uncached and VRAM accesses
STALL_SYSCALL = 9  # cycles charged for HLE calls (kernel entry and the service itself)
ICACHE_HITS = 10  # counted once per line entered (sequential fetch in a line is free)
ICACHE_MISSES = 11
DCACHE_HITS = 12
DCACHE_MISSES = 13
DCACHE_WRITEBACKS = 14  # dirty lines written back to memory
UNCACHED_ACCESSES = 15  # loads/stores through the 0x40000000 uncached view
SCRATCHPAD_ACCESSES = 16
BRANCHES_TAKEN = 17  # taken branches and jumps
BRANCHES_NOT_TAKEN = 18
OS_TICK_CYCLES = 19  # cycles spent in the OS's periodic interrupt work (see timing.model)
HLE_CALLS = 20
DRAM_ROW_MISSES = 21  # line fills that had to open a new DRAM row
STALL_STRUCTURAL = 22  # fractional issue of some VFPU ops (vzero, vidt, vocp...)

NAMES = {
    STALL_LOAD_USE: "load-use", STALL_MULDIV: "mult/div", STALL_FPU: "fpu", STALL_VFPU: "vfpu",
    STALL_BRANCH: "branch", STALL_ICACHE: "i-cache", STALL_DCACHE: "d-cache",
    STALL_SYSCALL: "syscalls", ICACHE_HITS: "icache_hits", ICACHE_MISSES: "icache_misses",
    DCACHE_HITS: "dcache_hits", DCACHE_MISSES: "dcache_misses",
    DCACHE_WRITEBACKS: "dcache_writebacks", UNCACHED_ACCESSES: "uncached_accesses",
    SCRATCHPAD_ACCESSES: "scratchpad_accesses", BRANCHES_TAKEN: "branches_taken",
    BRANCHES_NOT_TAKEN: "branches_not_taken", OS_TICK_CYCLES: "os_tick_cycles",
    HLE_CALLS: "hle_calls", DRAM_ROW_MISSES: "dram_row_misses",
    STALL_STRUCTURAL: "vfpu-issue",
}

# The stall breakdown, in report order.
STALLS = (STALL_LOAD_USE, STALL_MULDIV, STALL_FPU, STALL_VFPU, STALL_STRUCTURAL, STALL_BRANCH,
          STALL_ICACHE, STALL_DCACHE, STALL_SYSCALL)


# Per-address profile (Timing.prof, int64[PROF_ROWS, n]): one column per instruction word
# of the profiled range. Rows 0-3 are charged by model.profile_slot from the instruction's
# own start and end cycles; rows PROF_TRACKED_ROW0.. hold each PROF_TRACKED counter's
# growth during the instruction (the cause breakdown of row 1, plus I-cache misses).
PROF_CYCLES, PROF_STALLS, PROF_DCACHE_MISSES, PROF_COUNT = 0, 1, 2, 3
PROF_STALL_KINDS = (STALL_LOAD_USE, STALL_MULDIV, STALL_FPU, STALL_VFPU, STALL_STRUCTURAL, STALL_BRANCH,
                    STALL_ICACHE, STALL_DCACHE)  # every stall an instruction itself can cause
PROF_TRACKED = PROF_STALL_KINDS + (ICACHE_MISSES,)
PROF_TRACKED_ROW0 = 4
PROF_ROWS = PROF_TRACKED_ROW0 + len(PROF_TRACKED)


def prof_row(counter: int) -> int:
    """The profile row holding the per-instruction growth of `counter` (a PROF_TRACKED one)."""
    return PROF_TRACKED_ROW0 + PROF_TRACKED.index(counter)


def snapshot(counters) -> dict:
    """All named counters as a plain dict (cycles, instructions, stalls, cache counts)."""
    out = {"cycles": int(counters[CYCLES]), "instructions": int(counters[INSTRUCTIONS])}
    for idx, name in NAMES.items():
        out[name] = int(counters[idx])
    return out
