"""A PSP with its WLAN switch off and no USB cable: the network, ad hoc, HTTP and USB
libraries start as on a PSP and every attempt to reach something fails with the
firmware's error (pspautotests net/* record the measured ones: net/http/http's send
fails at name resolution, net/primary/ether's MAC conversions); sceUtility loads the
firmware modules they live in. Nothing here touches the host's network."""

import socket
from pathlib import Path


from allegrex.hle import codes
from allegrex.hle.utility_modules import MODULES
from helpers import call, make_kernel

ROOT = Path(__file__).resolve().parents[2]
BUF = 0x08A00000

EXPECTED = """\
load common: 00000000
load inet: 00000000
load inet again: 80110802
sceNetInit: 00000000
sceNetInetInit: 00000000
sceNetApctlInit: 00000000
WLAN switch: 0, power: 0
sceNetApctlConnect: 80410a06
sceNetApctlGetState: 00000000, state 0
resolver: init 00000000, create 00000000
resolve example.com: 80410402
resolver: delete 00000000, term 00000000
socket: 0
connect: -1, errno 51
close: 0
sceHttpInit: 00000000
http ids: 00000001 01000001 02000001
sceHttpSendRequest: 80410402
http cleanup: 00000000 00000000 00000000 00000000
terms: 00000000 00000000 00000000
unload inet: 00000000, again: 80110803
unload common: 00000000
"""


def test_a_network_hello_world_gets_the_answers_of_a_psp_with_wlan_off(tmp_path, capsys, monkeypatch):
    """Connecting to an access point fails with WLAN_SWITCH_OFF, name lookups with
    NO_DNS_SERVER (as net/http/http measured), a TCP connect with ENETUNREACH; and the
    host's sockets are never used."""
    import allegrex.sdk as sdk
    program = sdk.build([ROOT / "psp" / "apps" / "network" / "main.c"], tmp_path / "EBOOT.PBP")

    def no_host_network(*args, **kwargs):
        raise AssertionError("the guest reached the host's network")
    monkeypatch.setattr(socket, "socket", no_host_network)
    monkeypatch.setattr(socket, "create_connection", no_host_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_host_network)
    from allegrex.cli import main
    code = main(["run", str(program), "--quiet", "--max-seconds", "20"])
    assert capsys.readouterr().out == EXPECTED
    assert code == 0


def test_utility_modules_take_user_memory_and_answer_the_firmware_errors():
    k = make_kernel()
    free = k.sysmem.total_free()
    http, inet = 0x105, 0x102
    assert call(k, "sceUtility", "sceUtilityLoadModule", http) == codes.signed(0x8002013C)  # needs inet first
    assert call(k, "sceUtility", "sceUtilityLoadModule", inet) == 0
    assert k.sysmem.total_free() == free - MODULES[inet].size
    assert call(k, "sceUtility", "sceUtilityLoadModule", inet) == codes.signed(0x80111102)  # already loaded
    assert call(k, "sceUtility", "sceUtilityLoadModule", 0x999) == codes.signed(0x80111101)  # no such module
    assert call(k, "sceUtility", "sceUtilityUnloadModule", inet) == 0
    assert call(k, "sceUtility", "sceUtilityUnloadModule", inet) == codes.signed(0x80111103)  # not loaded
    assert k.sysmem.total_free() == free
    assert call(k, "sceUtility", "sceUtilityLoadAvModule", 8) == codes.signed(0x80110F01)
    assert call(k, "sceUtility", "sceUtilityLoadAvModule", 0) == 0  # avcodec
    assert call(k, "sceUtility", "sceUtilityLoadModule", 0x300) == codes.signed(0x80111102)  # the same module
    assert call(k, "sceUtility", "sceUtilityUnloadNetModule", 1) == codes.signed(0x80110803)


def test_ad_hoc_play_fails_with_the_switch_off():
    k = make_kernel()
    assert call(k, "sceNetAdhocctl", "sceNetAdhocctlConnect", 0) == codes.signed(0x80410B08)  # not initialised
    assert call(k, "sceNetAdhocctl", "sceNetAdhocctlInit", 0x2000, 0x30, 0) == 0
    assert call(k, "sceNetAdhocctl", "sceNetAdhocctlInit", 0x2000, 0x30, 0) == codes.signed(0x80410B07)
    k.memory.write(BUF, b"GROUP\0")
    for name in ("sceNetAdhocctlConnect", "sceNetAdhocctlCreate"):
        assert call(k, "sceNetAdhocctl", name, BUF) == codes.signed(0x80410B03), name
    k.memory.write_u32(BUF, 7)
    assert call(k, "sceNetAdhocctl", "sceNetAdhocctlGetState", BUF) == 0 and k.memory.read_u32(BUF) == 0


def test_usb_without_a_cable_stays_disconnected_and_a_wait_times_out():
    k = make_kernel()
    assert call(k, "sceUsb", "sceUsbGetState") == codes.signed(0x80243007)  # no driver started
    k.memory.write(BUF, b"USBBusDriver\0")
    assert call(k, "sceUsb", "sceUsbStart", BUF, 0, 0) == 0
    assert call(k, "sceUsb", "sceUsbActivate", 0x1C8) == 0
    assert call(k, "sceUsb", "sceUsbGetState") == 0x212  # started, disconnected, activated
    k.memory.write_u32(BUF + 0x40, 1000)
    start = k.now_us()
    assert call(k, "sceUsb", "sceUsbWaitState", 0x20, 0, BUF + 0x40) == codes.signed(0x80243008)  # connected: never
    assert k.now_us() - start >= 1000
