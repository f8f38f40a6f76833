"""MD5 and SHA-1 of UtilsForUser (sceKernelUtilsMd5*/Sha1*). The block functions keep
their whole state in the guest's context (pspsdk psputils.h: h[], usRemains, usComputed,
ullTotalLen, buf[64]), so a program may copy or move a context between calls; hence the
compression functions are written out here rather than taken from hashlib, whose state
cannot be exported. Digests are the standard byte strings (RFC 1321, FIPS 180-1)."""

import math
import struct

from allegrex.hle import codes, costs
from allegrex.hle.registry import Ptr, U32, hle

LIB = "UtilsForUser"
BLOCK = 64
MASK = 0xFFFFFFFF


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & MASK


# --- MD5 (RFC 1321) ---
MD5_INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)
MD5_SHIFTS = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
MD5_SINES = [int(abs(math.sin(i + 1)) * 2 ** 32) & MASK for i in range(64)]


def _md5_word_index(i: int) -> int:
    """Which message word round step i reads (the four rounds' orders)."""
    if i < 16:
        return i
    if i < 32:
        return (5 * i + 1) % 16
    if i < 48:
        return (3 * i + 5) % 16
    return (7 * i) % 16


def _md5_mix(i: int, b: int, c: int, d: int) -> int:
    if i < 16:
        return (b & c) | (~b & d)
    if i < 32:
        return (d & b) | (~d & c)
    if i < 48:
        return b ^ c ^ d
    return c ^ (b | (~d & MASK))


def md5_compress(state: tuple, block: bytes) -> tuple:
    words = struct.unpack("<16I", block)
    a, b, c, d = state
    for i in range(64):
        f = (_md5_mix(i, b, c, d) + a + MD5_SINES[i] + words[_md5_word_index(i)]) & MASK
        a, d, c = d, c, b
        b = (b + _rotl(f, MD5_SHIFTS[i])) & MASK
    return tuple((x + y) & MASK for x, y in zip(state, (a, b, c, d)))


# --- SHA-1 (FIPS 180-1) ---
SHA1_INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)


def _sha1_round(i: int, b: int, c: int, d: int) -> tuple[int, int]:
    if i < 20:
        return (b & c) | (~b & d), 0x5A827999
    if i < 40:
        return b ^ c ^ d, 0x6ED9EBA1
    if i < 60:
        return (b & c) | (b & d) | (c & d), 0x8F1BBCDC
    return b ^ c ^ d, 0xCA62C1D6


def sha1_compress(state: tuple, block: bytes) -> tuple:
    w = list(struct.unpack(">16I", block))
    for i in range(16, 80):
        w.append(_rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1))
    a, b, c, d, e = state
    for i in range(80):
        f, k = _sha1_round(i, b, c, d)
        a, b, c, d, e = (_rotl(a, 5) + (f & MASK) + e + k + w[i]) & MASK, a, _rotl(b, 30), c, d
    return tuple((x + y) & MASK for x, y in zip(state, (a, b, c, d, e)))


class Algorithm:
    """One hash: its initial state, compression, byte order of lengths and digest, and where
    the guest context keeps its fields (the words of h, then usRemains, usComputed,
    ullTotalLen, buf)."""

    def __init__(self, init, compress, order, remains_at):
        self.init, self.compress, self.order, self.remains_at = init, compress, order, remains_at
        self.total_at = remains_at + 4
        self.buf_at = remains_at + 12

    def digest(self, state: tuple) -> bytes:
        return struct.pack(f"{self.order}{len(state)}I", *state)

    def padding(self, total: int) -> bytes:
        """The final padding: 0x80, zeros to 56 mod 64, the bit length."""
        zeros = (BLOCK - 9 - total % BLOCK) % BLOCK
        return b"\x80" + b"\0" * zeros + struct.pack(f"{self.order}Q", (total * 8) & (2 ** 64 - 1))

    def run(self, state: tuple, data: bytes) -> tuple:
        for at in range(0, len(data), BLOCK):
            state = self.compress(state, data[at:at + BLOCK])
        return state

    def whole(self, data: bytes) -> bytes:
        return self.digest(self.run(self.init, data + self.padding(len(data))))


MD5 = Algorithm(MD5_INIT, md5_compress, "<", remains_at=20)  # h[4], pad, then the rest
SHA1 = Algorithm(SHA1_INIT, sha1_compress, ">", remains_at=20)  # h[5], then the rest


class GuestContext:
    """A hash context in guest memory."""

    def __init__(self, k, algo: Algorithm, addr: int):
        self.memory, self.algo, self.addr = k.memory, algo, addr

    def load(self) -> tuple[tuple, bytes, int]:
        m, a = self.memory, self.algo
        state = struct.unpack(f"<{len(a.init)}I", m.read(self.addr, 4 * len(a.init)))
        remains = m.read_u16(self.addr + a.remains_at) % BLOCK
        total = m.read_u32(self.addr + a.total_at) | (m.read_u32(self.addr + a.total_at + 4) << 32)
        return state, m.read(self.addr + a.buf_at, remains), total

    def store(self, state: tuple, pending: bytes, total: int, computed: int = 0) -> None:
        m, a = self.memory, self.algo
        m.write(self.addr, struct.pack(f"<{len(state)}I", *state))
        m.write_u16(self.addr + a.remains_at, len(pending))
        m.write_u16(self.addr + a.remains_at + 2, computed)
        m.write_u32(self.addr + a.total_at, total & MASK)
        m.write_u32(self.addr + a.total_at + 4, (total >> 32) & MASK)
        m.write(self.addr + a.buf_at, pending.ljust(BLOCK, b"\0"))


def _digest(k, algo: Algorithm, data: int, size: int, digest: int) -> int:
    if not digest or (size and not data):
        return codes.signed(codes.INVALID_POINTER)
    k.memory.write(digest, algo.whole(k.memory.read(data, size) if size else b""))
    return 0


def _init(k, algo: Algorithm, ctx: int) -> int:
    if not ctx:
        return codes.signed(codes.INVALID_POINTER)
    GuestContext(k, algo, ctx).store(algo.init, b"", 0)
    return 0


def _update(k, algo: Algorithm, ctx: int, data: int, size: int) -> int:
    if not ctx or (size and not data):
        return codes.signed(codes.INVALID_POINTER)
    context = GuestContext(k, algo, ctx)
    state, pending, total = context.load()
    pending += k.memory.read(data, size) if size else b""
    whole = len(pending) - len(pending) % BLOCK
    context.store(algo.run(state, pending[:whole]), pending[whole:], total + size)
    return 0


def _result(k, algo: Algorithm, ctx: int, digest: int) -> int:
    if not ctx or not digest:
        return codes.signed(codes.INVALID_POINTER)
    context = GuestContext(k, algo, ctx)
    state, pending, total = context.load()
    final = algo.run(state, pending + algo.padding(total))
    k.memory.write(digest, algo.digest(final))
    context.store(final, b"", total, computed=1)  # usComputed: the context has been finished
    return 0


HASH_COST = costs.SYSCALL  # plus the work itself, which is charged by size below
CYCLES_PER_BYTE = 20  # ESTIMATE: software MD5/SHA-1 on a 32-bit MIPS core, unsourced


def _charge(k, size: int) -> None:
    k.charge(CYCLES_PER_BYTE * size)


for _algo, _name in ((MD5, "Md5"), (SHA1, "Sha1")):
    def _bind(algo):
        def digest_call(k, data: Ptr, size: U32, digest: Ptr) -> int:
            _charge(k, size)
            return _digest(k, algo, data, size, digest)

        def init_call(k, ctx: Ptr) -> int:
            return _init(k, algo, ctx)

        def update_call(k, ctx: Ptr, data: Ptr, size: U32) -> int:
            _charge(k, size)
            return _update(k, algo, ctx, data, size)

        def result_call(k, ctx: Ptr, digest: Ptr) -> int:
            return _result(k, algo, ctx, digest)
        return digest_call, init_call, update_call, result_call

    _calls = _bind(_algo)
    for _suffix, _call in zip(("Digest", "BlockInit", "BlockUpdate", "BlockResult"), _calls):
        hle(LIB, name=f"sceKernelUtils{_name}{_suffix}", cost=HASH_COST)(_call)
