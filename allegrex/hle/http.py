"""sceHttp, sceHttps and sceSsl on a PSP whose WLAN switch is off: the library starts,
templates, connections and requests are made and deleted as on a PSP, and sending a
request fails where the PSP fails, at name resolution (no DNS server without an access
point). Measured: pspautotests net/http/http (ids, the send error, what a request that
was never sent answers)."""

from urllib.parse import urlsplit

from allegrex.hle import codes
from allegrex.hle.registry import CStr, Ptr, U32, U64, hle


# Each kind of object is numbered from 1 within its own range (measured).
TEMPLATE, CONNECTION, REQUEST = 0, 0x01000000, 0x02000000
METHODS = (0, 1, 2)  # GET, POST, HEAD
SCHEMES = ("http", "https")


class Http:
    """Per-run state: whether the library runs, and its live objects by id."""

    def __init__(self):
        self.running = False
        self.objects: dict[int, str] = {}  # id -> kind ("template", "connection", "request")
        self.next = {TEMPLATE: 1, CONNECTION: 1, REQUEST: 1}
        self.ssl = False
        self.https = False

    def new(self, base: int, kind: str) -> int:
        oid = base + self.next[base]
        self.next[base] += 1
        self.objects[oid] = kind
        return oid


LIB = "sceHttp"


def _state(k) -> Http:
    return k.net.http


def _check(k, oid: int, kind: str) -> int:
    """0, or the error for a call on `oid` as a `kind`."""
    h = _state(k)
    if not h.running:
        return codes.signed(codes.HTTP_BEFORE_INIT)
    return 0 if h.objects.get(oid) == kind else codes.signed(codes.HTTP_INVALID_ID)


@hle(LIB)
def sceHttpInit(k, heap_size: U32) -> int:
    h = _state(k)
    if h.running:
        return codes.signed(codes.HTTP_ALREADY_INITED)
    h.running = True
    return 0


@hle(LIB)
def sceHttpEnd(k) -> int:
    h = _state(k)
    if not h.running:
        return codes.signed(codes.HTTP_BEFORE_INIT)
    h.running = False
    h.objects.clear()
    return 0


@hle(LIB)
def sceHttpCreateTemplate(k, agent: CStr, version: int, proxy: int) -> int:
    if not _state(k).running:
        return codes.signed(codes.HTTP_BEFORE_INIT)
    return _state(k).new(TEMPLATE, "template")


def _url_error(url: str | None) -> int:
    if url is None:
        return codes.signed(codes.HTTP_INVALID_URL)
    parts = urlsplit(url)
    if parts.scheme.lower() not in SCHEMES:
        return codes.signed(codes.HTTP_UNKNOWN_SCHEME)
    return 0 if parts.hostname else codes.signed(codes.HTTP_INVALID_URL)


@hle(LIB)
def sceHttpCreateConnection(k, template: int, host: CStr, scheme: CStr, port: int, keep_alive: int) -> int:
    error = _check(k, template, "template")
    if error == 0 and (scheme or "").lower() not in SCHEMES:
        error = codes.signed(codes.HTTP_UNKNOWN_SCHEME)
    return error or _state(k).new(CONNECTION, "connection")


@hle(LIB)
def sceHttpCreateConnectionWithURL(k, template: int, url: CStr, keep_alive: int) -> int:
    error = _check(k, template, "template") or _url_error(url)
    return error or _state(k).new(CONNECTION, "connection")


@hle(LIB)
def sceHttpCreateRequest(k, connection: int, method: int, path: CStr, length: U64) -> int:
    error = _check(k, connection, "connection")
    if error == 0 and method not in METHODS:
        error = codes.signed(codes.HTTP_UNKNOWN_METHOD)
    return error or _state(k).new(REQUEST, "request")


@hle(LIB)
def sceHttpCreateRequestWithURL(k, connection: int, method: int, url: CStr, length: U64) -> int:
    error = _check(k, connection, "connection")
    if error == 0 and method not in METHODS:
        error = codes.signed(codes.HTTP_UNKNOWN_METHOD)
    return error or _state(k).new(REQUEST, "request")


def _delete(k, oid: int, kind: str) -> int:
    error = _check(k, oid, kind)
    if error == 0:
        del _state(k).objects[oid]
    return error


@hle(LIB)
def sceHttpDeleteTemplate(k, template: int) -> int:
    return _delete(k, template, "template")


@hle(LIB)
def sceHttpDeleteConnection(k, connection: int) -> int:
    return _delete(k, connection, "connection")


@hle(LIB)
def sceHttpDeleteRequest(k, request: int) -> int:
    return _delete(k, request, "request")


@hle(LIB)
def sceHttpSendRequest(k, request: int, data: Ptr, size: U32) -> int:
    """The host name cannot be resolved: no DNS server without an access point."""
    return _check(k, request, "request") or codes.signed(codes.NET_RESOLVER_NO_DNS_SERVER)


def _unsent(k, request: int) -> int:
    return _check(k, request, "request") or codes.signed(codes.HTTP_BEFORE_SEND)


@hle(LIB)
def sceHttpGetContentLength(k, request: int, out: Ptr) -> int:
    return _unsent(k, request)


@hle(LIB)
def sceHttpGetStatusCode(k, request: int, out: Ptr) -> int:
    return _unsent(k, request)


@hle(LIB)
def sceHttpReadData(k, request: int, buf: Ptr, size: U32) -> int:
    return _unsent(k, request)


@hle(LIB)
def sceHttpAbortRequest(k, request: int) -> int:
    return _check(k, request, "request")


def _any_object(k, oid: int) -> int:
    h = _state(k)
    if not h.running:
        return codes.signed(codes.HTTP_BEFORE_INIT)
    return 0 if oid in h.objects else codes.signed(codes.HTTP_INVALID_ID)


def _setting(k, oid: int, value: U32) -> int:
    return _any_object(k, oid)


def _switch(k, oid: int) -> int:
    return _any_object(k, oid)


for _name in ("sceHttpSetResolveTimeOut", "sceHttpSetResolveRetry", "sceHttpSetConnectTimeOut",
              "sceHttpSetSendTimeOut", "sceHttpSetRecvTimeOut"):
    hle(LIB, name=_name)(_setting)
for _name in ("sceHttpEnableKeepAlive", "sceHttpDisableKeepAlive", "sceHttpEnableRedirect",
              "sceHttpDisableRedirect", "sceHttpEnableCookie", "sceHttpDisableCookie",
              "sceHttpEnableAuth", "sceHttpDisableAuth"):
    hle(LIB, name=_name)(_switch)


@hle(LIB)
def sceHttpAddExtraHeader(k, oid: int, name: CStr, value: CStr, mode: int) -> int:
    return _any_object(k, oid)


@hle(LIB)
def sceHttpDeleteHeader(k, oid: int, name: CStr) -> int:
    return _any_object(k, oid)


@hle(LIB)
def sceHttpInitCache(k, size: U32) -> int:
    return 0 if _state(k).running else codes.signed(codes.HTTP_BEFORE_INIT)


@hle(LIB)
def sceHttpEndCache(k) -> int:
    return 0 if _state(k).running else codes.signed(codes.HTTP_BEFORE_INIT)


@hle(LIB)
def sceHttpsInit(k, a: int, b: int, c: int, d: int) -> int:
    _state(k).https = True
    return 0


@hle(LIB)
def sceHttpsEnd(k) -> int:
    _state(k).https = False
    return 0


@hle(LIB)
def sceHttpsLoadDefaultCert(k, a: int, b: int) -> int:
    return 0


SSL = "sceSsl"


@hle(SSL)
def sceSslInit(k, heap_size: int) -> int:
    h = _state(k)
    if h.ssl:
        return codes.signed(codes.SSL_ALREADY_INIT)
    if heap_size <= 0:
        return codes.signed(codes.SSL_INVALID_PARAMETER)
    h.ssl = True
    return 0


@hle(SSL)
def sceSslEnd(k) -> int:
    h = _state(k)
    if not h.ssl:
        return codes.signed(codes.SSL_NOT_INIT)
    h.ssl = False
    return 0


def _ssl_memory(k, out: Ptr) -> int:
    if not _state(k).ssl:
        return codes.signed(codes.SSL_NOT_INIT)
    k.memory.write_u32(out, 0)  # no connection ever uses any
    return 0


hle(SSL, name="sceSslGetUsedMemoryMax")(_ssl_memory)
hle(SSL, name="sceSslGetUsedMemoryCurrent")(_ssl_memory)
