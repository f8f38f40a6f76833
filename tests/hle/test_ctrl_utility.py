"""Input scripts drive sceCtrl; dialogs answer as configured with the real status
sequence; the pspautotests emulator device prints the guest's output."""

import io

import pytest

from allegrex.hle import codes, ctrl, msgdialog
from allegrex.hle.kernel import RunOptions
from helpers import call, make_kernel

DATA = 0x08A00000
CROSS, START = 0x4000, 0x8


def test_script_lines_and_press_shortcuts_parse():
    events = ctrl.parse_script("# menu\n2s CROSS for 200ms\n120f START+UP analog 0 255\n")
    assert (events[0].start_us, events[0].end_us, events[0].buttons) == (2_000_000, 2_200_000, CROSS)
    assert events[1].buttons == START | 0x10 and events[1].analog == (0, 255)
    assert events[1].start_us == int(120 * 1_000_000 / 59.94006)
    press = ctrl.parse_press("CROSS@1.5s")
    assert (press.start_us, press.buttons) == (1_500_000, CROSS)
    for bad in ("JUMP@1s", "CROSS", "CROSS@soon"):
        with pytest.raises(ctrl.InputError):
            ctrl.parse_press(bad)


def test_buttons_appear_while_pressed():
    k = make_kernel(RunOptions(input_events=[ctrl.parse_press("CROSS@1s")]))
    assert call(k, "sceCtrl", "sceCtrlPeekBufferPositive", DATA, 1) == 1
    assert k.memory.read_u32(DATA + 4) == 0
    k.cpu.counters[0] = 222 * 1_050_000  # 1.05 s into the run
    call(k, "sceCtrl", "sceCtrlPeekBufferPositive", DATA, 1)
    assert k.memory.read_u32(DATA + 4) == CROSS
    assert k.memory.read(DATA + 8, 2) == bytes([128, 128])  # digital mode: the stick reads centred
    call(k, "sceCtrl", "sceCtrlPeekBufferNegative", DATA, 1)
    assert k.memory.read_u32(DATA + 4) == ~CROSS & 0xFFFFFFFF
    k.cpu.counters[0] = 222 * 1_200_000
    call(k, "sceCtrl", "sceCtrlPeekBufferPositive", DATA, 1)
    assert k.memory.read_u32(DATA + 4) == 0


def test_read_waits_for_the_next_sample_and_the_latch_counts_samples():
    k = make_kernel()
    assert call(k, "sceCtrl", "sceCtrlReadBufferPositive", DATA, 1) == 1  # the power-on sample
    call(k, "sceCtrl", "sceCtrlReadBufferPositive", DATA, 1)
    assert k.threads.current is None  # waits for the next vblank's sample
    k.idle_until_next_event()
    assert k.threads.current.name == "main" and int(k.cpu.regs[2]) == 1  # woken with one sample
    k.cpu.counters[0] += 222 * 100_000  # 0.1 s: six samples at 59.94 Hz
    assert call(k, "sceCtrl", "sceCtrlReadLatch", DATA) in (6, 7)
    assert call(k, "sceCtrl", "sceCtrlPeekLatch", DATA) == 0


def test_the_pad_is_sampled_as_the_vblank_ends_and_reads_carry_the_sample_time():
    from allegrex.hle.display import vblank_us
    k = make_kernel()
    k.cpu.counters[0] = 222 * (vblank_us(3) + 100)  # 100 us into vblank 3: its sample is not taken yet
    call(k, "sceCtrl", "sceCtrlPeekBufferPositive", DATA, 1)
    assert k.memory.read_u32(DATA) == vblank_us(2) + ctrl.VBLANK_SAMPLE_DELAY_US  # the previous frame's
    call(k, "sceCtrl", "sceCtrlReadBufferPositive", DATA, 1)  # consumes the unread samples
    call(k, "sceCtrl", "sceCtrlReadBufferPositive", DATA, 1)
    assert k.threads.current is None  # waits for the end of this vblank
    k.idle_until_next_event()
    sampled = vblank_us(3) + ctrl.VBLANK_SAMPLE_DELAY_US
    assert k.memory.read_u32(DATA) == sampled and sampled <= k.now_us() < sampled + 20


def test_osk_returns_the_configured_text_with_the_status_sequence():
    k = make_kernel(RunOptions(osk_text="hello"))
    params, data, out = 0x08A10000, 0x08A10100, 0x08A10200
    k.memory.write_u32(params + 48, 1)  # one field
    k.memory.write_u32(params + 52, data)
    k.memory.write_u32(data + 40, out)
    k.memory.write_u32(data + 48, 32)  # room for 32 characters
    seen = [call(k, "sceUtility", "sceUtilityOskInitStart", params)]
    for _ in range(2):
        seen.append(call(k, "sceUtility", "sceUtilityOskGetStatus"))
        call(k, "sceUtility", "sceUtilityOskUpdate", 1)
    seen.append(call(k, "sceUtility", "sceUtilityOskGetStatus"))
    call(k, "sceUtility", "sceUtilityOskShutdownStart")
    seen += [call(k, "sceUtility", "sceUtilityOskGetStatus"), call(k, "sceUtility", "sceUtilityOskGetStatus")]
    assert seen == [0, 1, 3, 3, 4, 0]
    assert k.memory.read(out, 12) == "hello".encode("utf-16-le") + b"\0\0"
    assert k.memory.read_u32(data + 44) == 2  # result: text changed


def test_msgdialog_abort_closes_without_an_answer_and_checks_the_status():
    k = make_kernel(RunOptions(msgdialog_result="no"))
    params, button = 0x08A10000, 0x08A10000 + 48 + 12 + 512 + 4
    wrong, never = 0x80110001 - (1 << 32), 0x80110005 - (1 << 32)
    msg = lambda name, *args: call(k, "sceUtility", f"sceUtilityMsgDialog{name}", *args)
    assert msg("Abort") == never  # no message dialog yet (measured: utility/msgdialog/abort)
    assert msg("InitStart", params) == 0
    assert msg("Abort") == wrong  # still starting
    assert msg("GetStatus") == 1
    k.clock.advance_to(k.now_us() + msgdialog.FADE_IN_US)
    assert msg("GetStatus") == 2
    assert msg("Abort") == 0 and msg("Abort") == 0
    assert msg("Update", 1) == 0 and msg("GetStatus") == 3
    assert k.memory.read_u32(button) == 0  # aborted: the configured answer is not given
    assert msg("Abort") == wrong
    assert msg("ShutdownStart") == 0 and msg("GetStatus") == 4 and msg("GetStatus") == 0
    assert msg("Abort") == wrong  # one ran before


def _msg_frames(k, msg, frames):
    """A program's dialog loop for `frames` frames: GetStatus, Update, then a frame passes."""
    statuses = []
    for _ in range(frames):
        statuses.append(msg("GetStatus"))
        if statuses[-1] == 2:
            msg("Update", 1)
        k.clock.advance_to(k.now_us() + round(msgdialog.FRAME_US))
    return statuses


def _text_dialog(k):
    """A v3 text dialog's parameters (result 0x1337) and a caller of sceUtilityMsgDialog<name>."""
    params = 0x08A10000
    k.memory.write_u32(params, 708)
    k.memory.write_u32(params + msgdialog.MODE, msgdialog.MODE_TEXT)
    k.memory.write_u32(params + msgdialog.RESULT, 0x1337)
    return params, lambda name, *args: call(k, "sceUtility", f"sceUtilityMsgDialog{name}", *args)


def test_msgdialog_fades_in_then_answers_after_60_visible_frames():
    k = make_kernel(RunOptions(msgdialog_result="no"))
    params, msg = _text_dialog(k)
    assert msg("InitStart", params) == 0
    statuses = _msg_frames(k, msg, 120)
    first_visible, quit_at = statuses.index(2), statuses.index(3)
    assert statuses[:first_visible] == [1] * first_visible and 33 <= first_visible <= 34
    assert 60 <= quit_at - first_visible <= 62
    assert k.memory.read_u32(params + msgdialog.BUTTON_PRESSED) == 2  # "no"
    assert k.memory.read_u32(params + msgdialog.RESULT) == 0


def test_msgdialog_refuses_unknown_options_after_its_fade_in():
    k = make_kernel(RunOptions())
    params = 0x08A10000
    k.memory.write_u32(params, 708)
    k.memory.write_u32(params + msgdialog.MODE, msgdialog.MODE_TEXT)
    k.memory.write_u32(params + msgdialog.OPTIONS, 0x201)  # 0x200 is no option (measured: utility/msgdialog/dialog)
    k.memory.write_u32(params + msgdialog.RESULT, 0x1337)
    msg = lambda name, *args: call(k, "sceUtility", f"sceUtilityMsgDialog{name}", *args)
    assert msg("InitStart", params) == 0
    statuses = _msg_frames(k, msg, 60)
    assert statuses.index(3) - statuses.index(2) == msgdialog.REFUSED_UPDATES
    assert k.memory.read_u32(params + msgdialog.RESULT) == codes.MSGDIALOG_BAD_OPTION


def test_emulator_device_prints_the_test_output():
    out = io.StringIO()
    k = make_kernel(RunOptions(stdout=out))
    k.memory.write(DATA, b"emulator:\0")
    k.memory.write(DATA + 0x40, b"PASS line\n")
    assert call(k, "IoFileMgrForUser", "sceIoDevctl", DATA, 3, 0, 0, 0, 0) == 0  # is-emulator
    k.cpu.regs[8], k.cpu.regs[9] = DATA + 0x80, 4  # has-display answer goes to t0, length t1
    call(k, "IoFileMgrForUser", "sceIoDevctl", DATA, 1, 0, 0)
    assert k.memory.read_u32(DATA + 0x80) == 0
    k.cpu.regs[8], k.cpu.regs[9] = 0, 0
    assert call(k, "IoFileMgrForUser", "sceIoDevctl", DATA, 2, DATA + 0x40, 10) == 0  # send-output
    assert out.getvalue() == "PASS line\n"


def test_host0_testoutput_file_goes_to_stdout():
    out = io.StringIO()
    k = make_kernel(RunOptions(stdout=out))
    k.memory.write(DATA, b"host0:/__testoutput.txt\0")
    fd = call(k, "IoFileMgrForUser", "sceIoOpen", DATA, 0x602, 0o777)
    k.memory.write(DATA + 0x40, b"result 42\n")
    assert call(k, "IoFileMgrForUser", "sceIoWrite", fd, DATA + 0x40, 10) == 10
    assert out.getvalue() == "result 42\n"


def test_with_a_harness_output_the_test_text_is_kept_apart_from_the_program_console():
    # the PSP that recorded pspautotests wrote the harness text to host0:/__testoutput.txt and
    # showed raw fd 1 writes on psplink's console (threads/scheduling/dispatch's "Hello.")
    console, harness = io.StringIO(), io.StringIO()
    k = make_kernel(RunOptions(stdout=console, harness_output=harness))
    k.memory.write(DATA, b"emulator:\0")
    k.memory.write(DATA + 0x40, b"PASS line\n")
    assert call(k, "IoFileMgrForUser", "sceIoDevctl", DATA, 2, DATA + 0x40, 10) == 0
    k.memory.write(DATA, b"host0:/__testoutput.txt\0")
    fd = call(k, "IoFileMgrForUser", "sceIoOpen", DATA, 0x602, 0o777)
    assert call(k, "IoFileMgrForUser", "sceIoWrite", fd, DATA + 0x40, 10) == 10
    k.memory.write(DATA + 0x40, b"Hello.")
    assert call(k, "IoFileMgrForUser", "sceIoWrite", 1, DATA + 0x40, 6) == 6
    assert harness.getvalue() == "PASS line\nPASS line\n" and console.getvalue() == "Hello."


def test_msgdialog_result_is_set_by_the_first_update_of_the_visible_dialog():
    k = make_kernel()  # measured: utility/msgdialog/dialog sees "Result -> 0" a frame after VISIBLE
    params, msg = _text_dialog(k)
    assert msg("InitStart", params) == 0
    k.clock.advance_to(k.now_us() + msgdialog.FADE_IN_US)
    assert msg("GetStatus") == 2
    assert k.memory.read_u32(params + msgdialog.RESULT) == 0x1337
    assert msg("Update", 1) == 0
    assert k.memory.read_u32(params + msgdialog.RESULT) == 0
