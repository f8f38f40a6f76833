"""Event and fault codes shared by the numba run loop and the Python that handles them.

The run loop returns one event per call in an int64 array:
    event[0] code (EV_*), event[1] value (syscall/break code, or the faulting address),
    event[2] pc of the instruction that raised it, event[3] extra (FAULT_* for faults),
    event[4:8] a system call's argument registers a0-t3, two words to a slot (as uint32
    words: a0, a1, ... t3), when the loop set them to 0xDEADBEEF before stopping for
    Python to answer the call (allegrex.hle.pure.charge).
"""

EV_NONE = 0
EV_SYSCALL = 1  # value = syscall code; regs[PC]/[NPC] already point past it
EV_BREAK = 2  # value = break code; regs[PC]/[NPC] already point past it
EV_FAULT = 3  # value = address (memory faults) or the word; extra = FAULT_*; PC at the fault
EV_HALT = 4  # the `halt` instruction; PC points past it
EV_BUDGET = 5  # instruction or cycle budget used up; PC is the next instruction
EV_BREAKPOINT = 6  # PC reached an address in the breakpoint array (not yet executed)
EV_JIT = 7  # internal to Machine.step: PC is a hot loop head (value), not yet executed
EV_STALE = 8  # internal: a compiled region found its code changed and ran nothing
EV_NEAR_BUDGET = 9  # internal: a compiled region stopped at a block the budget might end in

EVENT_NAMES = {EV_SYSCALL: "syscall", EV_BREAK: "break", EV_FAULT: "fault", EV_HALT: "halt",
               EV_BUDGET: "budget", EV_BREAKPOINT: "breakpoint"}

FAULT_FETCH = 1  # instruction fetch from an unmapped or misaligned address
FAULT_LOAD = 2  # data load from an unmapped or misaligned address
FAULT_STORE = 3  # data store to an unmapped or misaligned address
FAULT_OVERFLOW = 4  # add/addi/sub signed overflow trap
FAULT_RESERVED = 5  # a word that is no Allegrex instruction
FAULT_TRAP = 6  # teq/tne/tge... condition true
FAULT_VFPU_UNAVAILABLE = 7  # a VFPU word in the loop compiled without the VFPU (cpu/scalar_loop.py)
FAULT_VFPU = 8  # a VFPU instruction the VFPU implementation rejects (value = word)

FAULT_NAMES = {
    FAULT_FETCH: "instruction fetch from a bad address",
    FAULT_LOAD: "load from a bad address",
    FAULT_STORE: "store to a bad address",
    FAULT_OVERFLOW: "integer overflow trap",
    FAULT_RESERVED: "reserved instruction",
    FAULT_TRAP: "trap instruction",
    FAULT_VFPU_UNAVAILABLE: "VFPU instruction not available",
    FAULT_VFPU: "VFPU instruction fault",
}

EVENT_ARGS = 4  # the first of the argument registers' slots
EVENT_FIELDS = EVENT_ARGS + 4
