"""A PSP-2000 on its adapter with a full battery and nothing in the headphone port: the
battery answers (power/power's measured ones, uOFW's firmware rules, documented estimates)
and the remote port's."""

import pytest

from allegrex.hle import battery, codes
from helpers import call, make_kernel

PTR = 0x09000000


@pytest.mark.parametrize("name,answer", [
    ("scePowerIsPowerOnline", 1), ("scePowerIsBatteryExist", 1), ("scePowerIsLowBattery", 0),  # power/power
    ("scePowerGetBatteryLifeTime", 0),  # on AC power the firmware answers 0 minutes
    ("scePowerIsSuspendRequired", 0), ("scePowerIsBatteryCharging", 0), ("scePowerGetBatteryChargingStatus", 0),
    ("scePowerGetBatteryLifePercent", 100), ("scePowerGetBatteryFullCapacity", 1200),
    ("scePowerGetBatteryRemainCapacity", 1200), ("scePowerGetBatteryVolt", 4150), ("scePowerGetBatteryTemp", 28),
    ("scePowerGetInnerTemp", codes.signed(codes.POWER_0010)), ("scePowerBatteryUpdateInfo", 0),
])
def test_battery_answers(name, answer):
    assert call(make_kernel(), "scePower", name) == answer


def test_battery_current_is_written_where_asked():
    k = make_kernel()
    k.memory.write_u32(PTR, 0xFFFFFFFF)
    assert call(k, "scePower", "scePowerGetBatteryElec", PTR) == 0
    assert k.memory.read_u32(PTR) == 0


def test_a_power_callback_hears_ac_power_battery_and_percentage():
    assert battery.CALLBACK_STATE & 0x1000 and battery.CALLBACK_STATE & 0x80
    assert battery.CALLBACK_STATE & 0x7F == call(make_kernel(), "scePower", "scePowerGetBatteryLifePercent")


def test_the_remote_port_is_empty():
    k = make_kernel()
    for name in ("sceHprmIsRemoteExist", "sceHprmIsHeadphoneExist", "sceHprmIsMicrophoneExist"):
        assert call(k, "sceHprm", name) == 0
    k.memory.fill(PTR, 0xAB, 16)
    assert call(k, "sceHprm", "sceHprmPeekCurrentKey", PTR) == 0 and k.memory.read_u32(PTR) == 0
    for name in ("sceHprmPeekLatch", "sceHprmReadLatch"):
        k.memory.fill(PTR, 0xAB, 16)
        assert call(k, "sceHprm", name, PTR) == 0 and k.memory.read(PTR, 16) == bytes(16)


def test_remote_callbacks_register_under_both_nids():
    from allegrex.hle import registry
    k = make_kernel()
    assert call(k, "sceHprm", "sceHprmRegisterCallback", 0x1234) == 0
    assert registry.lookup("sceHprm", 0xFD7DE6CD).name == "sceHprmUnregisterCallback"
    assert registry.lookup("sceHprm", 0x444ED0B7).name == "sceHprmUnregitserCallback"  # the firmware's misspelt export
    assert call(k, "sceHprm", "sceHprmUnregisterCallback", 0x1234) == 0


def test_a_bad_key_pointer_stops_the_run_with_a_fault():
    k = make_kernel()
    call(k, "sceHprm", "sceHprmPeekCurrentKey", 0)
    assert k.stop.kind == "fault" and "sceHprmPeekCurrentKey" in k.stop.message
