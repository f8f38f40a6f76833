"""Keep numba's on-disk cache honest for this package.

numba keys a cached kernel on its own source file only, so a kernel that calls into
another module (execute -> vector_op, load_store -> allegrex.memory.translate) would keep
stale machine code after that module changes. On import we fingerprint every vfpu/*.py
and the allegrex modules the kernels compile in, and drop the package's cached kernels
when the fingerprint moved."""

import hashlib
from pathlib import Path

PKG = Path(__file__).resolve().parent
COMPILED_IN = ("allegrex/memory.py", "allegrex/cpu/events.py")  # outside vfpu/, inlined into its kernels


def refresh() -> None:
    cache = PKG / "__pycache__"
    digest = hashlib.sha1()
    sources = sorted(p for p in PKG.glob("*.py") if not p.name.startswith("lab"))  # lab*: never compiled
    for src in sources + [PKG.parent / name for name in COMPILED_IN]:
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    stamp = cache / "numba-sources.sha1"
    want = digest.hexdigest()
    try:
        if stamp.read_text() == want:
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(want)
    except OSError:
        pass  # read-only install: numba falls back to compiling in memory
