"""The C cross-compiler: zig's clang and lld from the `ziglang` PyPI package.

PSP code: MIPS II with the single-precision FPU (the Allegrex subset zig can target);
doubles become soft-float calls into zig's compiler-rt. No FMA contraction, no small
data (gp-relative) sections, no frame pointer."""

import os
import shlex
import subprocess
import sys
from functools import lru_cache

from allegrex.sdk.errors import CompileError, LinkError

PSP_TARGET = ["-target", "mipsel-freestanding-none", "-mcpu=mips2+single_float"]
PSP_CFLAGS = ["-G0", "-mno-check-zero-division", "-ffp-contract=off", "-fno-math-errno", "-fomit-frame-pointer", "-ffunction-sections", "-fdata-sections",
              "-fno-stack-protector", "-fno-sanitize=all", "-g0"]
HOST_TARGET = ["-target", "x86_64-linux-musl"]
HOST_CFLAGS = ["-ffp-contract=off", "-fno-math-errno", "-fno-sanitize=all", "-g0", "-fno-stack-protector"]
# The SDK's own C must not be turned back into calls of itself (memset loop -> memset).
SDK_CFLAGS = ["-ffreestanding", "-fno-builtin"]


def zig_command(*args) -> list:
    return [sys.executable, "-m", "ziglang", *args]


@lru_cache(maxsize=None)
def zig_version() -> str:
    """The ziglang package's version (its zig's version), from the package metadata:
    asking the compiler costs a process start on every build."""
    from importlib import metadata
    try:
        return metadata.version("ziglang")
    except metadata.PackageNotFoundError:
        pass
    result = subprocess.run(zig_command("version"), capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"cannot run the zig compiler (python -m ziglang): {result.stderr.strip()}")
    return result.stdout.strip()


def _run(cmd, error_type, what):
    env = dict(os.environ)
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip()
        raise error_type(f"{what} failed:\n{message}")
    return result


def compile_object(source, obj, flags, what=None):
    """Compile a .c or .S file to an object; a compiler error raises CompileError with
    the compiler's message."""
    _run(zig_command("cc", *flags, "-c", str(source), "-o", str(obj)), CompileError, what or f"compiling {source}")


# Leaves the symbol table (and DWARF) out of a link: zig's objcopy cannot rewrite MIPS
# ELF files, so a stripped copy is linked again.
STRIP_ALL = "-Wl,--strip-all"


def link(objects, output, flags, what="linking"):
    _run(zig_command("cc", *flags, *map(str, objects), "-o", str(output)), LinkError, what)


def link_keeping_relocations(objects, output, flags, lld_args=(), what="linking"):
    """Link as link() does, then once more with the same ld.lld command (which zig prints
    when ZIG_VERBOSE_LINK is set; zig cc refuses these options itself) plus --emit-relocs
    and lld_args, so the output keeps every relocation: what a PRX module is made from."""
    env = dict(os.environ, ZIG_VERBOSE_LINK="1")
    cmd = zig_command("cc", *flags, *map(str, objects), "-o", str(output))
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise LinkError(f"{what} failed:\n{(result.stderr or result.stdout).strip()}")
    line = next((ln for ln in result.stderr.splitlines() if ln.startswith("ld.lld ")), None)
    if line is None:
        raise LinkError(f"{what}: zig did not show its linker command (ZIG_VERBOSE_LINK)")
    _run(zig_command(*shlex.split(line), "--emit-relocs", *lld_args), LinkError, what)
