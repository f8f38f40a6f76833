"""What kernel-mode homebrew imports (the 1.50-era layout: a kernel-mode main module,
attribute 0x1000, that starts a user thread) and what custom-firmware helpers export.

- A kernel library whose functions are those of a user library (ThreadManForKernel and
  ThreadManForUser, sceCtrl_driver and sceCtrl...) answers every function the user
  library has, by the same name: KERNEL_TWINS, the one table of them.
- Single functions with a user counterpart under another name: SAME_AS.
- SysclibForKernel's memory and string functions run on guest memory here.
- KUBridge and SystemCtrlForUser (custom firmware's helpers): kuKernelLoadModule is
  sceKernelLoadModule, sctrlKernelExitVSH sceKernelExitGame, kuKernelGetModel answers
  the model being simulated.
- ExceptionManagerForKernel's default handler chain (pspDebugInstallErrorHandler, crash
  reporters): registered and released as the firmware does, never run.
Every other function of these libraries stops the run with a message naming its library
and function (the unknown-import path); docs/hle-libraries.md lists what is covered.
"""

from allegrex.hle import codes, misc, modules, registry, sysmem  # noqa: F401  (SAME_AS's targets are registered)
from allegrex.hle.registry import Ptr, U32, hle

KERNEL_TWINS = {
    "ThreadManForKernel": "ThreadManForUser",
    "IoFileMgrForKernel": "IoFileMgrForUser",
    "ModuleMgrForKernel": "ModuleMgrForUser",
    "LoadExecForKernel": "LoadExecForUser",
    "StdioForKernel": "StdioForUser",
    "UtilsForKernel": "UtilsForUser",
    "SysMemForKernel": "SysMemUserForUser",
    "InterruptManagerForKernel": "InterruptManager",
    "sceCtrl_driver": "sceCtrl",
    "sceDisplay_driver": "sceDisplay",
    "sceGe_driver": "sceGe_user",
    "scePower_driver": "scePower",
    "sceRtc_driver": "sceRtc",
    "sceHprm_driver": "sceHprm",
    "sceAudio_driver": "sceAudio",
    "sceUmd": "sceUmdUser",
    "sceSuspendForKernel": "sceSuspendForUser",
}

SAME_AS = {
    ("LoadCoreForKernel", "sceKernelIcacheClearAll"): ("UtilsForUser", "sceKernelIcacheInvalidateAll"),
    ("LoadCoreForKernel", "sceKernelDcacheWBinvAll"): ("UtilsForUser", "sceKernelDcacheWritebackInvalidateAll"),
    ("KDebugForKernel", "Kprintf"): ("SysMemUserForUser", "sceKernelPrintf"),
    # the kernel's interrupt switch lives in InterruptManagerForKernel, the user one in Kernel_Library
    ("InterruptManagerForKernel", "sceKernelCpuSuspendIntr"): ("Kernel_Library", "sceKernelCpuSuspendIntr"),
    ("InterruptManagerForKernel", "sceKernelCpuResumeIntr"): ("Kernel_Library", "sceKernelCpuResumeIntr"),
    ("InterruptManagerForKernel", "sceKernelCpuResumeIntrWithSync"): ("Kernel_Library", "sceKernelCpuResumeIntrWithSync"),
    ("KUBridge", "kuKernelLoadModule"): ("ModuleMgrForUser", "sceKernelLoadModule"),
    ("SystemCtrlForUser", "sctrlKernelExitVSH"): ("LoadExecForUser", "sceKernelExitGame"),
}

for _kernel, _user in KERNEL_TWINS.items():
    registry.twin_library(_kernel, _user)


for (_library, _name), (_user_library, _user_name) in SAME_AS.items():
    registry.alias(_library, _name, registry.BY_NAME[(_user_library, _user_name)].func)


MODEL_NUMBERS = {"psp-1000": 0, "psp-2000": 1}


@hle("KUBridge")
def kuKernelGetModel(k) -> int:
    return MODEL_NUMBERS.get(k.memory.model, 1)


# ---------------------------------------------------------------- ExceptionManagerForKernel
EXCEPTIONS = "ExceptionManagerForKernel"
HANDLER_CODE = 8  # a handler block is {next, reserved} and its code (uOFW exceptionman)


@hle(EXCEPTIONS)
def sceKernelRegisterDefaultExceptionHandler(k, handler: Ptr) -> int:
    """Chain a default handler in front of the previous one, as the firmware does: the
    block's next word gets the previous default's code address (0 stands for the
    firmware's own, which allegrex does not have); a block already chained is refused.
    allegrex never runs it: a guest fault stops the run, and the report names it."""
    if k.memory.read_u32(handler) != 0 or handler in k.exception_handlers:
        return codes.signed(codes.EXPHANDLER_USED)
    previous = k.exception_handlers[-1] + HANDLER_CODE if k.exception_handlers else 0
    k.memory.write_u32(handler, previous)
    k.exception_handlers.append(handler)
    return 0


@hle(EXCEPTIONS)
def sceKernelReleaseDefaultExceptionHandler(k, handler: Ptr) -> int:
    """Unchain a registered default handler: the one registered after it (if any) now
    points where it pointed."""
    if handler not in k.exception_handlers:
        return codes.signed(codes.EXPHANDLER_NOUSE)
    i = k.exception_handlers.index(handler)
    if i + 1 < len(k.exception_handlers):
        k.memory.write_u32(k.exception_handlers[i + 1], k.memory.read_u32(handler))
    k.memory.write_u32(handler, 0)
    del k.exception_handlers[i]
    return 0


@hle(EXCEPTIONS)
def sceKernelGetActiveDefaultExceptionHandler(k) -> U32:
    """The default handler's code address; 0 (NULL) while it is the firmware's own."""
    return k.exception_handlers[-1] + HANDLER_CODE if k.exception_handlers else 0


# ---------------------------------------------------------------- SysclibForKernel
SYSCLIB = "SysclibForKernel"


def _cstring(k, addr: int) -> bytes:
    return k.memory.read_cstring(addr, 1 << 20)


@hle(SYSCLIB)
def memset(k, dst: Ptr, value: int, size: U32) -> U32:
    k.memory.fill(dst, value & 0xFF, size)
    return dst


@hle(SYSCLIB)
def bzero(k, dst: Ptr, size: U32) -> int:
    k.memory.fill(dst, 0, size)
    return 0


@hle(SYSCLIB)
def memcpy(k, dst: Ptr, src: Ptr, size: U32) -> U32:
    k.memory.write(dst, k.memory.read(src, size))  # read first: overlapping copies act as memmove
    return dst


@hle(SYSCLIB)
def memmove(k, dst: Ptr, src: Ptr, size: U32) -> U32:
    return memcpy(k, dst, src, size)


@hle(SYSCLIB)
def bcopy(k, src: Ptr, dst: Ptr, size: U32) -> int:
    memcpy(k, dst, src, size)
    return 0


def _compare(a: bytes, b: bytes) -> int:
    for x, y in zip(a, b):
        if x != y:
            return x - y
    return len(a) - len(b) if len(a) != len(b) else 0


@hle(SYSCLIB)
def memcmp(k, a: Ptr, b: Ptr, size: U32) -> int:
    return _compare(k.memory.read(a, size), k.memory.read(b, size))


@hle(SYSCLIB)
def bcmp(k, a: Ptr, b: Ptr, size: U32) -> int:
    return 0 if k.memory.read(a, size) == k.memory.read(b, size) else 1


@hle(SYSCLIB)
def strlen(k, s: Ptr) -> int:
    return len(_cstring(k, s))


@hle(SYSCLIB)
def strnlen(k, s: Ptr, limit: U32) -> int:
    return len(k.memory.read_cstring(s, limit)) if limit else 0


@hle(SYSCLIB)
def strcpy(k, dst: Ptr, src: Ptr) -> U32:
    k.memory.write(dst, _cstring(k, src) + b"\0")
    return dst


@hle(SYSCLIB)
def strncpy(k, dst: Ptr, src: Ptr, size: U32) -> U32:
    text = _cstring(k, src)[:size]
    k.memory.write(dst, text + bytes(size - len(text)))  # padded with NULs to size, as C's strncpy
    return dst


@hle(SYSCLIB)
def strcat(k, dst: Ptr, src: Ptr) -> U32:
    k.memory.write(dst + len(_cstring(k, dst)), _cstring(k, src) + b"\0")
    return dst


@hle(SYSCLIB)
def strcmp(k, a: Ptr, b: Ptr) -> int:
    return _compare(_cstring(k, a) + b"\0", _cstring(k, b) + b"\0")


@hle(SYSCLIB)
def strncmp(k, a: Ptr, b: Ptr, size: U32) -> int:
    return _compare((_cstring(k, a) + b"\0")[:size], (_cstring(k, b) + b"\0")[:size])


def _find(k, s: int, c: int, last: bool) -> int:
    text = _cstring(k, s) + b"\0"
    i = text.rfind(bytes([c & 0xFF])) if last else text.find(bytes([c & 0xFF]))
    return s + i if i >= 0 else 0


@hle(SYSCLIB)
def strchr(k, s: Ptr, c: int) -> U32:
    return _find(k, s, c, False)


@hle(SYSCLIB)
def strrchr(k, s: Ptr, c: int) -> U32:
    return _find(k, s, c, True)


@hle(SYSCLIB)
def toupper(k, c: int) -> int:
    return c - 32 if 0x61 <= c <= 0x7A else c


@hle(SYSCLIB)
def tolower(k, c: int) -> int:
    return c + 32 if 0x41 <= c <= 0x5A else c


@hle(SYSCLIB)
def strstr(k, haystack: Ptr, needle: Ptr) -> U32:
    i = _cstring(k, haystack).find(_cstring(k, needle))
    return haystack + i if i >= 0 else 0

