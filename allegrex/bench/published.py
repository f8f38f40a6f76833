"""The published figures of the llama2 PSP port (stories15M, q80), shown beside ours."""

REAL_DEVICE = "psp-2000"
REAL_CLOCK_MHZ = 333
REAL_SCALAR_TOKENS = 64
REAL_SCALAR_SECONDS = 42.6  # measured on a real PSP-2000, scalar build
REAL_SCALAR_TOK_S = 1.5  # as published (64 / 42.6 = 1.50)
PROJECTED_VFPU_TOK_S = (5.0, 15.0)  # the port's own guess for a VFPU matmul


def published() -> dict:
    return {"device": REAL_DEVICE, "clock_mhz": REAL_CLOCK_MHZ, "model": "stories15M q80",
            "scalar": {"tokens": REAL_SCALAR_TOKENS, "seconds": REAL_SCALAR_SECONDS,
                       "tok_per_s": REAL_SCALAR_TOK_S, "kind": "measured"},
            "vfpu": {"tok_per_s_range": list(PROJECTED_VFPU_TOK_S), "kind": "projected"}}
