"""sceUtilitySavedata run headlessly: saves go to ms0:/PSP/SAVEDATA/<gameName><saveName>/
through the io sandbox, with a PARAM.SFO laid out like the firmware's; loads read them back.
The work happens in the dialog's Update, so the status walk is the one utility.py gives
every dialog. The list dialogs choose their save headlessly (savedata_list.py); an unknown
mode stops the run with a clear message."""

import os
import struct

from allegrex.hle import codes, savedata_list, savedata_query, savedata_secure
from allegrex.hle.io import stat_bytes
from allegrex.hle.kernel import HleStop
from allegrex.hle.registry import read_cstr

# SceUtilitySavedataParam field offsets (pspsdk psputility_savedata.h)
MODE, GAME_NAME, SAVE_NAME, FILE_NAME = 48, 60, 76, 100
DATA_BUF, DATA_BUF_SIZE, DATA_SIZE = 116, 120, 124
SFO_TITLE, SFO_SAVEDATA_TITLE, SFO_DETAIL, SFO_PARENTAL = 128, 256, 384, 1408
FILE_DATA = {"ICON0.PNG": 1412, "ICON1.PMF": 1428, "PIC1.PNG": 1444, "SND0.AT3": 1460}
KEY, KEY_SIZE = 1500, 16
RESULT = 28

AUTOLOAD, AUTOSAVE, LOAD, SAVE = 0, 1, 2, 3
LISTLOAD, LISTSAVE, LISTDELETE, LISTALLDELETE = 4, 5, 6, 7
AUTODELETE, DELETE = 9, 10
MAKEDATASECURE, MAKEDATA, READDATASECURE, READDATA, WRITEDATASECURE, WRITEDATA = 13, 14, 15, 16, 17, 18
ERASESECURE, ERASE, DELETEDATA = 19, 20, 21
SIZES, LIST, FILES, GETSIZE = 8, 11, 12, 22
LOAD_MODES = {AUTOLOAD, LOAD, READDATASECURE, READDATA}
SAVE_MODES = {AUTOSAVE, SAVE, MAKEDATASECURE, MAKEDATA, WRITEDATASECURE, WRITEDATA}
DELETE_MODES = {AUTODELETE, DELETE, DELETEDATA}
SECURE_SAVES = {AUTOSAVE, SAVE, LISTSAVE, MAKEDATASECURE, WRITEDATASECURE}  # their file joins SAVEDATA_FILE_LIST
QUERY_MODES = {SIZES, LIST, FILES, GETSIZE}
LIST_DIALOGS = {LISTLOAD, LISTSAVE, LISTDELETE, LISTALLDELETE}
ERASE_MODES = {ERASESECURE, ERASE}
KNOWN_MODES = LOAD_MODES | SAVE_MODES | DELETE_MODES | QUERY_MODES | LIST_DIALOGS | ERASE_MODES
BIND, FILE_LIST = 52, 1528
FILES_BIND = 0x3FD  # measured: a FILES request leaves this in bind (utility/savedata/filelist)

RESULT_CANCELLED = 1  # a list dialog left without a choice (pspUtilityDialogCommon.result)
SAVEDATA_ROOT = "ms0:/PSP/SAVEDATA/"
SFO_NAME = "PARAM.SFO"


def check_mode(k, params: int) -> None:
    """Refuse, at InitStart, a mode this module does not carry out."""
    mode = k.memory.read_u32(params + MODE)
    if mode not in KNOWN_MODES:
        raise HleStop("unsupported", f"sceUtilitySavedataInitStart: unknown mode {mode} (the PSP's are 0-22)")


def run(k, params: int, step: int) -> bool:
    """Carry out the request and store its result in the param block; False when a later
    Update must finish it (SIZES fills msData one Update after the rest, measured by the
    order utility/savedata/sizes sees the fields change)."""
    m = k.memory
    if step == 0:
        m.write_u32(params + RESULT, 0)
    mode = m.read_u32(params + MODE)
    game = read_cstr(m, params + GAME_NAME, 13)
    folder = SAVEDATA_ROOT + game + read_cstr(m, params + SAVE_NAME, 20)
    file_name = read_cstr(m, params + FILE_NAME, 13)
    if _has_key(m, params):
        k.warn_once(("savedata", "key"), "savedata: a save key was given; the data is stored "
                    "unencrypted (loads back here, not on a real PSP)")
    if mode in LOAD_MODES:
        result = _load(k, params, folder, file_name, mode)
    elif mode in (WRITEDATA, WRITEDATASECURE) and not _is_dir(k, folder):
        result = codes.signed(codes.SAVEDATA_RW_NO_DATA)  # they only write into an existing save (utility/savedata/saveemptyfilename)
    elif mode in SAVE_MODES:
        result = _save(k, params, folder, file_name, mode in SECURE_SAVES)
    elif mode in LIST_DIALOGS:
        result = _list_dialog(k, params, game, file_name, mode)
    elif mode in ERASE_MODES:
        result = _erase(k, folder, file_name)
    elif mode == FILES:
        result = list_files(k, params, folder)
    elif mode == SIZES and step == 0:
        savedata_query.sizes_free_and_planned(k, params, planned_sizes(k, params, file_name))
        return False
    elif mode == SIZES:
        result = savedata_query.sizes_existing(k, params, lambda guest: _resolved(k, guest))
    elif mode == GETSIZE:
        result = savedata_query.getsize(k, params)
    elif mode == LIST:  # the entries one Update, their count the next (measured: utility/savedata/idlist)
        savedata_query.list_ids(k, params, _resolved(k, SAVEDATA_ROOT), read_cstr(m, params + GAME_NAME, 13),
                                 read_cstr(m, params + SAVE_NAME, 20), count_only=step > 0)
        if step == 0:
            return False
        result = 0
    else:
        result = _delete(k, folder, codes.SAVEDATA_RW_NO_DATA if mode == DELETEDATA else codes.SAVEDATA_DELETE_NO_DATA)
    m.write_u32(params + RESULT, result & 0xFFFFFFFF)
    return True


def planned_sizes(k, params: int, file_name: str) -> list:
    """Byte sizes of the files a save of these params would write, PARAM.SFO included."""
    m = k.memory
    sizes = [m.read_u32(params + DATA_SIZE)] if file_name else []
    sizes += [m.read_u32(params + offset + 8) for offset in FILE_DATA.values() if m.read_u32(params + offset)]
    return sizes + [len(savedata_sfo(k, params, "", []))]


def _resolved(k, guest: str):
    """A guest path through the sandbox (sandbox.Resolved), or None when it is refused/unmapped."""
    r = k.io.resolve(guest)
    return None if isinstance(r, int) else r


def _host(k, guest: str):
    """Host path of a guest path through the sandbox, or None when it is refused/unmapped."""
    r = _resolved(k, guest)
    return None if r is None else r.host


def _is_dir(k, guest: str) -> bool:
    host = _host(k, guest)
    return host is not None and os.path.isdir(host)


def _is_file(k, guest: str) -> bool:
    host = _host(k, guest)
    return host is not None and os.path.isfile(host)


def _check_save(k, folder, file_name, rw: bool) -> int:
    """0 when the save and its file are there, else the firmware's error: no folder, then
    no PARAM.SFO, then no fileName (an empty fileName only needs the first two)."""
    if not _is_dir(k, folder):
        return codes.signed(codes.SAVEDATA_RW_NO_DATA if rw else codes.SAVEDATA_LOAD_NO_DATA)
    if not _is_file(k, f"{folder}/{SFO_NAME}"):
        return codes.signed(codes.SAVEDATA_RW_DATA_BROKEN if rw else codes.SAVEDATA_LOAD_DATA_BROKEN)
    if file_name and not _is_file(k, f"{folder}/{file_name}"):
        return codes.signed(codes.SAVEDATA_RW_FILE_NOT_FOUND if rw else codes.SAVEDATA_LOAD_FILE_NOT_FOUND)
    return 0


def _has_key(m, params) -> bool:
    return any(m.read_u8(params + KEY + i) for i in range(KEY_SIZE))


def _load(k, params, folder, file_name, mode) -> int:
    m = k.memory
    rw = mode in (READDATA, READDATASECURE)
    error = _check_save(k, folder, file_name, rw)
    wanted = savedata_secure.mode_for(k, savedata_secure.version_of(k, params), _has_key(m, params))
    if not error and mode != READDATA and wanted is None:
        error = codes.signed(codes.SAVEDATA_LOAD_PARAM)
    if error or not file_name:  # an empty fileName leaves the data buffer as it was
        return error            # (measured: utility/savedata/loademptyfilename)
    saved = _sfo_value(k, folder, "SAVEDATA_PARAMS")[:1]
    if mode == READDATA and file_name in secure_files(k, folder):
        return codes.signed(codes.SAVEDATA_RW_DATA_BROKEN)  # a secure file read as plain data (measured: utility/savedata/loaddata)
    if mode != READDATA and saved not in (b"", b"\0", bytes([wanted])):
        return codes.signed(codes.SAVEDATA_RW_DATA_BROKEN if rw else codes.SAVEDATA_LOAD_DATA_BROKEN)  # another protection mode
    with open(_host(k, f"{folder}/{file_name}"), "rb") as f:
        data = f.read(m.read_u32(params + DATA_BUF_SIZE))
    m.write(m.read_u32(params + DATA_BUF), data)
    m.write_u32(params + DATA_SIZE, len(data))
    return 0


def _save(k, params, folder, file_name, secure: bool) -> int:
    m = k.memory
    protection = savedata_secure.mode_for(k, savedata_secure.version_of(k, params), _has_key(m, params)) if secure else 0
    if protection is None:
        k.warn_once(("savedata", "refused"), "savedata: a secure save without a key (or with an unknown "
                    "secureVersion) is refused with 0x80110388, as on the PSP")
        return codes.signed(codes.SAVEDATA_SAVE_PARAM)
    folder_host = _host(k, folder)
    if folder_host is None:
        return codes.signed(codes.SAVEDATA_SAVE_ACCESS_ERROR)
    try:
        os.makedirs(folder_host, exist_ok=True)
        k.io.created.add(os.path.realpath(folder_host))
        files = {}
        if file_name:
            size = min(m.read_u32(params + DATA_SIZE), m.read_u32(params + DATA_BUF_SIZE))
            files[file_name] = m.read(m.read_u32(params + DATA_BUF), size)
        for name, offset in FILE_DATA.items():
            buf, size = m.read_u32(params + offset), m.read_u32(params + offset + 8)
            if buf and size:
                files[name] = m.read(buf, size)
        secure_names = secure_files(k, folder) | ({file_name} if secure and file_name else set())
        files[SFO_NAME] = savedata_sfo(k, params, folder.rsplit("/", 1)[-1], sorted(secure_names), protection)
        for name, data in files.items():
            _write_file(k, f"{folder}/{name}", data)
    except OSError:
        return codes.signed(codes.SAVEDATA_SAVE_ACCESS_ERROR)
    return 0


def _delete(k, folder, missing_code) -> int:
    """AUTODELETE/DELETE/DELETEDATA: remove the save's folder and all its files, broken
    saves included (measured: utility/savedata/deletebroken)."""
    folder_host = _host(k, folder)
    if folder_host is None or not os.path.isdir(folder_host):
        return codes.signed(missing_code)
    for name in sorted(os.listdir(folder_host)):
        host = _host(k, f"{folder}/{name}")
        if host is not None and os.path.isfile(host):
            os.remove(host)
    os.rmdir(folder_host)
    return 0


def _erase(k, folder, file_name) -> int:
    """ERASE(SECURE): remove fileName from an intact save; an empty fileName removes nothing."""
    error = _check_save(k, folder, file_name, rw=True)
    if not error and file_name:
        os.remove(_host(k, f"{folder}/{file_name}"))
    return error


def _list_dialog(k, params, game, file_name, mode) -> int:
    """LISTLOAD/LISTSAVE/LISTDELETE act on the save savedata_list chooses; LISTALLDELETE
    deletes every listed save. Once a deletion empties the list the firmware closes with
    0x80110347; a list that still has saves is left as cancelled (result 1), as the
    recorded LISTALLDELETE runs end (utility/savedata/deletedata, deletebroken)."""
    m = k.memory
    folder_of = lambda name: SAVEDATA_ROOT + game + name
    mtime_of = savedata_list.mtime_in(lambda name: _host(k, folder_of(name)))
    names = savedata_list.listed_names(m, params)
    existing = [n for n in names if mtime_of(n) is not None]
    chosen = savedata_list.choose(m, params, names if mode == LISTSAVE else existing, mtime_of)
    if chosen is not None:  # the choice is written back (measured: utility/savedata/loaddata)
        m.write(params + SAVE_NAME, chosen.encode("latin-1")[:19].ljust(20, b"\0"))
    if mode == LISTSAVE:
        return _save(k, params, folder_of(chosen), file_name, True) if chosen else codes.signed(codes.SAVEDATA_SAVE_ACCESS_ERROR)
    if mode == LISTLOAD:
        return _load(k, params, folder_of(chosen), file_name, LOAD) if chosen else codes.signed(codes.SAVEDATA_LOAD_NO_DATA)
    if chosen is None:
        return codes.signed(codes.SAVEDATA_DELETE_NO_DATA)
    doomed = existing if mode == LISTALLDELETE else [chosen]
    for name in doomed:
        _delete(k, folder_of(name), codes.SAVEDATA_DELETE_NO_DATA)
    return RESULT_CANCELLED if mode == LISTALLDELETE or len(doomed) < len(existing) else codes.signed(codes.SAVEDATA_DELETE_NO_DATA)


def _write_file(k, guest: str, data: bytes) -> None:
    host = _host(k, guest)
    if host is None:
        raise OSError(f"sandbox refused {guest}")
    with open(host, "wb") as f:
        f.write(bytes(data))
    k.io.created.add(os.path.realpath(host))


# PARAM.SFO of a save: (key, format, reserved bytes), sorted by key as the format requires
SFO_UTF8, SFO_BINARY, SFO_INT = 0x0204, 0x0004, 0x0404
FILE_LIST_ENTRY, FILE_LIST_BYTES = 32, 3168  # name[13] + hash[16] + pad[3], 99 entries
SFO_FIELDS = (("CATEGORY", SFO_UTF8, 4), ("PARENTAL_LEVEL", SFO_INT, 4),
              ("SAVEDATA_DETAIL", SFO_UTF8, 1024), ("SAVEDATA_DIRECTORY", SFO_UTF8, 64),
              ("SAVEDATA_FILE_LIST", SFO_BINARY, FILE_LIST_BYTES), ("SAVEDATA_PARAMS", SFO_BINARY, 128),
              ("SAVEDATA_TITLE", SFO_UTF8, 128), ("TITLE", SFO_UTF8, 128))


def savedata_sfo(k, params: int, directory: str, secure_names: list, protection: int = 0) -> bytes:
    """PARAM.SFO bytes; `protection` is the savedata_secure mode recorded in SAVEDATA_PARAMS."""
    m = k.memory
    text = {"CATEGORY": "MS", "SAVEDATA_DIRECTORY": directory,
            "SAVEDATA_DETAIL": read_cstr(m, params + SFO_DETAIL, 1024),
            "SAVEDATA_TITLE": read_cstr(m, params + SFO_SAVEDATA_TITLE, 128),
            "TITLE": read_cstr(m, params + SFO_TITLE, 128)}
    values = {key: text[key].encode("utf-8") + b"\0" for key in text}
    values["PARENTAL_LEVEL"] = struct.pack("<I", m.read_u8(params + SFO_PARENTAL))
    values["SAVEDATA_FILE_LIST"] = b"".join(name.encode("ascii", "replace")[:12].ljust(FILE_LIST_ENTRY, b"\0")
                                            for name in secure_names)
    values["SAVEDATA_PARAMS"] = bytes([protection]) if protection else b""
    return _sfo_bytes(values)


def _sfo_bytes(values: dict) -> bytes:
    """Header, index, key table, then each value padded to its field's reserved size."""
    keys = b"".join(name.encode() + b"\0" for name, _, _ in SFO_FIELDS)
    keys += b"\0" * (-len(keys) % 4)
    index, table, key_off = b"", b"", 0
    for name, fmt, reserved in SFO_FIELDS:
        raw = values[name][:reserved]
        # binary fields always count their whole reservation as used, as the firmware writes them
        used = reserved if fmt == SFO_BINARY else len(raw)
        index += struct.pack("<HHIII", key_off, fmt, used, reserved, len(table))
        table += raw.ljust(reserved, b"\0")
        key_off += len(name) + 1
    key_start = 20 + len(index)
    header = struct.pack("<4sIIII", b"\0PSF", 0x101, key_start, key_start + len(keys), len(SFO_FIELDS))
    return header + index + keys + table


def _sfo_raw_values(data: bytes) -> dict:
    """{key: raw value bytes} of an SFO (binary fields included); {} when it is not one."""
    if len(data) < 20 or data[:4] != b"\0PSF":
        return {}
    _, _, key_start, data_start, count = struct.unpack_from("<4sIIII", data)
    values = {}
    for i in range(min(count, (len(data) - 20) // 16)):
        key_off, _, used, _, data_off = struct.unpack_from("<HHIII", data, 20 + 16 * i)
        end = data.find(b"\0", key_start + key_off)
        values[data[key_start + key_off:end].decode("latin-1")] = data[data_start + data_off:data_start + data_off + used]
    return values


def _sfo_value(k, folder: str, key: str) -> bytes:
    """The raw value of `key` in a save's PARAM.SFO; b"" when there is none."""
    host = _host(k, f"{folder}/{SFO_NAME}")
    if host is None or not os.path.isfile(host):
        return b""
    with open(host, "rb") as f:
        return _sfo_raw_values(f.read()).get(key, b"")


def secure_files(k, folder: str) -> set:
    """The names a save's PARAM.SFO lists in SAVEDATA_FILE_LIST (its secure files)."""
    listed = _sfo_value(k, folder, "SAVEDATA_FILE_LIST")
    names = (listed[i:i + 13].split(b"\0", 1)[0] for i in range(0, len(listed), FILE_LIST_ENTRY))
    return {n.decode("latin-1") for n in names if n}


SYSTEM_FILES = {SFO_NAME, *FILE_DATA, "ICON1.PNG"}
FILE_ENTRY_SIZE = 80  # SceUtilitySavedataFileListEntry: mode, attr, size, three times, name[16]


def list_files(k, params: int, folder: str) -> int:
    """FILES: the save's files split into secure (listed in the SFO), normal and system ones.
    Folders and names with lower case are not listed; st_attr is left as the caller set it."""
    m = k.memory
    info = m.read_u32(params + FILE_LIST)
    found = _resolved(k, folder)
    folder_host = found.host if found is not None else None
    if folder_host is None or not os.path.isdir(folder_host):
        return codes.signed(codes.SAVEDATA_RW_NO_DATA)
    if not os.path.isfile(os.path.join(folder_host, SFO_NAME)):
        return codes.signed(codes.SAVEDATA_RW_DATA_BROKEN)
    m.write_u32(params + BIND, FILES_BIND)
    if not info:
        return 0
    secure = secure_files(k, folder)
    groups = {"secure": [], "normal": [], "system": []}
    for name in found.listing()[0]:
        host = os.path.join(folder_host, name)
        if os.path.isdir(host) or name != name.upper():
            continue
        kind = "system" if name in SYSTEM_FILES else "secure" if name in secure else "normal"
        groups[kind].append((name, stat_bytes(os.stat(host))))
    for slot, kind in enumerate(("secure", "normal", "system")):
        limit, table = m.read_u32(info + 4 * slot), m.read_u32(info + 24 + 4 * slot)
        shown = groups[kind][:limit] if table else []
        for i, (name, stat) in enumerate(shown):
            entry = table + FILE_ENTRY_SIZE * i
            m.write(entry, stat[:4])
            m.write(entry + 8, stat[8:64] + name.encode("latin-1")[:15].ljust(16, b"\0"))
        m.write_u32(info + 12 + 4 * slot, len(shown))
    return 0
