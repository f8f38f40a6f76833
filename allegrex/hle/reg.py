"""The system registry (sceReg), read-only: the categories and keys programs look up, with
the settings of the PSP the pspautotests were recorded on (nickname "shadow", English,
Western buttons, UTC+1, parental level 9: utility/systemparam), the simulated console's
one configuration (systemparam.py and rtc.py's local time read it here). The registry's
shape, key types and sizes, handles and error codes follow a real PSP's (misc/reg)."""

from allegrex.hle import codes
from allegrex.hle.registry import CStr, Ptr, U32, hle

LIB = "sceReg"
NOT_FOUND = -1  # a key lookup that finds nothing (the firmware's plain -1)
TYPE_DIR, TYPE_INT, TYPE_STR, TYPE_BIN = 1, 2, 3, 4
KEY_NAME_SIZE = 27  # sceRegGetKeys and the root list give names in 27-byte slots
SYSTEM_REGISTRY = 0  # the only registry; its handle is 0
FIRST_CATEGORY_HANDLE = 0x1000


class Bin(bytes):
    """A binary value (its size is its length)."""


# Category -> {key: value}: a dict is a sub-category, int INT, str STR (size with the NUL), Bin BIN.
TREE = {
    "REGISTRY": {"category_version": 102},
    "CONFIG": {
        "SYSTEM": {
            "owner_name": "shadow",
            "backlight_brightness": 3,
            "umd_autoboot": 1,
            "usb_charge": 1,
            "XMB": {"theme_type": 0, "language": 1, "button_assign": 1},  # English; cross confirms
            "LOCK": {"parental_level": 9},
        },
        "DATE": {"time_format": 0, "date_format": 2, "summer_time": 0, "time_zone_offset": 60,
                 "time_zone_area": "united_kingdom"},
        "PREMO": {"guide_page": 1, "response": 0, "ps3_name": "", "ps3_mac": Bin(6), "ps3_keytype": 0,
                  "ps3_key": Bin(16), "button_assign": 0, "flags": 0},
        "NETWORK": {"ADHOC": {"channel": 0}},
    },
    "DATA": {
        "FONT": {"path_name": "flash0:/font", "num_fonts": 18, "PROPERTY": {}},
        "COUNT": {},
    },
    "SYSPROFILE": {"sound_reduction": 0, "RESOLUTION": {"horizontal": 8210, "vertical": 8210}},
}


def key_type(value) -> int:
    if isinstance(value, dict):
        return TYPE_DIR
    if isinstance(value, Bin):
        return TYPE_BIN
    return TYPE_STR if isinstance(value, str) else TYPE_INT


def key_size(value) -> int:
    kind = key_type(value)
    if kind == TYPE_DIR:
        return 0
    return 4 if kind == TYPE_INT else len(key_bytes(value))


def key_bytes(value) -> bytes:
    if isinstance(value, Bin):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("latin-1") + b"\0"
    return (value & 0xFFFFFFFF).to_bytes(4, "little")


def lookup(path: str):
    """The category at `path` ('/CONFIG/SYSTEM'), or None."""
    node = TREE
    for part in path.strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return None
    return node


class RegState:
    """The open registry categories (kernel.reg)."""

    def __init__(self, kernel):
        self.categories: dict[int, dict] = {}  # open category handle -> its keys
        self.next_handle = FIRST_CATEGORY_HANDLE


def _write_u32(k, addr: int, value: int) -> None:
    if addr and k.memory.is_valid(addr, 4):
        k.memory.write_u32(addr, value & 0xFFFFFFFF)


@hle(LIB)
def sceRegOpenRegistry(k, param: Ptr, mode: int, handle_out: Ptr) -> int:
    _write_u32(k, handle_out, SYSTEM_REGISTRY)  # measured: any name opens the one registry
    return 0


@hle(LIB)
def sceRegCloseRegistry(k, handle: int) -> int:
    if handle != SYSTEM_REGISTRY:
        return codes.signed(codes.REG_NOT_FOUND)
    k.reg.categories.clear()
    return 0


@hle(LIB)
def sceRegFlushRegistry(k, handle: int) -> int:
    return 0 if handle == SYSTEM_REGISTRY else codes.signed(codes.REG_NOT_FOUND)


@hle(LIB)
def sceRegOpenCategory(k, handle: int, name: CStr, mode: int, out: Ptr) -> int:
    if name is None:
        return codes.signed(codes.REG_INVALID_NAME)
    if handle != SYSTEM_REGISTRY:
        _write_u32(k, out, 0xFFFFFFFF)
        return codes.signed(codes.REG_NOT_FOUND)
    if name in ("", "/"):
        _write_u32(k, out, 0xFFFFFFFF)
        return codes.signed(codes.REG_INVALID_PATH)
    keys = lookup(name)
    if keys is None:
        _write_u32(k, out, 0xFFFFFFFF)
        return codes.signed(codes.REG_CATEGORY_NOT_FOUND)
    s = k.reg
    s.categories[s.next_handle] = keys
    _write_u32(k, out, s.next_handle)
    s.next_handle += 1
    return 0


@hle(LIB)
def sceRegCloseCategory(k, handle: int) -> int:
    k.reg.categories.pop(handle, None)
    return 0


@hle(LIB)
def sceRegFlushCategory(k, handle: int) -> int:
    return 0


def _category(k, handle: int):
    return k.reg.categories.get(handle)


@hle(LIB)
def sceRegGetKeysNum(k, handle: int, out: Ptr) -> int:
    keys = _category(k, handle)
    if keys is None:
        return codes.signed(codes.REG_CATEGORY_NOT_FOUND)
    _write_u32(k, out, len(keys))
    return 0


def _write_names(k, buf: int, names, count: int) -> None:
    for i, name in enumerate(list(names)[:max(count, 0)]):
        k.memory.write(buf + i * KEY_NAME_SIZE, name.encode("latin-1")[:KEY_NAME_SIZE - 1].ljust(KEY_NAME_SIZE, b"\0"))


@hle(LIB)
def sceRegGetKeys(k, handle: int, buf: Ptr, count: int) -> int:
    keys = _category(k, handle)
    if keys is None:
        return codes.signed(codes.REG_CATEGORY_NOT_FOUND)
    _write_names(k, buf, keys, count)
    return 0


def _key(k, handle: int, name):
    """(error, index, value) of key `name` in an open category."""
    keys = _category(k, handle)
    if keys is None:
        return codes.signed(codes.REG_CATEGORY_NOT_FOUND), None, None
    if name not in keys:
        return NOT_FOUND, None, None
    return 0, list(keys).index(name), keys[name]


@hle(LIB)
def sceRegGetKeyInfo(k, handle: int, name: CStr, key_out: Ptr, type_out: Ptr, size_out: Ptr) -> int:
    error, index, value = _key(k, handle, name)
    if error:
        return error
    _write_u32(k, key_out, index)  # a key handle is the key's place in its category
    _write_u32(k, type_out, key_type(value))
    _write_u32(k, size_out, key_size(value))
    return 0


@hle(LIB)
def sceRegGetKeyInfoByName(k, handle: int, name: CStr, type_out: Ptr, size_out: Ptr) -> int:
    error, _, value = _key(k, handle, name)
    if error:
        return error
    _write_u32(k, type_out, key_type(value))
    _write_u32(k, size_out, key_size(value))
    return 0


def _read_value(k, value, buf: int, size: int) -> int:
    """Copy a value out: an INT needs room for all 4 bytes (measured: a 1-byte buffer is left
    alone, an 8-byte one gets 4); STR and BIN are cut to the buffer."""
    if key_type(value) == TYPE_DIR:
        return 0
    data = key_bytes(value)
    if key_type(value) == TYPE_INT:
        if size >= 4:
            k.memory.write(buf, data)
        return 0
    if size:
        k.memory.write(buf, data[:size])
    return 0


@hle(LIB)
def sceRegGetKeyValue(k, handle: int, key: int, buf: Ptr, size: U32) -> int:
    keys = _category(k, handle)
    if keys is None or not 0 <= key < len(keys):
        return codes.signed(codes.REG_CATEGORY_NOT_FOUND)
    return _read_value(k, list(keys.values())[key], buf, size)


@hle(LIB)
def sceRegGetKeyValueByName(k, handle: int, name: CStr, buf: Ptr, size: U32) -> int:
    error, _, value = _key(k, handle, name)
    if error:
        return error
    return _read_value(k, value, buf, size)


@hle(LIB)
def sceRegGetCategoryNumAtRoot(k, handle: int, out: Ptr) -> int:
    if handle != SYSTEM_REGISTRY:
        return codes.signed(codes.REG_NOT_FOUND)
    _write_u32(k, out, len(TREE))
    return 0


@hle(LIB)
def sceRegGetCategoryListAtRoot(k, handle: int, buf: Ptr, count: int) -> int:
    if handle != SYSTEM_REGISTRY:
        return codes.signed(codes.REG_NOT_FOUND)
    _write_names(k, buf, TREE, count)
    return 0


def _read_only(k) -> int:
    k.warn_once("reg-write", "sceReg: the registry is read-only here; a write was ignored")
    return 0


for _name in ("sceRegSetKeyValue", "sceRegCreateKey", "sceRegRemoveKey", "sceRegRemoveCategory"):
    hle(LIB, name=_name)(_read_only)
