"""The host build of the llama2 port: the same C as the PSP build, compiled for x86_64
by the pinned zig, used as the reference the simulated PSP must match byte for byte.

Builds are cached by a hash of the sources and flags, so tests do not rebuild."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from allegrex.llama.errors import LlamaError

APP_DIR = Path(__file__).resolve().parents[2] / "psp" / "apps" / "llama2"
# The engine and the host platform layer (plat_psp.c and the VFPU .S are PSP-only).
ENGINE_SOURCES = ("main.c", "model.c", "forward.c", "kernels.c", "tokenizer.c", "sampler.c")
HOST_SOURCES = ENGINE_SOURCES + ("plat_host.c",)
# -ffp-contract=off: no fused multiply-add, so float results match the PSP's FPU op for op.
HOST_FLAGS = ("-target", "x86_64-linux-musl", "-O2", "-std=c99", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror")

# The SDK's libm (portable C): linked into the host build so expf/powf/sinf/cosf give the
# PSP's results bit for bit. Until the SDK lands, musl's libm stands in (same results at
# temperature 0 on stories260K; sampled text can differ).
SDK_LIBM_DIR = APP_DIR.parents[1] / "sdk" / "libm"


def sdk_libm_sources() -> list[Path]:
    return sorted(SDK_LIBM_DIR.glob("*.c")) if SDK_LIBM_DIR.is_dir() else []


OUTPUT_FILES = {"out": "llama2_out.txt", "budget": "llama2_budget.txt", "stats": "llama2_stats.txt"}


def _cache_dir() -> Path:
    root = Path(os.environ.get("ALLEGREX_CACHE", Path(tempfile.gettempdir()) / "allegrex-cache"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def build_host(extra_flags: tuple[str, ...] = ()) -> Path:
    """Compile the host reference binary (cached); returns its path."""
    sources = [APP_DIR / name for name in HOST_SOURCES] + sdk_libm_sources()
    digest = hashlib.sha256()
    for path in sources + sorted(APP_DIR.glob("*.h")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    flags = HOST_FLAGS + tuple(extra_flags)
    digest.update("\0".join(flags).encode())
    out = _cache_dir() / f"llama2-host-{digest.hexdigest()[:16]}"
    if out.exists():
        return out
    tmp = out.with_suffix(f".tmp{os.getpid()}")
    cmd = [sys.executable, "-m", "ziglang", "cc", *flags, "-o", str(tmp), *map(str, sources), "-lm"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise LlamaError(f"host build of llama2 failed:\n{result.stderr.strip()}")
    tmp.replace(out)
    return out


@dataclass
class HostRun:
    returncode: int
    stdout: str
    text: bytes            # the state file: the exact generated text
    budget: dict[str, str]
    stats: dict[str, str]
    workdir: Path


def _key_values(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def write_config(path: Path, settings: dict) -> None:
    """llama2.cfg: key=value lines; a newline inside a value is written as \\n."""
    lines = [f"{k}={str(v).replace(chr(10), chr(92) + 'n')}" for k, v in settings.items()]
    path.write_text("\n".join(lines) + "\n")


def run_host(workdir, settings: dict, timeout: float = 120) -> HostRun:
    """Run the host build in `workdir` with llama2.cfg made from `settings`."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    for name in OUTPUT_FILES.values():
        (workdir / name).unlink(missing_ok=True)
    write_config(workdir / "llama2.cfg", settings)
    binary = build_host()
    proc = subprocess.run([str(binary), str(workdir / "llama2.cfg")], capture_output=True, timeout=timeout)
    out = workdir / OUTPUT_FILES["out"]
    return HostRun(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                   out.read_bytes() if out.exists() else b"",
                   _key_values(workdir / OUTPUT_FILES["budget"]), _key_values(workdir / OUTPUT_FILES["stats"]),
                   workdir)
