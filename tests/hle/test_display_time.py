"""Frame buffer conversion, vblank timing, the clock in force, RTC ticks, sysmem sizes."""

import numpy as np

from allegrex.hle import display
from allegrex.hle.kernel import RunOptions
from allegrex.hle.rtc import EPOCH_TICKS
from allegrex.hle.sysmem import USER_SIZE, USER_SIZE_LARGE
from helpers import call, make_kernel

# One pixel per format with hand-computed RGBA (red sits in the low bits on the PSP).
PIXELS = [
    (display.FORMAT_565, 0xF800, (0, 0, 255)),  # blue = top 5 bits
    (display.FORMAT_565, 0x07E0, (0, 255, 0)),
    (display.FORMAT_565, 0x0010, (132, 0, 0)),  # red 0b10000 -> 0x84
    (display.FORMAT_5551, 0x801F, (255, 0, 0)),
    (display.FORMAT_5551, 0x03E0, (0, 255, 0)),
    (display.FORMAT_4444, 0x0F0A, (170, 0, 255)),
]


def test_pixel_formats_expand_like_the_hardware():
    for fmt, value, rgb in PIXELS:
        raw = np.full((1, 512), value, dtype="<u2").tobytes()
        px = display.to_rgba(raw, 512, fmt, width=480, height=1)
        assert tuple(px[0, 0, :3]) == rgb, (fmt, hex(value))
        assert px[0, 0, 3] == 255


def test_8888_keeps_bytes_in_rgba_order():
    raw = bytes([1, 2, 3, 0]) * 512
    px = display.to_rgba(raw, 512, display.FORMAT_8888, width=480, height=1)
    assert tuple(px[0, 5]) == (1, 2, 3, 255)


def test_screenshot_png_shows_the_frame_buffer(tmp_path):
    from PIL import Image
    k = make_kernel()
    fb = 0x04000000
    k.memory.write(fb + 4 * (512 * 10 + 20), bytes([255, 128, 0, 255]))
    assert call(k, "sceDisplay", "sceDisplaySetFrameBuf", fb, 512, 3, 0) == 0
    k.display.save_png(str(tmp_path / "s.png"))
    img = Image.open(tmp_path / "s.png")
    assert img.size == (480, 272)
    assert img.getpixel((20, 10)) == (255, 128, 0)
    assert img.getpixel((0, 0)) == (0, 0, 0)


def test_vblank_count_follows_59_94_hz():
    assert display.vcount_at(1_000_000) == 59
    assert display.vcount_at(10_000_000) == 599
    assert display.vblank_us(60) == 1_001_000  # 60 / 59.94006 s = 1000999.9 us, rounded up


def test_wait_vblank_sleeps_until_the_next_frame():
    k = make_kernel()
    call(k, "sceDisplay", "sceDisplayWaitVblankStart")
    k.idle_until_next_event()
    assert call(k, "sceDisplay", "sceDisplayGetVcount") == 1
    assert display.vblank_us(1) <= k.now_us() < display.vblank_us(1) + 20  # plus the calls themselves


def test_time_runs_at_the_clock_in_force():
    k = make_kernel()
    assert call(k, "scePower", "scePowerGetCpuClockFrequencyInt") == 222
    assert call(k, "scePower", "scePowerGetBusClockFrequencyInt") == 111
    t0 = k.now_us()
    k.cpu.counters[0] += 222_000_000
    assert k.now_us() - t0 == 1_000_000
    assert call(k, "scePower", "scePowerSetClockFrequency", 333, 333, 166) == 0
    t1 = k.now_us()
    k.cpu.counters[0] += 333_000_000
    assert k.now_us() - t1 == 1_000_000


def test_rtc_tick_is_microseconds_since_year_one_at_the_fixed_epoch():
    k = make_kernel(RunOptions(epoch=1_000_000_000))
    call(k, "sceRtc", "sceRtcGetCurrentTick", 0x08A00000)
    tick = k.memory.read_u64(0x08A00000)
    assert tick == EPOCH_TICKS + 1_000_000_000 * 1_000_000 + k.now_us() - 0  # now_us at the call
    assert call(k, "sceRtc", "sceRtcGetTickResolution") == 1_000_000
    assert call(k, "UtilsForUser", "sceKernelLibcTime", 0) == 1_000_000_000


def test_rtc_converts_ticks_between_utc_and_the_registrys_local_time():
    """The simulated PSP's registry puts it 60 minutes east of UTC without summer time, so
    local = UTC + 1 h (the offset sceRtcGetCurrentClockLocalTime uses too); an unmapped
    pointer answers 1, as PPSSPP's does."""
    k = make_kernel()
    utc, local, back = 0x08A00000, 0x08A00008, 0x08A00010
    k.memory.write_u64(utc, EPOCH_TICKS)
    assert call(k, "sceRtc", "sceRtcConvertUtcToLocalTime", utc, local) == 0
    assert k.memory.read_u64(local) == EPOCH_TICKS + 3600 * 1_000_000
    assert call(k, "sceRtc", "sceRtcConvertLocalTimeToUTC", local, back) == 0
    assert k.memory.read_u64(back) == EPOCH_TICKS
    assert call(k, "sceRtc", "sceRtcConvertUtcToLocalTime", 0, local) == 1


def test_user_partition_sizes_per_model():
    small = make_kernel(model="psp-1000")
    assert small.sysmem.partitions[2].size == USER_SIZE == 24 * 1024 * 1024
    assert not small.sysmem.enable_large_memory()
    big = make_kernel(model="psp-2000")
    assert big.sysmem.enable_large_memory()
    assert big.sysmem.partitions[2].size == USER_SIZE_LARGE
    assert call(big, "SysMemUserForUser", "sceKernelTotalMemSize") == USER_SIZE_LARGE


def test_partition_alloc_low_high_and_free():
    k = make_kernel()
    k.memory.write(0x08A00000, b"blk\0")
    free = call(k, "SysMemUserForUser", "sceKernelMaxFreeMemSize")
    low = call(k, "SysMemUserForUser", "sceKernelAllocPartitionMemory", 2, 0x08A00000, 0, 1000, 0)
    high = call(k, "SysMemUserForUser", "sceKernelAllocPartitionMemory", 2, 0x08A00000, 1, 0x1000, 0)
    a = call(k, "SysMemUserForUser", "sceKernelGetBlockHeadAddr", low)
    b = call(k, "SysMemUserForUser", "sceKernelGetBlockHeadAddr", high)
    assert a == 0x08800000 and a % 256 == 0
    assert b + 0x1000 <= 0x0A000000 and b > a
    assert call(k, "SysMemUserForUser", "sceKernelMaxFreeMemSize") < free
    assert call(k, "SysMemUserForUser", "sceKernelFreePartitionMemory", low) == 0
    assert call(k, "SysMemUserForUser", "sceKernelFreePartitionMemory", low) < 0


def test_frames_folder_gets_one_png_per_displayed_frame(tmp_path):
    k = make_kernel(RunOptions(frames_dir=str(tmp_path)))
    call(k, "sceDisplay", "sceDisplaySetFrameBuf", 0x04000000, 512, 3, 0)
    call(k, "ThreadManForUser", "sceKernelDelayThread", 60_000)  # vblanks at 16.7, 33.4 and 50.0 ms
    while k.threads.current is None:
        k.idle_until_next_event()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["frame_000001.png", "frame_000002.png", "frame_000003.png"]
    assert k.display.frames_written == 3


def test_the_line_count_reads_1_as_the_vblank_starts_and_14_as_it_ends():
    from allegrex.hle.display import VBLANK_LENGTH_US, vblank_us
    k = make_kernel()
    k.cpu.counters[0] = 222 * vblank_us(5)
    assert call(k, "sceDisplay", "sceDisplayGetCurrentHcount") == 1
    k.cpu.counters[0] = 222 * (vblank_us(5) + int(VBLANK_LENGTH_US) - 1)
    assert call(k, "sceDisplay", "sceDisplayIsVblank") == 1
    assert call(k, "sceDisplay", "sceDisplayGetCurrentHcount") == 14
