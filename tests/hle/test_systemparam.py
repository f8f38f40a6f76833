"""System parameters come from the registry, so sceUtilityGetSystemParam* and sceReg agree;
the string call refuses a buffer that cannot hold the nickname and its NUL."""

from allegrex.hle import codes, reg
from helpers import call, make_kernel

OUT = 0x08A10000


def test_int_params_are_the_registry_values_and_unknown_ids_fail():
    k = make_kernel()
    assert call(k, "sceUtility", "sceUtilityGetSystemParamInt", 6, OUT) == 0
    assert k.memory.read_u32(OUT) == reg.lookup("/CONFIG/DATE")["time_zone_offset"]
    assert call(k, "sceUtility", "sceUtilityGetSystemParamInt", 8, OUT) == 0
    assert k.memory.read_u32(OUT) == reg.lookup("/CONFIG/SYSTEM/XMB")["language"]
    for bad in (0, 1, 11, -1):
        assert call(k, "sceUtility", "sceUtilityGetSystemParamInt", bad, OUT) == codes.SYSTEMPARAM_INVALID_ID - (1 << 32)


def test_nickname_needs_room_for_its_nul():
    k = make_kernel()
    name = reg.lookup("/CONFIG/SYSTEM")["owner_name"].encode() + b"\0"
    k.memory.write(OUT, b"\xff" * 16)
    too_short = codes.SYSTEMPARAM_STRING_TOO_LONG - (1 << 32)
    assert call(k, "sceUtility", "sceUtilityGetSystemParamString", 1, OUT, len(name) - 1) == too_short
    assert call(k, "sceUtility", "sceUtilityGetSystemParamString", 1, OUT, -1) == too_short
    assert k.memory.read(OUT, 1) == b"\xff"  # nothing written
    assert call(k, "sceUtility", "sceUtilityGetSystemParamString", 1, OUT, len(name)) == 0
    assert k.memory.read(OUT, len(name)) == name
