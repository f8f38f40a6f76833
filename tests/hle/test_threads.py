"""PSP scheduling rules and thread waits, driven through the HLE calls."""

from allegrex.hle import codes
from allegrex.hle.threads import READY, WAITING, Thread
from helpers import ENTRY, call, make_kernel

TM = "ThreadManForUser"
NAME = 0x08A00000


def new_thread(k, name, priority):
    k.memory.write(NAME, name.encode() + b"\0")
    uid = call(k, TM, "sceKernelCreateThread", NAME, ENTRY + 0x40, priority, 0x1000, 0, 0)
    assert uid > 0
    return uid


def test_starting_a_higher_priority_thread_preempts_the_caller():
    k = make_kernel()  # main runs at 0x20
    t = new_thread(k, "urgent", 0x10)
    assert call(k, TM, "sceKernelStartThread", t, 0, 0) == 0
    assert k.threads.current.name == "urgent"
    main = k.threads.threads[0]
    assert main.status == READY and k.threads.ready[0] is main


def test_equal_priority_does_not_preempt_and_runs_fifo():
    k = make_kernel()
    a, b = new_thread(k, "a", 0x20), new_thread(k, "b", 0x20)
    call(k, TM, "sceKernelStartThread", a, 0, 0)
    call(k, TM, "sceKernelStartThread", b, 0, 0)
    assert k.threads.current.name == "main"
    call(k, TM, "sceKernelSleepThread")  # a waiting thread yields
    assert k.threads.current.name == "a"
    call(k, TM, "sceKernelSleepThread")
    assert k.threads.current.name == "b"


def test_lower_number_wins_among_ready_threads():
    k = make_kernel()
    low, high = new_thread(k, "low", 0x30), new_thread(k, "high", 0x28)
    call(k, TM, "sceKernelStartThread", low, 0, 0)
    call(k, TM, "sceKernelStartThread", high, 0, 0)
    call(k, TM, "sceKernelSleepThread")
    assert k.threads.current.name == "high"


def test_wakeup_before_sleep_is_counted():
    k = make_kernel()
    me = call(k, TM, "sceKernelGetThreadId")
    assert call(k, TM, "sceKernelWakeupThread", me) == 0
    assert call(k, TM, "sceKernelSleepThread") == 0
    assert k.threads.current.name == "main"  # consumed the pending wakeup, did not wait


def test_delay_when_every_thread_waits_jumps_time_to_the_wake_up():
    k = make_kernel()
    t0 = k.now_us()
    call(k, TM, "sceKernelDelayThread", 5000)
    assert k.threads.current is None
    assert k.idle_until_next_event()
    assert k.threads.current.name == "main"
    assert k.now_us() - t0 >= 5000
    assert k.idle_cycles >= 5000 * 222 - 222 * 10


def test_wait_thread_end_returns_the_exit_status():
    k = make_kernel()
    t = new_thread(k, "worker", 0x30)
    call(k, TM, "sceKernelStartThread", t, 0, 0)
    call(k, TM, "sceKernelWaitThreadEnd", t, 0)
    assert k.threads.current.name == "worker"
    call(k, TM, "sceKernelExitThread", 42)
    assert k.threads.current.name == "main"
    assert int(k.cpu.regs[2]) == 42
    assert call(k, TM, "sceKernelGetThreadExitStatus", t) == 42


def test_deadlock_is_a_clear_stop():
    k = make_kernel()
    k.memory.write(NAME, b"never\0")
    s = call(k, TM, "sceKernelCreateSema", NAME, 0, 0, 1, 0)
    call(k, TM, "sceKernelWaitSema", s, 1, 0)
    stop = k.run()
    assert stop.kind == "deadlock" and stop.exit_code == 1
    assert "'main' waits: sema on 'never'" in stop.message


def test_a_program_that_only_sleeps_ends_cleanly():
    k = make_kernel()
    call(k, TM, "sceKernelSleepThread")
    stop = k.run()
    assert stop.kind == "sleeping" and stop.exit_code == 0


def test_sleeping_program_is_quit_through_its_exit_callback():
    k = make_kernel()
    k.memory.write(NAME, b"exit\0")
    cb = call(k, TM, "sceKernelCreateCallback", NAME, ENTRY + 0x200, 0)
    assert call(k, "LoadExecForUser", "sceKernelRegisterExitCallback", cb) == 0
    call(k, TM, "sceKernelSleepThreadCB")
    assert k.threads.current is None and k.threads.quit_via_exit_callback()
    assert k.threads.current.name == "main" and k.cpu.pc == ENTRY + 0x200  # runs the exit callback
    assert not k.threads.quit_via_exit_callback()  # only once


def test_semaphore_wait_times_out_with_the_psp_error():
    k = make_kernel()
    k.memory.write(NAME, b"s\0")
    s = call(k, TM, "sceKernelCreateSema", NAME, 0, 0, 1, 0)
    k.memory.write_u32(0x08A00100, 1000)
    call(k, TM, "sceKernelWaitSema", s, 1, 0x08A00100)
    assert k.threads.current is None
    k.idle_until_next_event()
    assert k.threads.current.name == "main"
    assert int(k.cpu.regs[2]) == codes.WAIT_TIMEOUT
    assert k.memory.read_u32(0x08A00100) == 0


def test_semaphore_signal_wakes_in_fifo_order_and_checks_overflow():
    k = make_kernel()
    k.memory.write(NAME, b"s\0")
    s = call(k, TM, "sceKernelCreateSema", NAME, 0, 0, 2, 0)
    a = new_thread(k, "a", 0x10)
    call(k, TM, "sceKernelStartThread", a, 0, 0)
    assert k.threads.current.name == "a"
    call(k, TM, "sceKernelWaitSema", s, 1, 0)
    assert k.threads.current.name == "main"
    assert call(k, TM, "sceKernelSignalSema", s, 4) == codes.signed(codes.SEMA_OVERFLOW)
    assert call(k, TM, "sceKernelSignalSema", s, 1) == 0
    assert k.threads.current.name == "a"  # woken, and higher priority


def test_lwmutex_state_is_mirrored_in_the_guest_work_area():
    k = make_kernel()
    work = 0x08A00200
    k.memory.write(NAME, b"lw\0")
    assert call(k, TM, "sceKernelCreateLwMutex", work, NAME, 0x200, 0, 0) == 0
    assert call(k, "Kernel_Library", "sceKernelLockLwMutex", work, 2, 0) == 0
    assert k.memory.read_u32(work) == 2
    assert k.memory.read_u32(work + 4) == k.threads.current.uid
    assert call(k, "Kernel_Library", "sceKernelUnlockLwMutex", work, 3) == codes.signed(codes.LWMUTEX_UNLOCK_UNDERFLOW)
    assert call(k, "Kernel_Library", "sceKernelUnlockLwMutex", work, 2) == 0
    assert k.memory.read_u32(work) == 0


def test_callback_runs_on_a_thread_sleeping_with_cb_and_it_sleeps_again():
    k = make_kernel()
    k.memory.write(NAME, b"cb\0")
    cb = call(k, TM, "sceKernelCreateCallback", NAME, ENTRY + 0x80, 7)
    other = new_thread(k, "other", 0x30)
    call(k, TM, "sceKernelStartThread", other, 0, 0)
    call(k, TM, "sceKernelSleepThreadCB")
    assert k.threads.current.name == "other"
    call(k, TM, "sceKernelNotifyCallback", cb, 99)
    assert k.threads.current.name == "main"  # runs its callback now
    assert k.cpu.pc == ENTRY + 0x80
    assert (int(k.cpu.regs[4]), int(k.cpu.regs[5]), int(k.cpu.regs[6])) == (1, 99, 7)
    k.cpu.regs[2] = 0  # the callback returns 0: keep it
    ra = int(k.cpu.regs[31])
    code = k.memory.read_u32(ra) >> 6
    k.on_syscall(code)
    main = k.threads.threads[0]
    assert main.status == WAITING and k.threads.current.name == "other"


def test_short_timeouts_last_as_long_as_on_the_psp():
    from allegrex.hle.threads import delay_lasts, shortest_timeout
    assert [shortest_timeout("sema", us) for us in (1, 3, 4, 249, 250)] == [24, 24, 245, 245, 250]
    assert [shortest_timeout("eventflag", us) for us in (1, 2, 209, 210)] == [25, 240, 240, 210]
    assert [shortest_timeout("vpl", us) for us in (5, 6, 7, 8, 215, 216)] == [20, 250, 25, 250, 250, 216]
    assert [delay_lasts(us) for us in (0, 199, 200, 210, 1000)] == [210, 210, 210, 210, 1000]


def test_terminating_a_thread_readies_its_waiters_without_preempting_the_caller():
    k = make_kernel()
    target, waiter = new_thread(k, "target", 0x30), new_thread(k, "waiter", 0x10)
    call(k, TM, "sceKernelStartThread", target, 0, 0)
    k.memory.write_u32(0x08A00300, target)
    call(k, TM, "sceKernelStartThread", waiter, 0, 0)
    assert k.threads.current.name == "waiter"
    call(k, TM, "sceKernelWaitThreadEnd", target, 0)
    assert k.threads.current.name == "main"
    assert call(k, TM, "sceKernelTerminateThread", target) == 0
    assert k.threads.current.name == "main"  # the woken waiter (priority 0x10) does not preempt
    call(k, TM, "sceKernelSleepThread")
    assert k.threads.current.name == "waiter" and int(k.cpu.regs[2]) == codes.THREAD_IS_TERMINATED


def test_changing_the_own_priority_yields_to_equals():
    k = make_kernel()
    other = new_thread(k, "other", 0x20)
    call(k, TM, "sceKernelStartThread", other, 0, 0)
    assert call(k, TM, "sceKernelChangeThreadPriority", 0, 0x20) == 0
    assert k.threads.current.name == "other"


def test_extend_thread_stack_runs_the_function_on_a_new_stack_and_comes_back():
    k = make_kernel()
    main = k.threads.current
    old_stack, ra, sp = main.stack_addr, int(k.cpu.regs[31]), int(k.cpu.regs[29])
    call(k, TM, "sceKernelExtendThreadStack", 0x4000, ENTRY + 0x100, 0x1234)
    assert k.cpu.pc == ENTRY + 0x100 and int(k.cpu.regs[4]) == 0x1234
    assert main.stack_size == 0x4000 and main.stack_addr != old_stack
    assert main.stack_addr < int(k.cpu.regs[29]) <= main.stack_addr + 0x4000
    k.cpu.regs[2] = 77  # the function returns 77
    k.on_syscall(k.memory.read_u32(int(k.cpu.regs[31])) >> 6)  # the return stub
    assert main.stack_addr == old_stack and int(k.cpu.regs[2]) == 77
    assert (int(k.cpu.regs[31]), int(k.cpu.regs[29])) == (ra, sp)
    assert call(k, TM, "sceKernelExtendThreadStack", 0x1FF, ENTRY, 0) == codes.signed(codes.ILLEGAL_STACK_SIZE)


def test_event_flag_mode_0x20_clears_the_bits_waited_for_and_0x10_clears_all():
    k = make_kernel()
    k.memory.write(NAME, b"ev\0")
    flag = call(k, TM, "sceKernelCreateEventFlag", NAME, 0, 0xFF, 0)
    out = 0x08A00300
    assert call(k, TM, "sceKernelPollEventFlag", flag, 0x03, 0x20, out) == 0
    assert k.memory.read_u32(out) == 0xFF  # the bits before clearing
    assert call(k, TM, "sceKernelPollEventFlag", flag, 0xFC, 1, out) == 0 and k.memory.read_u32(out) == 0xFC
    assert call(k, TM, "sceKernelPollEventFlag", flag, 0x04, 0x10, out) == 0
    assert call(k, TM, "sceKernelPollEventFlag", flag, 0xFF, 1, out) == codes.signed(codes.EVENT_FLAG_POLL_FAILED)
    assert k.memory.read_u32(out) == 0


def test_a_message_box_follows_the_links_in_guest_memory():
    k = make_kernel()
    k.memory.write(NAME, b"mbx\0")
    mbx = call(k, TM, "sceKernelCreateMbx", NAME, 0, 0)
    a, b, out = 0x08A00400, 0x08A00500, 0x08A00600
    assert call(k, TM, "sceKernelSendMbx", mbx, a) == 0
    assert k.memory.read_u32(a) == a  # one message: a ring of itself
    assert call(k, TM, "sceKernelSendMbx", mbx, b) == 0
    assert (k.memory.read_u32(a), k.memory.read_u32(b)) == (b, a)
    assert call(k, TM, "sceKernelSendMbx", mbx, a) == codes.signed(0x800201C9)  # already queued
    k.memory.write_u32(b, b)  # the program breaks the ring: the last now points at itself
    assert call(k, TM, "sceKernelPollMbx", mbx, out) == codes.signed(0x800201C9)
    k.memory.write_u32(b, a)
    assert call(k, TM, "sceKernelPollMbx", mbx, out) == 0 and k.memory.read_u32(out) == a


def sleeper_waiting_with_callbacks(priority):
    """A kernel whose thread 'sleeper' sleeps with callbacks (owning callback `cb`) while main runs."""
    k = make_kernel()
    sleeper = new_thread(k, "sleeper", priority)
    call(k, TM, "sceKernelStartThread", sleeper, 0, 0)
    call(k, TM, "sceKernelSleepThread")  # main waits: the sleeper runs
    k.memory.write(NAME, b"cb\0")
    cb = call(k, TM, "sceKernelCreateCallback", NAME, ENTRY + 0x80, 0)
    call(k, TM, "sceKernelSleepThreadCB")
    k.threads.wake(k.threads.threads[0], 0)  # main again
    k.threads.reschedule()
    assert k.threads.current.name == "main"
    return k, cb


def test_a_waiting_thread_takes_its_callback_count_when_it_gets_to_run():
    k, cb = sleeper_waiting_with_callbacks(0x20)
    call(k, TM, "sceKernelNotifyCallback", cb, 1)
    call(k, TM, "sceKernelNotifyCallback", cb, 2)
    call(k, TM, "sceKernelDelayThread", 1000)
    assert k.threads.current.name == "sleeper" and k.cpu.pc == ENTRY + 0x80
    assert (int(k.cpu.regs[4]), int(k.cpu.regs[5])) == (2, 2)  # both notifications, the last argument


def test_a_callback_cancelled_before_its_thread_runs_is_not_run():
    k, cb = sleeper_waiting_with_callbacks(0x30)
    call(k, TM, "sceKernelNotifyCallback", cb, 1)
    assert call(k, TM, "sceKernelCancelCallback", cb) == 0
    call(k, TM, "sceKernelDelayThread", 1000)
    assert k.threads.current is None  # the sleeper went back to sleep without running it


def test_with_interrupts_off_nothing_preempts_and_waits_fail_at_once():
    k = make_kernel()
    sleeper = new_thread(k, "sleeper", 0x10)
    call(k, TM, "sceKernelStartThread", sleeper, 0, 0)
    call(k, TM, "sceKernelSleepThread")
    assert k.threads.current.name == "main"
    state = call(k, "Kernel_Library", "sceKernelCpuSuspendIntr")
    assert call(k, TM, "sceKernelWakeupThread", sleeper) == 0
    assert k.threads.current.name == "main"  # the woken, more urgent thread waits for interrupts
    k.memory.write(NAME, b"s\0")
    s = call(k, TM, "sceKernelCreateSema", NAME, 0, 1, 1, 0)
    assert call(k, TM, "sceKernelWaitSema", s, 9, 0) == codes.signed(codes.WAIT_CAN_NOT_WAIT)  # before the count
    assert call(k, TM, "sceKernelSuspendDispatchThread") == codes.signed(0x80020066)
    call(k, "Kernel_Library", "sceKernelCpuResumeIntr", state)
    assert k.threads.current.name == "sleeper"


def test_creating_a_thread_resumes_dispatch():
    k = make_kernel()
    assert call(k, TM, "sceKernelSuspendDispatchThread") == 1
    new_thread(k, "any", 0x30)
    assert call(k, TM, "sceKernelSuspendDispatchThread") == 1  # it was on again


def test_a_callback_can_wait_with_callbacks_and_run_callbacks_inside():
    k = make_kernel()
    k.memory.write(NAME, b"cb\0")
    cb = call(k, TM, "sceKernelCreateCallback", NAME, ENTRY + 0x80, 0)
    call(k, TM, "sceKernelNotifyCallback", cb, 1)
    call(k, TM, "sceKernelCheckCallback")
    main = k.threads.current
    assert k.cpu.pc == ENTRY + 0x80 and len(main.cb_frames) == 1  # in the callback
    call(k, TM, "sceKernelNotifyCallback", cb, 2)  # the callback notifies itself...
    call(k, TM, "sceKernelDelayThreadCB", 1000)  # ...and waits with callbacks: it runs again, nested
    assert k.threads.current is main and len(main.cb_frames) == 2 and int(k.cpu.regs[5]) == 2
    k.cpu.regs[2] = 0
    k.on_syscall(k.memory.read_u32(int(k.cpu.regs[31])) >> 6)  # the inner run returns: back to the delay
    assert k.threads.current is None and main.wait.kind == "delay"
    k.idle_until_next_event()
    assert k.threads.current is main and len(main.cb_frames) == 1  # the delay ended inside the outer run


def test_power_callbacks_take_slots_and_are_told_the_power_state_at_once():
    k = make_kernel()
    k.memory.write(NAME, b"power\0")
    cb = call(k, TM, "sceKernelCreateCallback", NAME, ENTRY + 0x80, 0)
    assert call(k, "scePower", "scePowerRegisterCallback", -1, cb) == 0  # the first free slot
    assert call(k, "scePower", "scePowerRegisterCallback", -1, cb) == 1
    assert call(k, "scePower", "scePowerRegisterCallback", 1, cb) == codes.signed(0x80000020)  # taken
    assert call(k, "scePower", "scePowerRegisterCallback", 16, cb) == codes.signed(0x80000023)  # the system's
    assert call(k, "scePower", "scePowerRegisterCallback", 0, 0) == codes.signed(0x80000100)
    assert call(k, TM, "sceKernelGetCallbackCount", cb) == 2
    assert call(k, "scePower", "scePowerUnregisterCallback", 0) == 0
    assert call(k, "scePower", "scePowerUnregisterCallback", 0) == codes.signed(0x80000025)


def test_inside_an_interrupt_a_call_that_may_wait_is_refused_before_any_other_check():
    k = make_kernel()  # measured: pspautotests intr/waits, from a vblank sub-interrupt handler
    k.memory.write(NAME, b"s\0")
    sema = call(k, TM, "sceKernelCreateSema", NAME, 0, 1, 1, 0)
    k.run_interrupt(ENTRY + 0x100, (), lambda v0: None)
    illegal = codes.signed(codes.ILLEGAL_CONTEXT)
    assert call(k, TM, "sceKernelWaitSema", 0, 1, 0) == illegal  # even a bad id
    assert call(k, TM, "sceKernelWaitSema", sema, 1, 0) == illegal  # even one it would not wait for
    assert call(k, TM, "sceKernelWaitEventFlag", 0, 1, 0xFF, 0, 0) == illegal  # before the mode
    assert call(k, TM, "sceKernelWaitThreadEnd", 0, 0) == codes.signed(codes.ILLEGAL_THREAD)  # uid 0 first
    assert call(k, TM, "sceKernelSuspendDispatchThread") == codes.signed(0x80020066)  # interrupts are off
    assert call(k, TM, "sceKernelDeleteSema", sema) == 0  # no waiter was left behind


def test_a_new_stack_is_filled_through_the_data_cache():
    from allegrex.timing.layout import T_DC_TAG
    k = make_kernel()
    tags = lambda: set(int(t) for t in k.machine.timing.tm[T_DC_TAG:T_DC_TAG + 256])
    k.memory.write(NAME, b"t\0")
    before = tags()
    uid = call(k, TM, "sceKernelCreateThread", NAME, ENTRY + 0x40, 0x30, 0x10000, 0x00100000, 0)  # no fill
    assert tags() == before and k.get(uid, Thread).stack_addr
    uid = call(k, TM, "sceKernelCreateThread", NAME, ENTRY + 0x40, 0x30, 0x10000, 0, 0)
    t = k.get(uid, Thread)
    top, bottom = t.stack_addr + 0x10000, t.stack_addr
    assert k.memory.read(bottom + 4, 8) == b"\xff" * 8
    assert (top - 64) >> 6 in tags() and bottom >> 6 not in tags()  # the last 16 KiB written stay
