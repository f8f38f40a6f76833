"""The firmware modules a program asks sceUtility to load (network, USB, audio/video
codecs, NP...): sceUtilityLoadModule/UnloadModule and the older per-family calls
LoadNetModule/LoadAvModule/LoadUsbModule. A loaded module takes its room in the user
partition, as the firmware's PRX does; its libraries are the HLE ones whatever is loaded
(a program that calls one without loading it works here, where a PSP would fail to link).

Ids, room and dependencies: pspsdk's psputility_modules.h names the ids; the sizes and
dependencies are those PPSSPP reserves and checks (ESTIMATE: a firmware version's PRX
sizes differ by a few KiB). Error codes per family as the firmware returns them."""

from dataclasses import dataclass

from allegrex.hle import codes
from allegrex.hle.io import wait_for_device
from allegrex.hle.registry import hle
from allegrex.hle.threads import cannot_wait

LIB = "sceUtility"

# (bad id, already loaded, not loaded) per calling family
MODULE_ERRORS = (codes.UTILITY_MODULE_BAD_ID, codes.UTILITY_MODULE_ALREADY_LOADED, codes.UTILITY_MODULE_NOT_LOADED)
NET_ERRORS = (codes.UTILITY_NET_MODULE_BAD_ID, codes.UTILITY_NET_MODULE_ALREADY_LOADED,
              codes.UTILITY_NET_MODULE_NOT_LOADED)
AV_ERRORS = (codes.UTILITY_AV_MODULE_BAD_ID, codes.UTILITY_AV_MODULE_ALREADY_LOADED, codes.UTILITY_AV_MODULE_NOT_LOADED)

# Simulated time the calling thread waits (PPSSPP's figures: ESTIMATE).
LOAD_US = 25000
UNLOAD_US = 400


@dataclass(frozen=True)
class UtilityModule:
    name: str
    size: int  # bytes taken in the user partition while loaded
    needs: tuple = ()  # ids that must be loaded first


MODULES = {
    0x100: UtilityModule("net_common", 0x14000),
    0x101: UtilityModule("net_adhoc", 0x20000),
    0x102: UtilityModule("net_inet", 0x58000),
    0x103: UtilityModule("net_parseuri", 0x6000),
    0x104: UtilityModule("net_parsehttp", 0x2000),
    0x105: UtilityModule("net_http", 0x28000, (0x102, 0x103, 0x104)),
    0x106: UtilityModule("net_ssl", 0x44000, (0x102,)),
    0x200: UtilityModule("usb_pspcm", 0x8000),
    0x201: UtilityModule("usb_mic", 0),
    0x202: UtilityModule("usb_cam", 0),
    0x203: UtilityModule("usb_gps", 0),
    0x300: UtilityModule("av_avcodec", 0),
    0x301: UtilityModule("av_sascore", 0),
    0x302: UtilityModule("av_atrac3plus", 0x8000, (0x300,)),
    0x303: UtilityModule("av_mpegbase", 0xC000, (0x300,)),
    0x304: UtilityModule("av_mp3", 0x4000),
    0x305: UtilityModule("av_vaudio", 0xA300),
    0x306: UtilityModule("av_aac", 0x4000),
    0x307: UtilityModule("av_g729", 0),
    0x3FF: UtilityModule("me_core", 0),
    0x400: UtilityModule("np_common", 0xC000),
    0x401: UtilityModule("np_service", 0x18000),
    0x402: UtilityModule("np_matching2", 0x48000),
    0x500: UtilityModule("np_drm", 0),
    0x600: UtilityModule("irda", 0),
}

# The older calls number their modules from 1 (net, usb) or 0 (av) within one family.
NET_IDS = {n: 0x100 + n - 1 for n in range(1, 8)}  # COMMON ADHOC INET PARSEURI PARSEHTTP HTTP SSL
AV_IDS = {n: 0x300 + n for n in range(8)}  # AVCODEC SASCORE ATRAC3PLUS MPEGBASE MP3 VAUDIO AAC G729
USB_IDS = {1: 0x200, 2: "usb_acc", 3: 0x201, 4: 0x202, 5: 0x203}  # PSPCM ACC MIC CAM GPS
USB_ACC = UtilityModule("usb_acc", 0)  # only the older call knows the accessory driver


class LoadedModules:
    """Which utility modules are loaded, with the memory block each holds."""

    def __init__(self, kernel):
        self.k = kernel
        self.blocks: dict = {}  # id -> memory block or None (a module that takes no user memory)

    def load(self, mid, module: UtilityModule, errors) -> int:
        bad_id, already, _ = errors
        if module is None:
            return codes.signed(bad_id)
        if mid in self.blocks:
            return codes.signed(already)
        if any(need not in self.blocks for need in module.needs):
            return codes.signed(codes.LIBRARY_NOT_FOUND)
        block = None
        if module.size:
            block = self.k.sysmem.alloc_block(2, f"utility {module.name}", size=module.size)
            if block is None:
                return codes.signed(codes.FAILED_ALLOC_MEMBLOCK)
        self.blocks[mid] = block
        return 0

    def unload(self, mid, module: UtilityModule, errors) -> int:
        bad_id, _, not_loaded = errors
        if module is None:
            return codes.signed(bad_id)
        if mid not in self.blocks:
            return codes.signed(not_loaded)
        block = self.blocks.pop(mid)
        if block is not None:
            self.k.sysmem.free_block(block)
        return 0


def _call(k, mid, module, errors, load: bool):
    """Load or unload; the caller sleeps while the firmware reads or drops the PRX."""
    if k.interrupts:
        return codes.signed(codes.ILLEGAL_CONTEXT)
    if cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    loaded = k.utility_modules
    result = loaded.load(mid, module, errors) if load else loaded.unload(mid, module, errors)
    return wait_for_device(k, result, LOAD_US if load else UNLOAD_US) if result == 0 else result


def _family_module(ids: dict, n: int):
    mid = ids.get(n)
    if mid is None:
        return None, None
    return mid, (USB_ACC if mid == "usb_acc" else MODULES[mid])


@hle(LIB)
def sceUtilityLoadModule(k, module: int) -> int:
    return _call(k, module, MODULES.get(module), MODULE_ERRORS, True)


@hle(LIB)
def sceUtilityUnloadModule(k, module: int) -> int:
    return _call(k, module, MODULES.get(module), MODULE_ERRORS, False)


@hle(LIB)
def sceUtilityLoadNetModule(k, module: int) -> int:
    return _call(k, *_family_module(NET_IDS, module), NET_ERRORS, True)


@hle(LIB)
def sceUtilityUnloadNetModule(k, module: int) -> int:
    return _call(k, *_family_module(NET_IDS, module), NET_ERRORS, False)


@hle(LIB)
def sceUtilityLoadAvModule(k, module: int) -> int:
    return _call(k, *_family_module(AV_IDS, module), AV_ERRORS, True)


@hle(LIB)
def sceUtilityUnloadAvModule(k, module: int) -> int:
    return _call(k, *_family_module(AV_IDS, module), AV_ERRORS, False)


# The USB family's own error codes are not known: it answers with the generic module ones.
@hle(LIB)
def sceUtilityLoadUsbModule(k, module: int) -> int:
    return _call(k, *_family_module(USB_IDS, module), MODULE_ERRORS, True)


@hle(LIB)
def sceUtilityUnloadUsbModule(k, module: int) -> int:
    return _call(k, *_family_module(USB_IDS, module), MODULE_ERRORS, False)
