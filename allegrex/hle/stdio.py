"""StdioForUser: the standard descriptors (0, 1, 2 go to the host's stdin/stdout/stderr)."""

from allegrex.hle.registry import CStr, hle

LIB = "StdioForUser"


@hle(LIB)
def sceKernelStdin(k) -> int:
    return 0


@hle(LIB)
def sceKernelStdout(k) -> int:
    return 1


@hle(LIB)
def sceKernelStderr(k) -> int:
    return 2


@hle(LIB)
def sceKernelStdioOpen(k) -> int:
    return 0


@hle(LIB)
def sceKernelStdioClose(k) -> int:
    return 0


@hle(LIB)
def sceKernelStdoutReset(k) -> int:
    return 0


@hle(LIB)
def sceKernelStderrReset(k) -> int:
    return 0


@hle(LIB)
def sceKernelStdioSendChar(k, ch: int) -> int:
    k.io.write_stream("stdout", bytes([ch & 0xFF]))
    return 0


@hle(LIB)
def sceKernelPrintf(k, fmt: CStr) -> int:
    k.io.write_stream("stderr", (fmt or "").encode("latin-1"))
    return 0
