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


SWEEP_NOTE = ("load s: the program's own load time (sceRtc); MS s: the file at the timing model's "
              "memory-stick rate (allegrex.timing.memstick_cycles)")


def format_sweep(report: dict) -> str:
    kernels = []
    for row in report["rows"]:
        kernels += [k for k in row["kernels"] if k not in kernels]
    lines = [f"llama2 model sweep at {report['clock_mhz']} MHz ({report['extrapolated']})", "",
             f"{'shape':12s} {'params':>7s} {'PSP':9s} {'file MB':>8s} {'fits':7s} {'load s':>7s} {'MS s':>6s} "
             + "".join(f"{k + ' tok/s':>13s}" for k in kernels) + f" {'roofline':>9s}  why"]
    for row in report["rows"]:
        toks = "".join(f"{(format(row['kernels'][k]['tok_per_s'], '.3f') if row['kernels'].get(k, {}).get('ok') else '-'):>13s}"
                       for k in kernels)
        load = f"{row['load_seconds']:.2f}" if row["load_seconds"] is not None else "-"
        lines.append(f"{row['shape']:12s} {row['params'] / 1e6:6.1f}M {row['psp_model']:9s} "
                     f"{row['model_bytes'] / 1e6:8.1f} {row['fits']:7s} {load:>7s} {row['memstick_load_seconds_model']:6.1f} {toks} "
                     f"{row['roofline_tok_per_s']:9.2f}  {row['why']}")
    lines += ["", SWEEP_NOTE]
    return "\n".join(lines)
