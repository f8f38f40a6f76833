"""sceAudio: the pacing a real PSP shows (pspautotests audio/sceaudio/output and
audio/output2, pinned here so it holds without the conformance checkout), the driver's
mixing arithmetic on known samples, and what bad arguments get."""

import wave

import numpy as np
import pytest

from allegrex.hle import codes
from allegrex.hle.kernel import RunOptions
from helpers import call, make_kernel

LIB = "sceAudio"
BUF = 0x09000000
BUF2 = 0x09100000
US_PER_BLOCK = 64 * 1_000_000 / 44100
ONE_SAMPLE_US = 23  # passes fall on 44.1 kHz sample boundaries
CALL_US = 10  # a call that does not wait takes a few microseconds


def s32(code: int) -> int:
    return code - (1 << 32)


def put_frames(k, addr, frames):
    k.memory.write(addr, np.asarray(frames, "<i2").tobytes())


def wait_for(k, thread) -> int:
    """Let simulated time pass until `thread` runs again; returns its v0 (signed)."""
    while k.threads.current is not thread:
        assert k.idle_until_next_event(), "nothing would ever wake the caller"
    v0 = int(k.cpu.regs[2])
    return v0 - (1 << 32) if v0 & 0x80000000 else v0


def blocking(k, name, *args):
    """(result, microseconds the call took) of a call that may wait."""
    caller, start = k.threads.current, k.now_us()
    call(k, LIB, name, *args)
    return wait_for(k, caller), k.now_us() - start


def advance(k, us: int) -> None:
    k.clock.advance_to(k.now_us() + us)
    k.fire_timers()


# --- pacing (measured: pspautotests audio/sceaudio/output, audio/output2) ---
def test_a_channel_holds_one_buffer_and_a_blocking_output_waits_for_its_last_block():
    k = make_kernel()
    ch = call(k, LIB, "sceAudioChReserve", -1, 0x1040, 0)
    assert ch == 7  # the highest free channel
    assert call(k, LIB, "sceAudioOutput", ch, 0x8000, BUF) == 0x1040
    assert call(k, LIB, "sceAudioGetChannelRestLength", ch) == 0x1000  # the stopped mixer took 64 at once
    assert call(k, LIB, "sceAudioOutput", ch, 0x8000, BUF) == s32(codes.AUDIO_BUSY)  # "Twice"
    result, took = blocking(k, "sceAudioOutputBlocking", ch, 0x8000, BUF)
    assert result == 0x1040
    assert took == pytest.approx(0x1000 / 44100 * 1e6, abs=ONE_SAMPLE_US)  # "about the right time for 44.1kHz"
    assert call(k, LIB, "sceAudioGetChannelRestLength", ch) == 0x1040  # waits for the next pass


def test_a_null_blocking_output_waits_for_the_buffer_and_queues_nothing():
    k = make_kernel()
    ch = call(k, LIB, "sceAudioChReserve", 0, 256, 0)
    call(k, LIB, "sceAudioOutput", ch, 0x8000, BUF)
    result, took = blocking(k, "sceAudioOutputBlocking", ch, 0x8000, 0)
    assert result == 256 and took == pytest.approx(3 * US_PER_BLOCK, abs=ONE_SAMPLE_US)
    assert call(k, LIB, "sceAudioGetChannelRestLen", ch) == 0
    assert call(k, LIB, "sceAudioOutput", ch, 0x8000, 0) == 256  # nothing plays: not busy


def test_output2_rest_counts_busy_slots_and_release_waits_for_them():
    k = make_kernel()
    assert call(k, LIB, "sceAudioOutput2Reserve", 64) == 0
    result, took = blocking(k, "sceAudioOutput2OutputBlocking", 0x7FFF, BUF)
    assert result == 64 and took < CALL_US  # the stream starts: its event is set at once
    assert call(k, LIB, "sceAudioOutput2GetRestSample") == 64
    assert call(k, LIB, "sceAudioOutput2Release") == s32(codes.AUDIO_SRC_BUSY)
    advance(k, 1000)
    assert call(k, LIB, "sceAudioOutput2GetRestSample") == 64  # output2/rest: 0 only after 13XX us
    advance(k, 450)
    assert call(k, LIB, "sceAudioOutput2GetRestSample") == 0
    assert call(k, LIB, "sceAudioOutput2Release") == 0
    assert call(k, LIB, "sceAudioOutput2GetRestSample") == s32(codes.AUDIO_NOT_RESERVED)


def test_the_src_channel_queues_a_second_slot_and_waits_for_the_first():
    k = make_kernel()
    assert call(k, LIB, "sceAudioSRCChReserve", 2048, 22050, 2) == 0
    result, took = blocking(k, "sceAudioSRCOutputBlocking", 0x8000, BUF)
    assert result == 2048 and took < CALL_US
    result, took = blocking(k, "sceAudioSRCOutputBlocking", 0x8000, BUF2)
    assert result == 2048
    assert took == pytest.approx(2048 / 22050 * 1e6, abs=60)  # output2/frequency: 92XXX us at 22.05 kHz
    assert call(k, LIB, "sceAudioOutput2GetRestSample") == 2048  # one slot busy


@pytest.mark.parametrize("rate,ok", [(0, True), (8000, True), (11025, True), (48000, True), (36000, False),
                                     (64000, False), (-1, False)])
def test_src_rates(rate, ok):
    k = make_kernel()  # audio/output2/reserve: these frequencies and no others
    assert call(k, LIB, "sceAudioSRCChReserve", 64, rate, 2) == (0 if ok else s32(codes.AUDIO_INVALID_FREQUENCY))


def test_vaudio_shares_the_src_channel_and_yields_while_reserving():
    k = make_kernel()  # sceaudio/reserve on a PSP: [r] marks the calls that rescheduled
    caller, start = k.threads.current, k.now_us()
    call(k, "sceVaudio", "sceVaudioChReserve", 256, 48000, 2)
    assert k.threads.current is None  # it waits
    assert wait_for(k, caller) == 0 and k.now_us() - start >= 200
    assert call(k, "sceVaudio", "sceVaudioChReserve", 256, 48000, 2) == s32(codes.BUSY)  # "Twice", no wait
    assert call(k, LIB, "sceAudioOutput2Reserve", 64) == s32(codes.AUDIO_SRC_BUSY)
    assert call(k, "sceVaudio", "sceVaudioChRelease") == 0
    assert call(k, LIB, "sceAudioOutput2Reserve", 64) == 0
    assert call(k, "sceVaudio", "sceVaudioChRelease") == 0  # "wrong release": it frees Output2's reservation
    assert call(k, "sceVaudio", "sceVaudioChReserve", 96, 48000, 2) == s32(codes.INVALID_SIZE)
    assert call(k, "sceVaudio", "sceVaudioChReserve", 256, 48000, 3) == s32(codes.INVALID_FORMAT)
    call(k, "sceVaudio", "sceVaudioChReserve", 256, 64000, 2)
    assert wait_for(k, caller) == s32(codes.AUDIO_INVALID_FREQUENCY)
    call(k, "sceVaudio", "sceVaudioChRelease")
    assert call(k, "sceVaudio", "sceVaudioChReserve", 256, 48000, 2) == s32(codes.BUSY)  # busy for good


def test_a_oneshot_plays_on_an_unreserved_channel_of_any_length():
    k = make_kernel()
    assert call(k, LIB, "sceAudioOneshotOutput", -1, 100, 0, 0x8000, 0x8000, BUF) == 7
    assert call(k, LIB, "sceAudioGetChannelRestLen", 7) == 36  # the first 64 are mixed at once
    assert call(k, LIB, "sceAudioChReserve", -1, 64, 0) == 6  # 7 is busy playing
    advance(k, 1500)
    assert call(k, LIB, "sceAudioGetChannelRestLen", 7) == 0


# --- mixing (the driver's arithmetic: sample * volume / 128 summed, >> 8, clamped) ---
def mixed(tmp_path, play):
    """Run `play(k)` on a kernel writing a WAV, let 0.1 s pass, return the frames."""
    path = tmp_path / "out.wav"
    k = make_kernel(RunOptions(audio_path=str(path)))
    play(k)
    advance(k, 100_000)
    k.audio.close()
    with wave.open(str(path)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (2, 2, 44100)
        frames = np.frombuffer(w.readframes(w.getnframes()), "<i2").reshape(-1, 2)
    assert len(frames) == k.now_us() * 44100 // 1_000_000  # as long as the simulated time
    return frames


def test_unity_volume_plays_the_samples_unchanged_and_half_volume_halves_them(tmp_path):
    samples = np.array([[1000, -1001], [32767, -32768]] * 32)

    def play(k):
        put_frames(k, BUF, samples)
        call(k, LIB, "sceAudioChReserve", 0, 64, 0)
        call(k, LIB, "sceAudioOutputPanned", 0, 0x8000, 0x4000, BUF)

    out = mixed(tmp_path, play)
    played = out[np.flatnonzero(out[:, 0])[0]:][:64]
    assert (played[:, 0] == samples[:, 0]).all()
    assert (played[:, 1] == [-501, -16384] * 32).all()  # -1001/2 rounds down after the >> 8
    assert not out[:np.flatnonzero(out[:, 0])[0]].any()  # silence before it


def test_two_channels_add_and_clamp_and_a_mono_channel_plays_on_both_sides(tmp_path):
    def play(k):
        put_frames(k, BUF, [[30000, -30000]] * 64)
        put_frames(k, BUF2, [20000] * 128)
        call(k, LIB, "sceAudioChReserve", 0, 64, 0)
        call(k, LIB, "sceAudioChReserve", 1, 128, 0x10)
        call(k, LIB, "sceAudioChangeChannelVolume", 1, 0x8000, 0x2000)
        call(k, LIB, "sceAudioOutput", 1, -1, BUF2)  # a negative volume keeps the channel's; mixed at once
        call(k, LIB, "sceAudioOutput", 0, 0x8000, BUF)  # the mixer runs now: from its next pass on

    out = mixed(tmp_path, play)
    first = np.flatnonzero(out[:, 0])[0]
    assert (out[first:first + 64] == [20000, 5000]).all()
    assert (out[first + 64:first + 128] == [32767, -30000 + 5000]).all()
    assert not out[first + 128:].any()


def test_the_src_channel_is_resampled_to_44100(tmp_path):
    ramp = np.repeat(np.arange(100, 3300, 100)[:, None], 2, axis=1)  # 32 frames rising 100 a frame at 22050 Hz

    def play(k):
        put_frames(k, BUF, ramp)
        call(k, LIB, "sceAudioSRCChReserve", 32, 22050, 2)
        call(k, LIB, "sceAudioSRCOutputBlocking", 0x8000, BUF)

    out = mixed(tmp_path, play)[:, 0]
    played = out[np.flatnonzero(out)]
    assert len(played) == 64  # twice as many samples at 44.1 kHz: the same duration, the same pitch
    steps = np.diff(played[:-2].astype(int))  # (past the last frame it is held)
    assert set(steps) <= {49, 50, 51} and steps.mean() == pytest.approx(50, abs=0.1)  # linear interpolation


# --- bad arguments ---
def test_reserve_errors():
    k = make_kernel()  # values printed by sceaudio/reserve on a PSP
    assert call(k, LIB, "sceAudioChReserve", 8, 1024, 0) == s32(codes.AUDIO_INVALID_CHANNEL)
    assert call(k, LIB, "sceAudioChReserve", 0, 96, 0) == s32(codes.AUDIO_INVALID_SIZE)
    assert call(k, LIB, "sceAudioChReserve", 0, 1024, 1) == s32(codes.AUDIO_INVALID_FORMAT)
    for ch in range(8):
        assert call(k, LIB, "sceAudioChReserve", ch, 64, 0) == ch
    assert call(k, LIB, "sceAudioChReserve", -1, 64, 0) == s32(codes.AUDIO_NO_FREE_CHANNEL)
    assert call(k, LIB, "sceAudioChReserve", 3, 64, 0) == s32(codes.AUDIO_INVALID_CHANNEL)  # already reserved


def test_a_buffer_in_kernel_memory_needs_privileges_and_one_outside_memory_stops_the_run():
    k = make_kernel()
    ch = call(k, LIB, "sceAudioChReserve", 0, 64, 0)
    assert call(k, LIB, "sceAudioOutput", ch, 0x8000, 0x88100000) == s32(codes.AUDIO_PRIV_REQUIRED)
    call(k, LIB, "sceAudioOutput", ch, 0x8000, 0x0C000000)  # past the PSP-2000's 64 MiB
    assert k.stop.kind == "fault" and "audio buffer" in k.stop.message and "0c000000" in k.stop.message.lower()


# --- a program built by the SDK, heard through allegrex run --audio ---
def tone_levels(frames: np.ndarray, hz_list) -> dict:
    """Per side, the frequency of the strongest component (Hann-windowed spectrum) and the
    amplitude of each of `hz_list` (projection on a sine and a cosine of that frequency)."""
    t = np.arange(len(frames)) / 44100
    freqs = np.fft.rfftfreq(len(frames), 1 / 44100)
    out = {}
    for side, name in enumerate(("left", "right")):
        x = frames[:, side]
        peak = float(freqs[np.argmax(np.abs(np.fft.rfft(x * np.hanning(len(x)))))])
        amps = {hz: 2 / len(x) * abs(np.sum(x * np.exp(-2j * np.pi * hz * t))) for hz in hz_list}
        out[name] = (peak, amps)
    return out


@pytest.fixture(scope="module")
def tone_run(tmp_path_factory):
    import allegrex.sdk as sdk
    import json
    from pathlib import Path
    from allegrex.cli import main
    out = tmp_path_factory.mktemp("audio")
    source = Path(__file__).resolve().parents[2] / "psp" / "apps" / "exercise" / "audio_tone.c"
    elf = sdk.build([source], out / "audio_tone.elf", elf=True)
    wav, report = out / "tone.wav", out / "report.json"
    import contextlib
    import io
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(["run", str(elf), "--quiet", "--max-seconds", "10", "--audio", str(wav), "--json", str(report)])
    assert code == 0
    with wave.open(str(wav)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (2, 2, 44100)
        frames = np.frombuffer(w.readframes(w.getnframes()), "<i2").reshape(-1, 2).astype(float)
    phases = {}
    for line in text.getvalue().splitlines():
        if line[:2] in ("A ", "B ", "C "):
            start, end = (int(v) for v in line.split(": ")[1].split())
            phases[line[0]] = (start, end)
    return frames, json.loads(report.read_text()), phases, text.getvalue(), elf


def phase(frames, phases, name, margin_us=20_000):
    start, end = phases[name]
    return frames[(start + margin_us) * 44100 // 10**6:(end - margin_us) * 44100 // 10**6]


def test_the_wav_is_as_long_as_the_simulated_time(tone_run):
    frames, report = tone_run[:2]
    assert report["cpu_mhz"] == 222
    assert len(frames) == report["cycles"] // 222 * 44100 // 10**6
    assert report["audio_seconds"] == pytest.approx(3 * 32 * 1024 / 44100, abs=0.002)  # three phases of 32768 samples


def test_a_stereo_tone_plays_at_its_pitch_and_levels(tone_run):
    frames, _, phases = tone_run[:3]
    levels = tone_levels(phase(frames, phases, "A"), [1000])
    assert levels["left"][0] == pytest.approx(1000, abs=2) and levels["right"][0] == pytest.approx(1000, abs=2)
    assert levels["left"][1][1000] == pytest.approx(16000, rel=0.01)
    assert levels["right"][1][1000] == pytest.approx(8000, rel=0.01)


def test_two_channels_mix(tone_run):
    frames, _, phases = tone_run[:3]
    levels = tone_levels(phase(frames, phases, "B"), [440, 3000])
    assert levels["left"][1][440] == pytest.approx(10000, rel=0.01)
    assert levels["left"][1][3000] == pytest.approx(10000, rel=0.01)  # the mono channel, full volume on the left
    assert levels["right"][1][440] == pytest.approx(10000, rel=0.01)
    assert levels["right"][1][3000] == pytest.approx(5000, rel=0.01)  # and half on the right


def test_an_src_channel_at_22050_keeps_the_pitch(tone_run):
    frames, _, phases = tone_run[:3]
    levels = tone_levels(phase(frames, phases, "C"), [1000, 2000])
    assert levels["left"][0] == pytest.approx(1000, abs=2)  # not 2000: resampled, not replayed at 44.1 kHz
    assert levels["left"][1][1000] == pytest.approx(12000, rel=0.02)  # (linear interpolation dulls it slightly)


def test_silence_where_no_channel_plays(tone_run):
    frames, _, phases = tone_run[:3]
    for before, after in (("A", "B"), ("B", "C")):
        gap = frames[phases[before][1] * 44100 // 10**6:phases[after][0] * 44100 // 10**6]
        assert len(gap) > 4000 and not gap.any()
    assert not frames[phases["C"][1] * 44100 // 10**6:].any()


def test_writing_the_wav_changes_no_cycle_and_a_second_run_plays_the_same(tone_run, tmp_path):
    import contextlib
    import io
    import json
    from allegrex.cli import main
    _, report, _, _, elf = tone_run
    again = tmp_path / "again.json"
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", str(elf), "--quiet", "--max-seconds", "10", "--json", str(again)]) == 0
    second = json.loads(again.read_text())
    assert (second["cycles"], second["audio_seconds"]) == (report["cycles"], report["audio_seconds"])


def test_bad_arguments_get_the_psp_codes(tone_run):
    text = tone_run[3]
    # sceaudio/reserve, sceaudio/output, output2/reserve on a PSP; the kernel-pointer check from
    # the driver (uOFW audio.c)
    for line in ("channel 8: 80260003", "100 samples: 80260006", "format 1: 80260007",
                 "unreserved channel: 80260001", "volume 0x10000: 8026000b", "kernel buffer: 80260004",
                 "SRC at 36000 Hz: 8026000a", "Output2 of 16 samples: 80000104"):
        assert line in text


# --- a blocking output that may not wait (measured: pspautotests intr/waits) ---
def test_a_blocking_output_that_may_not_wait_leaves_its_channel_marked_busy():
    k = make_kernel()
    ch = call(k, LIB, "sceAudioChReserve", 0, 64, 0)
    assert call(k, LIB, "sceAudioOutput", ch, 0x8000, BUF) == 64  # mixed at once: the channel is free again
    assert call(k, LIB, "sceAudioOutput", ch, 0x8000, BUF) == 64  # waits for the next pass
    assert call(k, LIB, "sceAudioSetChannelDataLen", ch, 128) == 0
    state = call(k, "ThreadManForUser", "sceKernelSuspendDispatchThread")
    assert call(k, LIB, "sceAudioOutputBlocking", ch, 0, BUF) == s32(codes.WAIT_CAN_NOT_WAIT)
    # the driver marked a waiter before the wait failed, and nothing clears the mark
    assert call(k, LIB, "sceAudioOutputBlocking", ch, 0, BUF) == s32(codes.AUDIO_BUSY)
    call(k, "ThreadManForUser", "sceKernelResumeDispatchThread", state)
    advance(k, 10_000)  # every block played
    assert call(k, LIB, "sceAudioChRelease", ch) == s32(codes.AUDIO_BUSY)  # still reserved...
    assert call(k, LIB, "sceAudioSetChannelDataLen", ch, 64) == s32(codes.AUDIO_BUSY)  # ...at 128 samples
    assert call(k, LIB, "sceAudioOutputBlocking", ch, 0, BUF) == 128  # an idle channel takes it without a wait


def test_an_src_output_that_may_not_wait_is_queued_and_fails_even_with_its_event_set():
    k = make_kernel()
    assert call(k, LIB, "sceAudioSRCChReserve", 64, 44100, 2) == 0
    state = call(k, "ThreadManForUser", "sceKernelSuspendDispatchThread")
    assert call(k, LIB, "sceAudioSRCOutputBlocking", 0, BUF) == s32(codes.WAIT_CAN_NOT_WAIT)
    assert call(k, LIB, "sceAudioSRCOutputBlocking", 0, BUF) == s32(codes.WAIT_CAN_NOT_WAIT)
    assert call(k, LIB, "sceAudioSRCOutputBlocking", 0, 0) == s32(codes.AUDIO_BUSY)  # both slots taken
    call(k, "ThreadManForUser", "sceKernelResumeDispatchThread", state)
    assert call(k, LIB, "sceAudioSRCChRelease") == s32(codes.AUDIO_SRC_BUSY)
