"""sceUtilitySavedata: a save lands in the --ms0 folder with a PARAM.SFO the loader's reader
parses, a load brings the bytes back, deletes remove them, and unbuilt modes stop the run."""

import io
import os

import pytest

from allegrex.hle import codes, savedata
from allegrex.hle.kernel import RunOptions
from helpers import call, make_kernel
from loader.sfo import read_sfo

PARAMS, DATA, LOADED = 0x08A10000, 0x08A20000, 0x08A30000
PAYLOAD = bytes(range(1, 17))


def _params(k, mode, data_addr, size, file_name=b"DATA.BIN"):
    m = k.memory
    m.write(PARAMS, bytes(1536))
    m.write_u32(PARAMS, 1536)
    m.write_u32(PARAMS + savedata.MODE, mode)
    for offset, text in ((savedata.GAME_NAME, b"TEST99901"), (savedata.SAVE_NAME, b"ABC"),
                         (savedata.FILE_NAME, file_name), (savedata.SFO_TITLE, b"pspautotests"),
                         (savedata.SFO_SAVEDATA_TITLE, b"a test save"), (savedata.SFO_DETAIL, b"detail")):
        m.write(PARAMS + offset, text + b"\0")
    m.write(PARAMS + savedata.KEY, bytes(range(1, 17)))  # a game's key, as pspautotests give
    m.write_u32(PARAMS + savedata.DATA_BUF, data_addr)
    m.write_u32(PARAMS + savedata.DATA_BUF_SIZE, size)
    m.write_u32(PARAMS + savedata.DATA_SIZE, size)


def _run(k, mode, data_addr, size, file_name=b"DATA.BIN"):
    """The dialog loop a program runs; the statuses seen and the result it stores."""
    _params(k, mode, data_addr, size, file_name)
    seen = [call(k, "sceUtility", "sceUtilitySavedataInitStart", PARAMS)]
    seen += [call(k, "sceUtility", "sceUtilitySavedataGetStatus") for _ in range(2)]
    seen.append(call(k, "sceUtility", "sceUtilitySavedataUpdate", 1))
    seen.append(call(k, "sceUtility", "sceUtilitySavedataGetStatus"))
    seen.append(call(k, "sceUtility", "sceUtilitySavedataShutdownStart"))
    seen += [call(k, "sceUtility", "sceUtilitySavedataGetStatus") for _ in range(2)]
    assert seen == [0, 1, 2, 0, 3, 0, 4, 0]
    return k.memory.read_u32(PARAMS + savedata.RESULT)


@pytest.fixture
def kernel(tmp_path):
    return make_kernel(RunOptions(ms0=str(tmp_path))), tmp_path


def test_save_then_load_round_trips_through_the_host_folder(kernel):
    k, ms0 = kernel
    k.memory.write(DATA, PAYLOAD)
    assert _run(k, savedata.AUTOSAVE, DATA, len(PAYLOAD)) == 0
    folder = ms0 / "PSP" / "SAVEDATA" / "TEST99901ABC"
    assert (folder / "DATA.BIN").read_bytes() == PAYLOAD
    sfo = read_sfo((folder / "PARAM.SFO").read_bytes())
    assert sfo["CATEGORY"] == "MS" and sfo["SAVEDATA_DIRECTORY"] == "TEST99901ABC"
    assert sfo["TITLE"] == "pspautotests" and sfo["SAVEDATA_TITLE"] == "a test save"
    assert sfo["SAVEDATA_DETAIL"] == "detail" and sfo["PARENTAL_LEVEL"] == 0
    assert sfo["SAVEDATA_FILE_LIST"] == "DATA.BIN"  # the first 32-byte entry names the data file
    assert _run(k, savedata.AUTOLOAD, LOADED, 64) == 0
    assert k.memory.read(LOADED, len(PAYLOAD)) == PAYLOAD
    assert k.memory.read_u32(PARAMS + savedata.DATA_SIZE) == len(PAYLOAD)


def test_load_without_a_file_name_leaves_the_buffer(kernel):
    k, _ = kernel
    k.memory.write(DATA, PAYLOAD)
    _run(k, savedata.MAKEDATA, DATA, len(PAYLOAD))
    k.memory.write(LOADED, b"kept")
    assert _run(k, savedata.AUTOLOAD, LOADED, 64, file_name=b"") == 0
    assert k.memory.read(LOADED, 4) == b"kept"


def test_load_of_a_missing_save_reports_no_data(kernel):
    k, _ = kernel
    assert _run(k, savedata.AUTOLOAD, LOADED, 64) == codes.SAVEDATA_LOAD_NO_DATA
    assert _run(k, savedata.READDATA, LOADED, 64) == codes.SAVEDATA_RW_NO_DATA


def test_delete_removes_the_save_folder(kernel):
    k, ms0 = kernel
    k.memory.write(DATA, PAYLOAD)
    _run(k, savedata.MAKEDATA, DATA, len(PAYLOAD))
    assert _run(k, savedata.AUTODELETE, DATA, 0) == 0
    assert not (ms0 / "PSP" / "SAVEDATA" / "TEST99901ABC").exists()
    assert _run(k, savedata.AUTODELETE, DATA, 0) == codes.SAVEDATA_DELETE_NO_DATA


def test_an_unknown_mode_stops_with_its_number(kernel):
    k, _ = kernel
    _params(k, 23, DATA, 0)
    call(k, "sceUtility", "sceUtilitySavedataInitStart", PARAMS)
    assert k.stop.kind == "unsupported"
    assert "unknown mode 23" in k.stop.message


def _name_list(k, names):
    """A saveNameList of 20-byte entries ending with an empty one, placed after LOADED."""
    table = LOADED + 0x100
    k.memory.write(table, b"".join(n.ljust(20, b"\0") for n in names + [b""]))
    return table


def _make_saves(k, names):
    k.memory.write(DATA, PAYLOAD)
    for name in names:
        _params(k, savedata.MAKEDATASECURE, DATA, len(PAYLOAD))
        k.memory.write(PARAMS + savedata.SAVE_NAME, name + b"\0")
        _run_prepared(k)


def _run_prepared(k):
    for fn, arg in (("InitStart", PARAMS), ("GetStatus", None), ("GetStatus", None), ("Update", 1),
                    ("GetStatus", None), ("ShutdownStart", None), ("GetStatus", None), ("GetStatus", None)):
        call(k, "sceUtility", f"sceUtilitySavedata{fn}", *([] if arg is None else [arg]))
    return k.memory.read_u32(PARAMS + savedata.RESULT)


def _list_request(k, mode, names, focus, save_name=b"ABC"):
    _params(k, mode, LOADED, 64)
    k.memory.write(PARAMS + savedata.SAVE_NAME, save_name.ljust(20, b"\0"))
    k.memory.write_u32(PARAMS + savedata.savedata_list.SAVE_NAME_LIST, _name_list(k, names))
    k.memory.write_u32(PARAMS + savedata.savedata_list.FOCUS, focus)
    return _run_prepared(k)


def test_list_load_takes_the_focused_save_and_writes_its_name_back(kernel):
    k, _ = kernel
    _make_saves(k, [b"F1", b"M2"])
    names = [b"ABC", b"F1", b"M2", b"L3"]
    assert _list_request(k, savedata.LISTLOAD, names, focus=6, save_name=b"") == 0  # last with data
    assert k.memory.read(PARAMS + savedata.SAVE_NAME, 3) == b"M2\0"
    assert k.memory.read(LOADED, len(PAYLOAD)) == PAYLOAD
    assert _list_request(k, savedata.LISTLOAD, [b"ABC", b"L3"], focus=0) == codes.SAVEDATA_LOAD_NO_DATA


def test_list_save_writes_the_first_empty_slot_when_focused_there(kernel):
    k, ms0 = kernel
    _make_saves(k, [b"ABC"])
    k.memory.write(LOADED, PAYLOAD)
    assert _list_request(k, savedata.LISTSAVE, [b"ABC", b"F1", b"M2"], focus=7) == 0
    assert (ms0 / "PSP" / "SAVEDATA" / "TEST99901F1" / "DATA.BIN").read_bytes()[:16] == PAYLOAD


def test_list_delete_removes_one_save_and_reports_an_emptied_list(kernel):
    k, ms0 = kernel
    _make_saves(k, [b"ABC", b"F1"])
    root = ms0 / "PSP" / "SAVEDATA"
    assert _list_request(k, savedata.LISTDELETE, [b"ABC", b"F1"], focus=1) == savedata.RESULT_CANCELLED
    assert not (root / "TEST99901ABC").exists() and (root / "TEST99901F1").exists()
    assert _list_request(k, savedata.LISTDELETE, [b"ABC", b"F1"], focus=1) == codes.SAVEDATA_DELETE_NO_DATA
    assert not (root / "TEST99901F1").exists()


def test_list_all_delete_removes_every_listed_save(kernel):
    k, ms0 = kernel
    _make_saves(k, [b"ABC", b"F1", b"Z9"])
    root = ms0 / "PSP" / "SAVEDATA"
    assert _list_request(k, savedata.LISTALLDELETE, [b"ABC", b"F1"], focus=0) == savedata.RESULT_CANCELLED
    assert sorted(p.name for p in root.iterdir()) == ["TEST99901Z9"]


def test_secure_version_picks_the_protection_mode_and_loads_need_the_same(kernel):
    from allegrex.hle import savedata_secure
    k, ms0 = kernel
    k.sdk_version = 0x06060010
    k.memory.write(DATA, PAYLOAD)
    _params(k, savedata.AUTOSAVE, DATA, len(PAYLOAD))
    k.memory.write_u32(PARAMS + savedata_secure.VERSION, 2)
    assert _run_prepared(k) == 0
    assert savedata._sfo_value(k, "ms0:/PSP/SAVEDATA/TEST99901ABC", "SAVEDATA_PARAMS")[:1] == b"\x21"
    for version, expected in ((2, 0), (3, codes.SAVEDATA_LOAD_DATA_BROKEN), (4, codes.SAVEDATA_LOAD_PARAM)):
        _params(k, savedata.AUTOLOAD, LOADED, 64)
        k.memory.write_u32(PARAMS + savedata_secure.VERSION, version)
        assert _run_prepared(k) == expected
    _params(k, savedata.AUTOSAVE, DATA, len(PAYLOAD))
    k.memory.write(PARAMS + savedata.KEY, bytes(16))  # no key: only version 1 may save
    assert _run_prepared(k) == codes.SAVEDATA_SAVE_PARAM


def test_load_errors_follow_the_firmware_order(kernel):
    k, ms0 = kernel
    folder = ms0 / "PSP" / "SAVEDATA" / "TEST99901ABC"
    _make_saves(k, [b"ABC"])
    (folder / "DATA.BIN").unlink()
    assert _run(k, savedata.LOAD, LOADED, 64) == codes.SAVEDATA_LOAD_FILE_NOT_FOUND
    assert _run(k, savedata.READDATA, LOADED, 64) == codes.SAVEDATA_RW_FILE_NOT_FOUND
    (folder / "PARAM.SFO").unlink()
    assert _run(k, savedata.LOAD, LOADED, 64) == codes.SAVEDATA_LOAD_DATA_BROKEN
    assert _run(k, savedata.ERASE, LOADED, 64) == codes.SAVEDATA_RW_DATA_BROKEN


def test_secure_writes_join_the_sfo_file_list_and_plain_writes_do_not(kernel):
    k, ms0 = kernel
    k.memory.write(DATA, PAYLOAD)
    _run(k, savedata.MAKEDATASECURE, DATA, len(PAYLOAD))
    _run(k, savedata.WRITEDATA, DATA, len(PAYLOAD), file_name=b"OTHER.BIN")
    folder = ms0 / "PSP" / "SAVEDATA" / "TEST99901ABC"
    assert (folder / "OTHER.BIN").read_bytes() == PAYLOAD
    assert savedata.secure_files(k, "ms0:/PSP/SAVEDATA/TEST99901ABC") == {"DATA.BIN"}


def test_size_strings_round_down_to_whole_units():
    from allegrex.hle.savedata_query import size_text
    assert [size_text(kb) for kb in (96, 1023, 1024, 0xFFFFFB)] == [b"96 KB", b"1023 KB", b"1 MB", b"15 GB"]


def _list_ids(k, pattern: bytes, info=0x08A40000, entries=0x08A40100):
    """A LIST request for `pattern` run through its first Update: (the first entry's name
    and mode words, the info block's address)."""
    k.memory.write_u32(info, 10)
    k.memory.write_u32(info + 4, 0xFFFFFFFF)
    k.memory.write_u32(info + 8, entries)
    _params(k, savedata.LIST, DATA, 0)
    k.memory.write(PARAMS + savedata.SAVE_NAME, pattern + b"\0")
    k.memory.write_u32(PARAMS + 1524, info)
    call(k, "sceUtility", "sceUtilitySavedataInitStart", PARAMS)
    call(k, "sceUtility", "sceUtilitySavedataGetStatus")
    call(k, "sceUtility", "sceUtilitySavedataGetStatus")
    call(k, "sceUtility", "sceUtilitySavedataUpdate", 1)
    return k.memory.read(entries + 52, 4), k.memory.read_u32(entries), info


def test_list_matches_wildcards_and_reports_entries_then_count(kernel):
    k, _ = kernel
    k.memory.write(DATA, PAYLOAD)
    _run(k, savedata.MAKEDATA, DATA, len(PAYLOAD))
    name, mode, info = _list_ids(k, b"A?C")
    assert name == b"ABC\0" and mode == 0x11FF
    assert k.memory.read_u32(info + 4) == 0xFFFFFFFF  # the count comes with the next Update
    call(k, "sceUtility", "sceUtilitySavedataUpdate", 1)
    assert k.memory.read_u32(info + 4) == 1
    assert call(k, "sceUtility", "sceUtilitySavedataGetStatus") == 3


def test_saves_that_are_symbolic_links_leading_outside_are_not_listed(tmp_path):
    """As in a directory listing (tests/hle/test_sandbox.py), a save folder that leads
    outside the mapped folder is left out: LIST neither counts nor shows it."""
    ms0, outside = tmp_path / "ms0", tmp_path / "elsewhere"
    ms0.mkdir()
    outside.mkdir()
    k = make_kernel(RunOptions(ms0=str(ms0), stderr=io.StringIO()))
    k.memory.write(DATA, PAYLOAD)
    _run(k, savedata.MAKEDATA, DATA, len(PAYLOAD))
    os.symlink(outside, ms0 / "PSP" / "SAVEDATA" / "TEST99901ABD")
    name, _, info = _list_ids(k, b"AB?")
    call(k, "sceUtility", "sceUtilitySavedataUpdate", 1)
    assert name == b"ABC\0" and k.memory.read_u32(info + 4) == 1
