"""Cycle cost of HLE calls, one named constant per call class, added to the cycle
counter for each call. These are estimates (syscall entry/exit through the kernel is a
few hundred cycles on the Allegrex); the timing model may refine them."""

SYSCALL = 300  # trap, kernel entry, argument checks, return: simple getters and setters
SYNC = 600  # a thread-manager operation on a sync object (semaphore, flag, mutex)
THREAD_SWITCH = 1200  # saving one thread's context and dispatching another
THREAD_CREATE = 4000  # control block, stack allocation and fill
ALLOC = 1500  # partition allocator walk
IO = 5000  # file system call through the IO manager (open, close, stat...)
IO_PER_KIB = 1000  # extra per KiB moved by read/write (memory stick bus, cache)
DISPLAY = 400  # display controller register access
TRAMPOLINE = 50  # internal return from a callback or thread entry
