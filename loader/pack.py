"""ELF -> EBOOT.PBP: wrap an executable with a generated PARAM.SFO (title, MEMSIZE)."""

from __future__ import annotations

from loader.load import load_elf
from loader.pbp import write_pbp
from loader.sfo import homebrew_sfo, write_sfo

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def pack_eboot(elf_bytes: bytes, title: str, large_memory: bool = False, icon0: bytes | None = None) -> bytes:
    """An EBOOT.PBP holding elf_bytes as DATA.PSP. large_memory sets MEMSIZE=1 (the
    64 MiB layout of later models); icon0 is an optional PNG for the XMB."""
    load_elf(bytes(elf_bytes), what="DATA.PSP")  # refuse to pack what the loader would reject
    if icon0 is not None and not icon0.startswith(PNG_MAGIC):
        raise ValueError("icon0 must be a PNG image")
    sections = {"PARAM.SFO": write_sfo(homebrew_sfo(title, large_memory)), "DATA.PSP": bytes(elf_bytes)}
    if icon0:
        sections["ICON0.PNG"] = icon0
    return write_pbp(sections)
