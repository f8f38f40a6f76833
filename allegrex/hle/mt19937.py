"""The Mersenne Twister of UtilsForUser (sceKernelUtilsMt19937Init/UInt): the standard
MT19937 (Matsumoto and Nishimura, init_genrand seeding), its state in the guest's context
(pspsdk psputils.h: count, state[624]) so a program may copy or keep it."""

import numpy as np

from allegrex.hle import codes
from allegrex.hle.registry import Ptr, U32, hle

LIB = "UtilsForUser"
N, M = 624, 397
MATRIX_A, UPPER, LOWER = 0x9908B0DF, 0x80000000, 0x7FFFFFFF
CONTEXT_SIZE = 4 + 4 * N


def seeded_state(seed: int) -> np.ndarray:
    state = np.zeros(N, dtype=np.uint32)
    state[0] = seed & 0xFFFFFFFF
    for i in range(1, N):
        prev = int(state[i - 1])
        state[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
    return state


def regenerate(state: np.ndarray) -> np.ndarray:
    """The next 624 words of state (the twist), computed in place order as the reference does."""
    s = [int(v) for v in state]
    for i in range(N):
        y = (s[i] & UPPER) | (s[(i + 1) % N] & LOWER)
        s[i] = s[(i + M) % N] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
    return np.array(s, dtype=np.uint32)


def temper(y: int) -> int:
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    return y ^ (y >> 18)


def _valid(k, ctx: int) -> bool:
    return ctx != 0 and k.memory.is_valid(ctx, CONTEXT_SIZE)


@hle(LIB)
def sceKernelUtilsMt19937Init(k, ctx: Ptr, seed: U32) -> int:
    if not _valid(k, ctx):
        return codes.signed(codes.INVALID_POINTER)
    k.memory.write_u32(ctx, N)  # count: every word used, so the first draw twists
    k.memory.write(ctx + 4, seeded_state(seed).tobytes())
    return 0


@hle(LIB)
def sceKernelUtilsMt19937UInt(k, ctx: Ptr) -> U32:
    if not _valid(k, ctx):
        return 0
    count = k.memory.read_u32(ctx)
    state = np.frombuffer(k.memory.read(ctx + 4, 4 * N), dtype=np.uint32)
    if count >= N:
        state = regenerate(state)
        k.memory.write(ctx + 4, state.tobytes())
        count = 0
    k.memory.write_u32(ctx, count + 1)
    return temper(int(state[count]))
