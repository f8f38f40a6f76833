"""Modules (ModuleMgrForUser), as the PSP's module manager runs them.

sceKernelLoadModule reads a PRX through the sandbox, places it in the user partition and
relocates it. sceKernelStartModule then registers the module's libraries, links its
imports (allegrex.hle.linker: stubs of modules loaded earlier that wait for these
libraries are linked too) and runs its module_start in a thread of its own
("SceModmgrStart": priority, stack and attributes from the module's
module_start_thread_parameter, else 32 / 256 KiB; an option block overrides them), with
the caller's argument block copied to that thread's stack. The caller waits until
module_start returns: 0 keeps the module (the call returns its id), 1 unloads it (0), any
other value unloads it and is returned. Stopping runs module_stop the same way
("SceKernelModmgrStop": 0 stops, 1 refuses). Facts: uOFW's reimplementation of the
firmware's modulemgr/loadcore (states, thread names, defaults, return values, error
codes); pspautotests modules/* has no recorded output for these calls.
"""

import os

from allegrex.cpu.state import RA, V0
from allegrex.errors import AllegrexError
from allegrex.hle import codes, costs
from allegrex.hle.io import driver_call
from allegrex.hle.objects import KernelObject
from allegrex.hle.registry import CStr, Ptr, U32, hle
from allegrex.hle.threads import Wait, cannot_wait

LIB = "ModuleMgrForUser"
MAX_MODULE_BYTES = 32 * 1024 * 1024  # larger than any user memory: refuse before reading

# module_start's answers, and module_stop's
RESIDENT, NO_RESIDENT = 0, 1
STOP_SUCCESS, STOP_FAIL = 0, 1
LOADED, STARTING, STARTED, STOPPING, STOPPED = "loaded", "starting", "started", "stopping", "stopped"

# syslib exports the module manager looks for
NID_MODULE_START = 0xD632ACDB
NID_MODULE_STOP = 0xCEE8593C
NID_MODULE_BOOTSTART = 0xD3744BE0
NID_START_THREAD_PARAMETER = 0x0F7C276C  # {count, priority, stack size, attributes}
NID_STOP_THREAD_PARAMETER = 0xCF0CC697

ATTR_CANT_STOP = 0x0001
ATTR_KERNEL = 0x1000  # a kernel-mode module (1.50-era homebrew)
PRIVILEGE_LEVELS = 0x1E00
MODULE_INIT_PRIORITY = 32
USER_STACK = 256 * 1024
KERNEL_STACK = 4 * 1024
USER_MODE_THREAD = 0x80000000
THREAD_MODE_BITS = 0xF0000000
OPTION_THREAD_ATTRS = 0x00F06000  # no-fillstack, clear-stack, low-stack, 0x800000, VFPU, no-FPU
OPTION_SIZE = 20  # SceKernelSMOption {size, stack partition, stack size, priority, attributes}
SDK_CHECKS_SIZES = 0x02080000  # programs built for 2.80 on get their structure sizes checked
INFO_V1_SIZE, INFO_SIZE = 64, 96  # SceKernelModuleInfo without / with attribute, version and name
BREAK_1 = 0x0000004D  # `break 1`: what an unloaded module's code becomes


class Module(KernelObject):
    def __init__(self, name, block, image):
        self.uid = 0
        self.name = name
        self.block = block  # memory block; None for the main program (its memory is reserved at boot)
        self.image = image
        self.status = LOADED
        info = image.module_info
        self.attributes = info.attributes if info else 0
        self.version = info.version if info else (0, 0)  # (major, minor)
        syslib = {e.nid: e.addr for lib in image.exports if lib.name is None for e in lib.functions + lib.variables}
        self.start = syslib.get(NID_MODULE_START) or syslib.get(NID_MODULE_BOOTSTART) or image.entry
        self.stop = syslib.get(NID_MODULE_STOP, 0)
        self.start_params = syslib.get(NID_START_THREAD_PARAMETER, 0)
        self.stop_params = syslib.get(NID_STOP_THREAD_PARAMETER, 0)
        self.low = min(s.vaddr for s in image.segments)
        self.high = max(s.vaddr + s.memsz for s in image.segments)

    @property
    def kernel_mode(self) -> bool:
        return bool(self.attributes & ATTR_KERNEL)

    def contains(self, addr: int) -> bool:
        return self.low <= addr < self.high


class ModuleManager:
    """The modules of one run, and the thread currently running a module_start/stop."""

    def __init__(self, kernel):
        self.k = kernel
        self.modules: list[Module] = []
        self.worker = None  # the running module_start / module_stop thread

    def add(self, module: Module) -> int:
        module.uid = self.k.new_uid(module)
        self.modules.append(module)
        return module.uid

    def at(self, addr: int) -> Module | None:
        return next((m for m in self.modules if m.contains(addr)), None)

    def boot(self, image) -> Module:
        """The program LoadExec started: a running module whose libraries are registered
        (boot gives it its id once the main thread has one)."""
        module = Module(image.module_info.name if image.module_info else "main", None, image)
        module.status = STARTED
        self.k.linker.register(module, image.exports)
        return module


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
    name = image.module_info.name if image.module_info else os.path.basename(path)
    uid = k.modules.add(Module(name, block, image))
    return driver_call(k, uid, len(data))  # the caller sleeps while the file is read


# ---------------------------------------------------------------- running module_start / module_stop
def _option(k, option: Ptr):
    """(stack size, priority, attributes) from an SceKernelSMOption, or an error code."""
    if not option:
        return 0, 0, 0
    if not k.memory.is_valid(option, OPTION_SIZE):
        return codes.signed(codes.ILLEGAL_ADDR)
    size, _, stack, priority, attr = (k.memory.read_u32(option + 4 * i) for i in range(5))
    if k.sdk_version >= SDK_CHECKS_SIZES and size != OPTION_SIZE:
        return codes.signed(codes.ILLEGAL_SIZE)
    if attr & ~OPTION_THREAD_ATTRS:
        return codes.signed(codes.KERNEL_ERROR)
    return stack, priority, attr


def _thread_params(k, addr: int) -> tuple[int, int, int]:
    """A module's module_start/stop_thread_parameter: (priority, stack size, attributes), 0 = unset."""
    if not addr or not k.memory.is_valid(addr, 16) or k.memory.read_u32(addr) == 0:
        return 0, 0, 0
    return tuple(k.memory.read_u32(addr + 4 * i) for i in (1, 2, 3))


def _make_thread(k, module: Module, name: str, entry: int, params: int, option):
    """The module manager's thread for module_start or module_stop, or an error code."""
    priority, stack, attr = _thread_params(k, params)
    opt_stack, opt_priority, opt_attr = option
    priority = opt_priority or priority or MODULE_INIT_PRIORITY
    stack = opt_stack or stack or (KERNEL_STACK if module.kernel_mode else USER_STACK)
    attr = ((attr | (opt_attr & OPTION_THREAD_ATTRS)) & ~THREAD_MODE_BITS) | (0 if module.kernel_mode else USER_MODE_THREAD)
    thread = k.threads.create(name, entry, priority, (stack + 0xFF) & ~0xFF, attr, module.image.gp)
    if not k.threads.alloc_stack(thread):
        k.threads.delete(thread)
        return codes.signed(codes.NO_MEMORY)
    return thread


def _run(k, module, thread, argsize, argp, finish) -> None:
    """Start `thread` with the caller's arguments; the caller waits until it ends, then
    finish(exit status) gives the caller's result (None: the caller does not go on)."""
    caller = k.threads.current
    wait = Wait("module", obj=module)
    k.modules.worker = thread

    def ended(status):
        k.modules.worker = None
        k.threads.delete(thread)  # the module manager deletes its thread
        result = finish(status)
        if caller.wait is wait and result is not None:
            k.threads.wake(caller, result)

    thread.on_exit = ended
    k.threads.start(thread, argsize, argp)
    k.cpu.regs[V0] = 0
    k.threads.block(wait)


def _release(k, module: Module) -> None:
    """The epilogue of stopping: the module's libraries go away."""
    k.linker.release(module)
    module.status = STOPPED


def _unload(k, module: Module) -> None:
    """Code becomes `break 1`, data 0xFF, the memory and the id are given back."""
    for seg in module.image.segments:
        if seg.flags & 1:  # executable
            k.memory.write(seg.vaddr, BREAK_1.to_bytes(4, "little") * (seg.memsz // 4))
        else:
            k.memory.fill(seg.vaddr, 0xFF, seg.memsz)
    k.linker.forget(module.low, module.high)
    if module.block is not None:
        k.sysmem.free_block(module.block)
    k.modules.modules.remove(module)
    k.free_uid(module.uid)


def _checks(k, argsize, argp, status, option):
    """The checks every start/stop call makes first: an error code, or the option tuple."""
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if argp and (argsize < 0 or not k.memory.is_valid(argp, max(argsize, 1))):
        return codes.signed(codes.ILLEGAL_ADDR)
    if status and not k.memory.is_valid(status, 4):
        return codes.signed(codes.ILLEGAL_ADDR)
    return _option(k, option)


def _write_status(k, status_ptr: int, value: int) -> None:
    if status_ptr:
        k.memory.write_u32(status_ptr, value & 0xFFFFFFFF)


@hle(LIB)
def sceKernelStartModule(k, uid: int, argsize: int, argp: Ptr, status: Ptr, option: Ptr) -> int:
    option = _checks(k, argsize, argp, status, option)
    if isinstance(option, int):
        return option
    if cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    if k.threads.current is k.modules.worker:
        return codes.signed(codes.MODULE_MANAGER_BUSY)
    module = k.get(uid, Module)
    if module is None:
        return codes.signed(codes.UNKNOWN_MODULE)
    if module.status != LOADED:
        return codes.signed(codes.KERNEL_ERROR)
    module.status = STARTING
    k.linker.register(module, module.image.exports)
    k.install_imports(module.image.imports)
    if not module.start:
        module.status = STARTED
        _write_status(k, status, RESIDENT)
        return uid
    thread = _make_thread(k, module, "SceModmgrStart", module.start, module.start_params, option)
    if isinstance(thread, int):
        k.linker.release(module)
        module.status = LOADED
        return thread

    def started(result):
        _write_status(k, status, result)
        if result == RESIDENT:
            module.status = STARTED
            return uid
        _release(k, module)  # not resident, or failed: stopped and unloaded at once
        _unload(k, module)
        return 0 if result == NO_RESIDENT else result

    _run(k, module, thread, argsize, argp, started)
    return None


def _stop(k, module: Module, argsize, argp, status, option, then):
    """Stop a started module (running its module_stop); then(result) gives the caller's
    answer once stopped. Returns the answer now, or None while module_stop runs."""
    if module.status == LOADED:
        return codes.signed(codes.MODULE_NOT_STARTED)
    if module.status == STOPPING:
        return codes.signed(codes.MODULE_ALREADY_STOPPING)
    if module.status == STOPPED:
        return codes.signed(codes.MODULE_ALREADY_STOPPED)
    if module.status != STARTED:
        return codes.signed(codes.KERNEL_ERROR)
    if not module.stop:
        _release(k, module)
        return then(STOP_SUCCESS)
    thread = _make_thread(k, module, "SceKernelModmgrStop", module.stop, module.stop_params, option)
    if isinstance(thread, int):
        return thread
    module.status = STOPPING

    def stopped(result):
        _write_status(k, status, result)
        if result == STOP_SUCCESS:
            _release(k, module)
        else:
            module.status = STARTED
        return then(result)

    _run(k, module, thread, argsize, argp, stopped)
    return None


def _stop_answer(module):
    def answer(result):
        if result == STOP_SUCCESS:
            return 0
        return module.uid if result == STOP_FAIL else result
    return answer


@hle(LIB)
def sceKernelStopModule(k, uid: int, argsize: int, argp: Ptr, status: Ptr, option: Ptr) -> int:
    if cannot_wait(k):  # before any other check (measured: intr/waits)
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    option = _checks(k, argsize, argp, status, option)
    if isinstance(option, int):
        return option
    if k.threads.current is k.modules.worker:
        return codes.signed(codes.MODULE_MANAGER_BUSY)
    if k.modules.at(int(k.cpu.regs[RA])) is None:  # only code of a loaded module may stop one
        return codes.signed(codes.MODULE_CANNOT_STOP)
    module = k.get(uid, Module)
    if module is None:
        return codes.signed(codes.UNKNOWN_MODULE)
    if module.attributes & ATTR_CANT_STOP:
        return codes.signed(codes.MODULE_CANNOT_STOP)
    return _stop(k, module, argsize, argp, status, option, _stop_answer(module))


@hle(LIB, cost=costs.IO)
def sceKernelUnloadModule(k, uid: int) -> int:
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    module = k.get(uid, Module)
    if module is None:
        return codes.signed(codes.UNKNOWN_MODULE)
    if module.status not in (LOADED, STOPPED):
        return codes.signed(codes.MODULE_CANNOT_REMOVE)
    _unload(k, module)
    return uid


def _stop_unload_self(k, exit_status: int, argsize: int, argp: Ptr, status: Ptr, option: Ptr) -> int:
    """The calling module stops and unloads itself; on success the calling thread ends
    (sceKernelExitDeleteThread with exit_status). The program's own module ends the run."""
    option = _checks(k, argsize, argp, status, option)
    if isinstance(option, int):
        return option
    module = k.modules.at(int(k.cpu.regs[RA]))
    if module is None or module.attributes & ATTR_CANT_STOP:
        return codes.signed(codes.MODULE_CANNOT_STOP)
    if module.block is None:
        k.request_stop("exit", "the program stopped and unloaded itself", 0)
        return 0
    if cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    caller = k.threads.current

    def unload(result):
        answer = _stop_answer(module)(result)
        if answer < 0:
            return answer
        if module.status != STOPPED:
            return codes.signed(codes.MODULE_CANNOT_REMOVE)
        _unload(k, module)
        k.threads.exit(caller, exit_status)  # the calling thread ends with the module
        k.threads.delete(caller)
        return None

    return _stop(k, module, argsize, argp, status, option, unload)


@hle(LIB)
def sceKernelSelfStopUnloadModule(k, exit_status: int, argsize: int, argp: Ptr) -> int:
    return _stop_unload_self(k, exit_status, argsize, argp, 0, 0)


@hle(LIB)
def sceKernelStopUnloadSelfModuleWithStatus(k, exit_status: int, argsize: int, argp: Ptr, status: Ptr,
                                            option: Ptr) -> int:
    return _stop_unload_self(k, exit_status, argsize, argp, status, option)


@hle(LIB)
def sceKernelStopUnloadSelfModule(k, argsize: int, argp: Ptr, status: Ptr, option: Ptr) -> int:
    return _stop_unload_self(k, 0, argsize, argp, status, option)


# ---------------------------------------------------------------- queries
@hle(LIB)
def sceKernelGetModuleIdByAddress(k, addr: Ptr) -> int:
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    module = k.modules.at(addr)
    return module.uid if module is not None else codes.signed(codes.UNKNOWN_MODULE)


@hle(LIB)
def sceKernelGetModuleId(k) -> int:
    """The module whose code called."""
    return sceKernelGetModuleIdByAddress(k, int(k.cpu.regs[RA]))


@hle(LIB)
def sceKernelGetModuleIdList(k, out: Ptr, size: U32, count_out: Ptr) -> int:
    if not out or not count_out or not k.memory.is_valid(out, max(size, 1)):
        return codes.signed(codes.ILLEGAL_ADDR)
    uids = [m.uid for m in k.modules.modules]
    for i, uid in enumerate(uids[:size // 4]):
        k.memory.write_u32(out + 4 * i, uid)
    k.memory.write_u32(count_out, len(uids))
    return 0


def _sizes(module: Module) -> tuple[int, int, int]:
    """(text, data, bss) bytes: the first segment is the code, the rest data, the
    zero-filled part bss."""
    segments = module.image.segments
    text = len(segments[0].data)
    data = sum(len(s.data) for s in segments[1:])
    bss = sum(s.memsz - len(s.data) for s in segments)
    return text, data, bss


@hle(LIB)
def sceKernelQueryModuleInfo(k, uid: int, info: Ptr) -> int:
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if not info or not k.memory.is_valid(info, INFO_SIZE):
        return codes.signed(codes.ILLEGAL_ADDR)
    size = k.memory.read_u32(info)
    if k.sdk_version & 0xFFFF0000 >= SDK_CHECKS_SIZES and size not in (INFO_V1_SIZE, INFO_SIZE):
        return codes.signed(codes.ILLEGAL_SIZE)
    module = k.get(uid, Module)
    if module is None:
        return codes.signed(codes.UNKNOWN_MODULE)
    if module.kernel_mode and not k.kernel_mode:
        return codes.signed(codes.CANNOT_GET_MODULE_INFO)
    segments = module.image.segments[:4]
    k.memory.write_u8(info + 4, len(segments))
    for i in range(4):
        seg = segments[i] if i < len(segments) else None
        k.memory.write_u32(info + 8 + 4 * i, seg.vaddr if seg else 0)
        k.memory.write_u32(info + 24 + 4 * i, seg.memsz if seg else 0)
    text, data, bss = _sizes(module)
    for offset, value in ((40, module.image.entry), (44, module.image.gp), (48, module.low),
                          (52, text), (56, data), (60, bss)):
        k.memory.write_u32(info + offset, value)
    if size == INFO_SIZE:
        major, minor = module.version
        k.memory.write_u16(info + 64, module.attributes & ~PRIVILEGE_LEVELS)
        k.memory.write_u8(info + 66, minor)
        k.memory.write_u8(info + 67, major)
        k.memory.write(info + 68, module.name.encode("latin-1")[:27].ljust(28, b"\0"))
    return 0
