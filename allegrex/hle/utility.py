"""sceUtility dialogs answered headlessly: the on-screen keyboard returns `--osk TEXT`,
message dialogs answer as configured (`yes`, `no` or `back`) unless aborted and keep the
PSP's fade-in and reading time (msgdialog.py), savedata requests are carried out by
savedata.py. All walk the real status sequence: INIT(1) -> VISIBLE(2) -> QUIT(3) after an
update -> FINISHED(4) after ShutdownStart -> NONE(0)."""

from allegrex.hle import codes, msgdialog, savedata
from allegrex.hle.registry import Ptr, hle

NONE, INIT, VISIBLE, QUIT, FINISHED = 0, 1, 2, 3, 4
LIB = "sceUtility"
RESULT_OFFSET = 28  # pspUtilityDialogCommon.result
COMMON_SIZE = 48
OSK_RESULT_CHANGED = 2
MSG_BUTTONS = {"yes": 1, "no": 2, "back": 3}


class Dialog:
    def __init__(self):
        self.status = NONE
        self.params = 0
        self.kind = None
        self.step = 0  # Updates done: a savedata request may take more than one
        self.aborted = False  # the program closed it: no answer is given
        self.start_us = self.visible_us = 0  # when InitStart ran / the dialog became visible
        self.updates = 0  # Updates while visible
        self.refusal = None  # message dialog: the error the firmware closes it with


class Utility:
    def __init__(self, kernel):
        self.k = kernel
        self.dialog = Dialog()
        self.started: set[str] = set()  # dialog kinds started since boot

    def start(self, kind, params) -> int:
        d = self.dialog
        if d.status != NONE:
            return codes.signed(codes.UTILITY_WRONG_STATUS)
        if kind == "savedata":
            savedata.check_mode(self.k, params)
        d.kind, d.params, d.status, d.step, d.aborted = kind, params, INIT, 0, False
        d.start_us, d.updates = self.k.now_us(), 0
        d.refusal = msgdialog.refusal(self.k.memory, params) if kind == "msg" else None
        self.started.add(kind)
        return 0

    def abort(self, kind) -> int:
        """Close a visible dialog without an answer; it reaches QUIT at the next Update."""
        d = self.dialog
        if d.kind != kind:
            return codes.signed(codes.UTILITY_WRONG_STATUS if kind in self.started else codes.UTILITY_NEVER_STARTED)
        if d.status != VISIBLE:
            return codes.signed(codes.UTILITY_WRONG_STATUS)
        d.aborted = True
        return 0

    def get_status(self, kind) -> int:
        d = self.dialog
        if d.kind != kind:
            return NONE
        status = d.status
        if status == INIT and kind == "msg":
            return self._msg_fade_in()
        if status == INIT:
            d.status = VISIBLE
        elif status == FINISHED:
            d.status = NONE
            d.kind = None
        return status

    def update(self, kind) -> int:
        d = self.dialog
        if d.kind != kind or d.status != VISIBLE:
            return codes.signed(codes.UTILITY_WRONG_STATUS)
        if kind in ("savedata", "msg"):
            self.k.threads.yield_current()  # measured: a same-priority thread runs during the Update
        if kind == "msg":
            self._msg_update()
        elif d.aborted:
            self.k.memory.write_u32(d.params + RESULT_OFFSET, 0)
            d.status = QUIT
        elif self.finish(kind):
            d.status = QUIT  # else more to do: the dialog stays visible until a later Update
        return 0

    def _msg_fade_in(self) -> int:
        """INIT while the message dialog fades in; then VISIBLE."""
        d = self.dialog
        now = self.k.now_us()
        if now - d.start_us < msgdialog.FADE_IN_US:
            return INIT
        d.status, d.visible_us = VISIBLE, now
        return VISIBLE

    def _msg_update(self) -> None:
        """The first Update of a visible dialog sets its result to 0 unless it is refused
        (measured: dialog sees the result change a frame after the status); an abort
        closes at this Update, a refusal after its few Updates, an answer once the dialog
        has been visible long enough."""
        d = self.dialog
        d.updates += 1
        if d.updates == 1 and d.refusal is None:
            self.k.memory.write_u32(d.params + msgdialog.RESULT, 0)
        if d.aborted:
            d.status = QUIT
        elif d.refusal is not None:
            if d.updates >= msgdialog.REFUSED_UPDATES:
                self.k.memory.write_u32(d.params + msgdialog.RESULT, d.refusal)
                d.status = QUIT
        elif self.k.now_us() - d.visible_us >= msgdialog.ANSWER_AFTER_US:
            self.finish("msg")
            d.status = QUIT

    def shutdown(self, kind) -> int:
        d = self.dialog
        if d.kind != kind or d.status != QUIT:
            return codes.signed(codes.UTILITY_WRONG_STATUS)
        d.status = FINISHED
        return 0

    def finish(self, kind) -> bool:
        """Do the dialog's work; False when it needs another Update to complete."""
        m = self.k.memory
        d = self.dialog
        p = d.params
        if kind == "savedata":
            d.step += 1
            return savedata.run(self.k, p, d.step - 1)
        m.write_u32(p + RESULT_OFFSET, 0)
        if kind == "osk":
            count = m.read_u32(p + COMMON_SIZE)
            data = m.read_u32(p + COMMON_SIZE + 4)
            text = self.k.options.osk_text
            for i in range(max(count, 1) if count else 0):
                entry = data + 52 * i
                limit = m.read_u32(entry + 48)  # outtextlimit, in characters
                out = m.read_u32(entry + 40)
                chars = text[:max(limit - 1, 0)] if limit else text
                encoded = chars.encode("utf-16-le") + b"\0\0"
                if out:
                    m.write(out, encoded)
                m.write_u32(entry + 36, len(chars) + 1)  # outtextlength
                m.write_u32(entry + 44, OSK_RESULT_CHANGED)
            m.write_u32(p + COMMON_SIZE + 8, 0)
        elif kind == "msg":
            button = MSG_BUTTONS.get(self.k.options.msgdialog_result, 1)
            m.write_u32(p + msgdialog.BUTTON_PRESSED, button)
        return True


for _kind, _prefix in (("osk", "sceUtilityOsk"), ("msg", "sceUtilityMsgDialog"),
                       ("savedata", "sceUtilitySavedata")):
    def _make(kind):
        def init_start(k, params: Ptr) -> int:
            return k.utility.start(kind, params)

        def get_status(k) -> int:
            return k.utility.get_status(kind)

        def update(k, n: int) -> int:
            return k.utility.update(kind)

        def shutdown(k) -> int:
            return k.utility.shutdown(kind)
        return init_start, get_status, update, shutdown

    _fns = _make(_kind)
    for _suffix, _fn in zip(("InitStart", "GetStatus", "Update", "ShutdownStart"), _fns):
        hle(LIB, name=f"{_prefix}{_suffix}")(_fn)


@hle(LIB)
def sceUtilityMsgDialogAbort(k) -> int:
    return k.utility.abort("msg")
