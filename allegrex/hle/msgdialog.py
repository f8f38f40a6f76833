"""The message dialog's own rules: which requests the firmware refuses, and how long a visible
dialog takes (measured: utility/msgdialog/dialog and abort). It fades in for about 35 frames
(INIT until then), a refused request closes 9 Updates after it became visible with its error
as result, and a headless answer comes only once the dialog has been visible for 60 frames,
so a program that aborts or times the dialog sees what it would see on a PSP."""

from allegrex.hle import codes
from allegrex.hle.display import VBLANK_MICROHZ

FRAME_US = 10**12 / VBLANK_MICROHZ

# pspUtilityMsgDialogParams: after the 48-byte common block
RESULT, MODE, ERROR_NUM, OPTIONS, BUTTON_PRESSED = 48, 52, 56, 572, 576
SIZE_V2, SIZE_V3 = 580, 708
MODE_ERROR, MODE_TEXT = 0, 1
OPTION_TEXTSOUND, OPTION_YESNO, OPTION_DEFAULT_NO = 0x1, 0x10, 0x100
OPTIONS_KNOWN = 0x1B3  # every flag pspsdk names: sounds, YESNO, OK, NOCANCEL, DEFAULT_NO

FADE_IN_US = int(32.5 * FRAME_US)  # INIT -> VISIBLE: seen after 33-34 frame waits
ANSWER_AFTER_US = int(60 * FRAME_US)  # a visible dialog stays unanswered this long
REFUSED_UPDATES = 9  # Updates a refused request stays visible


def refusal(m, params: int) -> int | None:
    """The error the firmware answers this request with, None when it is shown normally."""
    size, mode = m.read_u32(params), m.read_u32(params + MODE)
    options = m.read_u32(params + OPTIONS) if size >= SIZE_V2 else 0
    if mode == MODE_ERROR and not m.read_u32(params + ERROR_NUM) & 0x80000000:
        return codes.MSGDIALOG_BAD_ERROR_CODE
    if size == SIZE_V2 and mode == MODE_TEXT and options & ~(OPTION_TEXTSOUND | OPTION_YESNO | OPTION_DEFAULT_NO):
        return codes.MSGDIALOG_BAD_OPTION
    if size == SIZE_V3 and (options & ~OPTIONS_KNOWN or (options & OPTION_DEFAULT_NO and not options & OPTION_YESNO)):
        return codes.MSGDIALOG_BAD_OPTION
    return None
