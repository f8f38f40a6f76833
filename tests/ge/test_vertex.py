"""Vertex decoding against a second reading of the format written with numpy structured
types: every element aligned to its own size, the vertex padded to its largest element,
repeated per morph target; fixed point scaled by 128 / 32768; through-mode 16-bit
positions as pixels; morph targets blended by MORPHWEIGHT; skinning by the bone matrices."""

import itertools

import numpy as np
import pytest

from allegrex.ge import vertex
from allegrex.ge.commands import OPS
from gelists import Ge, f24

ADDR = 0x08A00000
SIZES = {1: (1, "i1", 128.0), 2: (2, "<i2", 32768.0), 3: (4, "<f4", 1.0)}  # signed elements
USIZES = {1: (1, "u1", 128.0), 2: (2, "<u2", 32768.0), 3: (4, "<f4", 1.0)}


def reference_dtype(tc, col, nrm, pos, wt, nweights):
    fields, offset, biggest = [], 0, 1

    def add(name, fmt, count, size, align=None):
        nonlocal offset, biggest
        align = align or size
        offset = -(-offset // align) * align
        fields.append((name, fmt, offset, count))
        offset += size * count
        biggest = max(biggest, align)
    if wt:
        add("w", USIZES[wt][1], nweights, USIZES[wt][0])
    if tc:
        add("tc", USIZES[tc][1], 2, USIZES[tc][0])
    if col:  # a 16-bit colour, or 8888 as 4 bytes aligned like a word
        add("c", "<u2" if col < 7 else "u1", 1 if col < 7 else 4, 2 if col < 7 else 1, 2 if col < 7 else 4)
    if nrm:
        add("n", SIZES[nrm][1], 3, SIZES[nrm][0])
    add("p", SIZES[pos][1], 3, SIZES[pos][0])
    size = -(-offset // biggest) * biggest
    return np.dtype({"names": [f[0] for f in fields], "formats": [(f[1], (f[3],)) for f in fields],
                     "offsets": [f[2] for f in fields], "itemsize": size})


def expand(col, c):
    if col == 7:
        return np.array(c, dtype=float)
    c = int(c[0])
    if col == 4:
        parts = [(c & 31, 5), ((c >> 5) & 63, 6), ((c >> 11) & 31, 5)]
        return np.array([(v << (8 - b)) | (v >> (2 * b - 8)) for v, b in parts] + [255], dtype=float)
    if col == 5:
        parts = [(c & 31), (c >> 5) & 31, (c >> 10) & 31]
        return np.array([(v << 3) | (v >> 2) for v in parts] + [255 if c >> 15 else 0], dtype=float)
    return np.array([((c >> s) & 15) * 17 for s in (0, 4, 8, 12)], dtype=float)


def random_vertices(rng, dtype, morphs):
    raw = rng.integers(0, 256, dtype.itemsize * morphs, dtype=np.uint8)
    records = raw.view(dtype)
    for name in records.dtype.names:  # keep floats finite and small
        if records[name].dtype.kind == "f":
            records[name] = rng.uniform(-2, 2, records[name].shape)
    return records


CASES = [(tc, col, nrm, pos) for tc, col, nrm, pos in itertools.product((0, 1, 2, 3), (0, 4, 5, 6, 7), (0, 1, 2, 3),
                                                                           (1, 2, 3))][::7]


@pytest.mark.parametrize("tc, col, nrm, pos", CASES)
def test_transform_mode_vertices_decode_like_the_reference(tc, col, nrm, pos):
    rng = np.random.default_rng(tc * 100 + col * 10 + nrm + pos)
    vtype = tc | (col << 2) | (nrm << 5) | (pos << 7)
    dtype = reference_dtype(tc, col, nrm, pos, 0, 1)
    assert vertex.layout(vtype)[vertex.L_STRIDE] == dtype.itemsize
    rec = random_vertices(rng, dtype, 1)[0]
    ge = Ge()
    ge.memory.write(ADDR, rec.tobytes())
    out = np.zeros(vertex.V_SIZE)
    assert vertex.decode(*ge.space, ge.state.mtx, vtype, vertex.layout(vtype), np.ones(8),
                         ADDR, out)
    np.testing.assert_allclose(out[vertex.V_X:vertex.V_Z + 1], rec["p"] / SIZES[pos][2], rtol=1e-6)
    if tc:
        np.testing.assert_allclose(out[vertex.V_S:vertex.V_T + 1], rec["tc"] / USIZES[tc][2], rtol=1e-6)
    if col:
        np.testing.assert_array_equal(out[vertex.V_R:vertex.V_A + 1], expand(col, rec["c"]))
    if nrm:
        np.testing.assert_allclose(out[vertex.V_NX:vertex.V_NZ + 1], rec["n"] / SIZES[nrm][2], rtol=1e-6)


def test_through_mode_16_bit_positions_are_pixels_and_depth_is_unsigned():
    vtype = (2 << 7) | (2 << 0) | (1 << 23)
    ge = Ge()
    ge.memory.write(ADDR, np.array([7, 9, -5 & 0xFFFF, 300, 0xFFF0], dtype="<u2").tobytes())
    out = np.zeros(vertex.V_SIZE)
    vertex.decode(*ge.space, ge.state.mtx, vtype, vertex.layout(vtype), np.ones(8), ADDR, out)
    assert list(out[[vertex.V_S, vertex.V_T, vertex.V_X, vertex.V_Y, vertex.V_Z]]) == [7, 9, -5, 300, 0xFFF0]


def test_morph_targets_are_blended_with_the_morph_weights():
    rng = np.random.default_rng(5)
    vtype = (3 << 7) | (7 << 2) | (1 << 18)  # float positions, 8888 colour, 2 targets
    dtype = reference_dtype(0, 7, 0, 3, 0, 1)
    recs = random_vertices(rng, dtype, 2)
    ge = Ge()
    ge.memory.write(ADDR, recs.tobytes())
    for i, w in enumerate((0.25, 0.75)):
        ge.state.cmds[OPS["MORPHWEIGHT0"] + i] = (OPS["MORPHWEIGHT0"] + i) << 24 | f24(w)
    weights = vertex.morph_weights(ge.state.cmds, 2)
    out = np.zeros(vertex.V_SIZE)
    vertex.decode(*ge.space, ge.state.mtx, vtype, vertex.layout(vtype), weights, ADDR, out)
    np.testing.assert_allclose(out[:3], 0.25 * recs[0]["p"] + 0.75 * recs[1]["p"], rtol=1e-5)
    want = np.floor(0.25 * recs[0]["c"].astype(float) + 0.75 * recs[1]["c"].astype(float))
    np.testing.assert_array_equal(out[vertex.V_R:vertex.V_A + 1], want)


def test_skinning_blends_bone_matrices_by_the_weights():
    rng = np.random.default_rng(6)
    vtype = (3 << 7) | (3 << 5) | (3 << 9) | (1 << 14)  # float pos/normal, 2 float weights
    dtype = reference_dtype(0, 0, 3, 3, 3, 2)
    rec = random_vertices(rng, dtype, 1)[0]
    ge = Ge()
    ge.memory.write(ADDR, rec.tobytes())
    bones = rng.uniform(-1, 1, (2, 12)).astype(np.float32)
    ge.state.mtx[:24] = bones.ravel()
    out = np.zeros(vertex.V_SIZE)
    vertex.decode(*ge.space, ge.state.mtx, vtype, vertex.layout(vtype), np.ones(8), ADDR, out)
    blend = sum(w * b.reshape(4, 3).T for w, b in zip(rec["w"], bones.astype(float)))  # 3x4: columns x, y, z, t
    np.testing.assert_allclose(out[:3], blend[:, :3] @ rec["p"] + blend[:, 3], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[vertex.V_NX:vertex.V_NZ + 1], blend[:, :3] @ rec["n"], rtol=1e-5, atol=1e-6)


def test_indices_of_each_width():
    ge = Ge()
    ge.memory.write(ADDR, bytes([5, 0, 7, 1, 0, 0, 0, 2]))
    for code, i, want in ((1, 1, 0), (1, 2, 7), (2, 1, 0x107), (3, 1, 0x02000000)):
        assert vertex.index_at(*ge.space, code << 11, ADDR, i) == want
