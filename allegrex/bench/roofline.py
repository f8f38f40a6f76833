"""The memory-bandwidth roofline of a forward pass: every weight byte is streamed from
main memory once per token, so tok/s can never exceed bandwidth / weight bytes.

The bandwidth is the timing model's own: the simulated `lv.q` streaming figure on a
4 MiB buffer (allegrex.timing.fidelity, the loop the reference measured on hardware),
in bytes per CPU cycle at 333/166 MHz. That loop (vfpu-docs psp-tests/performance)
reads 2048 bytes per iteration but moves its pointer on by 1024, so half of its 16-byte
loads hit lines the previous iteration fetched: it brings 8 new bytes from memory per
lv.q, and its "2 bytes/cycle" is 1 byte/cycle of new data (the model's 54-cycle line
fill allows at most 64/54). The PSP's clock pairs keep bus = CPU / 2, so the same bytes
per cycle hold at 222/111."""

from __future__ import annotations

from functools import lru_cache

from allegrex.llama import q40
from allegrex.llama.checkpoint import Config, pick_group_size

STREAM_FIGURE = "mem lv.q throughput 4096 KiB"
LVQ_BYTES = 16
NEW_BYTES_PER_LVQ = 8  # the figure's loop: 2048 bytes read per 1024-byte step (see above)
STREAM_ITERS = 1024  # 2 MiB streamed: enough for a steady figure (method rounds to whole us)
LAYER_MATRICES = ("wq", "wk", "wv", "wo", "w1", "w2", "w3")


@lru_cache(maxsize=None)
def stream_cycles_per_lvq() -> float:
    """CPU cycles per 16-byte lv.q streaming from main memory, from the timing model."""
    from allegrex.timing.fidelity import run_figure
    return float(run_figure(STREAM_FIGURE, iters=STREAM_ITERS))


def stream_bytes_per_cycle() -> float:
    """Bytes fetched from main memory per CPU cycle by the streaming figure's loop."""
    return NEW_BYTES_PER_LVQ / stream_cycles_per_lvq()


def weight_bytes_per_token(config: Config, fmt: str = "q80", shared_classifier: bool = True) -> int:
    """Bytes of weights one forward pass reads: every layer matrix and the classifier (q80:
    int8 + one fp32 scale per group; q40: 4 bits + one fp16 scale per group; fp32), the
    norm vectors and one embedding row."""
    gs = pick_group_size(config, q40.DEFAULT_GROUP_SIZE if fmt == "q40" else 64)

    def matrix(elements: int) -> int:
        if fmt == "q40":
            return elements // 2 + 2 * (elements // gs)
        return elements + 4 * (elements // gs) if fmt == "q80" else 4 * elements

    per_layer = sum(_elements(config, name) // config.n_layers for name in LAYER_MATRICES)
    total = config.n_layers * matrix(per_layer)
    total += matrix(config.vocab_size * config.dim)  # classifier (shared with the embedding or not)
    total += 4 * (2 * config.n_layers * config.dim + config.dim)  # rms_att, rms_ffn, rms_final
    total += matrix(config.dim)  # the one embedding row dequantized per token
    return total


def _elements(config: Config, name: str) -> int:
    n = 1
    for d in config.shape(name):
        n *= d
    return n


def roofline(config: Config, clock_mhz: int, fmt: str = "q80") -> dict:
    """The roofline for `config` at `clock_mhz`: bytes per token, bandwidth, tok/s."""
    per_cycle = stream_bytes_per_cycle()
    bandwidth = per_cycle * clock_mhz * 1e6
    nbytes = weight_bytes_per_token(config, fmt)
    return {"weight_bytes_per_token": nbytes, "stream_figure": STREAM_FIGURE,
            "stream_cycles_per_lvq": stream_cycles_per_lvq(), "bytes_per_cycle": per_cycle,
            "bandwidth_bytes_per_s": bandwidth, "clock_mhz": clock_mhz, "tok_per_s": bandwidth / nbytes}
