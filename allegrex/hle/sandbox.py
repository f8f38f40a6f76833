"""Guest paths to host paths, confined to the mapped folders.

A guest path is `device:/a/b` or relative to the current directory. Devices map to
host folders (ms0:/ -> --ms0, host0:/ -> --host0), and a mount can sit on a deeper guest
prefix (ms0:/PSP/GAME/<NAME> -> the program's own folder). Anything that would leave the
folder it maps into (a `..` above the device root, a symlink pointing outside, an
unmapped device) is refused with a SandboxRefusal that names the path; a listing leaves
out a symbolic link that points outside (Resolved.listing), so nothing there is seen.

As on the memory stick's FAT file system, names match whatever their case; a path with
no device joins the current directory even when it starts with "/" (measured: io/io).
Without --ms0 the stick still has the folders a PSP makes (PSP, PSP/GAME, PSP/SAVEDATA)
and those on the way to the program's folder: empty, listed but holding nothing.
"""

import os
from dataclasses import dataclass

from allegrex.errors import AllegrexError

DEVICE_ALIASES = {"fatms0": "ms0", "ms": "ms0", "fatms": "ms0"}


class SandboxRefusal(AllegrexError):
    def __init__(self, path: str, why: str):
        self.path = path
        self.why = why
        super().__init__(f"refused guest path {path!r}: {why}")


class UnknownDevice(AllegrexError):
    pass


class Unmapped(AllegrexError):
    """A path on a known device outside every mounted folder (e.g. ms0:/ without --ms0)."""


@dataclass
class Resolved:
    guest: str  # normalised guest path, e.g. ms0:/PSP/GAME/HELLO/data.txt
    device: str
    host: str  # absolute host path inside a mapped folder
    root: str  # that mapped folder

    def listing(self) -> tuple[list[str], list[str]]:
        """The names in this folder, sorted: (those inside the mapped folder, symbolic links
        that lead outside it). A listing leaves the latter out, as if absent: what they
        point at stays unseen, and opening them is refused anyway."""
        inside, outside = [], []
        for name in sorted(os.listdir(self.host)):
            real = os.path.realpath(os.path.join(self.host, name))
            (inside if _inside(self.root, real) else outside).append(name)
        return inside, outside


def _inside(root: str, real: str) -> bool:
    return real == root or real.startswith(root + os.sep)


def split_device(path: str):
    """('ms0', '/a/b') for 'ms0:/a/b', (None, path) when there is no device prefix."""
    colon = path.find(":")
    slash = path.find("/")
    if colon > 0 and (slash < 0 or colon < slash):
        dev = path[:colon].lower()
        # devices are a name plus an optional unit number, e.g. ms0, host0, fatms0
        return DEVICE_ALIASES.get(dev, dev), path[colon + 1:]
    return None, path


class Sandbox:
    def __init__(self):
        self.mounts: list[tuple[str, tuple, str]] = []  # (device, guest parts prefix, host root)

    def mount(self, device: str, guest_prefix: str, host_root: str) -> None:
        parts = tuple(p for p in guest_prefix.split("/") if p)
        root = os.path.realpath(host_root)
        self.mounts.append((device, parts, root))
        self.mounts.sort(key=lambda m: -len(m[1]))

    def has_device(self, device: str) -> bool:
        return any(m[0] == device for m in self.mounts)

    def normalise(self, path: str, cwd: str) -> tuple[str, list[str]]:
        device, rest = split_device(path)
        if device is None:
            if not cwd:
                raise SandboxRefusal(path, "relative path and no current directory")
            cdev, crest = split_device(cwd)
            device = cdev
            rest = crest.rstrip("/") + "/" + rest  # even "/x": the firmware joins it to the cwd (io/io)
        parts: list[str] = []
        for part in rest.replace("\\", "/").split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    raise SandboxRefusal(path, "'..' climbs above the device root")
                parts.pop()
                continue
            parts.append(part)
        return device, parts

    def resolve(self, path: str, cwd: str) -> Resolved:
        device, parts = self.normalise(path, cwd)
        for mdev, prefix, root in self.mounts:
            if mdev != device or _folded(parts[:len(prefix)]) != _folded(prefix):
                continue
            host = _existing_case(root, parts[len(prefix):])
            real = os.path.realpath(host)
            if not _inside(root, real):
                raise SandboxRefusal(path, "it resolves outside the mapped folder (symbolic link)")
            return Resolved(f"{device}:/" + "/".join(parts), device, real, root)
        if self.has_device(device):
            raise Unmapped(f"{device}:/{'/'.join(parts)}")
        raise UnknownDevice(f"device {device}: is not mapped")

    def virtual_folder(self, path: str, cwd: str) -> tuple[str, list[str]] | None:
        """(guest path, child names) when `path` is a folder of the memory stick outside
        every mapped host folder: a folder every PSP-formatted stick has, or one on the
        way to a mount (ms0:/PSP/GAME above the program's own folder). None otherwise."""
        device, parts = self.normalise(path, cwd)
        if device != "ms0" or any(m[0] == "ms0" and not m[1] for m in self.mounts):
            return None
        here = _folded(parts)
        prefixes = [p for _, p, _ in (m for m in self.mounts if m[0] == "ms0")] + list(MEMSTICK_FOLDERS)
        children = {p[len(parts)] for p in prefixes if len(p) > len(parts) and _folded(p[:len(parts)]) == here}
        if not children and here not in {_folded(p) for p in MEMSTICK_FOLDERS} and parts:
            return None
        return "ms0:/" + "/".join(parts), sorted(children)


# the folders a PSP makes when it formats a memory stick, which programs count on
MEMSTICK_FOLDERS = (("PSP",), ("PSP", "GAME"), ("PSP", "SAVEDATA"))


def _folded(parts) -> tuple:
    return tuple(p.lower() for p in parts)


def _existing_case(root: str, parts: list[str]) -> str:
    """Host path of `parts` under `root`, matching each existing component whatever its
    case (the memory stick's FAT file system ignores case); missing ones kept as given."""
    host = root
    for i, part in enumerate(parts):
        exact = os.path.join(host, part)
        if os.path.lexists(exact):
            host = exact
            continue
        try:
            match = next((n for n in sorted(os.listdir(host)) if n.lower() == part.lower()), None)
        except OSError:
            match = None
        if match is None:
            return os.path.join(host, *parts[i:])
        host = os.path.join(host, match)
    return host
