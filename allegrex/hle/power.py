"""scePower: clock frequencies (boot 222/111 MHz) and battery answers of a charged PSP
on mains power. Changing the CPU clock changes how many cycles make a microsecond."""

from allegrex.hle import codes, threads
from allegrex.hle.registry import F32, hle

LIB = "scePower"
PLL_MHZ = 333


def _set(k, cpu, bus) -> int:
    if not 1 <= cpu <= 333 or not 1 <= bus <= 166:
        return codes.signed(codes.INVALID_VALUE)
    k.set_clock(cpu, bus)
    return 0


@hle(LIB)
def scePowerSetClockFrequency(k, pll: int, cpu: int, bus: int) -> int:
    return _set(k, cpu, bus)


@hle(LIB)
def scePowerSetCpuClockFrequency(k, cpu: int) -> int:
    return _set(k, cpu, k.clock.bus_mhz)


@hle(LIB)
def scePowerSetBusClockFrequency(k, bus: int) -> int:
    return _set(k, k.clock.cpu_mhz, bus)


@hle(LIB)
def scePowerGetCpuClockFrequencyInt(k) -> int:
    return k.clock.cpu_mhz


@hle(LIB)
def scePowerGetCpuClockFrequency(k) -> int:
    return k.clock.cpu_mhz


@hle(LIB)
def scePowerGetBusClockFrequencyInt(k) -> int:
    return k.clock.bus_mhz


@hle(LIB)
def scePowerGetBusClockFrequency(k) -> int:
    return k.clock.bus_mhz


@hle(LIB)
def scePowerGetPllClockFrequencyInt(k) -> int:
    return PLL_MHZ


@hle(LIB)
def scePowerGetCpuClockFrequencyFloat(k) -> F32:
    return float(k.clock.cpu_mhz)


@hle(LIB)
def scePowerGetBusClockFrequencyFloat(k) -> F32:
    return float(k.clock.bus_mhz)


@hle(LIB)
def scePowerGetPllClockFrequencyFloat(k) -> F32:
    return float(PLL_MHZ)


@hle(LIB)
def scePowerIsPowerOnline(k) -> int:
    return 1


@hle(LIB)
def scePowerIsBatteryExist(k) -> int:
    return 1


@hle(LIB)
def scePowerIsBatteryCharging(k) -> int:
    return 0


@hle(LIB)
def scePowerIsLowBattery(k) -> int:
    return 0


@hle(LIB)
def scePowerGetBatteryLifePercent(k) -> int:
    return 100


@hle(LIB)
def scePowerGetBatteryLifeTime(k) -> int:
    return 300


# power callbacks: 16 slots for programs (16-31 are the system's); errors measured in
# pspautotests power/power
USER_SLOTS, ALL_SLOTS = 16, 32
SLOT_TAKEN, SLOTS_FULL, SLOT_EMPTY = 0x80000020, 0x80000022, 0x80000025
NOT_A_CALLBACK, BAD_SLOT, PRIVILEGED = 0x80000100, 0x80000102, 0x80000023
# what a registered callback is told: on AC power, battery present, 100 % (the state scePowerIs* report)
POWER_STATE = 0x1000 | 0x80 | 100


def _slots(k) -> list:
    if not hasattr(k, "power_callbacks"):
        k.power_callbacks = [0] * USER_SLOTS
    return k.power_callbacks


def _slot_error(slot: int, lowest: int) -> int | None:
    if not lowest <= slot < ALL_SLOTS:
        return codes.signed(BAD_SLOT)
    if slot >= USER_SLOTS:
        return codes.signed(PRIVILEGED)
    return None


@hle(LIB)
def scePowerRegisterCallback(k, slot: int, cbid: int) -> int:
    refused = _slot_error(slot, -1)
    if refused is not None:
        return refused
    cb = k.get(cbid, threads.Callback)
    if cb is None:
        return codes.signed(NOT_A_CALLBACK)
    slots = _slots(k)
    if slot == -1:  # the first free slot, and its number is the answer
        if 0 not in slots:
            return codes.signed(SLOTS_FULL)
        slot = result = slots.index(0)
    elif slots[slot]:
        return codes.signed(SLOT_TAKEN)
    else:
        result = 0
    slots[slot] = cbid
    k.threads.notify(cb, POWER_STATE)  # it learns the current state at once
    return result


@hle(LIB)
def scePowerUnregisterCallback(k, slot: int) -> int:
    refused = _slot_error(slot, 0)
    if refused is not None:
        return refused
    slots = _slots(k)
    if not slots[slot]:
        return codes.signed(SLOT_EMPTY)
    slots[slot] = 0
    return 0


@hle(LIB)
def scePowerLock(k, mode: int) -> int:
    return 0


@hle(LIB)
def scePowerUnlock(k, mode: int) -> int:
    return 0


@hle(LIB)
def scePowerTick(k, kind: int) -> int:
    return 0


@hle(LIB)
def scePowerIdleTimerEnable(k, unit: int) -> int:
    return 0


@hle(LIB)
def scePowerIdleTimerDisable(k, unit: int) -> int:
    return 0
