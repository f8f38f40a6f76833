"""Loading further modules (ModuleMgrForUser): sceKernelLoadModule reads a PRX through the
sandbox, places it in the user partition, relocates it and patches its imports, as the
module manager does. Starting loaded modules (sceKernelStartModule) is not provided, so
sceKernelStopModule finds none started."""

import os

from allegrex.errors import AllegrexError
from allegrex.hle import codes, costs
from allegrex.hle.io import driver_call
from allegrex.hle.objects import KernelObject
from allegrex.hle.registry import CStr, Ptr, U32, hle
from allegrex.hle.threads import cannot_wait
from allegrex.timing import memstick

LIB = "ModuleMgrForUser"
MAX_MODULE_BYTES = 32 * 1024 * 1024  # larger than any user memory: refuse before reading


class Module(KernelObject):
    def __init__(self, name, block, image):
        self.uid = 0
        self.name = name
        self.block = block
        self.image = image


def write_segments(memory, image) -> tuple[int, int]:
    """Copy an image's segments into memory (zeroing the rest of each); the covered range."""
    for seg in image.segments:
        data = bytes(seg.data)
        memory.write(seg.vaddr, data)
        if seg.memsz > len(data):
            memory.fill(seg.vaddr + len(data), 0, seg.memsz - len(data))
    return min(s.vaddr for s in image.segments), max(s.vaddr + s.memsz for s in image.segments)


def _read_module(k, path: str):
    """The file's bytes, or a negative PSP error code."""
    r = k.io.resolve(path)
    if isinstance(r, int):
        return r
    try:
        if os.path.getsize(r.host) > MAX_MODULE_BYTES:
            return codes.signed(codes.NO_MEMORY)
        with open(r.host, "rb") as f:
            return f.read()
    except OSError:
        return codes.signed(codes.ERRNO_FILE_NOT_FOUND)


def _place(k, data: bytes):
    """(memory block, image) of a PRX relocated into a new low block of the user partition,
    or a negative PSP error code."""
    import loader
    try:
        probe = loader.load(data, base=0)
        if probe.kind != "prx":  # a fixed-address ELF would land on the running program
            return codes.signed(codes.ILLEGAL_OBJECT)
        size = max(s.vaddr + s.memsz for s in probe.segments)
        block = k.sysmem.alloc_block(2, f"module {probe.module_info.name if probe.module_info else ''}", size=size)
        if block is None:
            return codes.signed(codes.FAILED_ALLOC_MEMBLOCK)
        return block, loader.load(data, base=block.addr)
    except (AllegrexError, ValueError, IndexError) as exc:
        k.warn(f"sceKernelLoadModule: not a loadable module ({exc})")
        return codes.signed(codes.ILLEGAL_OBJECT)


@hle(LIB, cost=costs.IO)
def sceKernelLoadModule(k, path: CStr, flags: U32, option: Ptr) -> int:
    if path is None:
        return codes.signed(codes.ILLEGAL_ADDR)
    data = _read_module(k, path)
    if isinstance(data, int):
        return data
    placed = _place(k, data)
    if isinstance(placed, int):
        return placed
    block, image = placed
    write_segments(k.memory, image)
    k.install_imports(image.imports)
    name = image.module_info.name if image.module_info else os.path.basename(path)
    module = Module(name, block, image)
    module.uid = k.new_uid(module)
    return driver_call(k, module.uid, memstick.read_us(len(data)))  # the driver reads the file


@hle(LIB, cost=costs.IO)
def sceKernelUnloadModule(k, uid: int) -> int:
    module = k.get(uid, Module)
    if module is None:
        return codes.signed(codes.UNKNOWN_MODULE)
    k.sysmem.free_block(module.block)
    k.free_uid(module.uid)
    return uid


@hle(LIB)
def sceKernelStopModule(k, uid: int, argsize: U32, argp: Ptr, status: Ptr, option: Ptr) -> int:
    if cannot_wait(k):  # it runs the module's stop thread and waits for it (measured: intr/waits)
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    if k.get(uid, Module) is None:
        return codes.signed(codes.UNKNOWN_MODULE)
    return codes.signed(codes.MODULE_NOT_STARTED)  # loaded modules are never started here
