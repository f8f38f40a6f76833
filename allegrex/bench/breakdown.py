"""The cycle breakdown of a llama2 run from the profiler's per-function rows
(allegrex.timing.profile), grouped by the port's C function names.

Self cycles only (no call graph): matmul = the matmul drivers, their kernels (scalar and
VFPU) and the activation quantization that prepares their input (C or VFPU); attention = attention
and the RoPE table; rmsnorm/softmax = those two functions; HLE/I-O = the HLE call and
idle rows, the memory stick's driver copying and the syscall stubs; other = everything else (forward's
own code, SwiGLU, libm's expf, the sampler, the tokenizer, loading, OS interrupts)."""

from __future__ import annotations

import fnmatch

GROUPS = (
    ("matmul", ("matmul*", "vfpu_q80_*", "vfpu_q40_*", "vfpu_fp32_*", "q80_madd", "quantize_act", "vfpu_quantize",
                "q40_activations")),
    ("attention", ("attention", "rope_table")),
    ("rmsnorm/softmax", ("rmsnorm", "softmax")),
    ("HLE/I-O", ("(HLE calls)", "(idle*", "(memory stick*", "sce*")),
)
OTHER = "other"
GROUP_NAMES = tuple(g for g, _ in GROUPS[:3]) + (OTHER, GROUPS[3][0])


def group_of(function: str) -> str:
    for group, patterns in GROUPS:
        if any(fnmatch.fnmatchcase(function, p) for p in patterns):
            return group
    return OTHER


def breakdown(profile_report: dict) -> dict:
    """{group: {cycles, share, functions}} in GROUP_NAMES order; cycles sum to the total."""
    total = profile_report["cycles"]
    out = {g: {"cycles": 0, "functions": []} for g in GROUP_NAMES}
    for row in profile_report["functions"]:
        g = out[group_of(row["function"])]
        g["cycles"] += row["cycles"]
        if row["cycles"]:
            g["functions"].append(row["function"])
    for g in out.values():
        g["share"] = g["cycles"] / total if total else 0.0
    return out
