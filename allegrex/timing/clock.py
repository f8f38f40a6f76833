"""Clock, HLE call costs and the memory-stick model: the parts of simulated time that
are not CPU instructions.

HLE costs are cycles of CPU work the real kernel would do for a call (trap, argument
checks, the service, return). They are ESTIMATES by call class (no reference figure
exists). allegrex/hle/costs.py names them per call class from this table, and the HLE
charges each call with `charge_hle` so reports show them as their own row (counters
STALL_SYSCALL / HLE_CALLS).

Memory stick: a read or write of n bytes costs MEMSTICK_OP_LATENCY_US + n / rate of wall
time. PSP memory sticks (Pro Duo, MagicGate) read at roughly 1.5-2 MB/s through the
PSP's driver in practice; we take 1.8 MB/s as the default (ESTIMATE, named so a user
with a faster card can change it). Loading a 17 MB model then takes ~9.5 s.
"""

DEFAULT_CPU_MHZ = 222  # the PSP boots at 222/111 MHz
DEFAULT_BUS_MHZ = 111

MEMSTICK_BYTES_PER_SECOND = 1_800_000  # ESTIMATE: sustained sceIoRead/sceIoWrite rate
MEMSTICK_OP_LATENCY_US = 400  # ESTIMATE: per request (command, FAT lookup, sector setup)

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
}


def hle_call_cycles(kind: str) -> int:
    """CPU cycles charged for one HLE call of class `kind` (see HLE_CALL_CYCLES)."""
    try:
        return HLE_CALL_CYCLES[kind]
    except KeyError:
        raise ValueError(f"unknown HLE call class {kind!r}; known: {', '.join(HLE_CALL_CYCLES)}") from None


def memstick_cycles(nbytes: int, cpu_mhz: int, rate: int = MEMSTICK_BYTES_PER_SECOND) -> int:
    """CPU cycles that a memory-stick transfer of `nbytes` takes at the CPU clock in force
    (the CPU waits on the transfer in a blocking sceIoRead/sceIoWrite)."""
    if nbytes < 0:
        raise ValueError("byte count must be >= 0")
    us = MEMSTICK_OP_LATENCY_US + nbytes * 1_000_000 / rate
    return int(round(us * cpu_mhz))
