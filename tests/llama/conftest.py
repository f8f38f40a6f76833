"""Fixtures for the llama2 port: karpathy/llama2.c's run.c/runq.c built as oracles."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from allegrex.llama.checkpoint import read_checkpoint, write_q40, write_q80
from allegrex.llama.host import sdk_libm_sources

# A bare mirror of karpathy/llama2.c (the project's fetch tool puts it here), or $LLAMA2C_DIR (a checkout).
MIRROR = Path("/work/.mirror/karpathy+llama2.c/repo")


def _source(name: str, dest: Path) -> Path | None:
    checkout = os.environ.get("LLAMA2C_DIR")
    if checkout and Path(checkout, name).exists():
        shutil.copy(Path(checkout, name), dest / name)
        return dest / name
    if MIRROR.exists():
        show = subprocess.run(["git", "--git-dir", str(MIRROR), "show", f"HEAD:{name}"], capture_output=True)
        if show.returncode == 0:
            (dest / name).write_bytes(show.stdout)
            return dest / name
    return None


@pytest.fixture(scope="session")
def llama2c(tmp_path_factory):
    """Builds of llama2.c's run.c and runq.c (never committed): gcc+glibc as in the brief, and
    zig+musl with the libm our host build links (the SDK's once it exists), for the
    sampled comparisons."""
    work = tmp_path_factory.mktemp("llama2c")
    built = {}
    for name in ("run.c", "runq.c"):
        src = _source(name, work)
        if src is None:
            pytest.skip("karpathy/llama2.c is not available (set LLAMA2C_DIR)")
        stem = name[:-2]
        if shutil.which("gcc"):
            exe = work / f"{stem}-gcc"
            if subprocess.run(["gcc", "-O2", "-ffp-contract=off", "-o", str(exe), str(src), "-lm"],
                              capture_output=True).returncode == 0:
                built[f"{stem}-gcc"] = exe
        exe = work / f"{stem}-musl"
        libm = [str(p) for p in sdk_libm_sources()]  # the same libm as our host build
        if subprocess.run([sys.executable, "-m", "ziglang", "cc", "-target", "x86_64-linux-musl", "-O2",
                           "-ffp-contract=off", "-w", "-include", "stdint.h", "-o", str(exe), str(src), *libm, "-lm"],
                          capture_output=True).returncode == 0:
            built[f"{stem}-musl"] = exe
    if not built:
        pytest.skip("could not build llama2.c's run.c/runq.c")
    return built


def run_reference(exe, model, tokenizer, prompt, steps, temperature=0.0, topp=0.9, seed=1):
    """Text printed by run.c/runq.c (stdout; its final newline is its own, not the model's)."""
    out = subprocess.run([str(exe), str(model), "-z", str(tokenizer), "-t", str(temperature), "-p", str(topp),
                          "-s", str(seed), "-n", str(steps), "-i", prompt], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith(b"\n")
    return out.stdout[:-1]


@pytest.fixture
def stories260K(shared_models, tmp_path):
    """The shared stories260K checkpoint as fp32 (as given), q80 and q40 (converted), and its tokenizer."""
    fp32 = read_checkpoint(shared_models / "stories260K.bin")
    write_q80(fp32, tmp_path / "stories260K_q80.bin")
    write_q40(fp32, tmp_path / "stories260K_q40.bin")
    return {"fp32": shared_models / "stories260K.bin", "q80": tmp_path / "stories260K_q80.bin",
            "q40": tmp_path / "stories260K_q40.bin", "tok": shared_models / "tok512.bin"}
