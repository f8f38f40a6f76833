"""The HLE function registry: PSP library functions as plain typed Python functions.

    @hle("IoFileMgrForUser", cost=costs.IO)
    def sceIoClose(k, fd: int) -> int: ...

The first parameter is always the Kernel (the OS state). The others are read from
the guest registers by their annotations, following the PSP EABI: 32-bit values in
a0-a3 then t0-t3, a 64-bit value in the next even/odd register pair, floats in f12+.
The return annotation says where the result goes (v0, v0:v1, f0, or nowhere for
functions that set registers themselves, e.g. those that switch threads).
The NID is derived from the name (loader.nids.nid_for_name) unless given.
"""

import inspect
import struct
from dataclasses import dataclass, field
from typing import Callable

from loader.nids import nid_for_name

from allegrex.cpu.state import A0, V0, V1
from allegrex.hle import costs


class Ptr(int):
    """A guest address, unsigned 32 bits."""


class U32(int):
    """An unsigned 32-bit value."""


class CStr(str):
    """A NUL-terminated guest string, read at the address passed in the register."""


class S64(int):
    """A signed 64-bit value in an aligned register pair (low word first)."""


class U64(int):
    """An unsigned 64-bit value in an aligned register pair (low word first)."""


class F32(float):
    """A single-precision float in the next FPU argument register (f12, f13...)."""


class Raw:
    """Return annotation: the function wrote its own result registers (or switched thread)."""


ARG_GPR_FIRST = A0
ARG_GPR_COUNT = 8  # a0-a3, t0-t3
ARG_FPR_FIRST = 12
CSTR_LIMIT = 1024  # PSP path and name arguments are far shorter


def read64(memory, addr: int) -> int:
    """A 64-bit value the guest keeps as two words (SceKernelSysClock, u64 ticks): only
    word alignment is required, as on the PSP."""
    return memory.read_u32(addr) | (memory.read_u32(addr + 4) << 32)


def write64(memory, addr: int, value: int) -> None:
    memory.write_u32(addr, value & 0xFFFFFFFF)
    memory.write_u32(addr + 4, (value >> 32) & 0xFFFFFFFF)


def read_cstr(memory, addr: int, limit: int = CSTR_LIMIT) -> str:
    """A guest C string: one slice of the memory array when the whole window is mapped
    (the common case), else the checked byte-by-byte reader."""
    if memory.is_valid(addr, limit):
        off = memory.span(addr, limit)
        window = memory.mem[off:off + limit].tobytes()
        end = window.find(b"\0")
        if end >= 0:
            return window[:end].decode("latin-1")
    return memory.read_cstring(addr, limit).decode("latin-1")


@dataclass
class HleFunction:
    library: str
    name: str
    nid: int
    func: Callable
    cost: int
    params: list = field(default_factory=list)  # (kind, gpr or fpr index)
    result: str = "s32"
    in_loop: int = 0  # the allegrex.hle.pure kind the run loop answers this call as (0: Python does)
    # when every parameter is a 32-bit integer (then in a0, a1, ... in order): their layout in
    # the register file, read in one go (~0.12 us for any count; the loop takes ~0.1 us a parameter)
    words: struct.Struct | None = field(init=False, default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.params and all(kind in ("s32", "u32") and index == ARG_GPR_FIRST + i
                               for i, (kind, index) in enumerate(self.params)):
            self.words = struct.Struct("=" + "".join("i" if kind == "s32" else "I" for kind, _ in self.params))

    def read_args(self, cpu, memory, saved=None):
        """The call's arguments from the CPU's registers, or with a0-t3 from `saved` (their 8
        words, kept where the run loop clobbered them: Machine.saved_args)."""
        if saved is None:
            words, first = cpu.regs_view, 0
        else:
            words, first = saved, ARG_GPR_FIRST
        if self.words is not None:
            return self.words.unpack_from(words, 4 * (ARG_GPR_FIRST - first))
        out = []
        for kind, index in self.params:
            if kind == "f32":
                out.append(float(cpu.fpr[index]))
                continue
            lo = words[index - first]
            if kind == "s32":
                out.append(lo - (1 << 32) if lo & 0x80000000 else lo)
            elif kind == "u32":
                out.append(lo)
            elif kind == "cstr":
                out.append(read_cstr(memory, lo) if lo else None)
            else:  # 64-bit pair
                value = lo | (words[index + 1 - first] << 32)
                if kind == "s64" and value & (1 << 63):
                    value -= 1 << 64
                out.append(value)
        return out

    def write_result(self, cpu, value):
        if self.result == "raw" or value is None:
            return
        if self.result == "f32":
            cpu.fpr[0] = value
            return
        value = int(value)
        cpu.regs_view[V0] = value & 0xFFFFFFFF
        if self.result == "64":
            cpu.regs_view[V1] = (value >> 32) & 0xFFFFFFFF


# Functions whose NID is not the SHA-1 of the name (later firmwares randomised some).
NON_SHA1_NIDS = {
    ("Kernel_Library", "sce_paf_private_memcpy"): 0x1839852A,
    ("Kernel_Library", "sceKernelAllocateTlspl"): 0xFA835CDE,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion370"): 0x342061E5,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion380_390"): 0x315AD3A0,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion395"): 0xEBD5C3E6,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion401_402"): 0x057E7380,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion500_505"): 0x91DE343C,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion507"): 0x7893F79A,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion600_602"): 0x35669D4C,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion603_605"): 0x1B4217BC,
    ("SysMemUserForUser", "sceKernelSetCompiledSdkVersion606"): 0x358CA1BB,
    ("SysMemUserForUser", "sceKernelTotalMemSize"): 0xACBD88CA,
    ("SysMemUserForUser", "sceKernelGetPTRIG"): 0x39F49610,
    ("SysMemUserForUser", "sceKernelSetPTRIG"): 0x6231A71D,
    ("SysMemUserForUser", "sceKernelAllocMemoryBlock"): 0xFE707FDF,
    ("SysMemUserForUser", "sceKernelFreeMemoryBlock"): 0x50F61D8A,
    ("SysMemUserForUser", "sceKernelGetMemoryBlockPtr"): 0xDB83A952,
}


def default_nid(library: str, name: str) -> int:
    return NON_SHA1_NIDS.get((library, name)) or nid_for_name(name)


# (library, nid) -> HleFunction, and library -> {name: HleFunction}
FUNCTIONS: dict[tuple[str, int], HleFunction] = {}
BY_NAME: dict[tuple[str, str], HleFunction] = {}
LIBRARIES: set[str] = set()  # every library with at least one registered function
TWINS: dict[str, str] = {}  # kernel library -> the user library whose functions it has (same names)

_KINDS = {int: "s32", Ptr: "u32", U32: "u32", CStr: "cstr", S64: "s64", U64: "u64", F32: "f32"}
_RESULTS = {int: "s32", U32: "s32", Ptr: "s32", S64: "64", U64: "64", F32: "f32", Raw: "raw", None: "raw",
            bool: "s32"}


def layout(func: Callable) -> tuple[list, str]:
    """Where each parameter after the kernel comes from, and where the result goes."""
    hints = inspect.get_annotations(func, eval_str=True)
    params = list(inspect.signature(func).parameters)[1:]
    gpr = fpr = 0
    out = []
    for name in params:
        kind = _KINDS.get(hints.get(name, int))
        if kind is None:
            raise TypeError(f"{func.__name__}: unsupported parameter type for {name}")
        if kind == "f32":
            out.append((kind, ARG_FPR_FIRST + fpr))
            fpr += 1
            continue
        if kind in ("s64", "u64"):
            gpr += gpr & 1  # 64-bit values start at an even register
            width = 2
        else:
            width = 1
        if gpr + width > ARG_GPR_COUNT:
            raise TypeError(f"{func.__name__}: more arguments than argument registers")
        out.append((kind, ARG_GPR_FIRST + gpr))
        gpr += width
    result = _RESULTS.get(hints.get("return", int), "s32")
    return out, result


def hle(library: str, name: str | None = None, nid: int | None = None, cost: int = costs.SYSCALL, in_loop: int = 0):
    """Register `func` as `library`'s function `name` (default: the Python name). in_loop: the
    run loop answers the call itself as this allegrex.hle.pure kind (func must answer from
    the same definition: pure.answer(k, kind), or pure's function for the kind as Python)."""

    def register(func):
        fname = name or func.__name__
        params, result = layout(func)
        entry = HleFunction(library, fname, nid if nid is not None else default_nid(library, fname), func, cost,
                            params, result, in_loop)
        FUNCTIONS[(library, entry.nid)] = entry
        BY_NAME[(library, fname)] = entry
        LIBRARIES.add(library)
        return func

    return register


def alias(library: str, name: str, target: Callable, nid: int | None = None, cost: int | None = None):
    """Register an existing function under another library/name (e.g. Kernel_Library
    duplicates of ThreadManForUser calls)."""
    src = next(f for f in FUNCTIONS.values() if f.func is target)
    entry = HleFunction(library, name, nid if nid is not None else default_nid(library, name), target,
                        src.cost if cost is None else cost, src.params, src.result, src.in_loop)
    FUNCTIONS[(library, entry.nid)] = entry
    BY_NAME[(library, name)] = entry
    LIBRARIES.add(library)


def has_library(library: str) -> bool:
    load_all()
    return library in LIBRARIES


def twin_library(library: str, user_library: str) -> None:
    """`library` (a kernel library) answers every function `user_library` has, by name."""
    TWINS[library] = user_library
    LIBRARIES.add(library)


def lookup(library: str, nid: int) -> HleFunction | None:
    load_all()
    nid &= 0xFFFFFFFF
    entry = FUNCTIONS.get((library, nid))
    if entry is None and library in TWINS:
        entry = _twin(library, TWINS[library], nid)
    return entry


def _twin(library: str, user_library: str, nid: int) -> HleFunction | None:
    """The user library's function whose name gives `nid` in the kernel library."""
    for (lib, name), user in BY_NAME.items():
        if lib == user_library and default_nid(library, name) == nid:
            entry = HleFunction(library, name, nid, user.func, user.cost, user.params, user.result)
            FUNCTIONS[(library, nid)] = entry
            BY_NAME[(library, name)] = entry
            return entry
    return None


def load_all() -> None:
    """Import every library (allegrex.hle.libraries) so their functions are registered."""
    import allegrex.hle.libraries  # noqa: F401 -- here, not at the top: each library imports this module
