"""sceUtilityGetSystemParamInt/String: the console settings a program may read (nickname,
language, date and time formats...), taken from the simulated PSP's registry (reg.py), so
both APIs give one answer. Error codes and the string-length rule follow a real PSP
(pspautotests utility/systemparam)."""

from allegrex.hle import codes, reg
from allegrex.hle.registry import Ptr, hle

LIB = "sceUtility"
NICKNAME = 1
WLAN_POWERSAVE_OFF = 0  # not kept in our registry tree: the simulated PSP has it off

# id -> (registry category, key)
INT_PARAMS = {
    2: ("/CONFIG/NETWORK/ADHOC", "channel"),
    4: ("/CONFIG/DATE", "date_format"),
    5: ("/CONFIG/DATE", "time_format"),
    6: ("/CONFIG/DATE", "time_zone_offset"),
    7: ("/CONFIG/DATE", "summer_time"),
    8: ("/CONFIG/SYSTEM/XMB", "language"),
    9: ("/CONFIG/SYSTEM/XMB", "button_assign"),
    10: ("/CONFIG/SYSTEM/LOCK", "parental_level"),
}
WLAN_POWERSAVE = 3


def int_param(param_id: int) -> int | None:
    if param_id == WLAN_POWERSAVE:
        return WLAN_POWERSAVE_OFF
    where = INT_PARAMS.get(param_id)
    return None if where is None else reg.lookup(where[0])[where[1]]


@hle(LIB)
def sceUtilityGetSystemParamInt(k, param_id: int, out: Ptr) -> int:
    value = int_param(param_id)
    if value is None:
        return codes.signed(codes.SYSTEMPARAM_INVALID_ID)
    k.memory.write_u32(out, value & 0xFFFFFFFF)
    return 0


@hle(LIB)
def sceUtilityGetSystemParamString(k, param_id: int, out: Ptr, size: int) -> int:
    if param_id != NICKNAME:
        return codes.signed(codes.SYSTEMPARAM_INVALID_ID)
    text = reg.lookup("/CONFIG/SYSTEM")["owner_name"].encode("utf-8") + b"\0"
    if size < len(text):  # signed: a negative length is too short as well
        return codes.signed(codes.SYSTEMPARAM_STRING_TOO_LONG)
    k.memory.write(out, text)
    return 0
