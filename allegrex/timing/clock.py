"""Clock and HLE call costs: the parts of simulated time that are not CPU instructions
(the memory stick's are in memstick.py).

HLE costs are cycles of CPU work the real kernel would do for a call (trap, argument
checks, the service, return). They are ESTIMATES by call class (no reference figure
exists). allegrex/hle/costs.py names them per call class from this table, and the HLE
charges each call with `charge_hle` so reports show them as their own row (counters
STALL_SYSCALL / HLE_CALLS).
"""

DEFAULT_CPU_MHZ = 222  # the PSP boots at 222/111 MHz
DEFAULT_BUS_MHZ = 111

# Cycles per HLE call class (ESTIMATES; a syscall trap round trip is a few hundred cycles).
HLE_CALL_CYCLES = {
    "syscall": 300,  # simple getters/setters: trap, dispatch, return
    "sync": 600,  # semaphore / event flag / mutex operation
    # context save + dispatch of another thread: fitted, 300-400 cycles let every pspautotests
    # threads program whose threads race a timeout print what the PSP printed (1200 did not)
    "thread_switch": 400,
    # sceKernelStartThread charges this twice (call + start): fitted to threads/profiler, whose
    # loop of a syscall and a checkpoint (which restarts a thread) takes 56-58 us on a PSP
    "thread_create": 3400,
    "alloc": 1500,  # partition allocator walk
    "io": 5000,  # IO manager call (open, close, stat) besides the medium's own time
    "display": 400,
    # sceGe calls: a syscall plus the driver's work, PPSSPP's estimates (ESTIMATE, docs/timing.md)
    "ge": 300,  # register reads (sceGeGetCmd, sceGeEdramGetAddr...)
    "ge_enqueue": 790,  # + 490: list checks, queue insertion, starting the GE
    "ge_stall": 490,  # + 190: sceGeListUpdateStallAddr
    "ge_sync": 520,  # + 220: sceGeListSync, sceGeContinue, sceGeBreak
    "ge_draw_sync": 1540,  # + 1240: sceGeDrawSync
    "ge_interrupt": 300,  # the driver's interrupt handler besides the handlers it calls
}


def hle_call_cycles(kind: str) -> int:
    """CPU cycles charged for one HLE call of class `kind` (see HLE_CALL_CYCLES)."""
    try:
        return HLE_CALL_CYCLES[kind]
    except KeyError:
        raise ValueError(f"unknown HLE call class {kind!r}; known: {', '.join(HLE_CALL_CYCLES)}") from None

