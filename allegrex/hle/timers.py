"""Alarms, virtual timers and the vblank interrupt (ThreadManForUser, InterruptManager):
guest handlers run in interrupt context (Kernel.run_interrupt) when their time comes."""

from allegrex.hle import codes, costs
from allegrex.hle.display import vblank_us
from allegrex.hle.objects import KernelObject
from allegrex.hle.registry import CStr, Ptr, U32, U64, hle, read64, write64

LIB = "ThreadManForUser"
SCRATCH = 0x08010000  # kernel partition words handed to vtimer handlers (schedule, actual time)


ALARM_MIN_US = 100  # an alarm never fires before the call that set it has returned (measured: zero delay)


class Alarm(KernelObject):
    threadman_type = 10

    def __init__(self, handler, common):
        self.uid = 0
        self.handler = handler
        self.common = common
        self.schedule = 0  # system time it is due at, as ReferAlarmStatus reports it
        self.deadline = 0
        self.timer = None


def _arm_alarm(k, alarm, delay_us, from_us=None) -> None:
    """Due `delay_us` after `from_us` (default now): re-armed alarms count from their
    previous schedule, so a periodic alarm does not drift."""
    if delay_us >= 1 << 63:
        delay_us -= 1 << 64  # a 64-bit delay is signed: "negative" ones mean now
    now = k.now_us()
    alarm.schedule = (now if from_us is None else from_us) + max(delay_us, 0)
    alarm.deadline = max(alarm.schedule, now + ALARM_MIN_US)
    alarm.timer = k.timers.add(alarm.deadline, lambda: _fire_alarm(k, alarm))


def _fire_alarm(k, alarm) -> None:
    alarm.timer = None

    def done(result):
        if result > 0 and alarm.uid in k.objects:  # a positive answer re-arms after that many us
            _arm_alarm(k, alarm, result, from_us=alarm.schedule)
        elif alarm.uid in k.objects:
            k.free_uid(alarm.uid)

    k.run_interrupt(alarm.handler, (alarm.common,), done)


def _set_alarm(k, delay_us, handler, common) -> int:
    if not handler:
        return codes.signed(codes.ILLEGAL_ADDR)
    alarm = Alarm(handler, common)
    alarm.uid = k.new_uid(alarm)
    _arm_alarm(k, alarm, delay_us)
    return alarm.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelSetAlarm(k, delay_us: U32, handler: Ptr, common: Ptr) -> int:
    return _set_alarm(k, delay_us, handler, common)


@hle(LIB, cost=costs.SYNC)
def sceKernelSetSysClockAlarm(k, clock: Ptr, handler: Ptr, common: Ptr) -> int:
    return _set_alarm(k, read64(k.memory, clock), handler, common)


@hle(LIB, cost=costs.SYNC)
def sceKernelCancelAlarm(k, uid: int) -> int:
    alarm = k.get(uid, Alarm)
    if alarm is None:
        return codes.signed(codes.NOT_FOUND_ALARM)
    k.timers.cancel(alarm.timer)
    k.free_uid(uid)
    return 0


@hle(LIB)
def sceKernelReferAlarmStatus(k, uid: int, info: Ptr) -> int:
    alarm = k.get(uid, Alarm)
    if alarm is None:
        return codes.signed(codes.NOT_FOUND_ALARM)
    size = k.memory.read_u32(info)
    data = (20).to_bytes(4, "little") + (alarm.schedule & U64_MASK).to_bytes(8, "little") + \
        alarm.handler.to_bytes(4, "little") + (alarm.common & 0xFFFFFFFF).to_bytes(4, "little")
    if size:
        k.memory.write(info, data[:min(size, 20)])  # the caller's size says how much to copy
    return 0


# --- virtual timers: a stopwatch that can call a handler at a set reading ---
class VTimer(KernelObject):
    threadman_type = 11

    def __init__(self, name):
        self.uid = 0
        self.name = name
        self.running = False
        self.base = 0  # reading when last stopped or set
        self.started = 0  # now_us() when it was started
        self.handler = 0
        self.common = 0
        self.schedule = 0  # reading at which the handler runs
        self.timer = None

    def reading(self, now) -> int:
        return self.base + (now - self.started if self.running else 0)


def _vtimer(k, uid):
    return k.get(uid, VTimer)


def _missing(uid, zero_is_illegal=False) -> int:
    return codes.signed(codes.ILLEGAL_VTIMER if uid == 0 and zero_is_illegal else codes.NOT_FOUND_VTIMER)


VTIMER_LATENCY_US = 250  # a handler never runs sooner than this after it is (re)armed, and never
# before the reading 250 (hardware figures PPSSPP's authors measured; threads/vtimers/sethandler)


def _arm_vtimer(k, vt) -> None:
    k.timers.cancel(vt.timer)
    vt.timer = None
    if not vt.running or not vt.handler:
        return
    now = k.now_us()
    due = now + max(vt.schedule, VTIMER_LATENCY_US) - vt.reading(now)
    vt.timer = k.timers.add(max(due, now + VTIMER_LATENCY_US), lambda: _fire_vtimer(k, vt))


def _fire_vtimer(k, vt) -> None:
    vt.timer = None
    now = k.now_us()
    write64(k.memory, SCRATCH, vt.schedule)
    write64(k.memory, SCRATCH + 8, vt.reading(now))
    k.running_vtimer = vt.uid

    def done(result):
        k.running_vtimer = 0
        if result > 0 and vt.uid in k.objects and vt.handler:
            vt.schedule += result
            _arm_vtimer(k, vt)
        else:
            vt.handler = 0

    k.run_interrupt(vt.handler, (vt.uid, SCRATCH, SCRATCH + 8, vt.common), done)


def _is_running_handler(k, uid) -> bool:
    """The timer whose handler runs now (0 outside handlers) may not change its handler."""
    return uid == k.running_vtimer


@hle(LIB, cost=costs.SYNC)
def sceKernelCreateVTimer(k, name: CStr, option: Ptr) -> int:
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if name is None:
        return codes.signed(codes.KERNEL_ERROR)
    vt = VTimer(name[:31])
    vt.uid = k.new_uid(vt)
    return vt.uid


@hle(LIB, cost=costs.SYNC)
def sceKernelDeleteVTimer(k, uid: int) -> int:
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    k.timers.cancel(vt.timer)
    k.free_uid(uid)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelStartVTimer(k, uid: int) -> int:
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid, zero_is_illegal=True)
    if vt.running:
        return 1
    vt.running, vt.started = True, k.now_us()
    _arm_vtimer(k, vt)
    return 0


@hle(LIB, cost=costs.SYNC)
def sceKernelStopVTimer(k, uid: int) -> int:
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid, zero_is_illegal=True)
    if not vt.running:
        return 0
    vt.base = vt.reading(k.now_us())
    vt.running = False
    _arm_vtimer(k, vt)
    return 1


@hle(LIB)
def sceKernelGetVTimerTime(k, uid: int, out: Ptr) -> int:
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    write64(k.memory, out, vt.reading(k.now_us()))
    return 0


@hle(LIB)
def sceKernelGetVTimerTimeWide(k, uid: int) -> U64:
    vt = _vtimer(k, uid)
    return -1 if vt is None else vt.reading(k.now_us())


@hle(LIB)
def sceKernelGetVTimerBase(k, uid: int, out: Ptr) -> int:
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    write64(k.memory, out, vt.started - vt.base if vt.running else 0)
    return 0


@hle(LIB)
def sceKernelGetVTimerBaseWide(k, uid: int) -> U64:
    vt = _vtimer(k, uid)
    return -1 if vt is None else (vt.started - vt.base if vt.running else 0)


def _set_time(k, vt, value) -> int:
    now = k.now_us()
    old = vt.reading(now)
    vt.base, vt.started = value, now
    _arm_vtimer(k, vt)
    return old


@hle(LIB)
def sceKernelSetVTimerTime(k, uid: int, clock: Ptr) -> int:
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    old = _set_time(k, vt, read64(k.memory, clock))
    write64(k.memory, clock, old)
    return 0


@hle(LIB)
def sceKernelSetVTimerTimeWide(k, uid: int, value: U64) -> U64:
    if k.interrupts:
        return -1
    vt = _vtimer(k, uid)
    return -1 if vt is None else _set_time(k, vt, value)


def _set_handler(k, uid, schedule, handler, common) -> int:
    if _is_running_handler(k, uid):
        return codes.signed(codes.ILLEGAL_VTIMER)
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    vt.handler = handler
    if handler:  # without a handler the schedule and common value stay (measured: sethandler)
        vt.schedule, vt.common = schedule, common
    _arm_vtimer(k, vt)
    return 0


@hle(LIB)
def sceKernelSetVTimerHandler(k, uid: int, clock: Ptr, handler: Ptr, common: Ptr) -> int:
    return _set_handler(k, uid, read64(k.memory, clock) if clock else 0, handler, common)


@hle(LIB)
def sceKernelSetVTimerHandlerWide(k, uid: int, schedule: U64, handler: Ptr, common: Ptr) -> int:
    return _set_handler(k, uid, schedule, handler, common)


@hle(LIB)
def sceKernelCancelVTimerHandler(k, uid: int) -> int:
    if _is_running_handler(k, uid):
        return codes.signed(codes.ILLEGAL_VTIMER)
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    vt.handler = 0  # the schedule and common value stay, as the status shows
    _arm_vtimer(k, vt)
    return 0


# --- vblank interrupt handlers (sceKernelRegisterSubIntrHandler on the vblank line) ---
VBLANK_INTERRUPT = 30


class VblankHandlers:
    def __init__(self, k):
        self.k = k
        self.handlers: dict[int, list] = {}  # sub number -> [handler, arg, enabled]
        self.timer = None

    def arm(self) -> None:
        if self.timer is None and any(h[2] for h in self.handlers.values()):
            n = self.k.display.vcount() + 1
            self.timer = self.k.timers.add(vblank_us(n), self.fire)

    def fire(self) -> None:
        self.timer = None
        for sub, (handler, arg, enabled) in sorted(self.handlers.items()):
            if enabled and handler:  # a slot enabled before its handler was registered waits
                self.k.run_interrupt(handler, (sub, arg), lambda result: None)
        if self.k.threads.any_alive():
            self.arm()


@hle(LIB)
def sceKernelReferVTimerStatus(k, uid: int, info: Ptr) -> int:
    vt = _vtimer(k, uid)
    if vt is None:
        return _missing(uid)
    now = k.now_us()
    size = k.memory.read_u32(info)
    name = vt.name.encode("latin-1")[:31].ljust(32, b"\0")
    base = vt.started - vt.base if vt.running else 0
    data = ((72).to_bytes(4, "little") + name + int(vt.running).to_bytes(4, "little")
            + (base & U64_MASK).to_bytes(8, "little") + vt.reading(now).to_bytes(8, "little")
            + vt.schedule.to_bytes(8, "little") + vt.handler.to_bytes(4, "little")
            + (vt.common & 0xFFFFFFFF).to_bytes(4, "little"))
    if size:
        k.memory.write(info, data[:min(size, 72)])
    return 0


U64_MASK = (1 << 64) - 1
