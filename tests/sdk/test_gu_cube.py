"""psp/apps/gu_cube's frame, drawn by the simulated GE, against a second implementation:
a small numpy rasteriser of the same scene written from the demo's C source and the
PSP's documented GE behaviour, sharing nothing with allegrex/ge.

The reference reads the scene's numbers from main.c itself (its #defines, the cube's
face table, the light direction and the perspective call), builds the matrices as GUM
states them (projection * view * world, world = RotateX(tilt) * RotateY(turn); the
numpy GUM of test_gu.py), lights each vertex in world space (scene ambient x white
material, plus the directional light's diffuse colour times max(0, N.L), truncated),
modulates the 64 x 64 checkerboard (nearest texel of the perspective-correct u, v;
(colour + 1) * texel >> 8), and rasterises with edge functions and a GEQUAL depth test
over a cleared depth of 0, on top of the through-mode gradient (colour interpolated in
screen space, truncated).

Tolerance, and why: the GE snaps vertices to 1/16 pixel, runs its transform and
lighting in its own float and fixed-point precision (its N.L in fixed point makes one
face one step brighter) and has its own fill rule and colour rounding, none of which
this reference copies. So a GE pixel passes when it equals, within MAX_CHANNEL_ERROR per
channel, the reference at some point of a slightly enlarged square around the pixel (a
7 x 7 grid from -1/4 to 1 1/4 pixel): an edge pixel may take either side of a triangle
or checker edge, an interior one must have the right colour. A wrong texture, lighting,
culling or depth rule changes whole faces and fails (the second test shows it). The
share of pixels identical to the reference at pixel centres (97.4% measured) and the
largest channel difference there are in the failure message.
The debug-screen text line (rows 0-7) is not part of the scene and is left out.
"""

import re

import numpy as np
import pytest

from allegrex.sdk import build
from sdk_paths import APPS
from test_gu import perspective, rotation  # GUM's matrices, as numpy states them

SOURCE = APPS / "gu_cube" / "main.c"
W, H = 480, 272
TEXT_ROWS = 8  # pspDebugScreenPrintf's line over the frame
MAX_CHANNEL_ERROR = 2  # colour rounding: lighting in fixed point, gradient interpolation
STEPS, MARGIN = 4, 0.25  # where in (and just around) a pixel the GE may sample: every 1/4 pixel
WINDOW = STEPS + 2 * int(MARGIN * STEPS) + 1  # ... from -1/4 to 1 1/4: 7 x 7 points
MIN_IDENTICAL = 0.95  # at pixel centres (97.4% measured): edge pixels and one-off colours aside


# ---------------------------------------------------------------- the scene, from main.c

def scene() -> dict:
    """main.c's #define values, cube table, light direction and perspective arguments."""
    text = SOURCE.read_text()
    values = {}
    for name, value in re.findall(r"^#define\s+(\w+)\s+(0x[0-9a-fA-F]+|[-0-9.]+)[uf]?\b", text, re.M):
        values[name] = int(value, 16) if value.startswith("0x") else float(value)

    def numbers(pattern):
        body = re.search(pattern, text, re.S).group(1)
        return np.array([float(n.rstrip("f")) for n in re.findall(r"-?\d+(?:\.\d+)?f?", body)])

    values["faces"] = numbers(r"faces\[6\]\[3\]\[3\] = \{(.*?)\};").reshape(6, 3, 3)
    values["corners"] = numbers(r"corners\[6\]\[2\] = \{(.*?)\};").reshape(6, 2)
    values["light"] = numbers(r"toward_light = \{(.*?)\};")
    fovy, _aspect, near, far = re.search(r"sceGumPerspective\(([\d.]+)f, [^,]+, ([\d.]+)f, ([\d.]+)f\)",
                                         text).group(1, 1, 2, 3)
    values["perspective"] = (float(fovy), W / H, float(near), float(far))
    return values


def rgb(abgr: int) -> np.ndarray:
    """0xAABBGGRR -> [r, g, b]."""
    return np.array([abgr & 0xFF, (abgr >> 8) & 0xFF, (abgr >> 16) & 0xFF], dtype=np.int64)


def cube_vertices(s):
    """make_cube: per face, two triangles over its corners; u, v from the corner."""
    pos, normal, uv = [], [], []
    for n, du, dv in s["faces"]:
        for a, b in s["corners"]:
            pos.append(n + a * du + b * dv)
            normal.append(n)
            uv.append(((a + 1) / 2, (b + 1) / 2))
    return np.array(pos), np.array(normal), np.array(uv)


def screen_vertices(s, frame: int):
    """Per cube vertex: pixel x, y, depth, 1/w, u, v and the lit colour (r, g, b)."""
    pos, normal, uv = cube_vertices(s)
    world = rotation(0, s["TILT_X"]) @ rotation(1, s["START_Y"] + frame * s["SPIN_Y"])
    view = np.eye(4)
    view[2, 3] = -s["CAMERA_DISTANCE"]
    clip = (perspective(*s["perspective"]) @ view @ world @ np.c_[pos, np.ones(len(pos))].T).T
    ndc = clip[:, :3] / clip[:, 3:]
    # sceGuViewport(2048, 2048, 480, 272) and sceGuOffset(2048 - 240, 2048 - 136):
    # pixel = centre + scale * ndc - offset; sceGuDepthRange(65535, 0): depth = 32767 - 32768 z
    x = W / 2 + W / 2 * ndc[:, 0]
    y = H / 2 - H / 2 * ndc[:, 1]
    depth = 32767 - 32768 * ndc[:, 2]
    light = s["light"] / np.linalg.norm(s["light"])
    lambert = np.clip((world[:3, :3] @ normal.T).T @ light, 0, None)
    lit = rgb(s["SCENE_AMBIENT"]) + rgb(s["LIGHT_COLOR"])[None, :] * lambert[:, None]  # material: white
    color = np.clip(np.floor(lit), 0, 255)
    return x, y, depth, 1 / clip[:, 3], uv, color


def background(s, ys: np.ndarray) -> np.ndarray:
    """The through-mode strip: TOP_COLOR at y = 0 to BOTTOM_COLOR at y = 272, the
    interpolated colour truncated."""
    top, bottom = rgb(s["TOP_COLOR"]), rgb(s["BOTTOM_COLOR"])
    return np.floor(top + (bottom - top) * (ys[..., None] / H)).astype(np.int64)


def texel(s, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    size, checker = int(s["TEXTURE_SIZE"]), int(s["CHECKER"])
    tu = np.floor(u * size).astype(np.int64) % size  # GU_REPEAT, GU_NEAREST
    tv = np.floor(v * size).astype(np.int64) % size
    dark = ((tu // checker + tv // checker) & 1).astype(bool)
    return np.where(dark[..., None], rgb(s["CHECKER_DARK"]), rgb(s["CHECKER_LIGHT"]))


def render(xs: np.ndarray, ys: np.ndarray, frame: int = 0, broken: str = "") -> np.ndarray:
    """The frame's colour at the sample points (xs[j], ys[i]) (pixel units): int [rows, columns, 3].
    broken: "texture" (untextured), "lighting" (unlit), "depth" (no depth test) or "culling" (one
    winding dropped): the test of the test."""
    s = scene()
    image = background(s, np.repeat(ys[:, None], len(xs), axis=1))
    depth_buffer = np.zeros(image.shape[:2])
    x, y, z, inv_w, uv, color = screen_vertices(s, frame)
    if broken == "lighting":
        color[:] = 255
    for t in range(0, len(x), 3):
        i = [t, t + 1, t + 2]
        area = (x[i[1]] - x[i[0]]) * (y[i[2]] - y[i[0]]) - (x[i[2]] - x[i[0]]) * (y[i[1]] - y[i[0]])
        if area == 0 or broken == "culling" and area < 0:  # the faces towards the camera
            continue
        cols = slice(np.searchsorted(xs, x[i].min()), np.searchsorted(xs, x[i].max(), side="right"))
        rows = slice(np.searchsorted(ys, y[i].min()), np.searchsorted(ys, y[i].max(), side="right"))
        gx, gy = np.meshgrid(xs[cols], ys[rows])
        bary = []
        for k in range(3):  # the edge opposite vertex k, as a weight of vertex k
            a, b = i[(k + 1) % 3], i[(k + 2) % 3]
            bary.append(((x[b] - x[a]) * (gy - y[a]) - (y[b] - y[a]) * (gx - x[a])) / area)
        bary = np.array(bary)
        depth = np.einsum("k...,k->...", bary, z[i])
        old = depth_buffer[rows, cols]
        nearer = broken == "depth" or depth >= old  # GEQUAL
        drawn = (bary >= 0).all(axis=0) & nearer
        persp = np.where(drawn, np.einsum("k...,k->...", bary, inv_w[i]), 1)  # perspective-correct u, v
        u = np.einsum("k...,k->...", bary, uv[i, 0] * inv_w[i]) / persp
        v = np.einsum("k...,k->...", bary, uv[i, 1] * inv_w[i]) / persp
        shade = np.floor(np.einsum("k...,kc->...c", bary, color[i]) + 0.5).astype(np.int64)
        tex = 255 if broken == "texture" else texel(s, u, v)
        out = ((shade + 1) * tex) >> 8  # GU_TFX_MODULATE
        image[rows, cols] = np.where(drawn[..., None], out, image[rows, cols])
        depth_buffer[rows, cols] = np.where(drawn, depth, old)
    return image


def compare(frame_rgb: np.ndarray, frame: int = 0, broken: str = ""):
    """(share identical at pixel centres, largest channel difference there, [y, x] of the
    pixels that match the reference nowhere in their window) over the scene's rows."""
    ge = frame_rgb[TEXT_ROWS:]
    ys = np.arange(TEXT_ROWS, H)
    centre = np.abs(ge - render(np.arange(W) + 0.5, ys + 0.5, frame, broken)).max(axis=2)
    fine = render(np.arange(W * STEPS + WINDOW) / STEPS - MARGIN,
                  np.arange(TEXT_ROWS * STEPS, H * STEPS + WINDOW) / STEPS - MARGIN, frame, broken)
    best = centre
    for dy in range(WINDOW):
        for dx in range(WINDOW):
            ref = fine[dy:dy + (H - TEXT_ROWS) * STEPS:STEPS, dx:dx + W * STEPS:STEPS]
            best = np.minimum(best, np.abs(ge - ref).max(axis=2))
    return float((centre == 0).mean()), int(centre.max()), np.argwhere(best > MAX_CHANNEL_ERROR) + [TEXT_ROWS, 0]


# ---------------------------------------------------------------- the test

@pytest.fixture(scope="module")
def cube_frame(tmp_path_factory):
    """RGB of the frame the demo shows after drawing frame 0 (FRAMES=1)."""
    from PIL import Image
    from allegrex.cli import main
    out = tmp_path_factory.mktemp("gu_cube")
    eboot = build([SOURCE], out / "EBOOT.PBP", defines=["FRAMES=1"])
    shot = out / "frame.png"
    assert main(["run", str(eboot), "--quiet", "--max-seconds", "5", "--screenshot", str(shot)]) == 0
    return np.asarray(Image.open(shot).convert("RGB")).astype(np.int64)


def test_the_cube_frame_matches_a_numpy_rasteriser_of_the_scene(cube_frame):
    identical, largest, unmatched = compare(cube_frame)
    figures = (f"{identical:.2%} identical at pixel centres, largest channel difference {largest}, "
               f"{len(unmatched)} pixels matching nowhere around them")
    assert not len(unmatched), f"{figures}; first at [y, x] {unmatched[:5].tolist()}"
    assert identical >= MIN_IDENTICAL, figures


@pytest.mark.parametrize("broken", ["texture", "lighting", "depth", "culling"])
def test_a_wrong_texture_lighting_depth_or_culling_fails_the_comparison(cube_frame, broken):
    """The rule is not loose: against a reference drawn without the texture, without the
    lighting, without the depth test or without one winding's triangles, thousands of the
    GE's pixels match nowhere."""
    _identical, _largest, unmatched = compare(cube_frame, broken=broken)
    assert len(unmatched) > 1000
