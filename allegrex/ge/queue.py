"""The firmware's display-list queue (sceGe_user), modelled on the GE driver's logic.

64 display-list slots; a list id is the slot's kernel address xor a mask. Lists wait in
an active queue (the first one is the one the GE runs or will run); a finished slot goes
to the back of the free queue, so ids come back in rotation. The GE interrupt at END
decides what happens next: after SIGNAL the signal's behaviour (call the signal
handler and suspend or continue, pause at the next FINISH, sync, jump/call/return
through the driver's stack, rewrite texture/CLUT addresses), after FINISH the list
completes (finish handler, context restore) and the next one starts. Handlers are the
sub-interrupt handlers sceGeSetCallback registers (interrupt 25, 2 per callback id);
they run as interrupts through the kernel. Waits (sceGeDrawSync/sceGeListSync with
mode 0) end when the driver's event flags are set.

Behaviour and error codes follow pspautotests gpu/ge, gpu/signals, gpu/callbacks and
gpu/displaylist (real-PSP output) and the reverse-engineered driver (uOFW), read for
facts. Driver code that runs while an interrupt handler is in guest code is written as
generators: `yield (sub, arg0, arg1)` calls sub-interrupt handler `sub` and resumes
when it returns.
"""

from collections import deque
from dataclasses import dataclass, field

from allegrex.ge import commands, hardware, processor
from allegrex.ge.dump import ListDump
from allegrex.ge.state import (ADDR_MASK, EXEC_DEPTH1, EXEC_DEPTH2, INT_END, INT_FINISH, INT_SIGNAL, MATRIX_BY_ID,
                               R_EXEC, R_IADR, R_LISTADDR, R_OADR, R_OADR1, R_OADR2, R_RADR1, R_RADR2,
                               R_STALLADDR, R_VADR)
from allegrex.hle import codes, costs, intr, threads
from allegrex.hle.objects import KernelObject
from allegrex.memory import EDRAM_TRANSLATIONS

OPS = commands.OPS

# list states (the driver's) and what sceGeListSync/sceGeDrawSync report
NONE, QUEUED, RUNNING, COMPLETED, PAUSED = range(5)
LIST_COMPLETED, LIST_QUEUED, LIST_DRAWING, LIST_STALLING, LIST_PAUSED = range(5)
SIG_NONE, SIG_BREAK, SIG_PAUSE, SIG_SYNC = range(4)

# signal behaviours (SIGNAL bits 16-23)
HANDLER_SUSPEND, HANDLER_CONTINUE, HANDLER_PAUSE, SIGNAL_SYNC = 0x01, 0x02, 0x03, 0x08
SIGNAL_JUMP, SIGNAL_CALL, SIGNAL_RET, SIGNAL_RJUMP, SIGNAL_RCALL, SIGNAL_OJUMP, SIGNAL_OCALL = range(0x10, 0x17)
SIGNAL_RCBP, SIGNAL_OCBP, SIGNAL_BREAK1, SIGNAL_BREAK2 = 0x30, 0x38, 0xF0, 0xFF

SLOTS = 64
CALLBACK_IDS = 16
STACK_ENTRY_WORDS = 8
OLD_SDK_STACKS = 32  # programs built before SDK 2.0 get the driver's own 32-entry stack
SDK_2 = 0x02000000
SDK_CALLBACK_GETS_LIST = 0x02000010  # newer programs' handlers receive the list address
GE_INTERRUPT = 25

# where the driver's own objects would live (kernel memory the guest never sees as data)
SLOT_TABLE = 0x88001200  # the 64 list structures, 64 bytes each
SLOT_BYTES = 64
ID_MASK = 0x8C6E1400  # the driver's id mask (any value with bit 31 set keeps ids positive)
SCRATCH = 0x08001100  # kernel scratch for the driver's FINISH/END stub list
CONTEXT_WORDS = 512
CONTEXT_HEADER = 17  # exec, list, stall, radr1-2, vadr, iadr, oadr0-2, 7 EDRAM/clock words
INIT_LIST = SCRATCH + 0x100  # where the driver's boot list (every context command reset) runs

# commands sceGeSaveContext stores as they stand (the driver's bitmap of context commands)
def _bitmap_commands():
    raw = bytes.fromhex("0700fdfffff1cf01fc3ffbf9ffffffffffffffffffff3fffeffffdffff5b7f03")
    return tuple(8 * i + b for i, byte in enumerate(raw) for b in range(8) if byte >> b & 1)


SAVED_COMMANDS = _bitmap_commands()
# matrices in the order the driver saves them: index command, data command, values
MATRIX_UPLOADS = (("BONEMATRIXNUMBER", "BONEMATRIXDATA", 96), ("WORLDMATRIXNUMBER", "WORLDMATRIXDATA", 12),
                  ("VIEWMATRIXNUMBER", "VIEWMATRIXDATA", 12), ("PROJMATRIXNUMBER", "PROJMATRIXDATA", 16),
                  ("TGENMATRIXNUMBER", "TGENMATRIXDATA", 12))


@dataclass
class DisplayList:
    index: int
    state: int = NONE
    signal: int = SIG_NONE
    busy: bool = False  # ran at least once and not yet collected by sceGeDrawSync(0)
    ctx: int = 0  # context saved when it starts and restored when it completes
    exec_state: int = 0
    pc: int = 0  # where the list (re)starts
    stall: int = 0
    radr1: int = 0
    radr2: int = 0
    oadr: int = 0
    oadr1: int = 0
    oadr2: int = 0
    base: int = 0
    cb_id: int = -1
    signal_data: int = 0
    num_stacks: int = 0
    stack_off: int = 0
    stack: int = 0  # guest address of its SIGNAL call stack, or INTERNAL_STACK
    internal: list = field(default_factory=list)  # entries when the stack is the driver's own

    @property
    def id(self) -> int:
        return (SLOT_TABLE + SLOT_BYTES * self.index) ^ ID_MASK


INTERNAL_STACK = -1


class GeQueue(KernelObject):
    """The sceGe driver of one kernel: the queue, callbacks, event flags, and the GE.
    Threads in sceGeListSync/sceGeDrawSync wait on it (a kernel object without a uid)."""

    def __init__(self, kernel):
        self.k = kernel
        self.hw = hardware.GeHardware(kernel.memory, self.now, kernel.timers, self._on_interrupt,
                                      kernel.warn_once)
        self.lists = [DisplayList(i) for i in range(SLOTS)]
        self.active: list[DisplayList] = []
        self.free: deque[DisplayList] = deque(self.lists)
        self.running: DisplayList | None = None  # the list the GE executes (curRunning)
        self.is_break = False
        self.sdk = 0
        self.callbacks_used = 0  # bit i: callback id i taken
        self.draw_done = True  # the drawing event flag
        self.list_done = (1 << SLOTS) - 1  # one event-flag bit per slot
        self.waiters: list = []  # (thread, Wait, ready(), after())
        self.in_interrupt = False
        self.pending: list = []  # GE interrupts raised while a handler runs
        self.started = False
        self.call_entry = None  # (cycle count, cost) of the HLE call under way that may start the GE
        self.hw.origin = self._call_began

    def start(self) -> None:
        """The driver's start-up, on the program's first sceGe call (so that a program
        without graphics never loads the compiled GE): its stub list, then the start-up
        list setting every context command and matrix value to 0."""
        self.started = True
        if self.k.options.ge_dump is not None:
            ListDump(self.k, self.hw, self.k.options.ge_dump)
        memory = self.k.memory
        memory.write_u32(SCRATCH, commands.OPS["FINISH"] << 24)
        memory.write_u32(SCRATCH + 4, commands.OPS["END"] << 24)
        words = [op << 24 for op in SAVED_COMMANDS]
        for number, data, count in MATRIX_UPLOADS:
            words += [OPS[number] << 24] + [OPS[data] << 24] * count
        words += [OPS["PRIM"] << 24, OPS["END"] << 24]
        for i, word in enumerate(words):
            self.k.memory.write_u32(INIT_LIST + 4 * i, word)
        self.hw.run_now(INIT_LIST)

    # --- time ---
    def now(self) -> float:
        return self.k.clock.now_exact()

    def _call_began(self) -> float | None:
        """When the HLE call under way (call_entry) began, its cost counted back from the
        cycle count it was charged up to; None outside such a call."""
        if self.call_entry is None:
            return None
        cycles, cost = self.call_entry
        clock = self.k.clock
        return clock.exact_at(cycles) - cost / clock.cpu_mhz

    # --- ids ---
    def by_id(self, list_id: int, strict: bool = True) -> DisplayList | None:
        offset = ((list_id ^ ID_MASK) - SLOT_TABLE) & 0xFFFFFFFF
        if offset >= SLOTS * SLOT_BYTES or (strict and offset % SLOT_BYTES):
            return None
        return self.lists[offset // SLOT_BYTES]

    # --- the hardware registers a list runs with ---
    def _load_registers(self, dl: DisplayList) -> None:
        regs = self.hw.regs
        regs[R_STALLADDR] = dl.stall & ADDR_MASK
        regs[R_LISTADDR] = dl.pc & ADDR_MASK
        regs[R_OADR], regs[R_OADR1], regs[R_OADR2] = dl.oadr, dl.oadr1, dl.oadr2
        self.hw.state.cmds[OPS["BASE"]] = dl.base or (OPS["BASE"] << 24)
        regs[R_RADR1], regs[R_RADR2] = dl.radr1, dl.radr2
        regs[R_EXEC] = dl.exec_state

    def _save_registers(self, dl: DisplayList) -> None:
        regs = self.hw.regs
        dl.exec_state = int(regs[R_EXEC]) & ~1
        dl.pc = self.hw.list_address()
        dl.radr1, dl.radr2 = int(regs[R_RADR1]), int(regs[R_RADR2])
        dl.oadr, dl.oadr1, dl.oadr2 = int(regs[R_OADR]), int(regs[R_OADR1]), int(regs[R_OADR2])
        dl.base = int(self.hw.state.cmds[OPS["BASE"]])
        if not dl.exec_state & EXEC_DEPTH2:
            dl.radr2 = dl.oadr2 = 0
            if not dl.exec_state & EXEC_DEPTH1:
                dl.radr1 = dl.oadr1 = 0

    def _run(self, dl: DisplayList) -> None:
        """Start dl on the GE (from its saved registers)."""
        self.hw.stop()
        self._load_registers(dl)
        self.running = dl
        self.hw.clock_on = True
        self.hw.start()

    # --- enqueue / dequeue ---
    def enqueue(self, list_addr: int, stall: int, cb_id: int, args: int, head: bool) -> int:
        k = self.k
        if _kernel_pointer(list_addr) or _kernel_pointer(stall) or _kernel_buffer(args, 16):
            return codes.signed(codes.PRIV_REQUIRED)
        self.sdk = k.sdk_version
        old_sdk = self.sdk <= 0x01FFFFFF
        stack, num_stacks, ctx = (INTERNAL_STACK, OLD_SDK_STACKS, 0) if old_sdk else (0, 0, 0)
        if args:
            size = k.memory.read_u32(args)
            ctx = k.memory.read_u32(args + 4)
            if _kernel_buffer(ctx, 2048):
                return codes.signed(codes.PRIV_REQUIRED)
            if size >= 16:
                num_stacks = k.memory.read_u32(args + 8)
                if num_stacks >= 256:
                    return codes.signed(codes.INVALID_SIZE)
                stack = k.memory.read_u32(args + 12)
                if _kernel_buffer(stack, num_stacks * 32):
                    return codes.signed(codes.PRIV_REQUIRED)
        if (list_addr | stall | ctx | (stack if stack != INTERNAL_STACK else 0)) & 3:
            return codes.signed(codes.INVALID_POINTER)
        for other in self.active:
            if other.pc & 0x1FFFFFFF == list_addr & 0x1FFFFFFF:
                k.warn_once(("ge-dup", list_addr), "sceGeListEnQueue: list 0x{:08x} is already queued", list_addr)
                if old_sdk:
                    break
                return codes.signed(codes.BUSY)
            if other.busy and stack not in (0, INTERNAL_STACK) and other.stack == stack and not old_sdk:
                return codes.signed(codes.BUSY)
        if not self.free:
            return codes.signed(codes.OUT_OF_MEMORY)
        dl = self.free.popleft()
        dl.busy, dl.signal, dl.cb_id = False, SIG_NONE, max(cb_id, -1)
        dl.num_stacks, dl.stack, dl.internal, dl.ctx = num_stacks, stack, [], ctx
        dl.exec_state, dl.pc, dl.stall = 0, list_addr, stall
        dl.radr1 = dl.radr2 = dl.oadr = dl.oadr1 = dl.oadr2 = dl.base = dl.stack_off = 0
        if head:
            if self.active and self.active[0].state != PAUSED:
                return codes.signed(codes.INVALID_VALUE)  # the slot stays taken, as the driver leaves it
            dl.state = PAUSED
            if self.active:
                self.active[0].state = QUEUED
            self.active.insert(0, dl)
        elif not self.active:
            dl.state, dl.busy = RUNNING, True
            self.active.append(dl)
            if ctx:
                self.save_context(ctx, force=True)
            self._run(dl)
            self.draw_done = False
        else:
            dl.state = QUEUED
            self.active.append(dl)
        self.list_done &= ~(1 << dl.index)
        return dl.id

    def dequeue(self, list_id: int) -> int:
        dl = self.by_id(list_id, strict=False)
        if dl is None or dl.state == NONE:
            return codes.signed(codes.INVALID_ID)
        if dl.busy:
            return codes.signed(codes.BUSY)
        self._retire(dl, NONE)
        self._set_list_done(dl)
        return 0

    def _retire(self, dl: DisplayList, state: int) -> None:
        if dl in self.active:
            self.active.remove(dl)
        if dl in self.free:
            self.free.remove(dl)
        self.free.append(dl)
        dl.state = state

    def update_stall(self, list_id: int, stall: int) -> int:
        dl = self.by_id(list_id, False)
        if dl is None:
            return codes.signed(codes.INVALID_ID)
        if dl.state == RUNNING:
            dl.stall = stall
            self.hw.set_stall(stall & 0x1FFFFFFF)
            return 0
        if dl.state in (PAUSED, QUEUED):
            dl.stall = stall
            return 0
        if dl.state == COMPLETED:
            return codes.signed(codes.ALREADY)
        return codes.signed(codes.INVALID_ID)

    # --- state queries and waits ---
    def list_sync(self, list_id: int, mode: int):
        """sceGeListSync: mode 1 reports the state; mode 0 waits (returns None if blocked)."""
        dl = self.by_id(list_id, strict=False)
        if dl is None:
            return codes.signed(codes.INVALID_ID)
        if mode == 0:
            bit = 1 << dl.index
            return self._wait("GE list sync", lambda: self.list_done & bit, LIST_COMPLETED)
        if mode != 1:
            return codes.signed(codes.INVALID_MODE)
        if dl.state == QUEUED:
            return LIST_PAUSED if dl.busy else LIST_QUEUED
        if dl.state == RUNNING:
            return LIST_STALLING if (dl.stall & ADDR_MASK) == self.hw.list_address() else LIST_DRAWING
        if dl.state == COMPLETED:
            return LIST_COMPLETED
        if dl.state == PAUSED:
            return LIST_PAUSED
        return codes.signed(codes.INVALID_ID)

    def draw_sync(self, mode: int):
        if mode == 0:
            return self._wait("GE draw sync", lambda: self.draw_done, LIST_COMPLETED, self._collect_completed)
        if mode != 1:
            return codes.signed(codes.INVALID_MODE)
        if not self.active:
            return LIST_COMPLETED
        dl = self.active[0]
        if dl.state == COMPLETED:
            dl = self.active[1] if len(self.active) > 1 else None
        if dl is None:
            return LIST_COMPLETED
        return LIST_STALLING if (dl.stall & ADDR_MASK) == self.hw.list_address() else LIST_DRAWING

    def _collect_completed(self) -> None:
        """After a draw sync, completed lists are forgotten (their slots' state goes to NONE)."""
        for dl in self.lists:
            if dl.state == COMPLETED:
                dl.state, dl.busy = NONE, False

    def _wait(self, kind: str, ready, result, after=None):
        k = self.k
        if threads.cannot_wait(k):
            return codes.signed(codes.WAIT_CAN_NOT_WAIT)
        if k.interrupts:
            return codes.signed(codes.ILLEGAL_CONTEXT)
        if ready():
            if after:
                after()
            return result
        wait = threads.Wait(kind, obj=self)
        k.cpu.regs[2] = result
        k.threads.block(wait)
        self.waiters.append((k.threads.current, wait, ready, after))
        return None

    def forget_waiter(self, thread) -> None:
        self.waiters = [w for w in self.waiters if w[0] is not thread]  # a new list: _wake_waiters may be iterating

    def _wake_waiters(self) -> None:
        still = []
        for thread, wait, ready, after in self.waiters:
            if thread.wait is not wait and not any(f.wait is wait for f in thread.cb_frames):
                continue  # the wait ended another way
            if ready():
                if after:
                    after()
                self.k.threads.wake(thread, 0, wait)
            else:
                still.append((thread, wait, ready, after))
        self.waiters = still

    def _set_list_done(self, dl: DisplayList) -> None:
        self.list_done |= 1 << dl.index
        self._wake_waiters()

    def _set_draw_done(self) -> None:
        self.draw_done = True
        self._wake_waiters()

    # --- break / continue ---
    def break_(self, mode: int, param: int) -> int:
        if mode & 0xFFFFFFFF >= 2:
            return codes.signed(codes.INVALID_MODE)
        if _kernel_buffer(param, 16):
            return codes.signed(codes.PRIV_REQUIRED)
        if not self.active:
            return codes.signed(codes.ALREADY)
        dl = self.active[0]
        if mode == 1:
            self.hw.stop()
            self.hw.clock_on = False
            for each in self.lists:
                each.signal, each.state, each.busy = SIG_NONE, NONE, False
            self.free = deque(self.lists)
            self.active = []
            self.running = None
            return 0
        if dl.state == RUNNING:
            self.hw.stop()
            if self.running is not None:
                self._save_registers(dl)
                dl.stall = int(self.hw.regs[R_STALLADDR])
                previous = self.k.memory.read_u32((dl.pc - 4) & 0xFFFFFFFF) >> 24 if dl.pc else 0
                if previous in (OPS["SIGNAL"], OPS["FINISH"]):
                    dl.pc -= 4
                elif previous == OPS["END"]:
                    dl.pc -= 8
                if dl.signal == SIG_SYNC:
                    dl.pc += 8
            dl.state, dl.signal = PAUSED, SIG_BREAK
            self.hw.regs[R_STALLADDR] = 0
            self.hw.regs[R_LISTADDR] = SCRATCH  # the driver's FINISH/END: a finish interrupt follows
            self.hw.start()
            self.is_break = True
            self.running = None
            return dl.id
        if dl.state == PAUSED:
            if self.sdk > SDK_CALLBACK_GETS_LIST and dl.signal != SIG_PAUSE:
                return codes.signed(codes.ALREADY)
            return codes.signed(codes.BUSY)
        if dl.state == QUEUED:
            dl.state = PAUSED
            return dl.id
        return codes.signed(codes.NOT_SUPPORTED) if self.sdk >= SDK_2 else -1

    def continue_(self) -> int:
        if not self.active:
            return 0
        dl = self.active[0]
        if dl.state == PAUSED:
            if self.is_break:
                dl.state = QUEUED  # the break's finish interrupt starts it
                return 0
            if dl.signal == SIG_PAUSE:
                return codes.signed(codes.BUSY)
            dl.state, dl.signal = RUNNING, SIG_NONE
            if dl.ctx and not dl.busy:
                self.save_context(dl.ctx, force=True)
            dl.busy = True
            self._run(dl)
            self.draw_done = False
            return 0
        if dl.state == RUNNING:
            return codes.signed(codes.ALREADY) if self.sdk >= SDK_2 else -1
        return codes.signed(codes.NOT_SUPPORTED) if self.sdk >= SDK_2 else -1

    # --- callbacks ---
    def set_callback(self, data: int) -> int:
        memory = self.k.memory
        if _kernel_pointer(data):
            return codes.signed(codes.PRIV_REQUIRED)
        signal_func, signal_arg, finish_func, finish_arg = (memory.read_u32(data + 4 * i) for i in range(4))
        if _kernel_pointer(signal_func) or _kernel_pointer(finish_func):
            return codes.signed(codes.PRIV_REQUIRED)
        free = [i for i in range(CALLBACK_IDS) if not self.callbacks_used >> i & 1]
        if not free:
            return codes.signed(codes.OUT_OF_MEMORY)
        cb = free[0]
        self.callbacks_used |= 1 << cb
        handlers = self._sub_handlers()
        for sub, func, arg in ((2 * cb, signal_func, signal_arg), (2 * cb + 1, finish_func, finish_arg)):
            if func:
                handlers[sub] = [func, arg, True]
            else:
                handlers.setdefault(sub, [0, 0, False])[2] = True
        return cb

    def unset_callback(self, cb: int) -> int:
        if not 0 <= cb < CALLBACK_IDS:
            return codes.signed(codes.INVALID_ID)
        handlers = self._sub_handlers()
        for sub in (2 * cb, 2 * cb + 1):
            handlers.pop(sub, None)
        self.callbacks_used &= ~(1 << cb)
        return 0

    def _sub_handlers(self) -> dict:
        return intr.table(self.k, GE_INTERRUPT).handlers

    # --- interrupts ---
    def _on_interrupt(self, flags: int) -> None:
        if self.in_interrupt:
            self.pending.append(flags)
            return
        self.in_interrupt = True
        self._step(self._interrupt(flags), None)

    def _step(self, gen, _result) -> None:
        while True:
            try:
                sub, arg0, arg1 = next(gen)
            except StopIteration:
                self.in_interrupt = False
                self._interrupt_done()
                return
            entry = self._sub_handlers().get(sub)
            if entry and entry[0] and entry[2]:
                func, handler_arg = entry[0], entry[1]
                self.k.run_interrupt(func, (arg0 & 0xFFFF, handler_arg, arg1), lambda r, g=gen: self._step(g, r))
                return

    def _interrupt_done(self) -> None:
        """The driver's interrupt code takes CPU time after the GE was restarted: a GE
        interrupt due meanwhile is taken before the interrupted code resumes."""
        self.k.charge(costs.GE_INTERRUPT)
        if self.pending:
            self._on_interrupt(self.pending.pop(0))
        else:
            self.k.fire_timers()

    def _interrupt(self, flags: int):
        if flags & INT_FINISH:
            yield from self._finish_interrupt()
        elif flags & INT_SIGNAL and flags & INT_END:
            yield from self._list_interrupt()

    def _handler_list(self, addr: int) -> int:
        """What a handler receives as the list address: nothing for old programs."""
        return 0 if self.sdk <= SDK_CALLBACK_GETS_LIST else addr

    def _list_interrupt(self):
        """SIGNAL + END: the signal's behaviour."""
        if not self.active:
            return
        dl = self.active[0]
        hw, memory, regs = self.hw, self.k.memory, self.hw.regs
        after = int(regs[R_LISTADDR])
        signal_cmd = memory.read_u32(after - 8)
        end_cmd = memory.read_u32(after - 4)
        behaviour = (signal_cmd >> 16) & 0xFF
        data = signal_cmd & 0xFFFF
        if behaviour == HANDLER_SUSPEND:
            previous_state = dl.state
            if self.sdk <= SDK_CALLBACK_GETS_LIST:
                dl.state = PAUSED
            if dl.cb_id >= 0:
                yield (2 * dl.cb_id, data, self._handler_list(after))
            if self.sdk <= SDK_CALLBACK_GETS_LIST and dl.state == PAUSED:
                dl.state = previous_state
            hw.start()
        elif behaviour == HANDLER_CONTINUE:
            hw.start()
            if dl.cb_id >= 0:
                yield (2 * dl.cb_id, data, self._handler_list(after))
        elif behaviour == HANDLER_PAUSE:
            dl.state, dl.signal, dl.signal_data = PAUSED, SIG_PAUSE, data
            hw.start()
        elif behaviour == SIGNAL_SYNC:
            dl.signal = SIG_SYNC
            hw.start()
        elif behaviour in (SIGNAL_CALL, SIGNAL_RCALL, SIGNAL_OCALL):
            if dl.stack_off >= dl.num_stacks:
                self._signal_error(signal_cmd, "stack overflow", after - 8)
                return
            entry = [int(regs[R_EXEC]), after, int(regs[R_OADR]), int(regs[R_OADR1]), int(regs[R_OADR2]),
                     int(regs[R_RADR1]), int(regs[R_RADR2]), int(hw.state.cmds[OPS["BASE"]])]
            self._push(dl, entry)
            target = self._signal_target(behaviour - SIGNAL_CALL + SIGNAL_JUMP, signal_cmd, end_cmd, after)
            regs[R_LISTADDR] = target & ADDR_MASK
            regs[R_EXEC] = 0
            hw.start()
        elif behaviour in (SIGNAL_JUMP, SIGNAL_RJUMP, SIGNAL_OJUMP):
            regs[R_LISTADDR] = self._signal_target(behaviour, signal_cmd, end_cmd, after) & ADDR_MASK
            hw.start()
        elif behaviour == SIGNAL_RET:
            if dl.stack_off == 0:
                self._signal_error(signal_cmd, "stack underflow", after - 8)
                return
            entry = self._pop(dl)
            regs[R_LISTADDR] = entry[1] & ADDR_MASK
            regs[R_OADR], regs[R_OADR1], regs[R_OADR2] = entry[2], entry[3], entry[4]
            regs[R_RADR1], regs[R_RADR2] = entry[5], entry[6]
            hw.state.cmds[OPS["BASE"]] = entry[7]
            regs[R_EXEC] = entry[0]
            hw.start()
        elif 0x20 <= behaviour <= 0x2F or behaviour in (SIGNAL_RCBP, SIGNAL_OCBP):
            self._rewrite_address(behaviour, signal_cmd, end_cmd, after)
            hw.start()
        elif behaviour in (SIGNAL_BREAK1, SIGNAL_BREAK2):
            hw.start()  # no debugger attached: breakpoints are passed over
        else:
            self.k.warn_once(("ge-signal", behaviour), f"GE list at 0x{after - 8:08x}: unknown SIGNAL behaviour "
                             f"0x{behaviour:02x}; the GE stays stopped")

    def _signal_target(self, behaviour: int, signal_cmd: int, end_cmd: int, after: int) -> int:
        offset = ((signal_cmd << 16) | (end_cmd & 0xFFFF)) & 0xFFFFFFFF
        if behaviour == SIGNAL_JUMP:
            target = offset
        elif behaviour == SIGNAL_RJUMP:
            target = after - 8 + offset
        else:
            target = int(self.hw.regs[R_OADR]) + offset
        if target & 3:
            self._signal_error(signal_cmd, "address error", after - 8)
        return target & ~3

    def _rewrite_address(self, behaviour: int, signal_cmd: int, end_cmd: int, after: int) -> None:
        """RTBPn/OTBPn/RCBP/OCBP: write a TEXADDR/TEXBUFWIDTH (or CLUTADDR/UPPER) pair over
        the SIGNAL/END with an address relative to the list or to ORIGIN, and run it."""
        memory = self.k.memory
        offset = ((signal_cmd << 16) | (end_cmd & 0xFFFF)) & 0xFFFFFFFF
        here = after - 8
        target = (here + offset if not (signal_cmd >> 19) & 1 else int(self.hw.regs[R_OADR]) + offset) & 0xFFFFFFFF
        if target & 0xF:
            self._signal_error(signal_cmd, "address error", here)
        high = ((target >> 24) & 0xF) << 16
        if behaviour in (SIGNAL_RCBP, SIGNAL_OCBP):
            words = ((OPS["CLUTADDR"] << 24) | (target & 0xFFFFFF), (OPS["CLUTADDRUPPER"] << 24) | high)
        else:
            level = behaviour & 7
            words = ((OPS["TEXADDR0"] + level) << 24 | (target & 0xFFFFFF),
                     (OPS["TEXBUFWIDTH0"] + level) << 24 | high | ((end_cmd >> 16) & 0xFF))
        memory.write_u32(here, words[0])
        memory.write_u32(here + 4, words[1])
        self.hw.regs[R_LISTADDR] = here & ADDR_MASK

    def _signal_error(self, signal_cmd: int, what: str, at: int) -> None:
        name = commands.SIGNAL_BEHAVIOURS.get((signal_cmd >> 16) & 0xFF, "?").upper()
        self.k.warn_once(("ge-signal-error", at), f"SCE_GE_SIGNAL_{name} {what} (list address 0x{at:08x})")

    def _push(self, dl: DisplayList, entry: list) -> None:
        if dl.stack == INTERNAL_STACK or not dl.stack:
            del dl.internal[dl.stack_off:]
            dl.internal.append(entry)
        else:
            for i, word in enumerate(entry):
                self.k.memory.write_u32(dl.stack + 32 * dl.stack_off + 4 * i, word)
        dl.stack_off += 1

    def _pop(self, dl: DisplayList) -> list:
        dl.stack_off -= 1
        return self._stack_entry(dl, dl.stack_off)

    def _stack_entry(self, dl: DisplayList, i: int) -> list:
        if dl.stack == INTERNAL_STACK or not dl.stack:
            return dl.internal[i]
        return [self.k.memory.read_u32(dl.stack + 32 * i + 4 * j) for j in range(STACK_ENTRY_WORDS)]

    def _finish_interrupt(self):
        """FINISH + END: the list completes (or pauses, or syncs) and the next one starts."""
        self.is_break = False
        cur, self.running = self.running, None
        hw, regs = self.hw, self.hw.regs
        after = int(regs[R_LISTADDR])
        if cur is not None:
            if cur.signal == SIG_SYNC:
                cur.signal = SIG_NONE
                self.running = cur
                hw.start()
                return
            if cur.signal == SIG_PAUSE:
                self._save_registers(cur)
                if self.active and self.active[0] is cur:
                    cur.signal = SIG_BREAK
                    if cur.cb_id >= 0:
                        yield (2 * cur.cb_id, cur.signal_data, self._handler_list(cur.pc))
                    return
                cur = None
        if cur is not None and cur.state == RUNNING:
            finish_cmd = self.k.memory.read_u32(after - 8)
            cur.state = COMPLETED
            if cur.stack_off:
                self.k.warn_once(("ge-nesting", cur.pc), "GE list finished inside a SIGNAL call (CALL/RET nesting)")
            if cur.cb_id >= 0:
                yield (2 * cur.cb_id + 1, finish_cmd & 0xFFFF, self._handler_list(after))
            if cur.ctx:
                self.restore_context(cur.ctx, force=True)
            self._retire(cur, COMPLETED)
        nxt = self.active[0] if self.active else None
        if nxt is None:
            hw.stop()
            hw.clock_on = False
            self._set_draw_done()
        elif nxt.signal == SIG_PAUSE:
            nxt.state, nxt.signal = PAUSED, SIG_BREAK
            if nxt.cb_id >= 0:
                yield (2 * nxt.cb_id, nxt.signal_data, self._handler_list(nxt.pc))
            return
        elif nxt.state == PAUSED:
            hw.clock_on = False
        else:
            nxt.state = RUNNING
            if nxt.ctx and not nxt.busy:
                self.save_context(nxt.ctx, force=True)
            nxt.busy = True
            self._run(nxt)
        if cur is not None:
            self._set_list_done(cur)

    # --- context ---
    def save_context(self, addr: int, force: bool = False) -> int:
        """sceGeSaveContext: the registers, then a list that sets every context command and
        matrix back (run by sceGeRestoreContext). Refused while the GE runs."""
        if addr & 3:
            return codes.signed(codes.INVALID_POINTER)
        if _kernel_buffer(addr, CONTEXT_WORDS * 4):
            return codes.signed(codes.PRIV_REQUIRED)
        if self.hw.running() and not force:
            return -1
        st = self.hw.state
        regs, cmds = st.regs, st.cmds
        translation = self.k.memory.edram_translation
        edram = (0 if translation else 1, translation >> 1, 0, 0, 0, 0, 0)
        words = [int(regs[R_EXEC]) & ~1 if force else int(regs[R_EXEC]), self.hw.list_address(),
                 int(regs[R_STALLADDR]), int(regs[R_RADR1]), int(regs[R_RADR2]), int(regs[R_VADR]),
                 int(regs[R_IADR]), int(regs[R_OADR]), int(regs[R_OADR1]), int(regs[R_OADR2]), *edram]
        words += [int(cmds[op]) for op in SAVED_COMMANDS]
        clut = (int(cmds[OPS["CLUTADDR"]]) & 0xFFFFFF) | ((int(cmds[OPS["CLUTADDRUPPER"]]) << 8) & 0xFF000000)
        if _ge_valid(clut):
            words.append(int(cmds[OPS["LOADCLUT"]]))
        for (number, data, count), first in zip(MATRIX_UPLOADS, (0, 8, 9, 10, 11)):
            start = MATRIX_BY_ID[first][0]
            words.append(OPS[number] << 24)
            words += [(OPS[data] << 24) | w for w in st.matrix_words(start, count)]
        words += [int(cmds[OPS[number]]) for number, _data, _count in MATRIX_UPLOADS]
        words.append(OPS["END"] << 24)
        memory = self.k.memory
        for i, word in enumerate(words):
            memory.write_u32(addr + 4 * i, word)
        return 0

    def restore_context(self, addr: int, force: bool = False) -> int:
        if addr & 3:
            return codes.signed(codes.INVALID_POINTER)
        if _kernel_buffer(addr, CONTEXT_WORDS * 4):
            return codes.signed(codes.PRIV_REQUIRED)
        if self.hw.running() and not force:
            return codes.signed(codes.BUSY)
        memory = self.k.memory
        header = [memory.read_u32(addr + 4 * i) for i in range(CONTEXT_HEADER)]
        event = self.hw.run_now(addr + 4 * CONTEXT_HEADER)
        regs = self.hw.regs
        if not force:
            regs[R_LISTADDR], regs[R_STALLADDR] = header[1] & ADDR_MASK, header[2] & ADDR_MASK
        regs[R_VADR], regs[R_IADR] = header[5], header[6]
        regs[R_OADR], regs[R_OADR1], regs[R_OADR2] = header[7], header[8], header[9]
        regs[R_RADR1], regs[R_RADR2] = header[3], header[4]
        return 0 if event == processor.EV_END else -1

    # --- registers and tables the program may read ---
    def get_cmd(self, op: int) -> int:
        if not 0 <= op < 0xFF:
            return codes.signed(codes.INVALID_INDEX)
        return int(self.hw.state.cmds[op])

    def get_matrix(self, which: int, addr: int) -> int:
        if not 0 <= which < len(MATRIX_BY_ID):
            return codes.signed(codes.INVALID_INDEX)
        if _kernel_pointer(addr):
            return codes.signed(codes.PRIV_REQUIRED)
        start, size = MATRIX_BY_ID[which]
        for i, word in enumerate(self.hw.state.matrix_words(start, size)):
            self.k.memory.write_u32(addr + 4 * i, word)
        return 0

    def get_stack(self, index: int, addr: int) -> int:
        if not self.active:
            return 0
        dl = self.active[0]
        if index < 0:
            return dl.stack_off
        if index >= dl.stack_off:
            return codes.signed(codes.INVALID_INDEX)
        if _kernel_pointer(addr):
            return codes.signed(codes.PRIV_REQUIRED)
        if addr:
            for i, word in enumerate(self._stack_entry(dl, index)):
                self.k.memory.write_u32(addr + 4 * i, word)
        return dl.stack_off

    def set_edram_translation(self, width: int) -> int:
        """How the CPU sees VRAM mirrors 1 and 3 (allegrex.memory); the previous width."""
        if width not in EDRAM_TRANSLATIONS:
            return codes.signed(codes.INVALID_VALUE)
        previous = self.k.memory.edram_translation
        self.k.memory.set_edram_translation(width)
        return previous


def _kernel_pointer(addr: int) -> bool:
    """A user-mode call may not pass kernel addresses (bit 31)."""
    return bool(addr & 0x80000000)


def _kernel_buffer(addr: int, size: int) -> bool:
    return bool(addr) and bool((addr | (addr + size) | size) & 0x80000000)


def _ge_valid(addr: int) -> bool:
    """An address the GE can reach: scratchpad, VRAM or main RAM."""
    if addr & 0x80000000:
        return False
    phys = addr & 0x1FFFFFFF
    return 0x00010000 <= phys < 0x00014000 or 0x04000000 <= phys < 0x04800000 or 0x08000000 <= phys < 0x0C000000
