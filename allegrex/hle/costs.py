"""Cycle cost of HLE calls, one named constant per call class, charged per call to the
cycle counter (and the timing model's "syscalls" stall row). The figures are the timing
model's estimates (allegrex.timing.clock.HLE_CALL_CYCLES), so there is one source."""

from allegrex.timing.clock import HLE_CALL_CYCLES

SYSCALL = HLE_CALL_CYCLES["syscall"]  # trap, kernel entry, argument checks, return: getters and setters
SYNC = HLE_CALL_CYCLES["sync"]  # a thread-manager operation on a sync object (semaphore, flag, mutex)
THREAD_SWITCH = HLE_CALL_CYCLES["thread_switch"]  # saving one thread's context and dispatching another
THREAD_CREATE = HLE_CALL_CYCLES["thread_create"]  # control block, stack allocation and fill
ALLOC = HLE_CALL_CYCLES["alloc"]  # partition allocator walk
IO = HLE_CALL_CYCLES["io"]  # IO manager call (open, close, stat...); the medium's time comes on top
DISPLAY = HLE_CALL_CYCLES["display"]  # display controller register access
GE = HLE_CALL_CYCLES["ge"]  # sceGe register reads
GE_ENQUEUE = HLE_CALL_CYCLES["ge_enqueue"]  # the GE starts at the call's entry: short lists end inside it
GE_STALL = HLE_CALL_CYCLES["ge_stall"]
GE_SYNC = HLE_CALL_CYCLES["ge_sync"]
GE_DRAW_SYNC = HLE_CALL_CYCLES["ge_draw_sync"]
GE_INTERRUPT = HLE_CALL_CYCLES["ge_interrupt"]  # charged when the driver's interrupt work ends
TRAMPOLINE = 50  # internal return from a callback, handler or thread entry (a few instructions)
# sceKernelCreateThread takes ~144 us on the firmware (pspautotests threads/create: a 24 us
# timeout of another thread expires during it); the figure PPSSPP's authors measured
CREATE_THREAD = 32000
