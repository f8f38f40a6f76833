"""CPU time of the GE's per-pixel stages for one full 480x272 frame.

    PYTHONPATH=. python benchmarks/ge_pixels_speed.py [--repeat R]

Every pixel of the frame is textured (texture.sample_prepared), combined with the
primitive colour (texture.combine, modulate RGBA) and sent through the fragment stage
(fragment.process_prepared: depth test GEQUAL + depth write, alpha blending, 8888
buffer), as a raster loop does, for several texture formats and filters. The raster
itself (edge walking, interpolation) is not included: it is ge-core's, timed by its own
benchmark. Figures are process CPU time (the machine is shared; wall time is noisier),
the best of R frames after a warm-up frame that compiles.
"""

import argparse
import time

import numpy as np
from numba import njit

from allegrex.ge import fragment, regs, texture
from allegrex.memory import Memory

TEX = 0x08900000
W, H = 480, 272


@njit(cache=True)
def frame(mem, ram_size, mapping, cmds, tex, frag):
    written = 0
    for y in range(H):
        for x in range(W):
            texel = texture.sample_prepared(mem, ram_size, mapping, tex, x / 480.0, y / 272.0, -1.0)
            color = texture.combine(cmds, 0xC08080FF, texel)
            written += fragment.process_prepared(mem, ram_size, mapping, frag, x, y, 1000 + x, color, 0, 1.0)
    return written


def setup(fmt, filt):
    memory = Memory()
    cmds = np.zeros(256, np.uint32)

    def send(op, arg):
        cmds[op] = (op << 24) | arg

    send(regs.FRAMEBUFWIDTH, 512)
    send(regs.ZBUFPTR, 0x88000)
    send(regs.ZBUFWIDTH, 512)
    send(regs.MAXZ, 0xFFFF)
    send(regs.ZTESTENABLE, 1)
    send(regs.ZTEST, 7)  # GEQUAL
    send(regs.ALPHABLENDENABLE, 1)
    send(regs.BLENDMODE, 2 | (3 << 4))  # src alpha, 1 - src alpha
    send(regs.FRAMEBUFPIXFORMAT, 3)
    send(regs.TEXTUREMAPENABLE, 1)
    send(regs.TEXFORMAT, fmt)
    send(regs.TEXFILTER, filt | (filt << 8))
    send(regs.TEXFUNC, 0x100)  # modulate, RGBA
    send(regs.TEXADDR0, TEX & 0xFFFFFF)
    send(regs.TEXBUFWIDTH0, ((TEX >> 8) & 0x0F0000) | 256)
    send(regs.TEXSIZE0, (8 << 8) | 8)
    send(regs.CLUTFORMAT, 3 | (0xFF << 8))
    rng = np.random.default_rng(0)
    memory.write(TEX, rng.integers(0, 256, 256 * 256 * 4, dtype=np.uint8).tobytes())
    clut = rng.integers(0, 256, texture.CLUT_BYTES, dtype=np.uint8)
    return memory, cmds, clut


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for name, fmt in [("8888", 3), ("5650", 0), ("CLUT8", 5), ("DXT1", 8)]:
        for filt_name, filt in [("nearest", 0), ("bilinear", 1)]:
            memory, cmds, clut = setup(fmt, filt)
            tex = texture.prepare(cmds, clut, memory.ram_size)
            frag = fragment.prepare(cmds)
            frame(memory.mem, memory.ram_size, memory.mapping, cmds, tex, frag)
            best = min(timed(frame, memory.mem, memory.ram_size, memory.mapping, cmds, tex, frag) for _ in range(args.repeat))
            print(f"{name:6s} {filt_name:9s} {best * 1000:6.1f} ms CPU per frame ({best * 1e9 / (W * H):.0f} ns per pixel)")


def timed(fn, *a):
    start = time.process_time()
    fn(*a)
    return time.process_time() - start


if __name__ == "__main__":
    main()
