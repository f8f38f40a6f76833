"""The network stack of a PSP whose WLAN switch is off (pspnet, pspnet_inet, pspnet_apctl,
pspnet_resolver, sceWlanDrv). The libraries start and stop as on a PSP, sockets are created
and closed, but nothing reaches a network: connecting to an access point fails with the
switch-off error, name lookups find no DNS server, and a socket can reach no other host.
No call ever touches the host's network.

Truth: pspautotests net/primary/ether (MAC string conversions, measured bit for bit) and
net/http/http (a request fails at name resolution: NO_DNS_SERVER). Socket errno values
for a stack with no interface up are the BSD stack's answers (ESTIMATE: not recorded on a
PSP): a destination with no route gives ENETUNREACH, loopback has no listener.
"""

import ipaddress

from allegrex.cpu.state import V0
from allegrex.hle import codes
from allegrex.hle.http import Http
from allegrex.hle.net_adhoc import Adhoc
from allegrex.hle.io import wait_for_device
from allegrex.hle.registry import CStr, Ptr, U32, hle
from allegrex.hle.threads import Wait, cannot_wait

# A fixed MAC address for the simulated PSP's WLAN chip (locally administered, made up).
MAC = bytes((0x02, 0x00, 0x50, 0x53, 0x50, 0x01))


# BSD errno values as sceNetInetGetErrno reports them
EBADF, EINVAL, EWOULDBLOCK, EDESTADDRREQ = 9, 22, 35, 39
EPROTONOSUPPORT, EOPNOTSUPP, EAFNOSUPPORT, EADDRNOTAVAIL = 43, 45, 47, 49
ENETUNREACH, EISCONN, ENOTCONN, ECONNREFUSED = 51, 56, 57, 61
AF_INET = 2
SOCK_STREAM, SOCK_DGRAM, SOCK_RAW = 1, 2, 3
SOL_SOCKET, SO_NONBLOCK = 0xFFFF, 0x1009  # the PSP's own option for non-blocking sockets
INADDR_NONE = 0xFFFFFFFF
MAX_RESOLVERS = 16  # ESTIMATE: the firmware's limit is not recorded


class Socket:
    def __init__(self, kind: int):
        self.kind = kind
        self.nonblocking = False
        self.bound = False
        self.listening = False
        self.options: dict = {}


class NetStack:
    """Per-run state of the network libraries."""

    def __init__(self, kernel):
        self.k = kernel
        self.pool = None  # memory block of sceNetInit's pool
        self.inet = False
        self.apctl = False
        self.apctl_handlers: dict = {}
        self.sockets: dict[int, Socket] = {}
        self.errno = 0
        self.resolvers: set = set()
        self.next_resolver = 1
        self.http = Http()
        self.adhoc = Adhoc()

    def fail(self, errno: int) -> int:
        """A socket call failed: -1, with the reason for sceNetInetGetErrno."""
        self.errno = errno
        return -1

    def socket(self, fd: int):
        s = self.sockets.get(fd)
        if s is None:
            self.errno = EBADF
        return s


# ---------------------------------------------------------------- sceNet
NET = "sceNet"
LOWEST_PRIORITY, HIGHEST_PRIORITY = 0x77, 0x08


@hle(NET)
def sceNetInit(k, pool_size: U32, callout_priority: int, callout_stack: U32, netintr_priority: int,
               netintr_stack: U32) -> int:
    if pool_size == 0:
        return codes.signed(codes.ILLEGAL_MEMSIZE)
    for priority in (callout_priority, netintr_priority):
        if not HIGHEST_PRIORITY <= priority <= LOWEST_PRIORITY:
            return codes.signed(codes.ILLEGAL_PRIORITY)
    net = k.net
    if net.pool is not None:  # a second init keeps the first pool (the firmware leaks it)
        return 0
    net.pool = k.sysmem.alloc_block(2, "SceNet", size=pool_size)
    return 0 if net.pool is not None else codes.signed(codes.NO_MEMORY)


@hle(NET)
def sceNetTerm(k) -> int:
    net = k.net
    if net.pool is not None:
        k.sysmem.free_block(net.pool)
        net.pool = None
    return 0


NTOSTR_NULL = 0x09D40000  # measured (net/primary/ether): what a NULL argument returns


@hle(NET)
def sceNetEtherNtostr(k, mac: Ptr, out: Ptr) -> int:
    """The MAC as "xx:xx:xx:xx:xx:xx"; returns the string length."""
    if not mac or not out:
        return NTOSTR_NULL
    text = ":".join(f"{b:02x}" for b in k.memory.read(mac, 6)).encode() + b"\0"
    k.memory.write(out, text)
    return len(text) - 1


STRTON_NOT_A_DIGIT = 9999999  # the firmware's value for a character that is no digit or letter


def _strton_digit(c: int) -> int:
    if 0x30 <= c <= 0x39:
        return c - 0x30
    if 0x41 <= c <= 0x5A:
        return c - 0x41 + 10
    if 0x61 <= c <= 0x7A:
        return c - 0x61 + 10
    return STRTON_NOT_A_DIGIT


@hle(NET)
def sceNetEtherStrton(k, text: Ptr, mac: Ptr) -> int:
    """Six bytes from two characters each, one separator skipped after each pair, with no
    check for the string's end or for hex digits (letters count on past F): what the
    firmware does, measured in net/primary/ether. Returns the last pair's value."""
    if not text:
        return 0
    value = 0
    for i in range(6):
        first, second = k.memory.read(text + 3 * i, 2)
        value = _strton_digit(first) * 16 + _strton_digit(second)
        k.memory.write_u8(mac + i, value & 0xFF)
    return value & 0xFFFFFFFF


@hle(NET)
def sceNetGetLocalEtherAddr(k, out: Ptr) -> int:
    k.memory.write(out, MAC)
    return 0


@hle(NET)
def sceNetGetMallocStat(k, out: Ptr) -> int:
    """{pool size, most used, free}: nothing of the pool is ever used here."""
    size = k.net.pool.size if k.net.pool is not None else 0
    for i, value in enumerate((size, 0, size)):
        k.memory.write_u32(out + 4 * i, value)
    return 0


@hle(NET)
def sceNetFreeThreadinfo(k, thread: int) -> int:
    return 0


@hle(NET)
def sceNetThreadAbort(k, thread: int) -> int:
    return 0


# ---------------------------------------------------------------- sceWlanDrv
WLAN = "sceWlanDrv"


@hle(WLAN)
def sceWlanGetSwitchState(k) -> int:
    return 0  # the switch is off


@hle(WLAN)
def sceWlanDevIsPowerOn(k) -> int:
    return 0


@hle(WLAN)
def sceWlanGetEtherAddr(k, out: Ptr) -> int:
    k.memory.write(out, MAC)
    return 0


# ---------------------------------------------------------------- sceNetApctl
APCTL = "sceNetApctl"


@hle(APCTL)
def sceNetApctlInit(k, stack_size: int, priority: int) -> int:
    if k.net.apctl:
        return codes.signed(codes.NET_APCTL_ALREADY_INITIALIZED)
    k.net.apctl = True
    return 0


@hle(APCTL)
def sceNetApctlTerm(k) -> int:
    k.net.apctl = False
    k.net.apctl_handlers.clear()
    return 0


@hle(APCTL)
def sceNetApctlConnect(k, config: int) -> int:
    return codes.signed(codes.NET_APCTL_WLAN_SWITCH_OFF)


@hle(APCTL)
def sceNetApctlDisconnect(k) -> int:
    return 0


@hle(APCTL)
def sceNetApctlGetState(k, out: Ptr) -> int:
    k.memory.write_u32(out, 0)  # disconnected, and it stays so
    return 0


@hle(APCTL)
def sceNetApctlGetInfo(k, code: int, out: Ptr) -> int:
    return codes.signed(codes.NET_APCTL_NOT_IN_BSS)


@hle(APCTL)
def sceNetApctlAddHandler(k, handler: Ptr, arg: Ptr) -> int:
    """Handlers are kept but never called: the state never changes."""
    handlers = k.net.apctl_handlers
    hid = next(i for i in range(len(handlers) + 1) if i not in handlers)
    handlers[hid] = (handler, arg)
    return hid


@hle(APCTL)
def sceNetApctlDelHandler(k, hid: int) -> int:
    if k.net.apctl_handlers.pop(hid, None) is None:
        return codes.signed(codes.NET_APCTL_INVALID_ID)
    return 0


# ---------------------------------------------------------------- sceNetResolver
RESOLVER = "sceNetResolver"


@hle(RESOLVER)
def sceNetResolverInit(k) -> int:
    return 0


@hle(RESOLVER)
def sceNetResolverTerm(k) -> int:
    k.net.resolvers.clear()
    return 0


@hle(RESOLVER)
def sceNetResolverCreate(k, out: Ptr, buf: Ptr, size: U32) -> int:
    if not out:
        return codes.signed(codes.NET_RESOLVER_INVALID_PTR)
    net = k.net
    if len(net.resolvers) >= MAX_RESOLVERS:
        return codes.signed(codes.NET_RESOLVER_ID_MAX)
    rid = net.next_resolver
    net.next_resolver += 1
    net.resolvers.add(rid)
    k.memory.write_u32(out, rid)
    return 0


@hle(RESOLVER)
def sceNetResolverDelete(k, rid: int) -> int:
    if rid not in k.net.resolvers:
        return codes.signed(codes.NET_RESOLVER_BAD_ID)
    k.net.resolvers.discard(rid)
    return 0


def _lookup(k, rid: int) -> int:
    """No DNS server is configured without an access point: every lookup fails so."""
    if rid not in k.net.resolvers:
        return codes.signed(codes.NET_RESOLVER_BAD_ID)
    return codes.signed(codes.NET_RESOLVER_NO_DNS_SERVER)


@hle(RESOLVER)
def sceNetResolverStartNtoA(k, rid: int, host: CStr, out: Ptr, timeout: U32, retries: int) -> int:
    return _lookup(k, rid)


@hle(RESOLVER)
def sceNetResolverStartAtoN(k, rid: int, addr: Ptr, out: Ptr, size: U32, timeout: U32, retries: int) -> int:
    return _lookup(k, rid)


@hle(RESOLVER)
def sceNetResolverStop(k, rid: int) -> int:
    return 0 if rid in k.net.resolvers else codes.signed(codes.NET_RESOLVER_BAD_ID)


# ---------------------------------------------------------------- sceNetInet
INET = "sceNetInet"


@hle(INET)
def sceNetInetInit(k) -> int:
    if k.net.inet:
        return codes.signed(codes.NET_INET_ALREADY_INITIALIZED)
    k.net.inet = True
    return 0


@hle(INET)
def sceNetInetTerm(k) -> int:
    k.net.inet = False
    k.net.sockets.clear()
    return 0


@hle(INET)
def sceNetInetGetErrno(k) -> int:
    return k.net.errno


@hle(INET)
def sceNetInetSocket(k, domain: int, kind: int, protocol: int) -> int:
    net = k.net
    if domain != AF_INET:
        return net.fail(EAFNOSUPPORT)
    if kind not in (SOCK_STREAM, SOCK_DGRAM, SOCK_RAW):
        return net.fail(EPROTONOSUPPORT)
    fd = next(i for i in range(len(net.sockets) + 1) if i not in net.sockets)
    net.sockets[fd] = Socket(kind)
    return fd


def _close(k, fd: int) -> int:
    if k.net.sockets.pop(fd, None) is None:
        return k.net.fail(EBADF)
    return 0


@hle(INET)
def sceNetInetClose(k, fd: int) -> int:
    return _close(k, fd)


@hle(INET)
def sceNetInetCloseWithRST(k, fd: int) -> int:
    return _close(k, fd)


@hle(INET)
def sceNetInetSocketAbort(k, fd: int) -> int:
    return 0 if k.net.socket(fd) is not None else -1


def _address(k, addr: Ptr) -> int | None:
    """The IPv4 address (host order) of a sockaddr_in, or None for a bad one."""
    if not addr or not k.memory.is_valid(addr, 8):
        return None
    return int.from_bytes(k.memory.read(addr + 4, 4), "big")


def _is_loopback(ip: int) -> bool:
    return ip >> 24 == 127


@hle(INET)
def sceNetInetConnect(k, fd: int, addr: Ptr, size: int) -> int:
    net = k.net
    s = net.socket(fd)
    if s is None:
        return -1
    ip = _address(k, addr)
    if ip is None:
        return net.fail(EINVAL)
    if s.listening:
        return net.fail(EOPNOTSUPP)
    return net.fail(ECONNREFUSED if _is_loopback(ip) else ENETUNREACH)


@hle(INET)
def sceNetInetBind(k, fd: int, addr: Ptr, size: int) -> int:
    net = k.net
    s = net.socket(fd)
    if s is None:
        return -1
    ip = _address(k, addr)
    if ip is None:
        return net.fail(EINVAL)
    if ip != 0 and not _is_loopback(ip):  # no interface has any other address
        return net.fail(EADDRNOTAVAIL)
    s.bound = True
    return 0


@hle(INET)
def sceNetInetListen(k, fd: int, backlog: int) -> int:
    net = k.net
    s = net.socket(fd)
    if s is None:
        return -1
    if s.kind != SOCK_STREAM:
        return net.fail(EOPNOTSUPP)
    s.listening = True
    return 0


def _wait_forever(k, fd: int, s: Socket, what: str) -> int | None:
    """Nothing can ever arrive: a non-blocking socket says so, a blocking one waits for
    good (the run ends as a deadlock if nothing else can run)."""
    if s.nonblocking:
        return k.net.fail(EWOULDBLOCK)
    if cannot_wait(k) or k.threads.current is None:
        return k.net.fail(EWOULDBLOCK)
    k.cpu.regs[V0] = 0xFFFFFFFF
    k.threads.block(Wait("net", data=f"{what} on socket {fd}"))
    return None


@hle(INET)
def sceNetInetAccept(k, fd: int, addr: Ptr, size_ptr: Ptr) -> int:
    s = k.net.socket(fd)
    if s is None:
        return -1
    if not s.listening:
        return k.net.fail(EINVAL)
    return _wait_forever(k, fd, s, "accept")


def _receive(k, fd: int) -> int | None:
    s = k.net.socket(fd)
    if s is None:
        return -1
    if s.kind == SOCK_STREAM:
        return k.net.fail(ENOTCONN)
    return _wait_forever(k, fd, s, "receive")


@hle(INET)
def sceNetInetRecv(k, fd: int, buf: Ptr, size: U32, flags: int) -> int:
    return _receive(k, fd)


@hle(INET)
def sceNetInetRecvfrom(k, fd: int, buf: Ptr, size: U32, flags: int, addr: Ptr, size_ptr: Ptr) -> int:
    return _receive(k, fd)


@hle(INET)
def sceNetInetSend(k, fd: int, buf: Ptr, size: U32, flags: int) -> int:
    s = k.net.socket(fd)
    if s is None:
        return -1
    return k.net.fail(ENOTCONN if s.kind == SOCK_STREAM else EDESTADDRREQ)


@hle(INET)
def sceNetInetSendto(k, fd: int, buf: Ptr, size: U32, flags: int, addr: Ptr, addr_size: int) -> int:
    net = k.net
    s = net.socket(fd)
    if s is None:
        return -1
    if s.kind == SOCK_STREAM:
        return net.fail(ENOTCONN)
    ip = _address(k, addr)
    if ip is None:
        return net.fail(EDESTADDRREQ)
    return size if _is_loopback(ip) else net.fail(ENETUNREACH)  # a loopback datagram nobody reads


@hle(INET)
def sceNetInetShutdown(k, fd: int, how: int) -> int:
    s = k.net.socket(fd)
    if s is None:
        return -1
    return k.net.fail(ENOTCONN)


@hle(INET)
def sceNetInetSetsockopt(k, fd: int, level: int, name: int, value: Ptr, size: int) -> int:
    s = k.net.socket(fd)
    if s is None:
        return -1
    data = k.memory.read(value, size) if value and size > 0 else b""
    s.options[(level, name)] = data
    if (level, name) == (SOL_SOCKET, SO_NONBLOCK):
        s.nonblocking = int.from_bytes(data[:4].ljust(4, b"\0"), "little") != 0
    return 0


@hle(INET)
def sceNetInetGetsockopt(k, fd: int, level: int, name: int, value: Ptr, size_ptr: Ptr) -> int:
    s = k.net.socket(fd)
    if s is None:
        return -1
    data = s.options.get((level, name), bytes(4))
    room = k.memory.read_u32(size_ptr)
    k.memory.write(value, data[:room])
    k.memory.write_u32(size_ptr, min(room, len(data)))
    return 0


def _write_sockaddr(k, addr: Ptr, size_ptr: Ptr, ip: int) -> None:
    """sockaddr_in {len 16, AF_INET, port 0, address}."""
    if addr and size_ptr:
        room = k.memory.read_u32(size_ptr)
        raw = bytes((16, AF_INET, 0, 0)) + ip.to_bytes(4, "big") + bytes(8)
        k.memory.write(addr, raw[:room])
        k.memory.write_u32(size_ptr, min(room, 16))


@hle(INET)
def sceNetInetGetsockname(k, fd: int, addr: Ptr, size_ptr: Ptr) -> int:
    if k.net.socket(fd) is None:
        return -1
    _write_sockaddr(k, addr, size_ptr, 0)
    return 0


@hle(INET)
def sceNetInetGetpeername(k, fd: int, addr: Ptr, size_ptr: Ptr) -> int:
    if k.net.socket(fd) is None:
        return -1
    return k.net.fail(ENOTCONN)


def _timeval_us(k, tv: Ptr) -> int | None:
    if not tv:
        return None
    return k.memory.read_u32(tv) * 1_000_000 + k.memory.read_u32(tv + 4)


def _wait_ready(k, timeout_us: int | None, what: str) -> int | None:
    """select/poll: no socket ever becomes ready; the caller waits out its timeout (for good
    without one) and gets 0."""
    if timeout_us == 0 or cannot_wait(k) or k.threads.current is None:
        return 0
    if timeout_us is None:
        k.cpu.regs[V0] = 0
        k.threads.block(Wait("net", data=what))
        return None
    return wait_for_device(k, 0, timeout_us)


@hle(INET)
def sceNetInetSelect(k, count: int, read: Ptr, write: Ptr, error: Ptr, timeout: Ptr) -> int:
    for fdset in (read, write, error):
        if fdset:
            k.memory.fill(fdset, 0, 4 * ((max(count, 0) + 31) // 32))
    return _wait_ready(k, _timeval_us(k, timeout), "select")


@hle(INET)
def sceNetInetPoll(k, fds: Ptr, count: U32, timeout_ms: int) -> int:
    for i in range(count):
        k.memory.write_u16(fds + 8 * i + 6, 0)  # revents
    return _wait_ready(k, None if timeout_ms < 0 else timeout_ms * 1000, "poll")


def _parse_ipv4(text: str | None) -> int | None:
    try:
        return int(ipaddress.IPv4Address(text or ""))
    except ValueError:
        return None


@hle(INET)
def sceNetInetInetAddr(k, text: CStr) -> U32:
    ip = _parse_ipv4(text)
    return INADDR_NONE if ip is None else int.from_bytes(ip.to_bytes(4, "big"), "little")


@hle(INET)
def sceNetInetInetAton(k, text: CStr, out: Ptr) -> int:
    ip = _parse_ipv4(text)
    if ip is None:
        return 0
    k.memory.write(out, ip.to_bytes(4, "big"))
    return 1


@hle(INET)
def sceNetInetInetPton(k, family: int, text: CStr, out: Ptr) -> int:
    if family != AF_INET:
        return k.net.fail(EAFNOSUPPORT)
    return sceNetInetInetAton(k, text, out)


@hle(INET)
def sceNetInetInetNtop(k, family: int, src: Ptr, out: Ptr, size: U32) -> U32:
    if family != AF_INET:
        k.net.errno = EAFNOSUPPORT
        return 0
    text = ".".join(str(b) for b in k.memory.read(src, 4)).encode() + b"\0"
    if len(text) > size:
        k.net.errno = EINVAL
        return 0
    k.memory.write(out, text)
    return out
