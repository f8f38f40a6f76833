"""--plot: tok/s per kernel (with the roofline and the published figures) and the
stacked cycle breakdown; with --sweep, the best tok/s of every shape, PSP and format.
Drawn with Pillow (no plotting library needed)."""

from __future__ import annotations

from allegrex.bench.breakdown import GROUP_NAMES
from allegrex.errors import AllegrexError

W, H, PAD = 900, 420, 50
COLORS = {"matmul": (66, 133, 244), "attention": (234, 67, 53), "rmsnorm/softmax": (251, 188, 5),
          "other": (160, 160, 160), "HLE/I-O": (52, 168, 83)}


def _pillow():
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise AllegrexError("--plot needs Pillow (pip install pillow)") from None
    return Image, ImageDraw


def _save(img, path) -> None:
    try:
        img.save(path)
    except OSError as exc:
        raise AllegrexError(f"cannot write {path}: {exc.strerror}") from None


def plot_report(report: dict, path) -> None:
    Image, ImageDraw = _pillow()
    runs = [k for k in report.get("kernels", []) if k.get("ok")]
    if not runs:
        raise AllegrexError("--plot: no kernel run finished, nothing to draw")
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    d.text((PAD, 10), f"llama2 {report['shape']} on {report['psp_model']} at {report['clock_mhz']} MHz", fill="black")
    _tok_bars(d, runs, report, (PAD, 40, W // 2 - PAD // 2, H - PAD))
    _stacks(d, runs, (W // 2 + PAD // 2, 40, W - PAD, H - PAD))
    _save(img, path)


def _tok_bars(d, runs, report, box):
    x0, y0, x1, y1 = box
    pub = report["published"]
    marks = [("real PSP scalar", pub["scalar"]["tok_per_s"]), ("VFPU guess (top)", pub["vfpu"]["tok_per_s_range"][1])]
    top = max([r["tok_per_s"] for r in runs] + [v for _, v in marks]) * 1.15
    d.text((x0, y0), "tok/s (simulated)", fill="black")
    d.line((x0, y1, x1, y1), fill="black")
    bw = (x1 - x0) // (2 * len(runs) + 1)
    for i, r in enumerate(runs):
        bx = x0 + bw * (2 * i + 1)
        h = (y1 - y0 - 20) * r["tok_per_s"] / top
        d.rectangle((bx, y1 - h, bx + bw, y1), fill=(66, 133, 244))
        d.text((bx, y1 - h - 14), f"{r['tok_per_s']:.2f}", fill="black")
        d.text((bx, y1 + 4), r["kernel"], fill="black")
    for label, v in marks:
        y = y1 - (y1 - y0 - 20) * v / top
        d.line((x0, y, x1, y), fill=(200, 0, 0))
        d.text((x1 - 110, y - 12), f"{label} {v:g}", fill=(200, 0, 0))


def _stacks(d, runs, box):
    x0, y0, x1, y1 = box
    d.text((x0, y0), "cycle breakdown (generation)", fill="black")
    bw = (x1 - x0 - 120) // (2 * len(runs) + 1)
    for i, r in enumerate(runs):
        bx, y = x0 + bw * (2 * i + 1), y1
        for g in GROUP_NAMES:
            h = (y1 - y0 - 20) * r["breakdown"][g]["share"]
            d.rectangle((bx, y - h, bx + bw, y), fill=COLORS[g])
            y -= h
        d.text((bx, y1 + 4), r["kernel"], fill="black")
    for j, g in enumerate(GROUP_NAMES):
        ly = y0 + 20 + 18 * j
        d.rectangle((x1 - 110, ly, x1 - 98, ly + 12), fill=COLORS[g])
        d.text((x1 - 92, ly), g, fill="black")


SWEEP_COLORS = {("q80", "ram"): (66, 133, 244), ("q40", "ram"): (52, 168, 83),
                ("q80", "stream"): (170, 198, 245), ("q40", "stream"): (170, 222, 180)}


def plot_sweep(report: dict, path) -> None:
    """Per shape, per PSP model, per format: the best tok/s over kernels and KV caches, on a
    log scale (darker: all in RAM; lighter: part read from the memory stick; none: no fit)."""
    import math
    Image, ImageDraw = _pillow()
    best: dict[tuple, tuple] = {}
    for row in report["rows"]:
        for r in row["kernels"].values():
            key = (row["shape"], row["psp_model"], row["format"])
            if r.get("ok") and r["tok_per_s"] > best.get(key, (0,))[0]:
                best[key] = (r["tok_per_s"], row["fits"])
    if not best:
        raise AllegrexError("--plot: no run of the sweep finished, nothing to draw")
    shapes = list(dict.fromkeys(row["shape"] for row in report["rows"]))
    psps = list(dict.fromkeys(row["psp_model"] for row in report["rows"]))
    fmts = list(dict.fromkeys(row["format"] for row in report["rows"]))
    values = [v for v, _ in best.values()]
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    hi += hi == lo
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    d.text((PAD, 8), f"llama2 sweep at {report['clock_mhz']} MHz: the best tok/s of each shape, PSP and format",
           fill="black")
    x0, y0, x1, y1 = PAD, 50, W - PAD, H - PAD - 10

    def y_of(v):
        return y1 - (y1 - y0) * (math.log10(v) - lo) / (hi - lo)
    for e in range(lo, hi + 1):
        d.line((x0, y_of(10.0 ** e), x1, y_of(10.0 ** e)), fill=(225, 225, 225))
        d.text((8, y_of(10.0 ** e) - 6), f"{10.0 ** e:g}", fill="black")
    for i, ((fmt, fits), color) in enumerate(SWEEP_COLORS.items()):
        lx = x0 + 150 * i
        d.rectangle((lx, 26, lx + 12, 38), fill=color)
        d.text((lx + 16, 26), f"{fmt} {'in RAM' if fits == 'ram' else 'streamed'}", fill="black")
    group_w = (x1 - x0) / len(shapes)
    bar_w = group_w / (len(psps) * len(fmts) + 1)
    for i, shape in enumerate(shapes):
        gx = x0 + i * group_w
        d.text((gx + 4, y1 + 22), shape, fill="black")
        for j, psp in enumerate(psps):
            px = gx + bar_w * (j * len(fmts) + 0.5)
            d.text((px, y1 + 6), psp.replace("psp-", ""), fill="black")
            for k, fmt in enumerate(fmts):
                if (shape, psp, fmt) in best:
                    tok, fits = best[(shape, psp, fmt)]
                    bx = px + bar_w * k
                    d.rectangle((bx, y_of(tok), bx + bar_w - 2, y1), fill=SWEEP_COLORS[(fmt, fits)])
                    d.text((bx, y_of(tok) - 12), f"{tok:.3g}", fill="black")
    _save(img, path)
