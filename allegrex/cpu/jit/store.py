"""Compiled regions on disk: each region's source is written once to the cache folder
and imported from there, so numba's own cache (cache=True, keyed by that file) keeps
its machine code across runs. The file name is a digest of the source and of every
source file the run loop compiles in (interp._source_fingerprint) and of this package's code
generators, so a change to the simulator never runs stale compiled code.
"""

import hashlib
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path

from allegrex.cpu import interp
from allegrex.sdk.build import cache_root


# Modules of this package that decide only when a region is compiled and where it is kept,
# not its code: changing them keeps the compiled regions (each is minutes of compiling).
NOT_IN_CODE = ("__init__.py", "store.py", "helper_processes.py", "background.py")
# The regions whose source this process wrote (so never compiled before), by module name.
WRITTEN = set()


@lru_cache(maxsize=1)
def _fingerprint():
    """Digest of what compiled regions are made of: the run loop's sources and this package's
    code generators."""
    digest = hashlib.sha256(interp._source_fingerprint().encode())
    for f in sorted(Path(__file__).parent.glob("*.py")):
        if f.name not in NOT_IN_CODE:
            digest.update(f.read_bytes())
    return digest.hexdigest()


def _folder():
    folder = cache_root() / "jit"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _names(key):
    digest = hashlib.sha256((key + _fingerprint()).encode()).hexdigest()[:20]
    return f"region_{digest}", f"allegrex_jit_{digest}"


def is_stored(key: str) -> bool:
    """Whether this region was compiled before (in this process or by an earlier run)."""
    _, module_name = _names(key)
    if module_name in sys.modules:
        return True
    return (_folder() / f"{module_name}.py").exists()  # written when it was first compiled


def failed_before(key: str) -> bool:
    """Whether compiling this region failed in an earlier run (it is not tried again)."""
    return (_folder() / f"{_names(key)[1]}.failed").exists()


def mark_failed(key: str, why: str) -> None:
    """Remember that this region cannot be compiled, so later runs do not pay for trying."""
    try:
        (_folder() / f"{_names(key)[1]}.failed").write_text(why + "\n")
    except OSError:
        pass  # an unwritable cache only costs the next run another try


def load(source_for, key: str):
    """The function compiled from source_for(name), the module text defining `name`;
    key identifies the region (the same key must always give the same text)."""
    name, module_name = _names(key)
    module = sys.modules.get(module_name)
    if module is None:
        path = _folder() / f"{module_name}.py"
        if not path.exists():  # rewriting would change its mtime and void numba's cache
            tmp = path.with_suffix(".tmp")
            tmp.write_text(source_for(name))
            tmp.replace(path)
            WRITTEN.add(module_name)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return getattr(module, name)


def new_here(fn) -> bool:
    """Whether region function `fn` (from load) was written by this process and not yet
    compiled, so has no compiled code in numba's cache."""
    return fn.py_func.__module__ in WRITTEN and not fn.signatures


def on_disk(dispatcher, sig: tuple) -> bool:
    """Whether numba's cache index lists code of `dispatcher` for the argument types `sig`
    (an index can exist and be empty: interp.py flushes it when its sources change)."""
    try:
        return any(key[0] == sig for key in dispatcher._cache._cache_file._load_index())
    except (AttributeError, OSError, EOFError):  # not a caching dispatcher, or no readable index
        return False
