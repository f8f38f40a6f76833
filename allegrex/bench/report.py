"""The text of `allegrex bench llama` (and --sweep) reports."""

from __future__ import annotations

from allegrex.bench.breakdown import GROUP_NAMES

KB = 1024


def format_report(report: dict) -> str:
    if report["benchmark"] == "llama-sweep":
        return format_sweep(report)
    r, roof, pub = report, report["roofline"], report["published"]
    lines = [f"llama2 {r['shape']} ({r['params'] / 1e6:.1f}M parameters, {r['format']}) on a simulated "
             f"{r['psp_model']} at {r['clock_mhz']} MHz, {r['tokens_requested']} positions, "
             f"prompt {r['prompt']!r}", ""]
    head = f"{'':26s}" + "".join(f"{k['kernel']:>14s}" for k in r["kernels"])
    lines.append(head)

    def row(label, fn):
        lines.append(f"{label:26s}" + "".join(f"{(fn(k) if k.get('ok') else '-'):>14s}" for k in r["kernels"]))

    row("tok/s (projected)", lambda k: f"{k['tok_per_s']:.2f}")
    row("seconds for the run", lambda k: f"{k['seconds']:.2f}")
    row("time to first token s", lambda k: f"{k['ttft_seconds']:.3f}")
    row("load s (memory stick)", lambda k: f"{k['load_seconds']:.2f}")
    row("cycles per token", lambda k: f"{k['cycles_per_token'] / 1e6:.2f}M")
    row("CPI", lambda k: f"{k['cpi']:.2f}")
    for g in GROUP_NAMES:
        row(f"  {g}", lambda k, g=g: f"{100 * k['breakdown'][g]['share']:.1f}%")
    row("roofline share", lambda k: f"{100 * k['roofline_share']:.1f}%")
    row("wall s (simulator)", lambda k: f"{k['wall_seconds']:.1f}")
    for k in r["kernels"]:
        if not k.get("ok"):
            lines.append(f"{k['kernel']}: {k['error']}")
    m = r["memory"]
    if "heap" in m:
        streamed = (f" ({m['streamed'] // KB} KB more read from the memory stick per token, "
                    f"buffer {m['stream_buffer'] // KB} KB)" if m.get("streamed") else "")
        lines += ["", f"memory ({m.get('mode')}): weights {m['weights'] // KB} KB{streamed}, KV cache "
                      f"{m['kv_cache'] // KB} KB, run state {m['run_state'] // KB} KB, tokenizer {m['tokenizer'] // KB} KB, "
                      f"free {m['free'] // KB} KB of the {m['heap'] // KB} KB heap + {m.get('volatile', 0) // KB} KB "
                      f"volatile partition; {r['psp_model']} RAM {m['ram'] // (KB * KB)} MB"]
    lines += ["", f"roofline: {roof['weight_bytes_per_token'] / 1e6:.2f} MB of weights per token / "
                  f"{roof['bandwidth_bytes_per_s'] / 1e6:.0f} MB/s lv.q streaming ({roof['bytes_per_cycle']:.2f} "
                  f"new bytes/cycle, timing model) = {roof['tok_per_s']:.1f} tok/s at {roof['clock_mhz']} MHz"]
    lo, hi = pub["vfpu"]["tok_per_s_range"]
    lines += [f"published ({pub['device']}, {pub['model']}): scalar {pub['scalar']['tok_per_s']} tok/s measured "
              f"({pub['scalar']['tokens']} tokens in {pub['scalar']['seconds']} s); VFPU {lo:g}-{hi:g} tok/s projected"]
    lines.append(f"bench wall time {r['wall_seconds']:.0f} s")
    return "\n".join(lines)


SWEEP_NOTE = ("fits: ram (all weights in RAM), stream (the rest read from the memory stick every token: "
              "MB/token), no (why: the program's own message); load s: the program's load time (sceRtc); "
              "a psp-3000 row marked = is the psp-2000's run (the same RAM and timing model)")
KV_MB = 1 << 20


def format_sweep(report: dict) -> str:
    kernels = []
    for row in report["rows"]:
        kernels += [k for k in row["kernels"] if k not in kernels]
    lines = [f"llama2 model sweep at {report['clock_mhz']} MHz ({report['extrapolated']})", "",
             f"{'shape':12s} {'params':>7s} {'PSP':10s} {'fmt':4s} {'kv':5s} {'file MB':>8s} {'fits':6s} "
             f"{'MB/token':>8s} {'load s':>7s}" + "".join(f"{k + ' tok/s':>18s}" for k in kernels) + "  why"]
    for row in report["rows"]:
        toks = "".join(f"{_tok(row['kernels'].get(k)):>18s}" for k in kernels)
        load = f"{row['load_seconds']:.2f}" if row["load_seconds"] is not None else "-"
        streamed = f"{row['streamed_per_token'] / KV_MB:.1f}" if row["fits"] == "stream" else "-"
        psp = row["psp_model"] + ("=" if row["same_as"] else "")
        lines.append(f"{row['shape']:12s} {row['params'] / 1e6:6.1f}M {psp:10s} {row['format']:4s} {row['kv']:5s} "
                     f"{row['model_bytes'] / 1e6:8.1f} {row['fits']:6s} {streamed:>8s} {load:>7s}{toks}  {row['why']}")
    lines += ["", "fastest configuration per model and PSP:"]
    for b in report["fastest"]:
        where = "in RAM" if b["fits"] == "ram" else f"{b['streamed_per_token'] / KV_MB:.1f} MB/token from the memory stick"
        lines.append(f"  {b['shape']:12s} {b['psp_model']:9s} {b['tok_per_s']:7.3f} tok/s  {b['format']}, KV {b['kv']}, "
                     f"{b['kernel']} ({where})")
    lines += ["", SWEEP_NOTE]
    return "\n".join(lines)


def _tok(run) -> str:
    if run is None:
        return "-"
    return f"{run['tok_per_s']:.3f}" if run.get("ok") else "no"
