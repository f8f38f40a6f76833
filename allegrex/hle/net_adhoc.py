"""Ad hoc networking (sceNetAdhoc, sceNetAdhocctl, sceNetAdhocMatching) on a PSP whose WLAN
switch is off: the libraries start and stop, every attempt to join or make a group fails
with the switch-off error, and the control state stays disconnected. Error codes as the
firmware returns them (the pspnet_adhoc* facility, 0x80410700/0x80410B00/0x80410800)."""

from allegrex.hle import codes
from allegrex.hle.registry import CStr, Ptr, U32, hle



class Adhoc:
    """Which of the three libraries run, and the control library's event handlers (kept,
    never called: the state never changes)."""

    def __init__(self):
        self.running = {"adhoc": False, "ctl": False, "matching": False}
        self.handlers: dict = {}


def _start(k, part: str, already: int) -> int:
    state = k.net.adhoc.running
    if state[part]:
        return codes.signed(already)
    state[part] = True
    return 0


def _stop(k, part: str) -> int:
    """Stopping succeeds whether or not the library ran (ESTIMATE: not recorded)."""
    k.net.adhoc.running[part] = False
    return 0


ADHOC = "sceNetAdhoc"


@hle(ADHOC)
def sceNetAdhocInit(k) -> int:
    return _start(k, "adhoc", codes.NET_ADHOC_ALREADY_INITIALIZED)


@hle(ADHOC)
def sceNetAdhocTerm(k) -> int:
    return _stop(k, "adhoc")


CTL = "sceNetAdhocctl"


@hle(CTL)
def sceNetAdhocctlInit(k, stack_size: int, priority: int, product: Ptr) -> int:
    return _start(k, "ctl", codes.NET_ADHOCCTL_ALREADY_INITIALIZED)


@hle(CTL)
def sceNetAdhocctlTerm(k) -> int:
    k.net.adhoc.handlers.clear()
    return _stop(k, "ctl")


def _switch_off(k) -> int:
    if not k.net.adhoc.running["ctl"]:
        return codes.signed(codes.NET_ADHOCCTL_NOT_INITIALIZED)
    return codes.signed(codes.NET_ADHOCCTL_WLAN_SWITCH_OFF)


@hle(CTL)
def sceNetAdhocctlConnect(k, group: CStr) -> int:
    return _switch_off(k)


@hle(CTL)
def sceNetAdhocctlCreate(k, group: CStr) -> int:
    return _switch_off(k)


@hle(CTL)
def sceNetAdhocctlJoin(k, scan_info: Ptr) -> int:
    return _switch_off(k)


@hle(CTL)
def sceNetAdhocctlScan(k) -> int:
    return _switch_off(k)


@hle(CTL)
def sceNetAdhocctlCreateEnterGameMode(k, group: CStr, kind: int, count: int, macs: Ptr, timeout: U32,
                                      flag: int) -> int:
    return _switch_off(k)


@hle(CTL)
def sceNetAdhocctlJoinEnterGameMode(k, group: CStr, mac: Ptr, timeout: U32, flag: int) -> int:
    return _switch_off(k)


@hle(CTL)
def sceNetAdhocctlDisconnect(k) -> int:
    return 0 if k.net.adhoc.running["ctl"] else codes.signed(codes.NET_ADHOCCTL_NOT_INITIALIZED)


@hle(CTL)
def sceNetAdhocctlGetState(k, out: Ptr) -> int:
    if not k.net.adhoc.running["ctl"]:
        return codes.signed(codes.NET_ADHOCCTL_NOT_INITIALIZED)
    k.memory.write_u32(out, 0)  # disconnected
    return 0


@hle(CTL)
def sceNetAdhocctlAddHandler(k, handler: Ptr, arg: Ptr) -> int:
    handlers = k.net.adhoc.handlers
    hid = next(i for i in range(len(handlers) + 1) if i not in handlers)
    handlers[hid] = (handler, arg)
    return hid


@hle(CTL)
def sceNetAdhocctlDelHandler(k, hid: int) -> int:
    if k.net.adhoc.handlers.pop(hid, None) is None:
        return codes.signed(codes.NET_ADHOCCTL_ID_NOT_FOUND)
    return 0


MATCHING = "sceNetAdhocMatching"


@hle(MATCHING)
def sceNetAdhocMatchingInit(k, pool_size: U32) -> int:
    return _start(k, "matching", codes.NET_ADHOC_MATCHING_ALREADY_INITIALIZED)


@hle(MATCHING)
def sceNetAdhocMatchingTerm(k) -> int:
    return _stop(k, "matching")
