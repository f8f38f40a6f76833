"""Which save a savedata list dialog (LISTLOAD, LISTSAVE, LISTDELETE) picks headlessly: the
one the firmware puts the cursor on first, chosen by the param block's `focus` among the
names of saveNameList (or saveName alone when there is no list). The user "presses OK" on it.

focus: 0 saveName, 1/2 first/last listed, 3/4 newest/oldest existing save, 5/6 first/last
existing save, 7/8 first/last name with no save yet (values from pspsdk's PspUtilitySavedataFocus)."""

import os

from allegrex.hle.registry import read_cstr

SAVE_NAME, SAVE_NAME_LIST, FOCUS = 76, 96, 1480
NAME_SIZE, MAX_NAMES = 20, 100
FOCUS_NAME, FIRST_LIST, LAST_LIST, LATEST, OLDEST, FIRST_DATA, LAST_DATA, FIRST_EMPTY, LAST_EMPTY = range(9)


def listed_names(m, params: int) -> list:
    """saveNameList up to its empty entry; just saveName when the list pointer is null."""
    table = m.read_u32(params + SAVE_NAME_LIST)
    if not table:
        return [read_cstr(m, params + SAVE_NAME, NAME_SIZE)]
    names = []
    for i in range(MAX_NAMES):
        name = read_cstr(m, table + NAME_SIZE * i, NAME_SIZE)
        if not name:
            break
        names.append(name)
    return names


def choose(m, params: int, names: list, mtime_of) -> str | None:
    """The focused name among `names`; mtime_of(name) is the save's time or None when it has
    no save. None when there is nothing to choose."""
    if not names:
        return None
    focus = m.read_u32(params + FOCUS)
    saved = [n for n in names if mtime_of(n) is not None]
    empty = [n for n in names if mtime_of(n) is None]
    if focus == FOCUS_NAME:
        wanted = read_cstr(m, params + SAVE_NAME, NAME_SIZE)
        return wanted if wanted in names else names[0]
    picks = {FIRST_LIST: names[:1], LAST_LIST: names[-1:], FIRST_DATA: saved[:1], LAST_DATA: saved[-1:],
             FIRST_EMPTY: empty[:1], LAST_EMPTY: empty[-1:],
             LATEST: sorted(saved, key=mtime_of)[-1:], OLDEST: sorted(saved, key=mtime_of)[:1]}
    return (picks.get(focus) or names[:1])[0]  # no such save: the cursor stays on the first


def mtime_in(folder_host_of):
    """mtime_of for choose(): a save's folder modification time, None when it is absent."""
    def mtime_of(name):
        host = folder_host_of(name)
        return os.path.getmtime(host) if host is not None and os.path.isdir(host) else None
    return mtime_of
