"""scePower: clock frequencies (boot 222/111 MHz) and battery answers of a charged PSP
on mains power. Changing the CPU clock changes how many cycles make a microsecond."""

from allegrex.hle import codes
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


@hle(LIB)
def scePowerRegisterCallback(k, slot: int, cbid: int) -> int:
    return 0


@hle(LIB)
def scePowerUnregisterCallback(k, slot: int) -> int:
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
