"""sceAudio: the eight PCM channels and the SRC channel, paced by simulated time as the
PSP's audio driver paces them (sceVaudio, which shares the SRC channel, is vaudio.py).

Facts come from the audio driver as reverse-engineered by uOFW (src/audio/audio.c: the
mixer thread, the channel and SRC structures, the argument checks) and from what
pspautotests audio/sceaudio and audio/output2 print on a real PSP (error codes, rest
lengths, how long blocking calls take).

Channels 0-7. A reserved channel has a length (64..65472 samples, a multiple of 64) and a
format (stereo, or mono = 0x10). An output gives the channel one buffer: it holds one at a
time, so an output while it still has samples to give answers BUSY, and a blocking output
waits until the mixer has taken its last samples, then hands its own buffer over. The
mixer runs every 64 samples (1451 us) while anything plays: each pass takes the next 64
samples of every playing channel, scales them by the channel's volumes (0x8000 = unity,
up to 0xFFFF), sums and clamps them to 16 bits. A pass that finds nothing to play stops
the DMA; an output while it is stopped starts it and is mixed at once (its rest length
drops by 64 immediately), one while it runs waits for the next pass.

The SRC channel (sceAudioSRCCh*, sceAudioOutput2*, sceVaudio) is a second hardware
stream at its own rate (8-48 kHz; 0 = 44.1 kHz) with two buffer slots: an output takes a
free slot (the stream plays the slots in turn, without a gap) and a blocking one then
waits for the driver's SRC event, which the stream raises when it starts, when a slot has
been played (it is free again) and when it runs dry. The rest count is the slot length
times the busy slots.
"""

from fractions import Fraction

import numpy as np

from allegrex.cpu.state import V0
from allegrex.errors import GuestMemoryError
from allegrex.hle import codes, threads
from allegrex.hle.audio_sink import WavSink
from allegrex.hle.codes import signed
from allegrex.hle.kernel import IllegalContext
from allegrex.hle.registry import Ptr, Raw, alias, hle
from allegrex.hle.speaker import RATE, US_PER_S, Speaker, clamp16, sample_index, time_us
from allegrex.hle.threads import Wait

LIB = "sceAudio"
CHANNELS = 8
BLOCK = 64  # samples the mixer takes from each playing channel per pass
MAX_LENGTH = 0xFFC0
FORMAT_STEREO, FORMAT_MONO = 0, 0x10
MAX_VOLUME, MAX_SRC_VOLUME = 0xFFFF, 0xFFFFF
MIX_SCALE, MIX_SHIFT = 128, 8  # each sample * volume / 128, summed, >> 8: 0x8000 is unity
SRC_VOLUME_SHIFT, SRC_UNITY = 5, 0x400  # the hardware takes volume >> 5; 0x8000 >> 5 is unity
SRC_MIN_FRAMES, SRC_MAX_FRAMES = 17, 4111
SRC_RATES = (8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)
# ESTIMATE: the hardware still plays a slot's last frame after the slot is released (the
# stream runs dry a little later than its last slot frees: a NULL output right after one
# waits briefly, sceaudio/output). output2/rest bounds it: 64 frames free the slot 13XX us
# after allegrex's checkpoint, so at most ~1.5 frames with allegrex's HLE costs.
SRC_FIFO_FRAMES = 1
# A blocking output marks its channel as having a waiter before it waits, and only clears
# the mark once it has handed its buffer over; a wait that fails (dispatch or interrupts
# off, released, terminated) returns with the mark left, so every later call that checks
# it (blocking outputs, release, data length, config) answers BUSY (uOFW audio.c; intr/waits
# on a PSP: the channel stays reserved and keeps its 128-sample length).
STUCK = "stuck"


class Channel:
    def __init__(self, number: int):
        self.number = number
        self.length = 0  # samples per output; 0: not reserved
        self.mono = False
        self.left = self.right = 0
        self.addr = None  # next sample of the buffer being played; None: idle
        self.rest = 0  # samples of that buffer the mixer has not taken
        # the one blocked output: (thread, wait, left, right, addr), or STUCK when its wait
        # failed (the driver's waiter mark is cleared only by a blocking call that succeeds)
        self.waiter = None

    def bytes_per_frame(self) -> int:
        return 2 if self.mono else 4


class Slot:
    """One SRC buffer: played from output position `start` to `end` (exact fractions of
    44.1 kHz samples); the slot is free again at `done`."""

    def __init__(self, addr, frames, rate, volume, start):
        self.addr, self.frames, self.rate, self.volume, self.start = addr, frames, rate, volume, start
        self.end = start + Fraction(frames * RATE, rate)
        self.done = self.end - Fraction(SRC_FIFO_FRAMES * RATE, rate)


class SrcChannel:
    def __init__(self):
        self.rate = 0  # 0: not reserved
        self.frames = 0  # samples per output (sceAudioOutput2ChangeLength changes it)
        self.slots = [None, None]
        self.running = False
        self.end = Fraction(0)  # where the last queued slot ends
        self.event = False  # the driver's SRC event flag bit
        self.waiters: list = []  # (thread, wait, result), first come first woken


class Audio:
    """The audio driver's state for one run and the speaker it feeds."""

    def __init__(self, kernel):
        self.k = kernel
        path = kernel.options.audio_path
        self.speaker = Speaker(WavSink(path, RATE) if path else None)
        self.channels = [Channel(i) for i in range(CHANNELS)]
        self.src = SrcChannel()
        self.running = False  # the main stream's DMA
        self.next_pass = 0  # output index of the mixer's next pass
        self.timer = None
        self.timer_us = None

    # --- time ---
    def now_position(self) -> Fraction:
        return Fraction(self.k.now_us() * RATE, US_PER_S)

    def catch_up(self) -> None:
        """Do every mixer pass and SRC event due by now, in time order."""
        now = self.k.now_us()
        if self.timer_us is None or self.timer_us > now:
            return  # the armed timer is always the earliest pending event: nothing is due
        while True:
            due = self._next_event()
            if due is None or due[0] > now:
                break
            due[1]()
        self.speaker.flush(self._horizon(now))
        self._arm_timer()

    def _next_event(self):
        """(microsecond, action) of the earliest pending pass or SRC event, or None."""
        events = []
        if self.running:
            events.append((time_us(self.next_pass), 0, self._pass_due))
        src = self.src
        for slot in src.slots:
            if slot is not None:
                events.append((time_us(slot.done), 1, lambda s=slot: self._slot_done(s)))
        if src.running and not any(src.slots):
            events.append((time_us(src.end), 2, self._src_stop))
        if not events:
            return None
        when, _, action = min(events, key=lambda e: (e[0], e[1]))
        return when, action

    def _horizon(self, now: int) -> int:
        """Output samples before this index are final: SRC slots still playing deposit
        theirs when their last bytes are read."""
        horizon = sample_index(now)
        for slot in self.src.slots:
            if slot is not None:
                horizon = min(horizon, int(slot.start))
        return horizon

    def _arm_timer(self) -> None:
        due = self._next_event()
        when = None if due is None else due[0]
        if when == self.timer_us and self.timer is not None:
            return
        self.k.timers.cancel(self.timer)
        self.timer, self.timer_us = None, when
        if when is not None:
            self.timer = self.k.timers.add(when, self._on_timer)

    def _on_timer(self) -> None:
        self.timer = None  # fired; timer_us still names the event that is due now
        self.catch_up()

    # --- the main stream ---
    def _pass_due(self) -> None:
        self.mix_pass(self.next_pass)

    def mix_pass(self, index: int) -> None:
        """The mixer thread's pass: 64 samples of every playing channel into the block
        that plays from output `index`."""
        block = np.zeros((BLOCK, 2), np.int64)
        played = 0
        finished = []
        for ch in self.channels:
            if ch.addr is None:
                continue
            n = min(ch.rest, BLOCK)
            frames = self._read_frames(ch.addr, n, ch.mono)
            block[:n, 0] += _scaled(frames[:, 0], ch.left)
            block[:n, 1] += _scaled(frames[:, 1], ch.right)
            ch.addr += n * ch.bytes_per_frame()
            ch.rest -= n
            played = max(played, n)
            if ch.rest == 0:
                ch.addr = None
                finished.append(ch)
        if not played:
            self.running = False  # nothing played for a whole pass: the DMA stops
            return
        self.speaker.put_main(index, clamp16(block >> MIX_SHIFT), played)
        self.next_pass = index + BLOCK
        for ch in finished:
            self._resume_waiter(ch)

    def _read_frames(self, addr: int, n: int, mono: bool) -> np.ndarray:
        """n frames as int64 (n, 2); a mono sample plays on both sides."""
        width = 2 if mono else 4
        samples = np.frombuffer(self.k.memory.read(addr, n * width), "<i2").astype(np.int64)
        return np.repeat(samples[:, None], 2, axis=1) if mono else samples.reshape(n, 2)

    def output(self, ch: Channel, left: int, right: int, addr: int) -> int:
        """The driver's output step: the channel takes `addr` (0: nothing, but the call
        still counts) unless it is still playing."""
        if ch.length == 0:
            return signed(codes.AUDIO_NOT_INITIALIZED)
        if ch.addr is not None:
            return signed(codes.AUDIO_BUSY)
        ch.rest = ch.length
        if left >= 0:
            ch.left = left
        if right >= 0:
            ch.right = right
        self.play(ch, addr)
        return ch.length

    def play(self, ch: Channel, addr: int) -> None:
        """The channel plays from `addr` (0: it stays idle)."""
        ch.addr = addr or None
        if addr and not self.running:  # start the DMA: this buffer is mixed at once
            self.running = True
            self.mix_pass(sample_index(self.k.now_us()))
            self._arm_timer()

    def _resume_waiter(self, ch: Channel) -> None:
        waiter = ch.waiter
        if waiter is None or waiter is STUCK:
            return
        thread, wait, left, right, addr = waiter
        if thread.wait is not wait:  # the wait ended otherwise (released, terminated)
            ch.waiter = STUCK
            return
        ch.waiter = None
        self.k.threads.wake(thread, self.output(ch, left, right, addr))

    def output_blocking(self, ch: Channel, left: int, right: int, addr: int) -> None:
        """Output, waiting for the channel's current buffer to be taken if it has one."""
        k = self.k
        result = self.output(ch, left, right, addr)
        if result != signed(codes.AUDIO_BUSY) or ch.waiter is not None:
            k.cpu.regs[V0] = result & 0xFFFFFFFF
            return
        ch.waiter = STUCK  # marked before the wait, which may fail
        if threads.cannot_wait(k) and not k.interrupts:
            k.cpu.regs[V0] = codes.WAIT_CAN_NOT_WAIT
            return
        wait = Wait("audio")
        k.threads.block(wait)
        ch.waiter = (k.threads.current, wait, left, right, addr)

    # --- the SRC stream ---
    def src_output(self, volume: int, addr: int) -> int:
        src = self.src
        if not src.rate:
            return signed(codes.AUDIO_NOT_RESERVED)
        if src.slots[0] is not None:
            if src.slots[1] is not None:
                return signed(codes.AUDIO_BUSY)
            which = 1
        else:
            which = 0
        if not addr:
            return 0
        if src.running:
            start = src.end
        else:
            start = self.now_position()
            src.running = True
            self._src_event()
        slot = Slot(addr, src.frames, src.rate, volume, start)
        src.slots[which] = slot
        src.end = slot.end
        self._arm_timer()
        return src.frames

    def src_output_blocking(self, volume: int, addr: int) -> None:
        k = self.k
        result = self.src_output(volume, addr)
        if result > 0 or (result == 0 and self.src.running):
            # the buffer is queued; then the driver waits on its event flag, which fails
            # with dispatch or interrupts off even when the event is already set (intr/waits)
            if threads.cannot_wait(k) and not k.interrupts:
                result = signed(codes.WAIT_CAN_NOT_WAIT)
            elif k.interrupts:
                raise IllegalContext
            elif self.src.event:
                self.src.event = False
            else:
                wait = Wait("audio")
                k.threads.block(wait)
                self.src.waiters.append((k.threads.current, wait, result))
        k.cpu.regs[V0] = result & 0xFFFFFFFF

    def _src_event(self) -> None:
        """The driver sets its SRC event: the first thread waiting for it goes on."""
        waiters = self.src.waiters
        while waiters:
            thread, wait, result = waiters.pop(0)
            if thread.wait is wait:
                self.k.threads.wake(thread, result)
                return
        self.src.event = True

    def _slot_done(self, slot: Slot) -> None:
        self._deposit(slot)
        self.src.slots[self.src.slots.index(slot)] = None
        self._src_event()

    def _src_stop(self) -> None:
        self.src.running = False  # the stream ran dry: the hardware's interrupt
        self._src_event()

    def _deposit(self, slot: Slot) -> None:
        """The slot's samples, resampled to 44.1 kHz by linear interpolation between
        neighbouring input frames and scaled by the hardware volume, into the speaker."""
        first = -(-slot.start.numerator // slot.start.denominator)  # ceil
        last = -(-slot.end.numerator // slot.end.denominator)
        if last <= first:
            return
        frames = self._read_frames(slot.addr, slot.frames, False).astype(np.float64)
        step = slot.rate / RATE
        pos = (np.arange(first, last) - float(slot.start)) * step
        pos = np.clip(pos, 0, slot.frames - 1)
        lo = pos.astype(np.int64)
        hi = np.minimum(lo + 1, slot.frames - 1)
        frac = (pos - lo)[:, None]
        values = frames[lo] + (frames[hi] - frames[lo]) * frac
        gain = (slot.volume >> SRC_VOLUME_SHIFT) / SRC_UNITY
        self.speaker.put_src(first, np.floor(values * gain).astype(np.int64))

    # --- end of the run ---
    def close(self) -> None:
        """Play what is due, count the SRC slots still playing as read now, and hand the
        whole simulated time to the sink."""
        self.catch_up()
        for slot in self.src.slots:
            if slot is not None:
                self._deposit(slot)
        self.k.timers.cancel(self.timer)
        self.timer = self.timer_us = None
        self.speaker.close(sample_index(self.k.now_us()))

    def sounding_seconds(self) -> float:
        return self.speaker.sounding_seconds()


def _scaled(samples: np.ndarray, volume: int) -> np.ndarray:
    """sample * volume / 128 with C's truncating division."""
    product = samples * volume
    return np.sign(product) * (np.abs(product) // MIX_SCALE)


def audio(k) -> Audio:
    """The run's audio state, up to date with simulated time."""
    state = k.audio
    state.catch_up()
    return state


def _buffer_refused(k, addr: int, checked: int, length: int):
    """The driver's pointer check on `checked` bytes: a buffer reaching kernel addresses
    needs privileges (0x80260004). A user buffer of `length` bytes outside memory would
    make the mixer fault on a PSP: the run stops here (GuestMemoryError) instead."""
    if (addr | (addr + checked) | checked) & 0x80000000:
        return signed(codes.AUDIO_PRIV_REQUIRED)
    if addr and length and not k.memory.is_valid(addr, length):
        raise GuestMemoryError(addr, length, "audio buffer")
    return None


def _channel(k, number: int):
    return audio(k).channels[number] if 0 <= number < CHANNELS else None


def _unreserved_channel(state: Audio, number: int):
    """(channel, None) for a reservation of channel `number` (negative: the highest one
    neither reserved nor playing), or (None, error)."""
    if number < 0:
        ch = next((ch for ch in reversed(state.channels) if ch.length == 0 and ch.addr is None), None)
        return (ch, None) if ch is not None else (None, signed(codes.AUDIO_NO_FREE_CHANNEL))
    if number >= CHANNELS or state.channels[number].length:
        return None, signed(codes.AUDIO_INVALID_CHANNEL)
    return state.channels[number], None


def _format(fmt: int):
    """Mono flag for a format, or None when the format is not one."""
    return {FORMAT_STEREO: False, FORMAT_MONO: True}.get(fmt)


# --- channels 0-7 ---
@hle(LIB)
def sceAudioChReserve(k, channel: int, length: int, fmt: int) -> int:
    state = audio(k)
    ch, error = _unreserved_channel(state, channel)
    if ch is None:
        return error
    if length <= 0 or length % BLOCK or length > MAX_LENGTH:
        return signed(codes.AUDIO_INVALID_SIZE)
    mono = _format(fmt)
    if mono is None:
        return signed(codes.AUDIO_INVALID_FORMAT)
    ch.length, ch.mono, ch.left, ch.right = length, mono, 0, 0
    return ch.number


@hle(LIB)
def sceAudioChRelease(k, channel: int) -> int:
    ch = _channel(k, channel)
    if ch is None:
        return signed(codes.AUDIO_INVALID_CHANNEL)
    if not ch.length:
        return signed(codes.AUDIO_NOT_RESERVED)
    if ch.waiter is not None:
        return signed(codes.AUDIO_BUSY)
    ch.length = 0  # a buffer still playing plays to its end
    return 0


@hle(LIB)
def sceAudioSetChannelDataLen(k, channel: int, length: int) -> int:
    ch = _channel(k, channel)
    if ch is None:
        return signed(codes.AUDIO_INVALID_CHANNEL)
    if length <= 0 or length % BLOCK or length > MAX_LENGTH:
        return signed(codes.AUDIO_INVALID_SIZE)
    if ch.waiter is not None:
        return signed(codes.AUDIO_BUSY)
    if not ch.length:
        return signed(codes.AUDIO_NOT_INITIALIZED)
    ch.length = length
    return 0


@hle(LIB)
def sceAudioChangeChannelVolume(k, channel: int, left: int, right: int) -> int:
    if left > MAX_VOLUME or right > MAX_VOLUME:
        return signed(codes.AUDIO_INVALID_VOLUME)
    ch = _channel(k, channel)
    if ch is None:
        return signed(codes.AUDIO_INVALID_CHANNEL)
    if left >= 0:  # a negative volume leaves that side as it is
        ch.left = left
    if right >= 0:
        ch.right = right
    return 0


@hle(LIB)
def sceAudioChangeChannelConfig(k, channel: int, fmt: int) -> int:
    ch = _channel(k, channel)
    if ch is None:
        return signed(codes.AUDIO_INVALID_CHANNEL)
    if ch.waiter is not None or ch.addr is not None:  # ESTIMATE: not while a buffer plays
        return signed(codes.AUDIO_BUSY)
    if not ch.length:
        return signed(codes.AUDIO_NOT_RESERVED)
    mono = _format(fmt)
    if mono is None:
        return signed(codes.AUDIO_INVALID_FORMAT)
    ch.mono = mono
    return 0


@hle(LIB)
def sceAudioGetChannelRestLen(k, channel: int) -> int:
    """Samples of the channel's buffer the mixer has not taken (both names answer alike:
    sceaudio/output reads one, output2/frequency the other)."""
    ch = _channel(k, channel)
    if ch is None:
        return signed(codes.AUDIO_INVALID_CHANNEL)
    return ch.rest if ch.addr is not None else 0


alias(LIB, "sceAudioGetChannelRestLength", sceAudioGetChannelRestLen)


def _checked_output(k, channel: int, buf: int, volume_ok: bool):
    """(channel, None) ready for the output step, or (None, error)."""
    if not volume_ok:
        return None, signed(codes.AUDIO_INVALID_VOLUME)
    ch = _channel(k, channel)
    if ch is None:
        return None, signed(codes.AUDIO_INVALID_CHANNEL)
    refused = _buffer_refused(k, buf, ch.length * 4, ch.length * ch.bytes_per_frame())
    return (None, refused) if refused is not None else (ch, None)


@hle(LIB)
def sceAudioOutput(k, channel: int, volume: int, buf: Ptr) -> int:
    ch, error = _checked_output(k, channel, buf, volume <= MAX_VOLUME)
    return error if ch is None else k.audio.output(ch, volume, volume, buf)


@hle(LIB)
def sceAudioOutputPanned(k, channel: int, left: int, right: int, buf: Ptr) -> int:
    ch, error = _checked_output(k, channel, buf, left <= MAX_VOLUME and right <= MAX_VOLUME)
    return error if ch is None else k.audio.output(ch, left, right, buf)


@hle(LIB)
def sceAudioOutputBlocking(k, channel: int, volume: int, buf: Ptr) -> Raw:
    ch, error = _checked_output(k, channel, buf, volume <= MAX_VOLUME)
    if ch is None:
        k.cpu.regs[V0] = error & 0xFFFFFFFF
        return
    k.audio.output_blocking(ch, volume, volume, buf)


@hle(LIB)
def sceAudioOutputPannedBlocking(k, channel: int, left: int, right: int, buf: Ptr) -> Raw:
    # the blocking form alone refuses negative volumes too (sceaudio/output)
    ok = 0 <= left <= MAX_VOLUME and 0 <= right <= MAX_VOLUME
    ch, error = _checked_output(k, channel, buf, ok)
    if ch is None:
        k.cpu.regs[V0] = error & 0xFFFFFFFF
        return
    k.audio.output_blocking(ch, left, right, buf)


@hle(LIB)
def sceAudioOneshotOutput(k, channel: int, length: int, fmt: int, left: int, right: int, buf: Ptr) -> int:
    """Play one buffer of any length on a channel that is not reserved."""
    if left > MAX_VOLUME or right > MAX_VOLUME:
        return signed(codes.AUDIO_INVALID_VOLUME)
    state = audio(k)
    ch, error = _unreserved_channel(state, channel)
    if ch is None:
        return error
    if length <= 0:
        return signed(codes.AUDIO_INVALID_SIZE)
    mono = _format(fmt)
    refused = _buffer_refused(k, buf, length * 4, length * (2 if mono else 4))
    if refused is not None:
        return refused
    if mono is None:
        return signed(codes.AUDIO_INVALID_FORMAT)
    ch.left, ch.right, ch.mono, ch.rest = left, right, mono, length
    state.play(ch, buf)
    return ch.number


# --- the SRC channel ---
def src_reserve(k, frames: int, rate: int, channels: int) -> int:
    if channels not in (2, 4):
        return signed(codes.INVALID_SIZE)
    if channels == 4:
        return signed(codes.NOT_IMPLEMENTED)
    total = signed((frames * channels) & 0xFFFFFFFF)  # the count is checked as a 32-bit word
    if not SRC_MIN_FRAMES <= int(total / 2) <= SRC_MAX_FRAMES:
        return signed(codes.INVALID_SIZE)
    if rate == 0:
        rate = RATE
    elif rate not in SRC_RATES:
        return signed(codes.AUDIO_INVALID_FREQUENCY)
    src = audio(k).src
    if src.rate:
        return signed(codes.AUDIO_SRC_BUSY)
    src.rate, src.frames = rate, frames & 0xFFFF  # kept as a 16-bit count
    return 0


@hle(LIB)
def sceAudioSRCChReserve(k, frames: int, rate: int, channels: int) -> int:
    return src_reserve(k, frames, rate, channels)


@hle(LIB)
def sceAudioSRCChRelease(k) -> int:
    state = audio(k)
    src = state.src
    if not src.rate:
        return signed(codes.AUDIO_NOT_RESERVED)
    if any(src.slots):
        return signed(codes.AUDIO_SRC_BUSY)
    state._src_event()
    src.rate = 0
    return 0


@hle(LIB)
def sceAudioSRCOutputBlocking(k, volume: int, buf: Ptr) -> Raw:
    if (volume & 0xFFFFFFFF) > MAX_SRC_VOLUME:  # unsigned: negative volumes are refused
        k.cpu.regs[V0] = codes.AUDIO_INVALID_VOLUME
        return
    state = audio(k)
    refused = _buffer_refused(k, buf, state.src.frames * 4, state.src.frames * 4)
    if refused is not None:
        k.cpu.regs[V0] = refused & 0xFFFFFFFF
        return
    state.src_output_blocking(volume, buf)


@hle(LIB)
def sceAudioOutput2Reserve(k, frames: int) -> int:
    return src_reserve(k, frames, RATE, 2)


alias(LIB, "sceAudioOutput2Release", sceAudioSRCChRelease)
alias(LIB, "sceAudioOutput2OutputBlocking", sceAudioSRCOutputBlocking)


@hle(LIB)
def sceAudioOutput2ChangeLength(k, frames: int) -> int:
    if not SRC_MIN_FRAMES <= frames <= SRC_MAX_FRAMES:
        return signed(codes.AUDIO_INVALID_SIZE)
    src = audio(k).src
    if not src.rate:
        return signed(codes.AUDIO_NOT_RESERVED)
    src.frames = frames  # the next outputs; slots already queued keep their length
    return 0


@hle(LIB)
def sceAudioOutput2GetRestSample(k) -> int:
    src = audio(k).src
    if not src.rate:
        return signed(codes.AUDIO_NOT_RESERVED)
    return src.frames * sum(slot is not None for slot in src.slots)
