"""The speaker: what a PSP plays, one stereo sample every 1/44100 s of simulated time.

Two streams reach the codec: the main stream (the audio driver's mixer sums channels 0-7
into 64-sample blocks, already clamped to 16 bits) and the SRC stream (sceAudioSRCCh*,
sceAudioOutput2*, sceVaudio; converted to 44.1 kHz by hardware). The speaker adds the two
and clamps again. Nothing plays where no channel does: the speaker still runs, so the
output covers the whole simulated time, silent there.

Samples are held until no later deposit can reach them, then handed to the sink (a WAV
file with `allegrex run --audio`, or nowhere).
"""

import numpy as np

RATE = 44100
US_PER_S = 1_000_000
FLUSH_FRAMES = 1 << 15  # hand samples on in batches of at least this many
SILENCE_CHUNK = 1 << 16


def sample_index(us: int) -> int:
    """The output sample playing at simulated microsecond `us`."""
    return us * RATE // US_PER_S


def time_us(index) -> int:
    """First simulated microsecond at or after output sample `index` (an int or a Fraction)."""
    return -(-(index * US_PER_S) // RATE)


def clamp16(values: np.ndarray) -> np.ndarray:
    return np.clip(values, -32768, 32767)


class Speaker:
    def __init__(self, sink=None):
        self.sink = sink
        self.origin = 0  # output index of the first held sample
        self.main = np.zeros((0, 2), np.int32)
        self.src = np.zeros((0, 2), np.int32)
        self.sounding = np.zeros(0, bool)  # some channel played this sample
        self.finished = 0  # samples handed on
        self.sounding_total = 0

    def _room(self, end: int) -> int:
        """Offset of the held samples' start; grows the arrays to reach output index `end`."""
        need = end - self.origin
        if need > len(self.main):
            size = max(need, 2 * len(self.main), 4096)
            for name in ("main", "src", "sounding"):
                old = getattr(self, name)
                grown = np.zeros((size,) + old.shape[1:], old.dtype)
                grown[:len(old)] = old
                setattr(self, name, grown)
        return self.origin

    def put_main(self, index: int, block: np.ndarray, played: int) -> None:
        """One mixer block (int, already clamped) starting at output `index`; `played` of
        its samples came from a channel (the rest is the padding the mixer adds)."""
        if index < self.origin:
            raise ValueError(f"mixer block at {index} is before the held samples ({self.origin})")
        at = index - self._room(index + len(block))
        self.main[at:at + len(block)] = block
        self.sounding[at:at + played] = True

    def put_src(self, index: int, values: np.ndarray) -> None:
        """SRC stream samples (int) from output `index` on."""
        if index < self.origin:
            raise ValueError(f"SRC samples at {index} are before the held samples ({self.origin})")
        at = index - self._room(index + len(values))
        self.src[at:at + len(values)] += values
        self.sounding[at:at + len(values)] = True

    def flush(self, until: int, force: bool = False) -> None:
        """Hand on every sample before output index `until` (nothing more will land there);
        batched unless `force`."""
        count = until - self.origin
        if count <= 0 or (count < FLUSH_FRAMES and not force):
            return
        held = min(count, len(self.main))
        out = clamp16(self.main[:held].astype(np.int64) + self.src[:held]).astype(np.int16)
        self.sounding_total += int(np.count_nonzero(self.sounding[:held]))
        if self.sink is not None:
            self.sink.write(out)
            silence = count - held
            while silence > 0:
                n = min(silence, SILENCE_CHUNK)
                self.sink.write(np.zeros((n, 2), np.int16))
                silence -= n
        for name in ("main", "src", "sounding"):
            setattr(self, name, getattr(self, name)[held:].copy())
        self.origin = until
        self.finished = until

    def close(self, until: int) -> None:
        self.flush(until, force=True)
        if self.sink is not None:
            self.sink.close()
            self.sink = None

    def sounding_seconds(self) -> float:
        """Seconds of handed-on output in which some channel played."""
        return self.sounding_total / RATE
