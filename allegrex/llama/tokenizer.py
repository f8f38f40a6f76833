"""llama2.c's tokenizer.bin: int32 max_token_length, then per token an fp32 merge score,
an int32 byte length and the bytes. The vocabulary size is the model's (not stored).

Also a deterministic synthetic tokenizer for random models: the sentencepiece layout
llama2.c expects (0 <unk>, 1 <s>, 2 </s>, 3..258 the byte tokens <0x00>..<0xFF>), then
printable characters and word pieces whose every prefix is also a piece, so BPE merges
by score can build each word one character at a time.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from allegrex.llama.errors import LlamaError

N_SPECIAL = 3  # <unk>, <s>, </s>
N_BYTE_TOKENS = 256


@dataclass
class Tokenizer:
    pieces: list[bytes]
    scores: list[float]
    max_token_length: int = 0

    def __post_init__(self):
        if len(self.pieces) != len(self.scores):
            raise LlamaError("tokenizer needs one score per piece")
        if not self.max_token_length:
            self.max_token_length = max((len(p) for p in self.pieces), default=0)


def read_tokenizer(path, vocab_size: int) -> Tokenizer:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LlamaError(f"cannot open tokenizer {path}: {exc.strerror}") from None
    if len(data) < 4:
        raise LlamaError(f"{path}: too short to be a tokenizer")
    (max_len,) = struct.unpack_from("<i", data, 0)
    pos, pieces, scores = 4, [], []
    for i in range(vocab_size):
        if pos + 8 > len(data):
            raise LlamaError(f"{path}: ends after {i} of {vocab_size} tokens")
        score, length = struct.unpack_from("<fi", data, pos)
        pos += 8
        if length < 0 or pos + length > len(data):
            raise LlamaError(f"{path}: token {i} has a bad length {length}")
        pieces.append(data[pos:pos + length])
        scores.append(score)
        pos += length
    return Tokenizer(pieces, scores, max_len)


def write_tokenizer(tok: Tokenizer, path) -> None:
    out = [struct.pack("<i", tok.max_token_length)]
    for piece, score in zip(tok.pieces, tok.scores):
        out.append(struct.pack("<fi", score, len(piece)) + piece)
    try:
        Path(path).write_bytes(b"".join(out))
    except OSError as exc:
        raise LlamaError(f"cannot write {path}: {exc.strerror}") from None


# Common English words (TinyStories flavour) become whole-word pieces first.
_WORDS = ("the and was to a he she it they her his of in said day one time there little "
          "upon once girl boy named lily tim ben mom dad big happy play played with saw "
          "had very sun tree cat dog friend friends park ball toy wanted went home help "
          "could would not but so you we is on at for are be have do go up out new good "
          "look looked see like love loved fun red blue box bird fish water run ran jump "
          "smile smiled sad car book fly sky day night house kind nice small").split()


def synthetic_tokenizer(vocab_size: int, seed: int = 0) -> Tokenizer:
    """A deterministic tokenizer with `vocab_size` pieces in llama2.c's layout."""
    if vocab_size < N_SPECIAL + N_BYTE_TOKENS + 1:
        raise LlamaError(f"a tokenizer needs at least {N_SPECIAL + N_BYTE_TOKENS + 1} tokens, got {vocab_size}")
    pieces = [b"<unk>", b"\n<s>\n", b"\n</s>\n"] + [b"<0x%02X>" % i for i in range(N_BYTE_TOKENS)]
    scores = [0.0] * len(pieces)
    seen = set(pieces)
    merges: list[bytes] = []

    def add(piece: bytes) -> bool:
        if piece in seen or len(pieces) + len(merges) >= vocab_size:
            return False
        seen.add(piece)
        merges.append(piece)
        return True

    for c in b" etaoinshrdlucmfwypvbgkjqxz.,!?'\"ETAOINSHRDLUCMFWYPVBGKJQXZ0123456789:;-\n":
        add(bytes([c]))
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"etaoinshrdlucmfwypvbgk", dtype=np.uint8)
    words = [(" " + w).encode() for w in _WORDS] + [w.encode() for w in _WORDS]
    while len(pieces) + len(merges) < vocab_size:
        word = words.pop(0) if words else b" " + bytes(rng.choice(letters, size=int(rng.integers(2, 9))))
        for end in range(2, len(word) + 1):  # every prefix, so merges can grow the word
            add(word[:end])
    # Earlier (more common) pieces merge first: higher score.
    pieces += merges
    scores += [-float(i) for i in range(len(merges))]
    return Tokenizer(pieces[:vocab_size], scores[:vocab_size])
