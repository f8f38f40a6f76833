"""A llama2 forward pass in float64 numpy, written from the model's definition (llama2.c's
run.c), as an independent check of the port's arithmetic on whatever weights a
checkpoint holds (q80/q40 ones dequantized). Optionally the KV cache is quantized per
head to int8 (scale max|x| / 127, rounding halves away from zero), as the port's int8
cache is defined."""

import numpy as np


def _rmsnorm(x, w):
    return w * (x / np.sqrt(np.mean(x * x) + 1e-5))


def _rope(v, pos, head_size):
    i = np.arange(0, head_size, 2)
    freq = 1.0 / (10000.0 ** (i / head_size))
    cos, sin = np.cos(pos * freq), np.sin(pos * freq)
    out = v.reshape(-1, head_size // 2, 2).copy()
    v0, v1 = out[..., 0].copy(), out[..., 1].copy()
    out[..., 0], out[..., 1] = v0 * cos - v1 * sin, v0 * sin + v1 * cos
    return out.reshape(-1)


def _int8_per_head(v, head_size):
    h = v.reshape(-1, head_size)
    scale = np.abs(h).max(axis=1, keepdims=True) / 127.0
    q = np.where(scale == 0, 0, np.sign(h) * np.floor(np.abs(h) / np.where(scale == 0, 1, scale) + 0.5))
    return (q * scale).reshape(-1)


def logits(ckpt, tokens, kv_int8=False):
    """The logits after each of `tokens` (positions 0, 1, ...), one row per position."""
    c = ckpt.config
    t = {name: ckpt.tensor(name).astype(np.float64) for name in
         ("token_embedding", "rms_att", "rms_ffn", "rms_final", "wq", "wk", "wv", "wo", "w1", "w2", "w3")}
    wcls = t["token_embedding"] if ckpt.shared_classifier else ckpt.tensor("wcls").astype(np.float64)
    hs, kv_mul = c.head_size, c.n_heads // c.n_kv_heads
    keys = [[] for _ in range(c.n_layers)]
    values = [[] for _ in range(c.n_layers)]
    out = []
    for pos, token in enumerate(tokens):
        x = t["token_embedding"][token].copy()
        for layer in range(c.n_layers):
            xb = _rmsnorm(x, t["rms_att"][layer])
            q = _rope(t["wq"][layer] @ xb, pos, hs)
            k = _rope(t["wk"][layer] @ xb, pos, hs)
            v = t["wv"][layer] @ xb
            if kv_int8:
                k, v = _int8_per_head(k, hs), _int8_per_head(v, hs)
            keys[layer].append(k)
            values[layer].append(v)
            kk, vv = np.array(keys[layer]), np.array(values[layer])
            heads = []
            for h in range(c.n_heads):
                g = h // kv_mul
                scores = kk[:, g * hs:(g + 1) * hs] @ q[h * hs:(h + 1) * hs] / np.sqrt(hs)
                att = np.exp(scores - scores.max())
                heads.append((att / att.sum()) @ vv[:, g * hs:(g + 1) * hs])
            x = x + t["wo"][layer] @ np.concatenate(heads)
            xb = _rmsnorm(x, t["rms_ffn"][layer])
            h1, h3 = t["w1"][layer] @ xb, t["w3"][layer] @ xb
            x = x + t["w2"][layer] @ (h1 / (1.0 + np.exp(-h1)) * h3)
        out.append(wcls @ _rmsnorm(x, t["rms_final"]))
    return np.array(out)
