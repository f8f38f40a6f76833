"""Run the llama2 port's VFPU kernels (psp/apps/llama2/matmul_vfpu.S: matmuls on the file's
or the blocked layout, quantization, argmax, SwiGLU) alone on the simulated CPU: assemble
them, put weights and activations in guest RAM, call one kernel and read back the outputs
and the cycle count. For tests (against numpy versions of the scalar kernels) and for
cycles-per-weight figures."""

from __future__ import annotations

import struct
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from allegrex.llama.errors import LlamaError
from allegrex.llama.host import APP_DIR

CODE_BASE = 0x08804000
DATA_BASE = 0x08900000
BREAK_WORD = 0x0000000D  # `break 0`: the kernel returns here


@lru_cache(maxsize=1)
def assemble_kernels() -> tuple[bytes, dict[str, int]]:
    """(.text bytes, offset of each global function) of matmul_vfpu.S."""
    from elftools.elf.elffile import ELFFile
    from vfpu.asm import rewrite_vfpu_lines

    source = (APP_DIR / "matmul_vfpu.S").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = Path(tmp, "matmul_vfpu.S"), Path(tmp, "matmul_vfpu.o")
        src.write_text(rewrite_vfpu_lines(source))
        cmd = [sys.executable, "-m", "ziglang", "cc", "-target", "mipsel-freestanding-none", "-mcpu=mips2",
               "-c", str(src), "-o", str(obj)]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode:
            raise LlamaError(f"assembling matmul_vfpu.S failed:\n{result.stderr}")
        with open(obj, "rb") as f:
            elf = ELFFile(f)
            text = elf.get_section_by_name(".text").data()
            symbols = {s.name: s["st_value"] for s in elf.get_section_by_name(".symtab").iter_symbols()
                       if s["st_info"]["bind"] == "STB_GLOBAL" and s["st_info"]["type"] == "STT_FUNC"}
    return bytes(text), symbols


class KernelRun:
    """One call of a kernel: the outputs, the cycles and instructions it took, and (with the
    timing model) every counter's change: stalls by cause, cache hits and misses."""

    def __init__(self, out: np.ndarray, cycles: int, instructions: int, counters: dict | None = None):
        self.out, self.cycles, self.instructions = out, cycles, instructions
        self.counters = counters or {}


def _counters(machine) -> dict:
    try:
        from allegrex.timing.counters import snapshot
    except ImportError:
        return {"cycles": machine.cycles, "instructions": machine.instructions}
    return snapshot(machine.cpu.counters)


def _run(function: str, fields: list, blobs: list[bytes], out_count: int, model: str = "psp-2000",
         keep: bool = False, in_registers: bool = False, out_initial: bytes = b""):
    """Call `function` with a0 pointing at `fields` (an argument block), or with the fields
    in a0.. (in_registers); blob addresses and the output block fill ("blob", i) and ("out",).
    out_initial: the output block's bytes before the call (kernels that work in place)."""
    from allegrex.machine import Machine

    text, symbols = assemble_kernels()
    if function not in symbols:
        raise LlamaError(f"matmul_vfpu.S has no function {function}")
    m = Machine(model)
    m.load_raw(CODE_BASE, text + struct.pack("<I", BREAK_WORD))
    addr, addrs = DATA_BASE + max(64, (4 * len(fields) + 15) & ~15), []   # after the argument block
    for blob in blobs:
        m.memory.write(addr, blob)
        addrs.append(addr)
        addr = (addr + len(blob) + 15) & ~15
    out_addr = addr
    m.memory.write(out_addr, out_initial)
    words = []
    for f in fields:
        if isinstance(f, tuple):
            words.append(out_addr if f[0] == "out" else addrs[f[1]])
        else:
            words.append(int(f))
    regs = m.cpu.regs
    if in_registers:
        for i, w in enumerate(words):
            regs[4 + i] = w                      # a0..a3
    else:
        m.memory.write(DATA_BASE, struct.pack(f"<{len(words)}I", *words))
        regs[4] = DATA_BASE                      # a0: the argument block
    regs[31] = CODE_BASE + len(text)             # ra: the break after the code
    regs[29] = DATA_BASE - 0x100                 # sp (unused by the kernels)
    m.cpu.jump(CODE_BASE + symbols[function])
    c0, i0, before = m.cycles, m.instructions, _counters(m)
    event = m.step(500_000_000)
    if event.kind != "break":
        raise LlamaError(f"{function} stopped with {event.kind} at 0x{event.pc:08x} (value 0x{event.value:x})")
    out = np.frombuffer(m.memory.read(out_addr, out_count * 4), dtype="<f4").copy()
    after = _counters(m)
    run = KernelRun(out, m.cycles - c0, m.instructions - i0, {k: after[k] - before.get(k, 0) for k in after})
    return (run, m, addrs) if keep else run


def run_q80(wq: np.ndarray, ws: np.ndarray, xq: np.ndarray, xs: np.ndarray, group_size: int,
            step: int | None = None, model: str = "psp-2000", blocked: bool = False) -> KernelRun:
    """out = W @ x as the q80 kernels compute it; rows a multiple of 4. step: weights per
    row per inner step, 32, 16 (quad loads) or 4 (word loads); default as the program picks.
    With step 32 a group size of exactly 32 takes vfpu_q80_group32, as the program does.
    blocked: the weights re-laid in blocks of eight rows (block_q80) for vfpu_q80_block32,
    as the program loads them for its VFPU kernels at group size 32."""
    d, n = wq.shape
    if blocked:
        return _run_q80_blocked(wq, ws, xq, xs, group_size, model)
    if d % 4 or n % 4 or group_size % 4:
        raise LlamaError("the VFPU q80 kernels take rows in fours and lengths in multiples of 4")
    if step is None:  # as kernels_vfpu.c chooses
        step = 32 if n % 16 == 0 and group_size % 32 == 0 else 16 if n % 16 == 0 and group_size % 16 == 0 else 4
    if group_size % step or (step > 4 and n % 16):
        raise LlamaError(f"step {step} does not fit group size {group_size} and row length {n}")
    groups = n // group_size
    fields = [("blob", 0), ("blob", 1), ("blob", 2), ("blob", 3), ("out",), n, d, groups,
              group_size // step, groups * 4]
    blobs = [wq.astype(np.int8).tobytes(), ws.astype("<f4").tobytes(),
             xq.astype("<f4").tobytes(), xs.astype("<f4").tobytes()]
    return _run(q80_kernel_name(step, group_size), fields, blobs, d, model)


BLOCK_ROWS = 8  # rows per block of the re-laid q80 weights (llama2.h Q80_BLOCK_ROWS)


def block_q80(wq: np.ndarray, ws: np.ndarray, group_size: int) -> bytes:
    """The q80 weights as model.c re-lays them: per block of BLOCK_ROWS rows, per group, the
    rows' int8 values, row after row, then their fp32 scales."""
    d, n = wq.shape
    groups = n // group_size
    values = wq.astype(np.int8).reshape(d // BLOCK_ROWS, BLOCK_ROWS, groups, group_size).transpose(0, 2, 1, 3)
    scales = ws.astype("<f4").reshape(d // BLOCK_ROWS, BLOCK_ROWS, groups).transpose(0, 2, 1)
    records = np.concatenate([values.reshape(d // BLOCK_ROWS, groups, -1).view(np.uint8),
                              scales.copy().view(np.uint8).reshape(d // BLOCK_ROWS, groups, -1)], axis=2)
    return records.tobytes()


def _run_q80_blocked(wq, ws, xq, xs, group_size, model) -> KernelRun:
    d, n = wq.shape
    if group_size != 32 or n % 32 or d % BLOCK_ROWS:
        raise LlamaError(f"vfpu_q80_block32 takes group size 32 and rows in blocks of {BLOCK_ROWS}")
    fields = [("blob", 0), 0, ("blob", 1), ("blob", 2), ("out",), n, d, n // group_size, 1, 0]
    blobs = [block_q80(wq, ws, group_size), xq.astype("<f4").tobytes(), xs.astype("<f4").tobytes()]
    return _run("vfpu_q80_block32", fields, blobs, d, model)


def q40_activations(xq: np.ndarray, group_size: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """What kernels_vfpu.c prepares for vfpu_q40_block32 from the quantized input (as
    floats): per group A[k] = x[k+16] - 16 x[k], B[k] = 16 x[k] in the order A0-7 B0-7
    A8-15 B8-15, and C = 8 (x[0] + ... + x[15]) four times."""
    x = xq.astype(np.float32).reshape(-1, group_size)
    half = group_size // 2
    a, b = x[:, half:] - 16 * x[:, :half], 16 * x[:, :half]
    q4 = np.concatenate([a[:, :8], b[:, :8], a[:, 8:], b[:, 8:]], axis=1).astype(np.float32)
    c = np.repeat(8 * x[:, :half].sum(axis=1, keepdims=True), 4, axis=1).astype(np.float32)
    return q4.reshape(-1), c.reshape(-1)


def run_q40(q: np.ndarray, d: np.ndarray, xq: np.ndarray, xs: np.ndarray, model: str = "psp-2000") -> KernelRun:
    """out = W @ x by vfpu_q40_block32: q (rows, cols) in -8..7, d fp16 scales (rows,
    groups of 32), xq the quantized input, xs its scales; rows in blocks of eight."""
    from allegrex.llama import q40
    rows, n = q.shape
    if n % 32 or rows % BLOCK_ROWS:
        raise LlamaError(f"vfpu_q40_block32 takes group size 32 and rows in blocks of {BLOCK_ROWS}")
    q4, c = q40_activations(xq)
    fields = [("blob", 0), ("blob", 1), ("blob", 2), ("blob", 3), ("out",), n, rows, n // 32, 1, 0] + [0] * 8
    blobs = [q40.pack(q, d, 32), c.astype("<f4").tobytes(), q4.astype("<f4").tobytes(), xs.astype("<f4").tobytes()]
    return _run("vfpu_q40_block32", fields, blobs, rows, model)


def q80_kernel_name(step: int, group_size: int) -> str:
    """The assembly function kernels_vfpu.c calls for this step and group size."""
    return "vfpu_q80_group32" if step == 32 and group_size == 32 else f"vfpu_q80_rows{step}"


def run_quantize(x: np.ndarray, group_size: int, model: str = "psp-2000") -> tuple[KernelRun, np.ndarray, np.ndarray]:
    """vfpu_quantize on x: (run with run.out = qf, q as int8, one scale per group)."""
    n = x.size
    if group_size % 16 or n % group_size:
        raise LlamaError("vfpu_quantize takes groups of a multiple of 16 values")
    groups = n // group_size
    consts = np.array([0.5, 127.0, np.finfo(np.float32).tiny, 1.0], "<f4").tobytes()
    # blobs: x, then q (n bytes), s (groups floats); qf is the output block
    fields = [("blob", 0), ("blob", 1), ("out",), ("blob", 2), groups, group_size // 16, 0, 0]
    fields += [int(v) for v in np.frombuffer(consts, "<u4")]
    blobs = [x.astype("<f4").tobytes(), bytes(n), bytes(4 * groups)]
    run, m, addrs = _run("vfpu_quantize", fields, blobs, n, model, keep=True)
    q = np.frombuffer(m.memory.read(addrs[1], n), dtype=np.int8).copy()
    s = np.frombuffer(m.memory.read(addrs[2], 4 * groups), dtype="<f4").copy()
    return run, q, s


def run_argmax(p: np.ndarray, model: str = "psp-2000") -> tuple[KernelRun, int]:
    """argmax_vfpu (kernels_vfpu.c): vfpu_argmax_chunk over the whole 64-value chunks, then
    the C part in Python (the first largest value in that chunk, then the tail)."""
    chunks = p.size // 64
    if chunks == 0:
        raise LlamaError("vfpu_argmax_chunk needs at least 64 values")
    run, m, addrs = _run("vfpu_argmax_chunk", [("blob", 0), chunks], [p.astype("<f4").tobytes()], 0, model,
                         keep=True, in_registers=True)
    best = (int(m.cpu.regs[2]) - addrs[0]) // 4
    best += int(np.argmax(p[best:best + 64]))
    for i in range(chunks * 64, p.size):
        if p[i] > p[best]:
            best = i
    return run, best


def run_fp32(w: np.ndarray, x: np.ndarray, model: str = "psp-2000") -> KernelRun:
    d, n = w.shape
    if d % 4 or n % 4:
        raise LlamaError("the VFPU fp32 kernel takes rows in fours and lengths in multiples of 4")
    fields = [("blob", 0), 0, ("blob", 1), 0, ("out",), n * 4, d, 1, n // 4, 0]
    return _run("vfpu_fp32_rows4", fields, [w.astype("<f4").tobytes(), x.astype("<f4").tobytes()], d, model)


# ----------------------------------------------------------------------------- references

def quantize_reference(x, group_size) -> tuple[np.ndarray, np.ndarray]:
    """quantize_act (kernels.c) in numpy: (q int8, scales); roundf rounds halves away from 0."""
    g = x.astype(np.float32).reshape(-1, group_size)
    scale = (np.abs(g).max(axis=1) / np.float32(127.0)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (g / scale[:, None]).astype(np.float32).astype(np.float64)
    q = np.where(scale[:, None] == 0, 0, np.sign(t) * np.floor(np.abs(np.nan_to_num(t)) + 0.5))
    return q.astype(np.int8).reshape(-1), scale


def scalar_q40(q, d, xq, xs, group_size) -> np.ndarray:
    """kernels.c's matmul_q40 in float32: the q80 arithmetic on 4-bit weights and fp16
    scales (subnormal halves read as zero)."""
    from allegrex.llama import q40
    scale = d.astype(np.float32)
    scale[np.abs(scale) < q40.HALF_MIN_NORMAL] = 0
    return scalar_q80(q, scale.reshape(-1), xq, xs, group_size)


def scalar_q80(wq, ws, xq, xs, group_size) -> np.ndarray:
    """runq.c's matmul in float32, operation for operation: val += ((float)isum * ws) * xs."""
    d, n = wq.shape
    groups = n // group_size
    isum = (wq.astype(np.int32).reshape(d, groups, group_size)
            * xq.astype(np.int32).reshape(1, groups, group_size)).sum(axis=2)
    val = np.zeros(d, dtype=np.float32)
    ws = ws.reshape(d, groups).astype(np.float32)
    for g in range(groups):
        val = (val + (isum[:, g].astype(np.float32) * ws[:, g]) * np.float32(xs[g])).astype(np.float32)
    return val


# ----------------------------------------------------------------------------- SwiGLU

def sdk_expf_constants() -> dict[str, np.float32 | np.ndarray]:
    """expf's constants as the SDK libm (psp/sdk/libm/mathf.c) writes them."""
    import re

    from allegrex.llama.host import SDK_LIBM_DIR

    text = (SDK_LIBM_DIR / "mathf.c").read_text()
    q = re.search(r"EXP_Q\[\] = \{([^}]*)\}", text).group(1)
    consts = {"q": np.array([float(v.rstrip("f")) for v in q.split(",")], np.float32)}
    for name in ("LN2_HI", "LN2_LO", "LOG2E"):
        consts[name] = np.float32(float(re.search(rf"#define {name} ([0-9.e+-]+)f", text).group(1)))
    return consts


def swiglu_constants() -> np.ndarray:
    """The constant block of vfpu_swiglu (SwigluArgs.consts in kernels_vfpu.c)."""
    c = sdk_expf_constants()
    q = c["q"]
    return np.array([c["LOG2E"], 0.5, c["LN2_HI"], c["LN2_LO"], q[5], q[4], q[3], q[2], q[1], q[0], 1.0, 127.0,
                     80.0, np.finfo(np.float32).tiny, np.finfo(np.float32).max, 0.0], np.float32)


def run_swiglu(hb: np.ndarray, hb2: np.ndarray, model: str = "psp-2000") -> tuple[KernelRun, int]:
    """vfpu_swiglu over hb (a multiple of 4 values): (run with run.out = hb after the call,
    quads done: it stops before the first quad it cannot give exactly)."""
    if hb.size % 4 or hb.size != hb2.size:
        raise LlamaError("vfpu_swiglu takes two vectors of the same length, a multiple of 4")
    fields = [("out",), ("blob", 0), hb.size // 4, 0] + [int(v) for v in swiglu_constants().view("<u4")]
    blobs = [hb2.astype("<f4").tobytes()]
    run, m, _ = _run("vfpu_swiglu", fields, blobs, hb.size, model, keep=True, out_initial=hb.astype("<f4").tobytes())
    return run, int(m.cpu.regs[2])


def expf_reference(x: np.ndarray) -> np.ndarray:
    """The SDK libm's expf in float32 numpy, operation for operation."""
    c = sdk_expf_constants()
    q, f = c["q"], np.float32
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        kf = x * c["LOG2E"]
        kf = np.where(kf < 0, kf - f(0.5), kf + f(0.5))
        k = np.trunc(np.nan_to_num(kf)).astype(np.int64)
        kfl = k.astype(np.float32)
        r = (x - kfl * c["LN2_HI"]) - kfl * c["LN2_LO"]
        p = q[0] + r * (q[1] + r * (q[2] + r * (q[3] + r * (q[4] + r * q[5]))))
        e = f(1.0) + (r + r * r * p)
        e = _scale2(e, k)
    e = np.where(x > f(88.7228393), f(np.inf), e)
    e = np.where(x < f(-103.972084), f(0.0), e)
    return np.where(np.isnan(x), x, e).astype(np.float32)


def _scale2(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """x * 2^k as mathf.c's scale2: at most two pre-scalings, then one exact power of two."""
    x, k = x.copy(), k.copy()
    big = k > 127
    x[big] *= np.float32(2.0 ** 127)
    k[big] -= 127
    for _ in range(2):
        small = k < -126
        x[small] *= np.float32(2.0 ** -126)
        k[small] += 126
    power = ((np.clip(k, -126, 127) + 127).astype(np.uint32) << 23).view(np.float32)
    return (x * power).astype(np.float32)


def swiglu_reference(hb: np.ndarray, hb2: np.ndarray) -> np.ndarray:
    """swiglu_scalar (kernels.c) in float32 numpy: (hb * (1 / (1 + expf(-hb)))) * hb2."""
    f = np.float32
    hb = hb.astype(np.float32)
    with np.errstate(all="ignore"):
        return ((hb * (f(1.0) / (f(1.0) + expf_reference(-hb)))) * hb2.astype(np.float32)).astype(np.float32)
