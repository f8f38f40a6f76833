"""The sceUtilitySavedata modes that only look: LIST (saves matching a name pattern), SIZES
(free space, an existing save's size, the size a save would take) and GETSIZE (free space).
Sizes count 32 KiB clusters as the memory stick's FAT does: one for the save's folder and
each file rounded up (measured: utility/savedata/sizes)."""

import fnmatch
import os

from allegrex.hle import codes
from allegrex.hle.io import stat_bytes
from allegrex.hle.kernel import HleStop
from allegrex.hle.registry import read_cstr

CLUSTER = 0x8000
# what the firmware reports for a stick with more free space than it counts (measured:
# utility/savedata/sizes and getsize); the simulated stick is larger (io.MS_FREE_CLUSTERS)
FREE_CLUSTERS, FREE_KB = 0x7FFFF, 0xFFFFFB
MS_FREE, MS_DATA, UTILITY_DATA, ID_LIST, SIZE_INFO = 1488, 1492, 1496, 1524, 1532
ID_ENTRY_SIZE = 72  # SceUtilitySavedataIdListEntry: st_mode, three times, name[20]


def size_text(kb: int) -> bytes:
    """The firmware's short size string: whole KB, MB or GB, rounded down."""
    for unit, scale in (("GB", 1 << 20), ("MB", 1 << 10)):
        if kb >= scale:
            return f"{kb // scale} {unit}".encode()
    return f"{kb} KB".encode()


def _clusters(nbytes: int) -> int:
    return -(-nbytes // CLUSTER)


def folder_clusters(folder) -> int:
    """Clusters a save folder (sandbox.Resolved) holds: the folder's own plus its files'."""
    paths = [os.path.join(folder.host, n) for n in folder.listing()[0]]
    return 1 + sum(_clusters(os.path.getsize(p)) for p in paths if os.path.isfile(p))


def _write_text(m, addr: int, text: bytes, size: int = 8) -> None:
    m.write(addr, text[:size - 1].ljust(size, b"\0"))


def _write_used(m, info: int, clusters: int) -> None:
    """SceUtilitySavedataUsedDataInfo: clusters, KB and its string, twice (32 KiB units)."""
    kb = clusters * CLUSTER // 1024
    m.write_u32(info, clusters)
    for offset in (4, 16):
        m.write_u32(info + offset, kb)
        _write_text(m, info + offset + 4, size_text(kb))


def sizes_free_and_planned(k, params: int, planned_bytes: list) -> None:
    """SIZES, first part: the stick's free space and the size this request's save would take."""
    m = k.memory
    free, utility = m.read_u32(params + MS_FREE), m.read_u32(params + UTILITY_DATA)
    if free:
        for offset, value in ((0, CLUSTER), (4, FREE_CLUSTERS), (8, FREE_KB)):
            m.write_u32(free + offset, value)
        _write_text(m, free + 12, size_text(FREE_KB))
    if utility:  # the save this request would write: its folder, its files and PARAM.SFO
        _write_used(m, utility, 1 + sum(_clusters(n) for n in planned_bytes))


def sizes_existing(k, params: int, resolve) -> int:
    """SIZES, second part: the size of the existing save msData names."""
    m = k.memory
    data = m.read_u32(params + MS_DATA)
    if data:
        name = read_cstr(m, data, 16) + read_cstr(m, data + 16, 20)
        folder = resolve("ms0:/PSP/SAVEDATA/" + name)
        if folder is None or not os.path.isdir(folder.host):
            return codes.signed(codes.SAVEDATA_SIZES_NO_DATA)
        _write_used(m, data + 36, folder_clusters(folder))
    return 0


def getsize(k, params: int) -> int:
    m = k.memory
    info = m.read_u32(params + SIZE_INFO)
    if not info:
        return 0
    if m.read_u32(info) or m.read_u32(info + 4):
        raise HleStop("unsupported", "sceUtilitySavedata GETSIZE with size entries is not implemented "
                      "(only the free space is reported)")
    for offset, value in ((16, CLUSTER), (20, FREE_CLUSTERS), (24, FREE_KB)):
        m.write_u32(info + offset, value)
    _write_text(m, info + 28, size_text(FREE_KB))
    return 0


def list_ids(k, params: int, root, game: str, pattern: str, count_only: bool) -> None:
    """LIST: the saves of this game in `root` (the SAVEDATA folder, sandbox.Resolved, or None)
    whose name matches `pattern` (? one character, * any):
    their entries, or (count_only) how many there are."""
    m = k.memory
    info = m.read_u32(params + ID_LIST)
    found = []
    if root is not None and os.path.isdir(root.host):
        wanted = (game + (pattern or "*")).upper()
        found = [n for n in root.listing()[0]
                 if os.path.isdir(os.path.join(root.host, n)) and fnmatch.fnmatchcase(n.upper(), wanted)]
    if not info:
        return
    table = m.read_u32(info + 8)
    shown = found[:m.read_u32(info)] if table else []
    if count_only:
        m.write_u32(info + 4, len(shown))
        return
    for i, name in enumerate(shown):
        stat = stat_bytes(os.stat(os.path.join(root.host, name)))
        entry = table + ID_ENTRY_SIZE * i
        m.write(entry, stat[:4] + stat[16:64])
        _write_text(m, entry + 52, name[len(game):].encode("latin-1"), 20)
