"""Wall and CPU time of the GE renderer for a full 480x272 frame of textured, blended
triangles (the issue's speed target: at most 20 ms of wall time on this machine).

    PYTHONPATH=. python benchmarks/ge_speed.py [--grid 16x9] [--repeat 10]
    NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=. python benchmarks/ge_speed.py --repeat 1 --compile-profile

The display list (built here in guest memory, run by the numba list processor without
the rest of the simulator): an 8888 frame buffer in VRAM, a 64x64 8888 texture with
bilinear filtering, alpha blending on, a 3D perspective view of a screen-filling grid of
quads (two triangles each, per-vertex colours and texture coordinates). Every pixel of
the frame is covered once. Reported per frame: wall and process CPU time (best and
median of --repeat), pixels written, the GE's simulated time for it (cost model), and a
digest of VRAM after the first frame (frame and depth buffer): a faster renderer must
keep it (--expect DIGEST fails the run when it differs).
The machine is shared: process CPU time is the steadier figure. With an empty numba
cache the first call is the GE's cold compile; --compile-profile then says which
functions it spent its time on.
"""

import argparse
import hashlib
import struct
import sys
import time
from pathlib import Path

import numpy as np
from numba.core import event as numba_event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LIST = 0x08900000
VERTS = 0x08A00000
TEXTURE = 0x08B00000


def f24(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0] >> 8


def build(memory, grid_x: int, grid_y: int) -> int:
    """Write the texture, vertices and list; returns the number of triangles."""
    from allegrex.ge.commands import OPS
    rng = np.random.default_rng(1)
    texels = rng.integers(0, 256, (64, 64, 4), dtype=np.uint8)
    memory.write(TEXTURE, texels.tobytes())
    # vertices: u16 tc, 8888 colour, float position; a grid in [-2, 2] at depth -2: the full view
    verts = []
    for j in range(grid_y):
        for i in range(grid_x):
            corners = [(i, j), (i + 1, j), (i, j + 1), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
            for cx, cy in corners:
                x = -1.0 + 2.0 * cx / grid_x
                y = 1.0 - 2.0 * cy / grid_y
                u, v = int(cx * 65535 / grid_x), int(cy * 65535 / grid_y)
                colour = 0x80000000 | (cx * 37 & 0xFF) | ((cy * 53 & 0xFF) << 8) | 0x00FF0000
                verts.append(struct.pack("<HHIfff", u, v, colour, x * 2.0, y * 2.0, -2.0))
    memory.write(VERTS, b"".join(verts))
    w = lambda op, arg: (OPS[op] << 24) | (arg & 0xFFFFFF)  # noqa: E731
    proj = [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, -1.0, -1.0, 0, 0, -0.2, 0]  # perspective, near 0.1
    ident = [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0]
    words = [w("FRAMEBUFPTR", 0), w("FRAMEBUFWIDTH", 512), w("FRAMEBUFPIXFORMAT", 3),
             w("ZBUFPTR", 0x88000), w("ZBUFWIDTH", 512),
             w("SCISSOR1", 0), w("SCISSOR2", (271 << 10) | 479), w("REGION2", (271 << 10) | 479),
             w("OFFSETX", (2048 - 240) << 4), w("OFFSETY", (2048 - 136) << 4),
             w("VIEWPORTXSCALE", f24(240.0)), w("VIEWPORTYSCALE", f24(-136.0)), w("VIEWPORTZSCALE", f24(-32767.5)),
             w("VIEWPORTXCENTER", f24(2048.0)), w("VIEWPORTYCENTER", f24(2048.0)),
             w("VIEWPORTZCENTER", f24(32767.5)), w("MINZ", 0), w("MAXZ", 0xFFFF),
             w("PROJMATRIXNUMBER", 0), *[w("PROJMATRIXDATA", f24(v)) for v in proj],
             w("WORLDMATRIXNUMBER", 0), *[w("WORLDMATRIXDATA", f24(v)) for v in ident],
             w("VIEWMATRIXNUMBER", 0), *[w("VIEWMATRIXDATA", f24(v)) for v in ident],
             w("TEXSCALEU", f24(1.0)), w("TEXSCALEV", f24(1.0)),
             w("TEXTUREMAPENABLE", 1), w("TEXADDR0", TEXTURE & 0xFFFFFF), w("TEXBUFWIDTH0", ((TEXTURE >> 8) & 0xF0000) | 64),
             w("TEXSIZE0", (6 << 8) | 6), w("TEXFORMAT", 3), w("TEXFILTER", 0x101), w("TEXFUNC", 0x100),
             w("ALPHABLENDENABLE", 1), w("BLENDMODE", 0x32),  # src alpha, one minus src alpha, add
             w("SHADEMODE", 1), w("BASE", (VERTS >> 8) & 0xF0000),
             w("VERTEXTYPE", 2 | (7 << 2) | (3 << 7)), w("VADDR", VERTS & 0xFFFFFF),
             w("PRIM", (3 << 16) | (grid_x * grid_y * 6)), w("FINISH", 0), w("END", 0)]
    for i, word in enumerate(words):
        memory.write_u32(LIST + 4 * i, word)
    return grid_x * grid_y * 2


class CpuRecorder(numba_event.Listener):
    """A numba event listener keeping (process CPU time, event) of each start and end."""

    def __init__(self):
        self.buffer = []

    def on_start(self, ev):
        self.buffer.append((time.process_time(), ev))

    def on_end(self, ev):
        self.buffer.append((time.process_time(), ev))


def print_compile_profile(compiles, llvm, top=15):
    """Each compiled function's own time (its compile minus the callees compiled inside
    it) and the part of it spent in LLVM, from numba's compile events (CPU seconds)."""
    events = sorted([(ts, False, ev) for ts, ev in compiles] + [(ts, True, ev) for ts, ev in llvm],
                    key=lambda e: e[0])
    own, in_llvm, count, stack, llvm_start = {}, {}, {}, [], 0.0
    for ts, is_llvm, ev in events:
        if is_llvm:
            if ev.is_start:
                llvm_start = ts
            elif stack:
                stack[-1][3] += ts - llvm_start
            continue
        if ev.is_start:
            fn = ev.data["dispatcher"].py_func
            stack.append([f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}", ts, 0.0, 0.0])
            continue
        name, start, callees, llvm_time = stack.pop()
        own[name] = own.get(name, 0.0) + ts - start - callees
        in_llvm[name] = in_llvm.get(name, 0.0) + llvm_time
        count[name] = count.get(name, 0) + 1
        if stack:
            stack[-1][2] += ts - start
    print(f"  compile profile: {sum(own.values()):.1f} s CPU in {sum(count.values())} compiles, "
          f"{sum(in_llvm.values()):.1f} s of it in LLVM; the largest (own s, LLVM s, compiles):")
    for name in sorted(own, key=own.get, reverse=True)[:top]:
        print(f"    {name:36s} {own[name]:6.1f} {in_llvm[name]:6.1f} {count[name]:3d}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--grid", default="16x9", help="quads across x down (default 16x9)")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--expect", metavar="DIGEST", help="fail unless the first frame's VRAM digest is this")
    p.add_argument("--compile-profile", action="store_true",
                   help="print the numba functions the first call compiled, by their own share of it (use with an "
                        "empty NUMBA_CACHE_DIR)")
    args = p.parse_args(argv)
    gx, gy = (int(v) for v in args.grid.split("x"))
    from allegrex.ge import cost, processor
    from allegrex.ge.state import GeState, R_CYCLES, R_LISTADDR, R_PIXELS
    from allegrex.memory import VRAM_SIZE, Memory
    memory = Memory()
    triangles = build(memory, gx, gy)
    ge = GeState()
    trace = np.zeros(1, dtype=np.int64)

    def frame():
        ge.regs[:] = 0
        ge.regs[R_LISTADDR] = LIST
        return processor.run(memory.mem, memory.ram_size, memory.mapping, ge.regs, ge.cmds, ge.mtx, ge.clut, ge.keep, 10**6, trace)

    t, c = time.perf_counter(), time.process_time()
    if args.compile_profile:
        compiles, llvm = CpuRecorder(), CpuRecorder()
        with (numba_event.install_listener("numba:compile", compiles),
              numba_event.install_listener("numba:llvm_lock", llvm)):
            frame()
    else:
        frame()  # compiles (or loads the numba cache)
    first, first_cpu = time.perf_counter() - t, time.process_time() - c
    vram = memory.mem[memory.ram_size:memory.ram_size + VRAM_SIZE]
    digest = hashlib.sha256(vram.tobytes()).hexdigest()[:16]
    walls, cpus = [], []
    for _ in range(args.repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        event = frame()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    px = int(ge.regs[R_PIXELS])
    ge_us = (int(ge.regs[R_CYCLES]) + px // cost.PIXEL_QUADS) / cost.GE_MHZ
    print(f"GE frame: {triangles} textured blended triangles, {px} pixels written, event {event}")
    print(f"  first call (compile or cache load): {first:.2f} s wall, {first_cpu:.2f} s CPU")
    print(f"  wall: best {1000 * min(walls):.1f} ms, median {1000 * float(np.median(walls)):.1f} ms")
    print(f"  process CPU: best {1000 * min(cpus):.1f} ms, median {1000 * float(np.median(cpus)):.1f} ms")
    print(f"  simulated GE time (cost model): {ge_us:.0f} us")
    print(f"  VRAM digest after the first frame: {digest}")
    if args.compile_profile:
        print_compile_profile(compiles.buffer, llvm.buffer)
    if args.expect and args.expect != digest:
        print(f"  the frame differs from the expected {args.expect}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
