"""Threads (ThreadManForUser): creation, the PSP scheduler, waits, sleep/wakeup, delays,
callbacks. Sync objects (semaphores, flags, mutexes, message boxes) live in sync.py.

Scheduling rules as on the PSP: the ready thread with the lowest priority number runs;
equal priorities run in FIFO order with no time slicing; a thread runs until it waits,
exits, or a higher-priority thread becomes ready (then it goes back to the front of its
priority's queue). A thread that waits gives the CPU to the next ready thread.
"""

from allegrex.cpu.state import A0, A1, A2, CYCLES, FP, GP, HI, K0, LO, NPC, PC, RA, SP, V0, CpuState
from allegrex.hle import codes, costs
from allegrex.hle.kernel import IllegalContext
from allegrex.hle.objects import KernelObject, status_block, write_status
from allegrex.hle.registry import CStr, Ptr, Raw, U32, hle, read64

RUNNING, READY, WAITING, SUSPENDED, DORMANT, DEAD = 1, 2, 4, 8, 16, 32
WAITING_SUSPENDED = WAITING | SUSPENDED
ATTR_NO_FILLSTACK = 0x00100000
# measured on hardware (pspautotests threads/create): these bits are refused, these kept,
# and a user thread always reads back with the user bit and the low byte set
ATTR_INVALID = 0x070F9F00
ATTR_KEPT = 0x00706000
ATTR_USER_THREAD = 0x800000FF
ATTR_CLEAR_STACK = 0x00200000
ATTR_LOW_STACK = 0x00400000
ATTR_CHANGEABLE = 0x00004000  # only the VFPU bit may be changed on the running thread (threads/change)
MIN_STACK = 0x200
MAX_STACK = 0x7FFFFF00  # larger sizes cannot be rounded to 256 bytes: no memory
STACK_RESERVED = 0x100  # the firmware keeps the top 256 bytes of a new stack (measured via argument addresses)
ENTRY_FRAME = 0x40  # and starts the thread 64 bytes below its arguments (measured: sceKernelCheckThreadStack)
LOWEST_PRIORITY, HIGHEST_PRIORITY = 0x77, 0x08  # user threads (0x78+ are refused)
DEADBEEF = 0xDEADBEEF
THREAD_INFO_SIZE = 104
THREAD_INFO_SIZE_260 = 108  # for programs built with an SDK after 2.60
SDK_2_60 = 0x02060010


class Wait:
    """Why a thread waits: kind (sleep, delay, sema...), the object, an optional timeout
    pointer and deadline, whether callbacks may run meanwhile, and kind-specific data."""

    def __init__(self, kind, obj=None, cb=False, timeout_ptr=0, data=None):
        self.kind = kind
        self.obj = obj
        self.cb = cb
        self.timeout_ptr = timeout_ptr
        self.data = data
        self.timer = None
        self.deadline = None


# Short wait timeouts take longer on the PSP: per wait kind, (up to N us -> lasts M us)
# steps measured on hardware (the figures PPSSPP's authors measured; pspautotests timing)
TIMEOUT_STEPS = {
    "sema": ((3, 24), (249, 245)),
    "mutex": ((3, 25), (249, 250)),
    "lwmutex": ((3, 25), (249, 250)),
    "eventflag": ((1, 25), (209, 240)),
    "fpl": ((5, 20), (6, 250), (7, 25), (215, 250)),
    "vpl": ((5, 20), (6, 250), (7, 25), (215, 250)),
    "msgpipe": ((210, 250),),
}


# waits only their timeout ends, whose result is known when they start: inside Kernel.run,
# a thread that runs alone skips straight to the timeout (ThreadManager._waits_alone)
IDLE_SKIP_KINDS = ("delay", "io")


def _timeout_result(wait: Wait) -> int:
    """What a wait's call returns when its timeout ends it."""
    if wait.kind in ("delay", "vblank"):
        return 0
    if wait.kind == "io":
        return wait.data  # the driver finished: the call's own result
    return codes.signed(codes.WAIT_TIMEOUT)


def shortest_timeout(kind: str, us: int) -> int:
    """How long a wait of `kind` with a timeout of `us` microseconds really lasts."""
    for limit, lasts in TIMEOUT_STEPS.get(kind, ()):
        if us <= limit:
            return lasts
    if kind not in TIMEOUT_STEPS:
        return delay_lasts(us)  # other waits: like delays (estimate)
    return us


class Thread(KernelObject):
    threadman_type = 1

    def __init__(self, name, entry, priority, stack_size, attr, gp):
        self.uid = 0
        self.name = name
        self.entry = entry
        self.priority = priority
        self.init_priority = priority
        self.attr = attr
        self.stack_size = stack_size
        self.stack_block = None
        self.stack_addr = 0
        self.gp = gp
        self.status = DORMANT
        self.wait: Wait | None = None
        self.context = None
        self.exit_status = codes.signed(codes.THREAD_ALREADY_DORMANT)  # what it reads before it ever runs
        self.wakeup_count = 0
        self.callbacks: list = []  # Callback objects owned by this thread
        self.cb_frames: list[CallbackFrame] = []  # the callbacks running on top of waits, innermost last
        self.run_clocks = 0
        self.deleted_on_exit = False
        self.extended: list = []  # (stack block, base, size, pc, npc, sp, ra) of each sceKernelExtendThreadStack
        self.on_exit = None  # called with the exit status when the thread ends (module start/stop threads)


CALLBACK_INFO_SIZE = 56


class CallbackFrame:
    """A callback running on a thread on top of a wait: the context to return to, the wait it
    interrupted (None once that wait has ended), and whether the thread has started it yet."""

    def __init__(self, cb, saved, wait, unstarted):
        self.cb = cb
        self.saved = saved
        self.wait = wait
        self.unstarted = unstarted


class Callback(KernelObject):
    threadman_type = 8

    def __init__(self, name, func, common, owner):
        self.uid = 0
        self.name = name
        self.func = func
        self.common = common
        self.owner = owner
        self.notify_count = 0
        self.notify_arg = 0


class ThreadManager:
    def __init__(self, kernel):
        self.k = kernel
        self.threads: list[Thread] = []
        self.ready: list[Thread] = []
        self.current: Thread | None = None
        self.dispatch_suspended = False
        self.no_preempt: set = set()  # ready threads that wait for the running one to give up the CPU
        self.exit_callback = 0  # the callback sceKernelRegisterExitCallback named (LoadExecForUser)
        self.exit_requested = False  # the HOME > Quit the kernel does once for a sleeping program
        # callables(thread) told when a thread leaves the CPU to wait, yield or end: what runs
        # after it at its priority gets to run (the IO manager's async thread, io_async)
        self.leave_hooks: list = []
        self.cpu_held_until = 0  # us: a driver (the memory stick's) copies on the CPU until then
        # counts changes to what runs next and when it may (thread states, the ready queue,
        # dispatch, leave hooks, interrupts on or off or running): while it stays the same,
        # Kernel.run answers calls without planning its pass again (a hold on the CPU is
        # judged by cpu_held_until itself: it ends with time, not with a change)
        self.changes = 0

    # --- queries ---
    def runs_alone(self) -> bool:
        """Were the running thread to wait now, nothing else would run until a timer fires:
        no thread ready or let in ahead, no leave hook, dispatch and interrupts on, not
        inside a handler, the CPU not held (the run loop may then answer a wait with the
        idle skip, allegrex.hle.pure.WAITS)."""
        return self.cpu_free() and self._nothing_else_runs(self.current)

    def cpu_free(self) -> bool:
        """No driver holds the CPU now (a hold that ended is forgotten: no need to read the time again)."""
        if self.cpu_held_until:
            if self.cpu_held():
                return False
            self.cpu_held_until = 0
        return True

    def _nothing_else_runs(self, thread) -> bool:
        """`thread` is the running one and, were it to wait, no other code would run before
        a timer fires: no thread ready or let in ahead, no leave hook, dispatch and
        interrupts on, not inside a handler (the CPU's hold is the callers' to judge)."""
        k = self.k
        return (thread is not None and thread is self.current and thread.status == RUNNING and not self.ready
                and not self.no_preempt and not self.leave_hooks and not self.dispatch_suspended
                and k.intr_enabled and not k.interrupts)

    def any_alive(self) -> bool:
        return any(t.status not in (DORMANT, DEAD) for t in self.threads)

    def all_sleeping(self) -> bool:
        """Every live thread is in sceKernelSleepThread(CB): nothing but the user can go on."""
        alive = [t for t in self.threads if t.status not in (DORMANT, DEAD)]
        return bool(alive) and all(t.wait is not None and t.wait.kind == "sleep" for t in alive)

    def quit_via_exit_callback(self) -> bool:
        """Every thread sleeps and the program registered an exit callback: do what the
        HOME menu's "quit" does, once, so the program ends through its own exit path."""
        cb = self.k.get(self.exit_callback, Callback)
        if cb is None or self.exit_requested:
            return False
        self.exit_requested = True
        self.k.warn("every thread sleeps: quitting through the program's exit callback, as HOME > Quit would")
        self.notify(cb, 0)
        self.reschedule()
        return True

    def describe_waits(self) -> str:
        lines = []
        for t in self.threads:
            if t.status & WAITING and t.wait is not None:
                obj = t.wait.obj
                what = getattr(obj, "name", None)
                lines.append(f"  thread {t.name!r} waits: {t.wait.kind}" + (f" on {what!r}" if what else ""))
        return "\n".join(lines)

    # --- context helpers ---
    def set_result(self, thread: Thread, value: int) -> None:
        """v0 of the thread's live context."""
        if thread is self.current:
            self.k.cpu.regs[V0] = value & 0xFFFFFFFF
        else:
            thread.context[0][V0] = value & 0xFFFFFFFF

    # --- lifecycle ---
    def create(self, name, entry, priority, stack_size, attr, gp) -> Thread:
        thread = Thread(name, entry, priority, stack_size, attr, gp)
        thread.uid = self.k.new_uid(thread)
        self.threads.append(thread)
        return thread

    def start(self, thread: Thread, argsize: int, argp: int) -> None:
        k = self.k
        size = (thread.stack_size + 0xFF) & ~0xFF
        if thread.stack_block is None and not self.alloc_stack(thread):
            raise MemoryError
        k.memory.write_u32(thread.stack_addr, thread.uid)  # the firmware marks the stack bottom with the uid
        top = thread.stack_addr + size
        # the thread's control block (what k0 points at) sits in the reserved top: its
        # last two words are -1, word -14 the stack base and word -16 the thread id
        k.memory.fill(top - STACK_RESERVED, 0, STACK_RESERVED)
        k.memory.write_u32(top - 4, 0xFFFFFFFF)
        k.memory.write_u32(top - 8, 0xFFFFFFFF)
        k.memory.write_u32(top - 14 * 4, thread.stack_addr)
        k.memory.write_u32(top - 16 * 4, thread.uid)
        sp = top - STACK_RESERVED
        # a new thread starts from the reset state (FCR0/FCR31, VFPU prefixes and control)
        ctx_regs, fpr, vpr, vctrl = CpuState().save_context()
        vpr[:] = 0x7F800001  # a new thread's VFPU registers read as NaN (pspautotests vfpu/vavg.expected)
        fpr[:] = 0x7F800001  # and so do its FPU registers (misc/deadbeef)
        ctx_regs[1:32] = DEADBEEF  # every GPR it is not given reads 0xDEADBEEF, hi and lo too (misc/deadbeef)
        ctx_regs[HI] = ctx_regs[LO] = DEADBEEF
        argaddr = 0
        if argp and argsize > 0:
            sp -= (argsize + 0xF) & ~0xF
            k.memory.write(sp, k.memory.read(argp, argsize))
            argaddr = sp
        ctx_regs[A0] = argsize & 0xFFFFFFFF if argaddr else 0  # no argument block: the size reads 0
        ctx_regs[A1] = argaddr
        ctx_regs[GP] = thread.gp
        sp -= ENTRY_FRAME
        ctx_regs[SP] = sp
        ctx_regs[FP] = sp
        ctx_regs[K0] = top - STACK_RESERVED
        ctx_regs[RA] = k.trampoline("thread-return", _thread_returned)
        ctx_regs[PC] = thread.entry
        ctx_regs[NPC] = thread.entry + 4
        thread.context = (ctx_regs, fpr, vpr, vctrl)
        thread.priority = thread.init_priority
        thread.wakeup_count = 0
        thread.exit_status = codes.signed(codes.THREAD_IS_NOT_DORMANT)
        thread.wait = None
        self.make_ready(thread)
        k.cpu.counters[0] += costs.THREAD_CREATE

    def alloc_stack(self, thread: Thread) -> bool:
        """The thread's stack block: from the top of the user partition unless it asks for low memory."""
        size = (thread.stack_size + 0xFF) & ~0xFF
        block = self.k.sysmem.alloc_block(2, f"stack {thread.name}", high=not thread.attr & ATTR_LOW_STACK, size=size)
        if block is None:
            return False
        thread.stack_block = block
        thread.stack_addr = block.addr
        if not thread.attr & ATTR_NO_FILLSTACK:
            self.fill_stack(thread)
        return True

    def fill_stack(self, thread: Thread) -> None:
        """The firmware fills a new stack with 0xFF through the data cache, which then holds
        the stack's top 16 KiB instead of what it held (fitted: pspautotests threads programs
        where the new thread's first run and its creator's next steps race a timeout)."""
        self.k.memory.fill(thread.stack_addr, 0xFF, thread.stack_block.size)
        timing = getattr(self.k.machine, "timing", None)
        if timing is not None:
            timing.kernel_stores(thread.stack_addr, thread.stack_block.size)

    def make_ready(self, thread: Thread, front: bool = False) -> None:
        self.changes += 1
        thread.status = READY
        if thread in self.ready:
            self.ready.remove(thread)
        if front:
            self.ready.insert(0, thread)
        else:
            self.ready.append(thread)

    def exit(self, thread: Thread, status: int, dispatch: bool = True) -> None:
        """The thread ends (returned, exited or terminated): dormant, waiters on its end woken.
        dispatch=False (termination by another thread): the woken waiters become ready but do
        not preempt the caller; they run once it waits (measured: threads/terminate)."""
        self.changes += 1
        if thread is self.current:
            self.current = None
        if thread in self.ready:
            self.ready.remove(thread)
        self.cancel_wait(thread)
        thread.status = DORMANT
        thread.exit_status = status
        while thread.extended:  # ended inside sceKernelExtendThreadStack: its extra stacks go
            block, thread.stack_addr, thread.stack_size = thread.extended.pop()[:3]
            thread.stack_block = block.previous
            self.k.sysmem.free_block(block)
        thread.cb_frames.clear()
        for obj in list(self.k.objects.values()):  # mutexes it holds, its TLS blocks
            obj.release_thread(self.k, thread)
        for other in self.threads:
            if other.status & WAITING and other.wait and other.wait.kind == "thread-end" and other.wait.obj is thread:
                self.wake(other, status)
                if not dispatch:
                    self.no_preempt.add(other)
        if thread.on_exit is not None:
            thread.on_exit(status)
        self._left(thread)

    def delete(self, thread: Thread) -> None:
        if thread.status == DEAD:  # already deleted when it ended (a module start/stop thread)
            return
        self.changes += 1
        thread.status = DEAD
        if thread.stack_block is not None:
            if thread.attr & ATTR_CLEAR_STACK:  # measured (threads/start): the freed stack reads back as zeros
                self.k.memory.fill(thread.stack_addr, 0, thread.stack_block.size)
            self.k.sysmem.free_block(thread.stack_block)
            thread.stack_block = None
        for cb in thread.callbacks:
            self.k.free_uid(cb.uid)
        self.threads.remove(thread)
        self.k.free_uid(thread.uid)

    # --- waiting ---
    def block(self, wait: Wait, thread: Thread | None = None, timeout_us: int | None = None) -> None:
        """Put the current thread (or `thread`) into `wait`; the caller has already set the
        provisional v0. A timeout pointer in wait.timeout_ptr or timeout_us arms a deadline."""
        k = self.k
        if k.interrupts:
            raise IllegalContext
        thread = thread or self.current
        if wait.timeout_ptr:
            timeout_us = shortest_timeout(wait.kind, k.memory.read_u32(wait.timeout_ptr))
        if timeout_us is not None:
            now = k.now_us()
            wait.deadline = now + max(timeout_us, 0)
            if self._waits_alone(thread, wait):
                self._skip_to_timeout(wait, now)
                return
            wait.timer = k.timers.add(wait.deadline, lambda t=thread, w=wait: self._timed_out(t, w))
        self.changes += 1
        thread.wait = wait
        if thread in self.ready:
            self.ready.remove(thread)
        if thread.status & SUSPENDED:
            thread.status = WAITING_SUSPENDED
        else:
            thread.status = WAITING
        if wait.cb and self.pending_callbacks(thread):
            self.run_callbacks(thread)
        self._left(thread)

    def set_dispatch(self, suspended: bool) -> None:
        """Thread switching off (sceKernelSuspendDispatchThread) or on again."""
        self.changes += 1
        self.dispatch_suspended = suspended

    def add_leave_hook(self, hook) -> None:
        """hook(thread) is told from now on whenever a thread leaves the CPU."""
        self.changes += 1
        self.leave_hooks.append(hook)

    def suspend(self, thread: Thread) -> None:
        """`thread` (not the running one) stops taking part in scheduling until resumed."""
        self.changes += 1
        if thread.status == READY:
            self.ready.remove(thread)
            thread.status = SUSPENDED
        else:
            thread.status |= SUSPENDED

    def resume(self, thread: Thread) -> None:
        """A suspended thread takes part again: back in its wait, or ready."""
        self.changes += 1
        if thread.status == WAITING_SUSPENDED:
            thread.status = WAITING
        else:
            self.make_ready(thread)

    def _left(self, thread: Thread) -> None:
        for hook in self.leave_hooks:
            hook(thread)

    def _timed_out(self, thread: Thread, wait: Wait) -> None:
        if thread.wait is not wait and not any(f.wait is wait for f in thread.cb_frames):
            return
        wait.timer = None
        self.wake(thread, _timeout_result(wait), wait)
        if wait.obj is not None:
            wait.obj.serve_waiters(self.k)  # a FIFO queue may now serve the next waiter

    def _waits_alone(self, thread: Thread, wait: Wait) -> bool:
        """Would this wait, inside Kernel.run, be one idle skip: a wait only its timeout ends
        (IDLE_SKIP_KINDS), of the running thread, with nothing that could run or fall due
        before it ends and the switch back is over (no thread ready or let in ahead, no
        leave hook, dispatch and interrupts on, no hold past it, the next timer later)?"""
        k = self.k
        if (not k.driving or wait.kind not in IDLE_SKIP_KINDS or wait.cb or wait.obj is not None
                or wait.timeout_ptr or self.cpu_held_until > wait.deadline or not self._nothing_else_runs(thread)):
            return False
        after = k.timers.next_deadline()
        return after is None or k.clock.cycles_at(after) > k.clock.cycles_at(wait.deadline) + costs.THREAD_SWITCH

    def _skip_to_timeout(self, wait: Wait, now: int) -> None:
        """What blocking at `now`, Kernel.run's idle skip to the timeout (time a driver holds
        the CPU counts as the memory stick's, the rest as idle), the wake-up and the switch
        back leave, done at once: the thread never leaves the CPU, so its context stays live.
        A hold ends by then (_waits_alone): it is forgotten, as runs_alone would."""
        k = self.k
        held, self.cpu_held_until = now < self.cpu_held_until, 0
        added = k.clock.advance_to(wait.deadline)
        if held:
            k.memstick_cycles += added
        else:
            k.idle_cycles += added
        k.cpu.regs_view[V0] = _timeout_result(wait) & 0xFFFFFFFF  # (the views: this runs per file call)
        k.cpu.counters_view[CYCLES] += costs.THREAD_SWITCH

    def wake(self, thread: Thread, result: int, wait: Wait | None = None) -> None:
        """End `thread`'s wait (or the given one, which a callback may have interrupted) with
        `result` as the return value of its blocking call."""
        wait = wait or thread.wait
        if wait is None:
            return
        k = self.k
        if wait.timer is not None:
            k.timers.cancel(wait.timer)
        if wait.timeout_ptr and wait.deadline is not None:
            left = max(0, wait.deadline - k.now_us())
            if k.memory.is_valid(wait.timeout_ptr, 4):
                k.memory.write_u32(wait.timeout_ptr, left)
        if wait.obj is not None:
            wait.obj.forget_waiter(thread)
            wait.obj.wait_ended(k, wait, result)
        interrupted = next((f for f in thread.cb_frames if f.wait is wait), None)
        if interrupted is not None:  # a callback runs on top of it: the result waits for its return
            interrupted.wait = None
            interrupted.saved[0][V0] = result & 0xFFFFFFFF
            if thread.wait is wait:
                thread.wait = None
            return
        thread.wait = None
        self.set_result(thread, result)
        self.changes += 1
        if thread.status == WAITING_SUSPENDED:
            thread.status = SUSPENDED
        elif thread.status & WAITING:
            self.make_ready(thread)

    def cancel_wait(self, thread: Thread) -> None:
        wait = thread.wait
        if wait is None:
            return
        if wait.timer is not None:
            self.k.timers.cancel(wait.timer)
        if wait.obj is not None:
            wait.obj.forget_waiter(thread)
        thread.wait = None

    # --- the scheduler ---
    def best_ready(self):
        if not self.ready or self.cpu_held():
            return None
        return min(self.ready, key=lambda t: t.priority)

    def hold_cpu(self, until_us: int) -> None:
        """A driver works on the CPU until `until_us`: no thread runs before then (interrupts
        and timers still do)."""
        self.cpu_held_until = max(self.cpu_held_until, until_us)

    def cpu_held(self) -> bool:
        return self.k.now_us() < self.cpu_held_until

    def reschedule(self) -> None:
        if self.k.interrupts:
            return  # an interrupt handler runs on top of whatever was running
        cur = self.current
        if cur is not None and cur.status == RUNNING:
            if not self.ready or self.dispatch_suspended or not self.k.intr_enabled:
                return  # no other thread, or dispatch or interrupts off: the running thread keeps the CPU
            contenders = [t for t in self.ready if t not in self.no_preempt]
            best = min(contenders, key=lambda t: t.priority) if contenders else None
            if best is None or best.priority >= cur.priority:
                return
            self.make_ready(cur, front=True)  # preempted: first in line at its priority
        self.switch_to(self.best_ready())

    def yield_current(self) -> None:
        """Current thread to the back of its priority queue (sceKernelRotateThreadReadyQueue)."""
        cur = self.current
        if cur is not None and cur.status == RUNNING:
            self.make_ready(cur)
            self._left(cur)  # what waited behind it at its priority runs first

    def switch_to(self, thread: Thread | None) -> None:
        self.changes += 1
        k = self.k
        cur = self.current
        if cur is thread:
            if thread is not None:
                if thread in self.ready:
                    self.ready.remove(thread)
                thread.status = RUNNING
            return
        if cur is not None and cur.status not in (DORMANT, DEAD):
            cur.context = k.cpu.save_context()
        self.no_preempt.clear()
        self.current = thread
        if thread is None:
            return
        self.ready.remove(thread)
        thread.status = RUNNING
        if thread.cb_frames and thread.cb_frames[-1].unstarted:
            self._start_callback(thread)
        k.cpu.load_context(thread.context)
        k.cpu.counters[0] += costs.THREAD_SWITCH

    # --- callbacks ---
    def pending_callbacks(self, thread: Thread) -> list:
        return [cb for cb in thread.callbacks if cb.notify_count > 0]

    def run_callbacks(self, thread: Thread) -> bool:
        """Make `thread` run its first pending callback now, on top of its wait (a callback
        may itself wait with callbacks: they nest)."""
        pending = self.pending_callbacks(thread)
        frames = thread.cb_frames
        if not pending or (frames and thread.wait is not None and frames[-1].wait is thread.wait):
            return False  # nothing to run, or a callback already runs on top of this wait
        cb = pending[0]
        k = self.k
        current = thread is self.current
        saved = k.cpu.save_context() if current else thread.context
        regs, fpr, vpr, vctrl = (a.copy() for a in saved)
        frames.append(CallbackFrame(cb, saved, thread.wait, unstarted=not current))
        if current:  # a waiting thread takes its count when it gets to run
            regs[A0], regs[A1] = cb.notify_count, cb.notify_arg & 0xFFFFFFFF
            cb.notify_count = cb.notify_arg = 0
        regs[A2] = cb.common & 0xFFFFFFFF
        regs[SP] = (int(regs[SP]) - 0x40) & 0xFFFFFFFF
        regs[RA] = k.trampoline("callback-return", _callback_returned)
        regs[PC] = cb.func
        regs[NPC] = cb.func + 4
        self.changes += 1
        if current:
            k.cpu.load_context((regs, fpr, vpr, vctrl))
            thread.status = RUNNING
        else:
            thread.context = (regs, fpr, vpr, vctrl)
            self.make_ready(thread)
        return True

    def _start_callback(self, thread: Thread) -> None:
        """A callback prepared for a waiting thread starts only when that thread runs: it gets
        the notifications counted until then (measured: threads/callbacks)."""
        frame = thread.cb_frames[-1]
        frame.unstarted = False
        regs = thread.context[0]
        regs[A0], regs[A1] = frame.cb.notify_count, frame.cb.notify_arg & 0xFFFFFFFF
        frame.cb.notify_count = frame.cb.notify_arg = 0

    def withdraw_callback(self, cb: Callback) -> None:
        """`cb` was cancelled or deleted: a waiting thread that was about to run it goes back
        to its wait (or on to its next pending callback)."""
        thread = cb.owner
        frame = thread.cb_frames[-1] if thread.cb_frames else None
        if frame is None or frame.cb is not cb or not frame.unstarted:
            return
        thread.cb_frames.pop()
        self.changes += 1
        thread.context, thread.wait = frame.saved, frame.wait
        if thread in self.ready:
            self.ready.remove(thread)
        thread.status = WAITING
        self.run_callbacks(thread)

    def notify(self, cb: Callback, arg: int) -> None:
        cb.notify_count += 1
        cb.notify_arg = arg
        owner = cb.owner
        if owner.status & WAITING and owner.wait is not None and owner.wait.cb:
            self.run_callbacks(owner)


def _thread_returned(k) -> None:
    """A thread's entry function returned: its v0 is the exit status."""
    t = k.threads.current
    status = codes.signed(int(k.cpu.regs[V0]))
    k.threads.exit(t, status)
    if t.deleted_on_exit:
        k.threads.delete(t)


def _extend_returned(k) -> None:
    """The function run on an extended stack returned: back to the caller's stack; its v0 stays."""
    t = k.threads.current
    block, base, size, pc, npc, sp, ra = t.extended.pop()
    k.sysmem.free_block(block)
    t.stack_block, t.stack_addr, t.stack_size = block.previous, base, size
    regs = k.cpu.regs
    regs[PC], regs[NPC], regs[SP], regs[RA] = pc, npc, sp, ra


def _callback_returned(k) -> None:
    tm = k.threads
    t = tm.current
    frame = t.cb_frames.pop()
    result = int(k.cpu.regs[V0])
    if result != 0 and frame.cb in t.callbacks:  # a non-zero return deletes the callback
        t.callbacks.remove(frame.cb)
        k.free_uid(frame.cb.uid)
    k.cpu.load_context(frame.saved)
    t.wait = frame.wait  # back in the wait it interrupted, unless that ended meanwhile
    if t.wait is not None and tm.pending_callbacks(t):
        tm.run_callbacks(t)
        return
    if t.wait is not None and t.wait.kind == "check-callbacks":  # its data: a result other than 1
        tm.wake(t, 1 if t.wait.data is None else t.wait.data)
    tm.changes += 1
    if t.wait is not None:
        t.status = WAITING
        t.context = k.cpu.save_context()
        tm.current = None
    else:
        t.status = RUNNING


def current(k) -> Thread:
    return k.threads.current


# ---------------------------------------------------------------- thread calls
LIB = "ThreadManForUser"


def cannot_wait(k) -> bool:
    """With dispatch or interrupts off a call that could wait fails at once with
    WAIT_CAN_NOT_WAIT, before any other check (measured: threads/scheduling/dispatch)."""
    return k.threads.dispatch_suspended or not k.intr_enabled


def wait_refused(k) -> int | None:
    """What a call that may wait answers, before any other check, when it may not: inside
    an interrupt handler ILLEGAL_CONTEXT, with dispatch or interrupts off CAN_NOT_WAIT
    (measured: intr/waits; both even when it would not have had to wait). None: it may."""
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    return None


def done_now(k, result: int, cb: bool):
    """A wait call that did not have to wait returns `result`; its CB form first runs the
    caller's pending callbacks (then None: the result is already in the saved v0)."""
    if cb and k.threads.pending_callbacks(k.threads.current):
        k.cpu.regs[V0] = result & 0xFFFFFFFF
        k.threads.run_callbacks(k.threads.current)
        return None
    return result


def finish_wait_call(k, result) -> None:
    """Put a wait call's result in v0, unless it blocked (None): then the wake-up sets v0."""
    if result is not None:
        k.cpu.regs[V0] = result & 0xFFFFFFFF


@hle(LIB)
def sceKernelCreateThread(k, name: CStr, entry: Ptr, priority: int, stack_size: U32, attr: U32, option: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if stack_size < MIN_STACK:
        return codes.signed(codes.ILLEGAL_STACK_SIZE)
    if priority < HIGHEST_PRIORITY or priority > LOWEST_PRIORITY:
        return codes.signed(codes.ILLEGAL_PRIORITY)
    if entry != 0 and not k.memory.is_valid(entry, 4):  # measured: a null entry is accepted
        return codes.signed(codes.ILLEGAL_ADDR)
    if attr & ATTR_INVALID:
        return codes.signed(codes.ILLEGAL_ATTR)
    if stack_size > MAX_STACK:
        return codes.signed(codes.NO_MEMORY)
    gp = int(k.cpu.regs[GP])
    stack_size = (stack_size + 0xFF) & ~0xFF  # stacks come in 256-byte units
    thread = k.threads.create(name, entry, priority, stack_size, (attr & ATTR_KEPT) | ATTR_USER_THREAD, gp)
    if not k.threads.alloc_stack(thread):
        k.threads.delete(thread)
        return codes.signed(codes.NO_MEMORY)
    k.charge(costs.CREATE_THREAD)
    k.threads.set_dispatch(False)  # measured: creating a thread resumes dispatch (scheduling/dispatch)
    return thread.uid


def _thread(k, uid):
    if uid == 0:
        return k.threads.current
    return k.get(uid, Thread)


@hle(LIB, cost=costs.THREAD_CREATE)
def sceKernelStartThread(k, uid: int, argsize: int, argp: Ptr) -> int:
    if k.interrupts:  # measured: a timer handler cannot start a thread (threads/vtimers/cancelhandler)
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if uid == 0:
        return codes.signed(codes.ILLEGAL_THREAD)
    thread = k.get(uid, Thread)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread.status != DORMANT:
        return codes.signed(codes.THREAD_IS_NOT_DORMANT)
    if argp and (argsize < 0 or (argsize and not k.memory.is_valid(argp, argsize))):
        return codes.signed(codes.ILLEGAL_ADDR)
    k.threads.start(thread, argsize, argp)
    return 0


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelExitThread(k, status: int) -> Raw:
    t = k.threads.current
    k.threads.exit(t, status)


@hle(LIB, cost=costs.THREAD_SWITCH)
def _sceKernelExitThread(k, status: int) -> Raw:
    sceKernelExitThread(k, status)


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelExitDeleteThread(k, status: int) -> Raw:
    t = k.threads.current
    k.threads.exit(t, status)
    k.threads.delete(t)


@hle(LIB)
def sceKernelDeleteThread(k, uid: int) -> int:
    thread = _thread(k, uid)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread.status != DORMANT:
        return codes.signed(codes.THREAD_IS_NOT_DORMANT)
    k.threads.delete(thread)
    return 0


SDK_3_8 = 0x03080000


@hle(LIB)
def sceKernelTerminateThread(k, uid: int) -> int:
    if k.interrupts and k.sdk_version >= SDK_3_8:
        # measured (gpu/signals/*): a GE handler of a program built for SDK 3.8+ cannot
        # terminate a thread; older programs' handlers can
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if uid == 0:
        return codes.signed(codes.ILLEGAL_THREAD)
    thread = k.get(uid, Thread)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread is k.threads.current:
        return codes.signed(codes.ILLEGAL_THREAD)
    if thread.status == DORMANT:
        return codes.signed(codes.THREAD_ALREADY_DORMANT)
    k.threads.exit(thread, codes.signed(codes.THREAD_IS_TERMINATED), dispatch=False)
    return 0


@hle(LIB)
def sceKernelTerminateDeleteThread(k, uid: int) -> int:
    if uid == 0:
        return codes.signed(codes.ILLEGAL_THREAD)
    thread = k.get(uid, Thread)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread is k.threads.current:
        return codes.signed(codes.ILLEGAL_THREAD)
    if thread.status != DORMANT:
        k.threads.exit(thread, codes.signed(codes.THREAD_IS_TERMINATED), dispatch=False)
    k.threads.delete(thread)
    return 0


@hle(LIB)
def sceKernelGetThreadId(k) -> int:
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)  # no thread inside an interrupt handler
    return k.threads.current.uid


@hle(LIB)
def sceKernelGetThreadCurrentPriority(k) -> int:
    return k.threads.current.priority


@hle(LIB)
def sceKernelChangeThreadPriority(k, uid: int, priority: int) -> int:
    thread = _thread(k, uid)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if priority == 0:
        priority = k.threads.current.priority
    if priority < HIGHEST_PRIORITY or priority > LOWEST_PRIORITY:
        return codes.signed(codes.ILLEGAL_PRIORITY)
    if thread.status == DORMANT:
        return codes.signed(codes.THREAD_ALREADY_DORMANT)
    thread.priority = priority
    if thread.status == READY:
        k.threads.make_ready(thread)  # moves to the back of its new priority
    elif thread is k.threads.current:
        k.threads.yield_current()  # even at its old priority the caller goes behind its equals (threads/change)
    return 0


@hle(LIB)
def sceKernelRotateThreadReadyQueue(k, priority: int) -> int:
    cur = k.threads.current
    if priority != 0 and not HIGHEST_PRIORITY <= priority <= LOWEST_PRIORITY:
        return codes.signed(codes.ILLEGAL_PRIORITY)
    if priority == 0 or priority == cur.priority:
        k.threads.yield_current()
    else:
        same = [t for t in k.threads.ready if t.priority == priority]
        if same:
            k.threads.make_ready(same[0])
    return 0


@hle(LIB)
def sceKernelGetThreadExitStatus(k, uid: int) -> int:
    if uid == 0:
        return codes.signed(codes.NOT_FOUND_THREAD)
    thread = _thread(k, uid)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread.status != DORMANT:
        return codes.signed(codes.THREAD_IS_NOT_DORMANT)
    return thread.exit_status


@hle(LIB)
def sceKernelChangeCurrentThreadAttr(k, clear: U32, set_: U32) -> int:
    if (clear | set_) & ~ATTR_CHANGEABLE:
        return codes.signed(codes.ILLEGAL_ATTR)
    t = k.threads.current
    t.attr = (t.attr & ~clear) | set_
    return 0


@hle(LIB)
def sceKernelReferThreadStatus(k, uid: int, info: Ptr) -> int:
    thread = _thread(k, uid)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if not info:
        return codes.signed(codes.ILLEGAL_ADDR)
    wanted = k.memory.read_u32(info)
    # programs built for firmware after 2.60 get a 108-byte record and a size check (threads/refer)
    full = THREAD_INFO_SIZE_260 if k.sdk_version > SDK_2_60 else THREAD_INFO_SIZE
    if full == THREAD_INFO_SIZE_260 and wanted > full:
        return codes.signed(codes.ILLEGAL_SIZE)
    data = bytearray(full)
    data[0:4] = full.to_bytes(4, "little")
    name = thread.name.encode("latin-1")[:31]
    data[4:4 + len(name)] = name
    fields = [thread.attr, thread.status, thread.entry, thread.stack_addr, thread.stack_size, thread.gp,
              thread.init_priority, thread.priority,
              _wait_type(thread), thread.wait.obj.uid if thread.wait and hasattr(thread.wait.obj, "uid") else 0,
              thread.wakeup_count, thread.exit_status & 0xFFFFFFFF, thread.run_clocks & 0xFFFFFFFF,
              thread.run_clocks >> 32, 0, 0, 0]
    for i, value in enumerate(fields):
        data[36 + 4 * i:40 + 4 * i] = (value & 0xFFFFFFFF).to_bytes(4, "little")
    if wanted:
        # the caller's size says how much to copy, but the size word is always whole
        k.memory.write(info, bytes(data[:max(4, min(wanted, full))]))
    return 0


def _wait_type(thread) -> int:
    if thread.wait is None:
        return 0
    return {"sleep": 1, "delay": 2, "sema": 3, "eventflag": 4, "mbx": 5, "vpl": 6, "fpl": 7,
            "msgpipe": 8, "thread-end": 9, "mutex": 13, "lwmutex": 14}.get(thread.wait.kind, 0)


# --- sleep / wakeup ---
def _sleep(k, cb: bool) -> int:
    if cannot_wait(k) and not k.interrupts:
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    t = k.threads.current
    if t.wakeup_count > 0:
        t.wakeup_count -= 1
        return done_now(k, 0, cb)
    k.cpu.regs[V0] = 0
    k.threads.block(Wait("sleep", cb=cb))
    return None


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelSleepThread(k) -> Raw:
    finish_wait_call(k, _sleep(k, False))


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelSleepThreadCB(k) -> Raw:
    finish_wait_call(k, _sleep(k, True))


@hle(LIB)
def sceKernelWakeupThread(k, uid: int) -> int:
    thread = _thread(k, uid)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread.status & WAITING and thread.wait and thread.wait.kind == "sleep":
        k.threads.wake(thread, 0)
    else:
        thread.wakeup_count += 1
    return 0


@hle(LIB)
def sceKernelCancelWakeupThread(k, uid: int) -> int:
    thread = _thread(k, uid)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    count, thread.wakeup_count = thread.wakeup_count, 0
    return count


@hle(LIB)
def sceKernelSuspendThread(k, uid: int) -> int:
    if uid == 0:
        return codes.signed(codes.ILLEGAL_THREAD)
    thread = k.get(uid, Thread)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread is k.threads.current:
        return codes.signed(codes.ILLEGAL_THREAD)
    if thread.status & SUSPENDED:
        return codes.signed(codes.THREAD_ALREADY_SUSPEND)
    if thread.status == DORMANT:
        return codes.signed(codes.THREAD_ALREADY_DORMANT)
    k.threads.suspend(thread)
    return 0


@hle(LIB)
def sceKernelResumeThread(k, uid: int) -> int:
    if uid == 0:
        return codes.signed(codes.ILLEGAL_THREAD)
    thread = k.get(uid, Thread)
    if thread is k.threads.current:
        return codes.signed(codes.ILLEGAL_THREAD)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if not thread.status & SUSPENDED:
        return codes.signed(codes.THREAD_IS_NOT_SUSPEND)
    k.threads.resume(thread)
    return 0


@hle(LIB)
def sceKernelReleaseWaitThread(k, uid: int) -> int:
    if uid == 0:
        return codes.signed(codes.ILLEGAL_THREAD)
    thread = k.get(uid, Thread)
    if thread is k.threads.current:
        return codes.signed(codes.ILLEGAL_THREAD)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if not thread.status & WAITING:
        return codes.signed(codes.THREAD_IS_NOT_WAIT)
    k.threads.wake(thread, codes.signed(codes.WAIT_STATUS_RELEASED))
    return 0


# --- delays ---
def _delay(k, us: int, cb: bool) -> None:
    if cannot_wait(k) and not k.interrupts:  # measured: intr/waits, intr/vblank
        k.cpu.regs[V0] = codes.WAIT_CAN_NOT_WAIT
        return
    k.cpu.regs[V0] = 0
    us = max(us, 0)
    k.threads.block(Wait("delay", cb=cb), timeout_us=delay_lasts(us))


# A delay lasts at least this long on the PSP (PPSSPP's authors' measurement: 0-199 us last
# ~210); a longer one wakes when it falls due, the call and the switch back costing their
# cycles on top (fitted: threads/semaphores/wait needs a 1000 us delay and its wake-up to end
# within 1000 us of another thread's wait, which PPSSPP's further +10 us made 1001-1004 here)
MIN_DELAY_US = 210


def delay_lasts(us: int) -> int:
    """How long sceKernelDelayThread(us) sleeps."""
    return max(us, MIN_DELAY_US)


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelDelayThread(k, us: U32) -> Raw:
    _delay(k, us, False)


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelDelayThreadCB(k, us: U32) -> Raw:
    _delay(k, us, True)


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelDelaySysClockThread(k, clock: Ptr) -> Raw:
    _delay(k, read64(k.memory, clock), False)


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelDelaySysClockThreadCB(k, clock: Ptr) -> Raw:
    _delay(k, read64(k.memory, clock), True)


# --- waiting for another thread ---
def _wait_end(k, uid, timeout_ptr, cb) -> int | None:
    if uid == 0:  # checked even before whether it may wait (measured: intr/waits)
        return codes.signed(codes.ILLEGAL_THREAD)
    refused = wait_refused(k)
    if refused is not None:
        return refused
    thread = k.get(uid, Thread)
    if thread is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    if thread is k.threads.current:
        return codes.signed(codes.ILLEGAL_THREAD)
    if thread.status == DORMANT:
        return done_now(k, thread.exit_status, cb)
    k.cpu.regs[V0] = 0
    k.threads.block(Wait("thread-end", obj=thread, cb=cb, timeout_ptr=timeout_ptr))
    return None


@hle(LIB)
def sceKernelWaitThreadEnd(k, uid: int, timeout: Ptr) -> Raw:
    finish_wait_call(k, _wait_end(k, uid, timeout, False))


@hle(LIB)
def sceKernelWaitThreadEndCB(k, uid: int, timeout: Ptr) -> Raw:
    finish_wait_call(k, _wait_end(k, uid, timeout, True))


# --- callbacks ---
@hle(LIB)
def sceKernelCreateCallback(k, name: CStr, func: Ptr, common: Ptr) -> int:
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    if func & 0xF0000000:  # measured: only the top nibble is checked (a null function is accepted)
        return codes.signed(codes.ILLEGAL_ADDR)
    t = k.threads.current
    cb = Callback(name, func, common, t)
    cb.uid = k.new_uid(cb)
    t.callbacks.append(cb)
    return cb.uid


@hle(LIB)
def sceKernelDeleteCallback(k, uid: int) -> int:
    cb = k.get(uid, Callback)
    if cb is None:
        return codes.signed(codes.NOT_FOUND_CALLBACK)
    if cb in cb.owner.callbacks:
        cb.owner.callbacks.remove(cb)
    k.threads.withdraw_callback(cb)
    k.free_uid(uid)
    return 0


@hle(LIB)
def sceKernelNotifyCallback(k, uid: int, arg: int) -> int:
    cb = k.get(uid, Callback)
    if cb is None:
        return codes.signed(codes.NOT_FOUND_CALLBACK)
    k.threads.notify(cb, arg)
    return 0


@hle(LIB)
def sceKernelCancelCallback(k, uid: int) -> int:
    cb = k.get(uid, Callback)
    if cb is None:
        return codes.signed(codes.NOT_FOUND_CALLBACK)
    cb.notify_count = 0
    cb.notify_arg = 0
    k.threads.withdraw_callback(cb)
    return 0


@hle(LIB)
def sceKernelGetCallbackCount(k, uid: int) -> int:
    cb = k.get(uid, Callback)
    return codes.signed(codes.NOT_FOUND_CALLBACK) if cb is None else cb.notify_count


@hle(LIB)
def sceKernelCheckCallback(k) -> Raw:
    t = k.threads.current
    k.cpu.regs[V0] = 0
    if k.threads.pending_callbacks(t):
        k.threads.block(Wait("check-callbacks", cb=True))


@hle(LIB)
def sceKernelReferCallbackStatus(k, uid: int, info: Ptr) -> int:
    cb = k.get(uid, Callback)
    if cb is None:
        return codes.signed(codes.NOT_FOUND_CALLBACK)
    words = [cb.owner.uid, cb.func, cb.common, cb.notify_count, cb.notify_arg]
    write_status(k, info, status_block(CALLBACK_INFO_SIZE, cb.name, words))
    return 0


# --- dispatch control ---
@hle(LIB)
def sceKernelSuspendDispatchThread(k) -> int:
    if not k.intr_enabled or k.interrupts:  # a handler runs with interrupts off (intr/waits)
        return codes.signed(codes.INTERRUPTS_DISABLED)
    was = 0 if k.threads.dispatch_suspended else 1
    k.threads.set_dispatch(True)
    return was


@hle(LIB)
def sceKernelResumeDispatchThread(k, state: int) -> int:
    if not k.intr_enabled or k.interrupts:
        return codes.signed(codes.INTERRUPTS_DISABLED)
    k.threads.set_dispatch(state == 0)
    return 0


@hle(LIB)
def sceKernelCheckThreadStack(k) -> int:
    t = k.threads.current
    return int(k.cpu.regs[SP]) - t.stack_addr


@hle(LIB, cost=costs.THREAD_SWITCH)
def sceKernelExtendThreadStack(k, size: U32, func: Ptr, arg: U32) -> Raw:
    """Run func(arg) on a new stack of `size` bytes; returns what func returns."""
    t = k.threads.current
    regs = k.cpu.regs
    if size < MIN_STACK:
        regs[V0] = codes.signed(codes.ILLEGAL_STACK_SIZE) & 0xFFFFFFFF
        return
    size = (size + 0xFF) & ~0xFF
    block = k.sysmem.alloc_block(2, f"extended stack {t.name}", high=True, size=size) if size <= MAX_STACK else None
    if block is None:
        regs[V0] = codes.signed(codes.NO_MEMORY) & 0xFFFFFFFF
        return
    block.previous = t.stack_block
    t.extended.append((block, t.stack_addr, t.stack_size, int(regs[PC]), int(regs[NPC]), int(regs[SP]), int(regs[RA])))
    k.memory.fill(block.addr, 0xFF, size)
    k.memory.write_u32(block.addr, t.uid)  # like a thread's own stack, without a control block (k0 stays)
    t.stack_block, t.stack_addr, t.stack_size = block, block.addr, size
    regs[A0] = arg
    regs[SP] = block.addr + size - 0x10
    regs[RA] = k.trampoline("extend-return", _extend_returned)
    regs[PC], regs[NPC] = func, func + 4


STACK_FREE_SKIP = 0x10


@hle(LIB)
def sceKernelGetThreadStackFreeSize(k, uid: int) -> int:
    t = _thread(k, uid)
    if t is None:
        return codes.signed(codes.NOT_FOUND_THREAD)
    # free = whole words still holding the 0xFF fill, counted up from 16 bytes above the
    # bottom (where the thread id sits); measured in threads/stackfree
    data = k.memory.read(t.stack_addr + STACK_FREE_SKIP, t.stack_size - STACK_FREE_SKIP)
    return (len(data) - len(data.lstrip(b"\xff"))) & ~3


@hle(LIB)
def sceKernelGetThreadmanIdType(k, uid: int) -> int:
    obj = k.objects.get(uid & 0xFFFFFFFF)
    found = None if obj is None else obj.threadman_type
    return codes.signed(codes.ILLEGAL_ARGUMENT) if found is None else found


# the thread lists by state (types 0x40-0x43)
THREAD_STATE_LISTS = {
    0x40: lambda t: t.wait is not None and t.wait.kind == "sleep" and not t.status & SUSPENDED,
    0x41: lambda t: t.wait is not None and t.wait.kind == "delay" and not t.status & SUSPENDED,
    0x42: lambda t: bool(t.status & SUSPENDED),
    0x43: lambda t: t.status == DORMANT,
}


@hle(LIB)
def sceKernelGetThreadmanIdList(k, kind: int, buf: Ptr, size: int, count_out: Ptr) -> int:
    if size < 0:
        return codes.signed(codes.ILLEGAL_ADDR)
    if 1 <= kind <= 14:
        ids = [uid for uid, obj in k.objects.items() if obj.threadman_type == kind]
    elif kind in THREAD_STATE_LISTS:
        ids = [t.uid for t in k.threads.threads if THREAD_STATE_LISTS[kind](t)]
    else:
        return codes.signed(codes.ILLEGAL_TYPE)
    for i, uid in enumerate(ids[:size]):
        k.memory.write_u32(buf + 4 * i, uid)
    if count_out:
        k.memory.write_u32(count_out, len(ids))
    return min(len(ids), size)


# --- the debug profiler: off on a retail PSP, so there are no registers to refer to ---
@hle(LIB)
def sceKernelReferThreadProfiler(k) -> int:
    return 0  # measured: threads/profiler prints a NULL pointer


@hle(LIB)
def sceKernelReferGlobalProfiler(k) -> int:
    return 0
