"""scePower's battery and temperature queries: a PSP-2000 with its battery in and the AC
adapter plugged in, the battery full. Each value and where it comes from:

| query | answer | source |
|---|---|---|
| IsPowerOnline | 1 | MEASURED: pspautotests power/power (the test PSP was on its adapter) |
| IsBatteryExist | 1 | MEASURED: power/power |
| IsLowBattery | 0 | MEASURED: power/power |
| GetBatteryLifePercent | 100 | power/power prints only that it is not 0; full: ESTIMATE |
| GetBatteryChargingStatus, IsBatteryCharging | 0 | on AC power the firmware reports the charger's state (uOFW power.c); a full battery is not charged: ESTIMATE |
| GetBatteryLifeTime | 0 | the firmware answers 0 whenever the adapter supplies power (uOFW power.c) |
| IsSuspendRequired | 0 | always 0 on AC power (uOFW power.c) |
| GetBatteryFullCapacity, GetBatteryRemainCapacity | 1200 mAh | the PSP-2000's standard battery is rated 1200 mAh; full: ESTIMATE |
| GetBatteryVolt | 4150 mV | ESTIMATE: a full lithium-ion cell at rest (typical 4.1-4.2 V) |
| GetBatteryTemp | 28 (degrees C) | ESTIMATE: room temperature plus the handheld's warmth |
| GetBatteryElec | 0 mA | ESTIMATE: a full battery on the adapter neither charges nor discharges |
| GetInnerTemp | 0x802B0010 | what the firmware answers (uOFW power.c) |
| BatteryUpdateInfo | 0 | it only asks the battery thread to refresh (uOFW power.c) |
"""

from allegrex.hle import codes
from allegrex.hle.registry import Ptr, hle

LIB = "scePower"
LIFE_PERCENT = 100
CAPACITY_MAH = 1200
VOLT_MV = 4150
TEMP_C = 28
ELEC_MA = 0
# what a power callback is told (PSP_POWER_CB_* bits): on AC power, battery present, its percentage
CB_AC_POWER, CB_BATTERY_EXIST = 0x1000, 0x80
CALLBACK_STATE = CB_AC_POWER | CB_BATTERY_EXIST | LIFE_PERCENT


@hle(LIB)
def scePowerIsPowerOnline(k) -> int:
    return 1


@hle(LIB)
def scePowerIsBatteryExist(k) -> int:
    return 1


@hle(LIB)
def scePowerIsLowBattery(k) -> int:
    return 0


@hle(LIB)
def scePowerGetBatteryChargingStatus(k) -> int:
    return 0


@hle(LIB)
def scePowerIsBatteryCharging(k) -> int:
    return 0


@hle(LIB)
def scePowerIsSuspendRequired(k) -> int:
    return 0


@hle(LIB)
def scePowerGetBatteryLifePercent(k) -> int:
    return LIFE_PERCENT


@hle(LIB)
def scePowerGetBatteryLifeTime(k) -> int:
    return 0  # minutes left: the firmware does not estimate it while on AC power


@hle(LIB)
def scePowerGetBatteryFullCapacity(k) -> int:
    return CAPACITY_MAH


@hle(LIB)
def scePowerGetBatteryRemainCapacity(k) -> int:
    return CAPACITY_MAH * LIFE_PERCENT // 100


@hle(LIB)
def scePowerGetBatteryVolt(k) -> int:
    return VOLT_MV


@hle(LIB)
def scePowerGetBatteryTemp(k) -> int:
    return TEMP_C


@hle(LIB)
def scePowerGetBatteryElec(k, current: Ptr) -> int:
    k.memory.write_u32(current, ELEC_MA & 0xFFFFFFFF)
    return 0


@hle(LIB)
def scePowerGetInnerTemp(k) -> int:
    return codes.signed(codes.POWER_0010)


@hle(LIB)
def scePowerBatteryUpdateInfo(k) -> int:
    return 0
