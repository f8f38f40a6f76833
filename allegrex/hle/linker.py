"""Linking import stubs as the PSP's module loader (LoadCore) does.

Each stub of an import table ends as one of:
- an HLE function: `jr ra; syscall n` (the firmware's own libraries);
- a function a started module exports: `j addr; nop` (user libraries: registered when
  their module starts, withdrawn when it stops);
- not linked: on the PSP `syscall 0x15; nop`, which returns LIBRARY_IS_NOT_LINKED to the
  caller; here `jr ra; syscall n` with the same answer. A stub waits so for a library no
  started module exports yet (it is linked when one starts) or for a NID its library lacks;
- an unknown import: a firmware library function allegrex does not provide; calling it
  stops the run with a message naming it.
Stub entries are linked in table order, each writing all the stubs it declares, so where
entries overlap the later one decides (loader.module.stub_owners).
"""

from dataclasses import dataclass

from loader.nids import known_library, libraries_naming

from allegrex.hle import codes, registry

JR_RA = 0x03E00008
NOP = 0
LIBRARY_IS_NOT_LINKED = codes.LIBRARY_IS_NOT_LINKED


def jump_word(addr: int) -> int:
    return 0x08000000 | ((addr >> 2) & 0x03FFFFFF)


@dataclass
class ModuleStub:
    """A stub importing from a user library: linked to a module's function or not."""

    library: str
    nid: int
    name: str | None
    stub_addr: int
    syscall_word: int  # what the stub calls while it is not linked
    why: str = "before a module exporting it started"  # said when a not-linked stub is called

    def describe(self) -> str:
        return f"{self.library} 0x{self.nid:08X} ({self.name or 'unknown name'})"


# Codec and media libraries: decoding sound, video and pictures is outside allegrex's scope
# (docs/hle-libraries.md, "Not there"); a call to one stops the run saying so.
MEDIA_LIBRARIES = frozenset({"sceMpeg", "sceMpegbase", "scePsmf", "scePsmfPlayer", "sceAtrac3plus", "sceMp3",
                             "sceAac", "sceMp4", "sceAudiocodec", "sceVideocodec", "sceJpeg", "sceSasCore",
                             "sceLibFont"})


def is_firmware_library(library: str) -> bool:
    """A library of the PSP's firmware (one allegrex emulates or the NID list names), as
    opposed to one a program's own module exports."""
    return registry.has_library(library) or known_library(library)


def exported_elsewhere(library: str, nid: int) -> str | None:
    """'Library.function' when the NID is a function of another firmware library and not
    one of `library`'s: the firmware's library does not export it, so LoadCore leaves
    the stub not linked (an entry that declares more functions than its own runs into
    NIDs that are not its library's). None when the NID may be this library's."""
    named = libraries_naming(nid)
    if not named or library in named:
        return None
    other = min(named, key=lambda name: ("ForKernel" in name or "_driver" in name, name))  # a user library first
    return f"{other}.{named[other]}"


class Linker:
    """The user libraries started modules export, and every stub that imports from one."""

    def __init__(self, memory):
        self.memory = memory
        self.libraries: dict[str, dict[int, int]] = {}  # library -> {nid: function address}
        self.owners: dict[str, object] = {}  # library -> the module that registered it
        self.stubs: dict[int, ModuleStub] = {}  # stub address -> its import

    def write(self, stub: ModuleStub) -> bool:
        """Link the stub if its library exports its NID now, else leave it not linked;
        True when linked."""
        target = self.libraries.get(stub.library, {}).get(stub.nid)
        if target is None:
            words = (JR_RA, stub.syscall_word)
        else:
            words = (jump_word(target), NOP)
        self.memory.write_u32(stub.stub_addr, words[0])
        self.memory.write_u32(stub.stub_addr + 4, words[1])
        return target is not None

    def add(self, stub: ModuleStub) -> bool:
        self.stubs[stub.stub_addr] = stub
        return self.write(stub)

    def register(self, module, exports) -> None:
        """A starting module's named libraries become linkable; the stubs importing them
        are linked now (a library already registered keeps its first exporter)."""
        names = set()
        for lib in exports:
            if lib.name is None or lib.name in self.libraries:
                continue
            self.libraries[lib.name] = {e.nid: e.addr for e in lib.functions}
            self.owners[lib.name] = module
            names.add(lib.name)
        self._rewrite(names)

    def release(self, module) -> None:
        """A stopped module's libraries go; the stubs that jumped into them are not linked."""
        names = {name for name, owner in self.owners.items() if owner is module}
        for name in names:
            del self.libraries[name], self.owners[name]
        self._rewrite(names)

    def _rewrite(self, names: set) -> None:
        for stub in self.stubs.values():
            if stub.library in names:
                self.write(stub)

    def forget(self, low: int, high: int) -> None:
        """An unloaded module's own stubs are gone with its memory."""
        for addr in [a for a in self.stubs if low <= a < high]:
            del self.stubs[addr]

    def unlinked(self) -> list[ModuleStub]:
        return [s for s in self.stubs.values()
                if s.nid not in self.libraries.get(s.library, {})]
