"""Wall and CPU time of the GE renderer for a full 480x272 frame of textured, blended
triangles (the issue's speed target: at most 20 ms of wall time on this machine).

    PYTHONPATH=. python benchmarks/ge_speed.py [--grid 16x9] [--repeat 10]

The display list (built here in guest memory, run by the numba list processor without
the rest of the simulator): an 8888 frame buffer in VRAM, a 64x64 8888 texture with
bilinear filtering, alpha blending on, a 3D perspective view of a screen-filling grid of
quads (two triangles each, per-vertex colours and texture coordinates). Every pixel of
the frame is covered once. Reported per frame: wall and process CPU time (best and
median of --repeat), pixels written, the GE's simulated time for it (cost model), and a
digest of VRAM after the first frame (frame and depth buffer): a faster renderer must
keep it (--expect DIGEST fails the run when it differs).
The machine is shared: process CPU time is the steadier figure.
"""

import argparse
import hashlib
import struct
import sys
import time
from pathlib import Path

import numpy as np

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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--grid", default="16x9", help="quads across x down (default 16x9)")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--expect", metavar="DIGEST", help="fail unless the first frame's VRAM digest is this")
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
    if args.expect and args.expect != digest:
        print(f"  the frame differs from the expected {args.expect}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
