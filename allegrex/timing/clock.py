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
    "thread_switch": 1200,  # context save + dispatch of another thread
    "thread_create": 4000,
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

