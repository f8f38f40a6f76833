"""secureVersion: which protection mode a secure save is written with, and which loads accept
it (measured: utility/savedata/secureversion, the same on every firmware from 3.00 on).

The mode goes in the first byte of PARAM.SFO's SAVEDATA_PARAMS: 0x01 (version 1, needs no
key), 0x21 (version 2) or 0x41 (version 3); version 0 means the newest mode the program's SDK
knows. Programs built for an SDK before 3.00 get 0x21 for version 0 and 0x01 for version 3.
A load accepts only a save of its own mode. allegrex records the mode but stores the data
unencrypted (see savedata.py)."""

VERSION = 1516  # SceUtilitySavedataParam.secureVersion
MODE_OF_VERSION = {1: 0x01, 2: 0x21, 3: 0x41}
NEW_SDK = 0x03000000  # measured: SDK 3.00 behaves as 6.60, 2.60 as 1.50


def version_of(k, params: int) -> int:
    raw = k.memory.read_u32(params + VERSION)
    return raw - (1 << 32) if raw & 0x80000000 else raw


def mode_for(k, version: int, has_key: bool) -> int | None:
    """The protection mode of this request, None when the firmware refuses it."""
    if version not in (0, 1, 2, 3) or (version != 1 and not has_key):
        return None
    if k.sdk_version < NEW_SDK and version in (0, 3):
        return 0x21 if version == 0 else 0x01
    return 0x41 if version == 0 else MODE_OF_VERSION[version]
