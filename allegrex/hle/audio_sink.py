"""Where the speaker's samples go: a 16-bit stereo PCM WAV file (`allegrex run --audio`)."""

import wave

import numpy as np

from allegrex.errors import AllegrexError


class WavSink:
    """Appends int16 stereo frames to a WAV file; the header's sizes are written on close."""

    def __init__(self, path: str, rate: int):
        self.path = path
        try:
            self.raw = open(path, "wb")
        except OSError as exc:
            raise AllegrexError(f"cannot write audio file {path}: {exc.strerror or exc}") from None
        self.file = wave.open(self.raw, "wb")
        self.file.setnchannels(2)
        self.file.setsampwidth(2)
        self.file.setframerate(rate)

    def write(self, frames: np.ndarray) -> None:
        """frames: int16 array of shape (n, 2), left then right."""
        try:
            self.file.writeframesraw(np.ascontiguousarray(frames, dtype="<i2").tobytes())
        except OSError as exc:
            raise AllegrexError(f"cannot write audio file {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        try:
            self.file.close()
            self.raw.close()
        except OSError as exc:
            raise AllegrexError(f"cannot write audio file {self.path}: {exc.strerror or exc}") from None
