"""UtilsForUser MD5/SHA-1 against Python's hashlib (whole and in any split, with the state
kept in guest memory), its Mersenne Twister against numpy's, and sceDmac's copy, checks
and DMAC-busy wait."""

import hashlib
import random

import pytest

from allegrex.hle import hash as hle_hash
from helpers import call, make_kernel

CTX, DATA, DIGEST = 0x08A00000, 0x08A10000, 0x08A20000
UT = "UtilsForUser"
ALGOS = [("Md5", hashlib.md5, 16), ("Sha1", hashlib.sha1, 20)]


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 127, 128, 1000])
def test_compression_matches_hashlib_at_every_padding_edge(size):
    data = random.Random(size).randbytes(size)
    assert hle_hash.MD5.whole(data) == hashlib.md5(data).digest()
    assert hle_hash.SHA1.whole(data) == hashlib.sha1(data).digest()


@pytest.mark.parametrize("name,reference,length", ALGOS)
def test_guest_digest_and_block_calls_match_hashlib(name, reference, length):
    k = make_kernel()
    data = random.Random(7).randbytes(300)
    k.memory.write(DATA, data)
    assert call(k, UT, f"sceKernelUtils{name}Digest", DATA, len(data), DIGEST) == 0
    assert k.memory.read(DIGEST, length) == reference(data).digest()
    for cuts in ([], [16], [1, 63, 64], [100, 101, 250]):
        assert call(k, UT, f"sceKernelUtils{name}BlockInit", CTX) == 0
        edges = [0, *cuts, len(data)]
        for start, end in zip(edges, edges[1:]):
            assert call(k, UT, f"sceKernelUtils{name}BlockUpdate", CTX, DATA + start, end - start) == 0
        k.memory.write(DIGEST, bytes(length))
        assert call(k, UT, f"sceKernelUtils{name}BlockResult", CTX, DIGEST) == 0
        assert k.memory.read(DIGEST, length) == reference(data).digest(), cuts


def test_a_copied_context_carries_the_whole_state():
    k = make_kernel()
    k.memory.write(DATA, b"abc" * 50)
    call(k, UT, "sceKernelUtilsSha1BlockInit", CTX)
    call(k, UT, "sceKernelUtilsSha1BlockUpdate", CTX, DATA, 70)
    k.memory.write(CTX + 0x200, k.memory.read(CTX, 96))  # the guest moves its context
    call(k, UT, "sceKernelUtilsSha1BlockUpdate", CTX + 0x200, DATA + 70, 80)
    call(k, UT, "sceKernelUtilsSha1BlockResult", CTX + 0x200, DIGEST)
    assert k.memory.read(DIGEST, 20) == hashlib.sha1(b"abc" * 50).digest()


def test_dmac_copies_and_checks_like_the_firmware():
    k = make_kernel()
    k.memory.write(DATA, b"hello dmac")
    assert call(k, "sceDmac", "sceDmacMemcpy", DIGEST, DATA, 10) == 0
    assert k.memory.read(DIGEST, 10) == b"hello dmac"
    assert call(k, "sceDmac", "sceDmacMemcpy", DIGEST, DATA, 0) == 0x80000104 - (1 << 32)
    assert call(k, "sceDmac", "sceDmacMemcpy", 0, 0, 4) == 0x80000103 - (1 << 32)
    assert call(k, "sceDmac", "sceDmacTryMemcpy", 0x7FFFFFF0, DATA, 0x100) in (
        0x80000103 - (1 << 32), 0x80000023 - (1 << 32))


def test_a_long_dmac_copy_makes_the_caller_wait_a_short_one_does_not():
    k = make_kernel()
    before = k.now_us()
    assert call(k, "sceDmac", "sceDmacMemcpy", DIGEST, DATA, 271) == 0
    assert k.now_us() - before < 5
    before = k.now_us()
    assert call(k, "sceDmac", "sceDmacMemcpy", DIGEST, DATA, 0x100000) == 0  # the caller waits...
    assert k.now_us() - before >= 0x100000 // 236  # ...until the DMAC is done at ~225 MiB/s
    k.dmac_busy_until_us = k.now_us() + 100  # a copy another thread started
    assert call(k, "sceDmac", "sceDmacTryMemcpy", DIGEST, DATA, 16) == 0x80000021 - (1 << 32)


@pytest.mark.parametrize("seed", [0, 5489, 0xDEADBEEF])
def test_mt19937_draws_match_numpy_across_a_twist(seed):
    import numpy as np
    k = make_kernel()
    assert call(k, UT, "sceKernelUtilsMt19937Init", CTX, seed) == 0
    got = [call(k, UT, "sceKernelUtilsMt19937UInt", CTX) & 0xFFFFFFFF for _ in range(700)]
    want = np.random.RandomState(seed).randint(0, 2 ** 32, dtype=np.uint32, size=700)
    assert got == [int(v) for v in want]
    assert got[:1] == [3499211612] or seed != 5489  # the reference implementation's first output
