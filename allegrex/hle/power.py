"""scePower: clock frequencies (boot 222/111 MHz) and power callbacks (the battery queries
are battery.py). Changing the CPU clock changes how many cycles make a microsecond."""

import math

import numpy as np

from allegrex.hle import codes, threads
from allegrex.hle.battery import CALLBACK_STATE
from allegrex.hle.registry import F32, U32, alias, hle
from allegrex.hle.threads import Wait

LIB = "scePower"
MAX_CPU_MHZ, MAX_BUS_MHZ, MIN_PLL_MHZ = 333, 166, 19
BUS_SET_MAX_MHZ = 111  # scePowerSetBusClockFrequency refuses more (measured, power/freq)
# The PLL has four steps; a requested frequency takes the first step at or above it. The
# steps (MHz), the bus frequency each implies, and the PLL-relative CPU steps below are
# hardware measurements (pspautotests power/freq; the step values PPSSPP's authors derived).
PLL_STEPS = ((190, 190.285721), (222, 222.0), (266, 266.399994), (333, 333.0))
BUS_STEPS = ((95, 95.14286), (111, 111.0), (133, 133.199997), (166, 166.5))
# scePowerSetBusClockFrequency's own answer per PLL step (its argument only gets validated)
BUS_SET = ((190, 94.956673), (222, 111.0), (266, 132.939331), (333, 165.848343))
CPU_DIVIDER = 511  # the CPU runs at a multiple of PLL/511, just below the requested MHz
# the PLL takes this long to settle when scePowerSetClockFrequency changes its step
PLL_SWITCH_US = 150000
PLL_NEAR_SWITCH_US = {frozenset((190, 222)): 15700, frozenset((266, 333)): 16600}
f32 = np.float32


def _step(steps, mhz: int) -> np.float32:
    return f32(next((value for limit, value in steps if mhz <= limit), mhz))


def cpu_mhz(desired: int, pll) -> np.float32:
    """The CPU frequency the clock generator gives for `desired` MHz at PLL `pll` MHz: the
    largest multiple of pll/511 below the request (222 and 333 exactly when the PLL
    allows), in the firmware's single precision (checked against all 537 settings of
    power/freq)."""
    if desired in (222, 333) and pll >= desired:
        return f32(desired)
    multiples = math.ceil(desired * CPU_DIVIDER / float(pll)) - 1
    return f32(pll) * f32(multiples) / f32(CPU_DIVIDER)


class Clocks:
    """The frequencies scePower reports, in single-precision MHz (the simulator's own
    clock runs at whole MHz)."""

    def __init__(self, k):
        self.cpu = f32(k.clock.cpu_mhz)
        self.pll = _step(PLL_STEPS, max(k.clock.cpu_mhz, 2 * k.clock.bus_mhz))
        self.bus = _step(BUS_STEPS, k.clock.bus_mhz)


class Power:
    """scePower's state (kernel.power): the clocks it reports and the callback slots."""

    def __init__(self, k):
        self.clocks = Clocks(k)
        self.callbacks = [0] * USER_SLOTS  # callback id per slot, 0 for empty


def _apply(k, clocks: Clocks) -> None:
    """Run the simulated CPU at the new rate (whole MHz, at least 1: within 1 % above
    100 MHz)."""
    k.set_clock(max(1, int(clocks.cpu)), max(1, int(clocks.bus)))


@hle(LIB)
def scePowerSetClockFrequency(k, pll: U32, cpu: U32, bus: U32) -> int:
    if pll < MIN_PLL_MHZ or pll < cpu or pll > MAX_CPU_MHZ or not 1 <= cpu <= MAX_CPU_MHZ \
            or not 1 <= bus <= MAX_BUS_MHZ:
        return codes.signed(codes.INVALID_VALUE)
    clocks = k.power.clocks
    new_pll = _step(PLL_STEPS, pll)
    old_pll, changed = int(clocks.pll), new_pll != clocks.pll
    if changed:
        clocks.pll = new_pll
        clocks.bus = _step(BUS_STEPS, int(new_pll) // 2)  # the bus argument is only validated
    clocks.cpu = cpu_mhz(cpu, clocks.pll)
    _apply(k, clocks)
    if changed and k.threads.current is not None and not k.interrupts:  # the caller waits for the PLL
        settle = PLL_NEAR_SWITCH_US.get(frozenset((old_pll, int(new_pll))), PLL_SWITCH_US)
        k.threads.block(Wait("io", data=0), timeout_us=settle)
    return 0


@hle(LIB)
def scePowerSetCpuClockFrequency(k, cpu: U32) -> int:
    clocks = k.power.clocks
    if not 1 <= cpu <= min(MAX_CPU_MHZ, clocks.pll):  # never above the PLL (measured: 223 at 222)
        return codes.signed(codes.INVALID_VALUE)
    clocks.cpu = cpu_mhz(cpu, clocks.pll)
    _apply(k, clocks)
    return 0


@hle(LIB)
def scePowerSetBusClockFrequency(k, bus: U32) -> int:
    if not 1 <= bus <= BUS_SET_MAX_MHZ:
        return codes.signed(codes.INVALID_VALUE)
    clocks = k.power.clocks
    clocks.bus = _step(BUS_SET, int(clocks.pll))
    _apply(k, clocks)
    return 0


@hle(LIB)
def scePowerGetCpuClockFrequencyInt(k) -> int:
    return int(k.power.clocks.cpu)


@hle(LIB)
def scePowerGetBusClockFrequencyInt(k) -> int:
    return int(k.power.clocks.bus)


@hle(LIB)
def scePowerGetPllClockFrequencyInt(k) -> int:
    return int(k.power.clocks.pll)


@hle(LIB)
def scePowerGetCpuClockFrequencyFloat(k) -> F32:
    return float(k.power.clocks.cpu)


@hle(LIB)
def scePowerGetBusClockFrequencyFloat(k) -> F32:
    return float(k.power.clocks.bus)


@hle(LIB)
def scePowerGetPllClockFrequencyFloat(k) -> F32:
    return float(k.power.clocks.pll)


alias(LIB, "scePowerGetCpuClockFrequency", scePowerGetCpuClockFrequencyInt)
alias(LIB, "scePowerGetBusClockFrequency", scePowerGetBusClockFrequencyInt)


# power callbacks: 16 slots for programs (16-31 are the system's); errors measured in
# pspautotests power/power
USER_SLOTS, ALL_SLOTS = 16, 32


def _slot_error(slot: int, lowest: int) -> int | None:
    if not lowest <= slot < ALL_SLOTS:
        return codes.signed(codes.INVALID_INDEX)
    if slot >= USER_SLOTS:
        return codes.signed(codes.PRIV_REQUIRED)
    return None


@hle(LIB)
def scePowerRegisterCallback(k, slot: int, cbid: int) -> int:
    refused = _slot_error(slot, -1)
    if refused is not None:
        return refused
    cb = k.get(cbid, threads.Callback)
    if cb is None:
        return codes.signed(codes.INVALID_ID)
    slots = k.power.callbacks
    if slot == -1:  # the first free slot, and its number is the answer
        if 0 not in slots:
            return codes.signed(codes.OUT_OF_MEMORY)
        slot = result = slots.index(0)
    elif slots[slot]:
        return codes.signed(codes.ALREADY)
    else:
        result = 0
    slots[slot] = cbid
    k.threads.notify(cb, CALLBACK_STATE)  # it learns the current state (battery.py) at once
    return result


@hle(LIB)
def scePowerUnregisterCallback(k, slot: int) -> int:
    refused = _slot_error(slot, 0)
    if refused is not None:
        return refused
    slots = k.power.callbacks
    if not slots[slot]:
        return codes.signed(codes.EMPTY_SLOT)
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
