"""The PSP SDK driver: C and assembly in, EBOOT.PBP (or ELF, or a host executable) out.

    from allegrex.sdk import build, build_host
    build(["psp/apps/hello/main.c"], "EBOOT.PBP", title="Hello")
"""

from allegrex.sdk.build import build, build_host, cache_root
from allegrex.sdk.errors import CompileError, LinkError, SdkError, UnknownImportError

__all__ = ["build", "build_host", "cache_root", "SdkError", "CompileError", "LinkError", "UnknownImportError"]
