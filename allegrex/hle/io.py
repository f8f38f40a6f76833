"""IoFileMgrForUser: files and directories on ms0:/ and host0:/ through the sandbox,
stdout/stderr and the pspautotests "emulator:" device (the async call forms: io_async.py).

Host files are reached only through Sandbox.resolve; a refused path returns
ERRNO_NO_PERM to the guest and is reported on stderr (and stops the run with --strict).
"""

import os
import re
import stat as statmod
import time
from types import SimpleNamespace

from allegrex.cpu.state import V0
from allegrex.hle import codes, costs
from allegrex.hle.kernel import HleStop
from allegrex.hle.registry import CStr, Ptr, S64, U32, hle
from allegrex.hle.rtc import wall_us
from allegrex.hle.sandbox import Sandbox, SandboxRefusal, UnknownDevice, Unmapped
from allegrex.hle.threads import Callback, Wait, cannot_wait
from allegrex.timing import memstick

O_RDONLY, O_WRONLY, O_RDWR, O_NBLOCK, O_DIROPEN = 1, 2, 3, 4, 8
O_APPEND, O_CREAT, O_TRUNC, O_EXCL = 0x100, 0x200, 0x400, 0x800
FIRST_FD = 3
MAX_FDS = 64
STAT_SIZE = 88
DIRENT_SIZE = 88 + 256 + 8
FIO_S_IFDIR, FIO_S_IFREG = 0x1000, 0x2000
FIO_SO_IFDIR, FIO_SO_IFREG = 0x10, 0x20
REFUSED = codes.ERRNO_NO_PERM

# pspautotests' emulator device (common/common.c)
EMU_GET_HAS_DISPLAY, EMU_SEND_OUTPUT, EMU_IS_EMULATOR = 1, 2, 3
EMU_SEND_CTRLDATA, EMU_EMIT_SCREENSHOT = 0x10, 0x20
# the harness's result files on host0:/ (a PSP not taken for an emulator writes its output
# there) go to the run's harness output and stderr
TEST_OUTPUT_FILES = {"host0:/__testoutput.txt": "harness", "host0:/__testerror.txt": "stderr",
                     "host0:/__testfinish.txt": "discard"}
TTY_DEVICE = re.compile(r"tty\d+:", re.IGNORECASE)  # measured: io/open/tty0 opens tty0: and tty1:


class OpenFile:
    def __init__(self, guest, kind, handle=None, entries=None, flags=0):
        self.guest = guest
        self.kind = kind  # file, dir, stdout, stderr, discard
        self.handle = handle
        self.entries = entries
        self.flags = flags
        self.async_op = None  # the async operation left for the IO thread (io_async.AsyncOp)
        self.async_thread = False  # whether an async call made the file's IO thread
        self.async_callback = 0
        self.host = None  # a listed folder's host path
        self.next_offset = 0  # where the last transfer ended: a read from there needs no seek
        self.dirty = False  # written since the last sync


FAT_WILDCARDS = "?*"  # not allowed in a memory stick name (measured: utility/savedata/idlist)


class IoManager:
    def __init__(self, kernel):
        self.k = kernel
        self.sandbox = Sandbox()
        self.cwd = ""
        self.created: set[str] = set()  # host paths the program made: their names keep their case
        self.async_hooked = False  # io_async follows the threads that leave the CPU
        self.files: dict[int, OpenFile] = {}
        self.files[0] = OpenFile("stdin", "discard")
        self.files[1] = OpenFile("stdout", "stdout")
        self.files[2] = OpenFile("stderr", "stderr")
        opts = kernel.options
        if opts.ms0:
            self.sandbox.mount("ms0", "/", opts.ms0)
        if opts.host0:
            self.sandbox.mount("host0", "/", opts.host0)

    def set_program_folder(self, guest_dir: str, host_dir: str | None) -> None:
        """Map the program's own folder (when it is not already inside --ms0) and make it the cwd."""
        if host_dir is not None:
            _, parts = self.sandbox.normalise(guest_dir, "")
            self.sandbox.mount("ms0", "/".join(parts), host_dir)
        self.cwd = guest_dir

    # --- output ---
    def write_stream(self, kind: str, data: bytes) -> None:
        """Guest output to the run's "stdout", "stderr" or "harness" stream ("discard": none)."""
        if kind == "discard":
            return
        streams = {"stdout": self.k.stdout, "harness": self.k.options.harness_output or self.k.stdout}
        stream = streams.get(kind, self.k.stderr)
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            stream.flush()
            buffer.write(data)
            buffer.flush()
        else:
            stream.write(data.decode("latin-1"))

    def flush_all(self) -> None:
        for f in self.files.values():
            if f.kind == "file" and f.handle is not None:
                try:
                    f.handle.flush()
                except OSError:
                    pass
        for stream in (self.k.stdout, self.k.stderr, self.k.options.harness_output):
            if stream is None:
                continue
            try:
                stream.flush()
            except (OSError, ValueError):
                pass

    # --- paths ---
    def resolve(self, path: str):
        """Host path for a guest path, or a negative PSP error code (refusals reported)."""
        try:
            return self.sandbox.resolve(path, self.cwd)
        except SandboxRefusal as exc:
            self.refuse(str(exc))
            return codes.signed(REFUSED)
        except Unmapped as exc:
            device = str(exc).split(":")[0]
            self.k.warn_once(("unmapped", device), f"{exc}: {device}:/ has no host folder "
                             f"(pass --{device} DIR; only the program's own folder is mapped)")
            return codes.signed(codes.NO_SUCH_DEVICE)
        except UnknownDevice as exc:
            self.refuse(f"refused guest path {path!r}: {exc}")
            return codes.signed(codes.NO_SUCH_DEVICE)

    def refuse(self, message: str) -> None:
        self.k.sandbox_refusals.append(message)
        self.k.warn_once(("sandbox", message), f"sandbox: {message}")  # each distinct attempt once
        if self.k.options.strict:
            raise HleStop("sandbox", message)

    def new_fd(self, f: OpenFile) -> int:
        for fd in range(FIRST_FD, MAX_FDS):
            if fd not in self.files:
                self.files[fd] = f
                return fd
        return codes.signed(codes.ERRNO_TOO_MANY_OPEN_FILES)

    # --- operations shared by sync and async forms ---
    def open(self, path, flags, mode) -> int:
        if path is None:
            return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
        special = TEST_OUTPUT_FILES.get(path.lower().replace("host0:/", "host0:").replace("host0:", "host0:/", 1))
        if special and flags & O_WRONLY:
            return self.new_fd(OpenFile(path, special, flags=flags))
        if TTY_DEVICE.match(path):  # the debug console (any mode, any name after it): on stderr,
            return self.new_fd(OpenFile(path, "stderr", flags=flags))  # not the program's stdout
        r = self.resolve(path)
        if isinstance(r, int):
            return r
        if r.device == "ms0" and any(c in r.guest for c in FAT_WILDCARDS):
            return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
        host = r.host
        if os.path.isdir(host):
            if flags & O_WRONLY:
                return codes.signed(codes.ERRNO_IS_DIRECTORY)
            return codes.signed(codes.ERRNO_FILE_NOT_FOUND)
        access = flags & O_RDWR
        osflags = {O_RDONLY: os.O_RDONLY, O_WRONLY: os.O_WRONLY, O_RDWR: os.O_RDWR}.get(access)
        if osflags is None:
            return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
        if flags & O_CREAT:
            osflags |= os.O_CREAT
        if flags & O_TRUNC and access & O_WRONLY:
            osflags |= os.O_TRUNC
        if flags & O_EXCL and flags & O_CREAT:
            osflags |= os.O_EXCL
        if flags & O_APPEND:
            osflags |= os.O_APPEND
        is_new = not os.path.lexists(host)
        try:
            fd = os.open(host, osflags | getattr(os, "O_NOFOLLOW", 0), 0o666)
        except FileExistsError:
            return codes.signed(codes.ERRNO_FILE_EXISTS)
        except (FileNotFoundError, NotADirectoryError):
            return codes.signed(codes.ERRNO_FILE_NOT_FOUND)
        except IsADirectoryError:
            return codes.signed(codes.ERRNO_IS_DIRECTORY)
        except OSError:
            return codes.signed(codes.ERRNO_IO_ERROR)
        if is_new:
            self.created.add(os.path.realpath(host))
        handle = os.fdopen(fd, "r+b" if access == O_RDWR else ("wb" if access == O_WRONLY else "rb"),
                           buffering=0)
        return self.new_fd(OpenFile(r.guest, "file", handle=handle, flags=flags))

    def close(self, fd) -> int:
        f = self.files.get(fd)
        if f is None or fd < FIRST_FD:
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        if f.kind == "dir":
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        if f.handle is not None:
            f.handle.close()
        del self.files[fd]
        return 0

    def read(self, fd, addr, size) -> int:
        f = self.files.get(fd)
        if f is None or f.kind == "dir":
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        if size < 0:
            return codes.signed(codes.INVALID_SIZE)
        if f.kind != "file":
            return 0
        if not f.flags & O_RDONLY:
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        if size == 0:
            return 0
        memory = self.k.memory
        off = memory.span(addr, size, "write")  # check the buffer before touching the file
        return f.handle.readinto(memory.mem.data[off:off + size])  # straight into guest memory

    def write(self, fd, addr, size) -> int:
        f = self.files.get(fd)
        if f is None or f.kind == "dir":
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        if size < 0:
            return codes.signed(codes.INVALID_SIZE)
        data = self.k.memory.read(addr, size) if size else b""
        if f.kind != "file":
            self.write_stream(f.kind, data)
            return size
        if not f.flags & O_WRONLY:
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        f.handle.write(data)
        return size

    def lseek(self, fd, offset, whence) -> int:
        f = self.files.get(fd)
        if f is None or f.kind == "dir":
            return codes.signed(codes.BAD_FILE_DESCRIPTOR)
        if f.kind != "file":
            return 0
        if whence not in (0, 1, 2):
            return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
        base = {0: 0, 1: f.handle.tell(), 2: os.fstat(f.handle.fileno()).st_size}[whence]
        pos = base + offset
        if pos < 0:
            return -1  # measured: a seek before the start answers -1, not an error code
        f.handle.seek(pos)
        return pos


def _io(k) -> IoManager:
    return k.io


def transfer_us(f: OpenFile, kind: str, start: int, result: int) -> int:
    """How long the memory stick takes for one request on file `f` (timing/memstick.py):
    a read or write of `result` bytes from offset `start`, or a close (which syncs a
    written file); the file remembers where the transfer ended and whether it is synced."""
    moved = max(result, 0) if kind in ("read", "write") else 0
    if kind == "read":
        us = memstick.read_us(moved, sequential=start == f.next_offset)
    elif kind == "write":
        us = memstick.write_us(moved)
        f.dirty = True
    else:
        return memstick.REQUEST_US + (memstick.SYNC_US if kind == "close" and f.dirty else 0)
    f.next_offset = start + moved
    return us


def driver_us(f, kind: str, start: int, result: int) -> int:
    """The driver's time for a request on open file `f` (0 when no medium is behind it)."""
    return transfer_us(f, kind, start, result) if f.kind == "file" else 0


def driver_call(k, result, us: int = memstick.REQUEST_US):
    """A call that reached the memory stick's driver: for `us` microseconds the driver
    holds the CPU (it copies the data itself: no other thread runs, interrupts do), then
    the caller gets `result`."""
    if k.threads.current is not None and not k.interrupts and not cannot_wait(k):
        k.threads.hold_cpu(k.now_us() + us)
    return wait_for_device(k, result, us)


def wait_for_device(k, result, us: int):
    """The calling thread sleeps `us` simulated microseconds, then its call returns `result`
    (None here: the wake-up sets v0). Outside a thread the call returns at once; a caller
    that may not wait (dispatch or interrupts off) gets WAIT_CAN_NOT_WAIT instead."""
    if k.threads.current is None or k.interrupts:
        return result
    if cannot_wait(k):
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    k.cpu.regs_view[V0] = result & 0xFFFFFFFF
    k.threads.block(Wait("io", data=result), timeout_us=us)
    return None


LIB = "IoFileMgrForUser"


@hle(LIB, cost=costs.IO)
def sceIoOpen(k, path: CStr, flags: int, mode: int) -> int:
    fd = k.io.open(path, flags, mode)
    if fd >= 0 and k.io.files[fd].kind != "file":
        return fd
    # the memory stick driver answers a missing file or a wildcard name itself, taking its time
    driver_answered = fd in (codes.signed(codes.ERRNO_FILE_NOT_FOUND), codes.signed(codes.ERRNO_INVALID_ARGUMENT)) \
        and (fd != codes.signed(codes.ERRNO_INVALID_ARGUMENT) or any(c in (path or "") for c in FAT_WILDCARDS))
    if not (fd >= 0 or driver_answered):
        return fd
    if cannot_wait(k) and not k.interrupts:  # it would wait for the driver: refused, nothing left open
        if fd >= 0:
            k.io.close(fd)
        return codes.signed(codes.WAIT_CAN_NOT_WAIT)
    return driver_call(k, fd)


def _file_call(k, fd, op, kind: str):
    """Run `op` (the manager's read, write or close of fd) and, on a memory-stick file,
    take the driver's time for it; returns what the HLE function returns."""
    f = k.io.files.get(fd)
    if f is not None and f.async_op is not None:  # measured: threads/scheduling/dispatch
        return codes.signed(codes.ASYNC_BUSY)
    if f is not None and f.kind == "file":  # the caller will wait for the driver: may it?
        if k.interrupts:
            return codes.signed(codes.ILLEGAL_CONTEXT)  # measured: intr/waits, inside an interrupt
        if cannot_wait(k):
            return codes.signed(codes.WAIT_CAN_NOT_WAIT)  # measured: intr/waits (ms0:), nothing done
    if f is None or f.kind != "file":
        return op()
    start = f.handle.tell()
    result = op()
    return driver_call(k, result, transfer_us(f, kind, start, result))


@hle(LIB, cost=costs.IO)
def sceIoClose(k, fd: int) -> int:
    return _file_call(k, fd, lambda: k.io.close(fd), "close")


@hle(LIB, cost=costs.IO)
def sceIoRead(k, fd: int, addr: Ptr, size: int) -> int:
    return _file_call(k, fd, lambda: k.io.read(fd, addr, size), "read")


@hle(LIB, cost=costs.IO)
def sceIoWrite(k, fd: int, addr: Ptr, size: int) -> int:
    return _file_call(k, fd, lambda: k.io.write(fd, addr, size), "write")


@hle(LIB, cost=costs.IO)
def sceIoLseek(k, fd: int, offset: S64, whence: int) -> S64:
    return k.io.lseek(fd, offset, whence)


@hle(LIB, cost=costs.IO)
def sceIoLseek32(k, fd: int, offset: int, whence: int) -> int:
    return k.io.lseek(fd, offset, whence)


@hle(LIB)
def sceIoCancel(k, fd: int) -> int:
    return codes.signed(codes.UNSUPPORTED_OPERATION) if fd in k.io.files else codes.signed(codes.BAD_FILE_DESCRIPTOR)


# --- directories and metadata ---
def _datetime(ts: float) -> bytes:
    t = time.gmtime(int(ts))
    out = b"".join(v.to_bytes(2, "little") for v in (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec))
    return out + int((ts % 1) * 1e6).to_bytes(4, "little")


def stat_bytes(st, size_override: int | None = None) -> bytes:
    """SceIoStat: st_attr holds the FAT attribute alone (directory 0x10, archive 0x20), as
    the memory stick reports it (measured: io/directory, io/file)."""
    if statmod.S_ISDIR(st.st_mode):
        mode, attr, size = FIO_S_IFDIR | 0o777, FIO_SO_IFDIR, 0
    else:
        mode, attr, size = FIO_S_IFREG | 0o777, FIO_SO_IFREG, st.st_size
    size = size if size_override is None else size_override
    head = mode.to_bytes(4, "little") + attr.to_bytes(4, "little") + size.to_bytes(8, "little")
    times = _datetime(st.st_ctime) + _datetime(st.st_atime) + _datetime(st.st_mtime)
    return head + times + bytes(24)


def _virtual_folder(k, path: str):
    """The memory stick folder `path` names outside the mapped host folders, or None."""
    try:
        return k.io.sandbox.virtual_folder(path, k.io.cwd)
    except SandboxRefusal:
        return None


def _virtual_stat(k):
    """A virtual folder's stat: made when the run started (the run's wall clock)."""
    made = (wall_us(k) - k.now_us()) / 1e6
    return SimpleNamespace(st_mode=statmod.S_IFDIR | 0o777, st_size=0, st_ctime=made, st_atime=made, st_mtime=made)


@hle(LIB, cost=costs.IO)
def sceIoGetstat(k, path: CStr, out: Ptr) -> int:
    virtual = _virtual_folder(k, path or "")
    if virtual is not None:
        k.memory.write(out, stat_bytes(_virtual_stat(k)))
        return driver_call(k, 0)
    r = k.io.resolve(path or "")
    if isinstance(r, int):
        return r
    try:
        st = os.stat(r.host)
    except OSError:
        return driver_call(k, codes.signed(codes.ERRNO_FILE_NOT_FOUND))
    k.memory.write(out, stat_bytes(st))
    return driver_call(k, 0)


@hle(LIB, cost=costs.IO)
def sceIoChstat(k, path: CStr, stat_ptr: Ptr, bits: U32) -> int:
    r = k.io.resolve(path or "")
    if isinstance(r, int):
        return r
    return 0 if os.path.exists(r.host) else codes.signed(codes.ERRNO_FILE_NOT_FOUND)


@hle(LIB, cost=costs.IO)
def sceIoDopen(k, path: CStr) -> int:
    virtual = _virtual_folder(k, path or "")
    if virtual is not None:
        guest, children = virtual
        st = _virtual_stat(k)
        return k.io.new_fd(OpenFile(guest, "dir", entries=[(n, st) for n in [".", "..", *children]]))
    r = k.io.resolve(path or "")
    if isinstance(r, int):
        return r
    if not os.path.isdir(r.host):
        return codes.signed(codes.ERRNO_FILE_NOT_FOUND if not os.path.exists(r.host) else codes.ERRNO_NOT_A_DIRECTORY)
    names, hidden = r.listing()
    for name in hidden:
        k.warn_once(("hidden", r.host, name), f"sandbox: {r.guest.rstrip('/')}/{name} is a symbolic link that "
                    "leads outside the mapped folder: not listed")
    entries = []
    for name in [".", "..", *names]:
        try:
            st = os.stat(os.path.join(r.host, name)) if name not in (".", "..") else os.stat(r.host)
        except OSError:
            continue
        entries.append((name, st))
    folder = OpenFile(r.guest, "dir", entries=entries)
    folder.host = r.host
    return k.io.new_fd(folder)


PARENT_DIR_SIZE = 4096  # '..' reads 4096 bytes long, other folders 0 (measured: io/directory)
FAT_NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!@#$%^&'(){}-_`~")


def _one_case(part: str) -> bool:
    return part == part.lower() or part == part.upper()


def fat_listed_name(name: str) -> str:
    """The name the memory stick's FAT driver lists for a file copied from a PC: a name that
    fits 8.3 with each part in one case gets no long-name entry, so it reads back in
    capitals ('test.txt' -> 'TEST.TXT'); any other name keeps its long form (measured:
    io/directory). Files the PSP itself makes keep their case (io/io): callers pass those
    through. A file made by an earlier run reads back as if copied from a PC."""
    if name in (".", "..") or not set(name) <= FAT_NAME_CHARS | {"."}:
        return name
    base, dot, ext = name.partition(".")
    if "." in ext or len(base) > 8 or len(ext) > 3 or not base or (dot and not ext):
        return name
    return name.upper() if _one_case(base) and _one_case(ext) else name


@hle(LIB, cost=costs.IO)
def sceIoDread(k, fd: int, out: Ptr) -> int:
    f = k.io.files.get(fd)
    if f is None or f.kind != "dir":
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    if not f.entries:
        return 0
    name, st = f.entries.pop(0)
    k.memory.write(out, stat_bytes(st, PARENT_DIR_SIZE if name == ".." else None))
    made_here = f.host is not None and os.path.realpath(os.path.join(f.host, name)) in k.io.created
    raw = (name if made_here else fat_listed_name(name)).encode("utf-8")[:255] + b"\0"
    k.memory.write(out + STAT_SIZE, raw)
    return 1


@hle(LIB, cost=costs.IO)
def sceIoDclose(k, fd: int) -> int:
    f = k.io.files.get(fd)
    if f is None or f.kind != "dir":
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    del k.io.files[fd]
    return 0


def _path_op(k, path, op, creates=False) -> int:
    r = k.io.resolve(path or "")
    if isinstance(r, int):
        return r
    result = _host_op(op, r.host)
    if creates and result == 0:
        k.io.created.add(os.path.realpath(r.host))
    return driver_call(k, result)


def _host_op(op, host) -> int:
    """Run a host file operation; the PSP error code for what went wrong."""
    try:
        op(host)
    except FileExistsError:
        return codes.signed(codes.ERRNO_FILE_EXISTS)
    except FileNotFoundError:
        return codes.signed(codes.ERRNO_FILE_NOT_FOUND)
    except NotADirectoryError:
        return codes.signed(codes.ERRNO_NOT_A_DIRECTORY)
    except IsADirectoryError:
        return codes.signed(codes.ERRNO_IS_DIRECTORY)
    except OSError as exc:
        if exc.errno == 39:  # ENOTEMPTY
            return codes.signed(codes.ERRNO_DIRECTORY_NOT_EMPTY)
        return codes.signed(codes.ERRNO_IO_ERROR)
    return 0


@hle(LIB, cost=costs.IO)
def sceIoRemove(k, path: CStr) -> int:
    return _path_op(k, path, lambda h: (_ for _ in ()).throw(IsADirectoryError()) if os.path.isdir(h) else os.remove(h))


@hle(LIB, cost=costs.IO)
def sceIoMkdir(k, path: CStr, mode: int) -> int:
    return _path_op(k, path, os.mkdir, creates=True)


@hle(LIB, cost=costs.IO)
def sceIoRmdir(k, path: CStr) -> int:
    return _path_op(k, path, os.rmdir)


@hle(LIB, cost=costs.IO)
def sceIoRename(k, old: CStr, new: CStr) -> int:
    """The FAT driver keeps the file in its folder: only the new name's last part counts
    (measured: 'ms0:/a.txt' -> 'ms0:/PSP/b.txt' gives ms0:/b.txt)."""
    r_old = k.io.resolve(old or "")
    if isinstance(r_old, int):
        return r_old
    r_new = k.io.resolve(new or "")
    if isinstance(r_new, int):
        return r_new
    if r_old.device != r_new.device:
        return codes.signed(codes.CROSS_DEVICE)
    result = _rename(r_old, r_new, old)
    if result == 0:  # the new name is written as given
        k.io.created.add(os.path.realpath(os.path.join(os.path.dirname(r_old.host), r_new.guest.rsplit("/", 1)[-1])))
    return driver_call(k, result)


def _rename(r_old, r_new, old) -> int:
    name = r_new.guest.rsplit("/", 1)[-1]
    if any(c in (old or "") + name for c in "*?"):
        return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
    if name in ("", ".", ".."):
        return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
    target = os.path.join(os.path.dirname(r_old.host), name)
    if os.path.lexists(target):
        return codes.signed(codes.ERRNO_FILE_EXISTS)
    if not os.path.lexists(r_old.host):
        return codes.signed(codes.ERRNO_FILE_NOT_FOUND)
    try:
        os.rename(r_old.host, target)
    except OSError:
        return codes.signed(codes.ERRNO_IO_ERROR)
    return 0


@hle(LIB, cost=costs.IO)
def sceIoChdir(k, path: CStr) -> int:
    virtual = _virtual_folder(k, path or "")
    if virtual is not None:
        k.io.cwd = virtual[0]
        return 0
    try:
        device, parts = k.io.sandbox.normalise(path or "", k.io.cwd)
        k.io.sandbox.resolve(path or "", k.io.cwd)  # refuses a symbolic link that leads outside
    except SandboxRefusal as exc:
        k.io.refuse(str(exc))
        return codes.signed(REFUSED)
    except (Unmapped, UnknownDevice):
        pass  # no host folder to check: the device's own answer below
    if not k.io.sandbox.has_device(device):
        return k.io.resolve(path or "")  # the device's own error
    k.io.cwd = f"{device}:/" + "/".join(parts)  # measured: the firmware does not check that the folder exists
    return 0


@hle(LIB, cost=costs.IO)
def sceIoIoctl(k, fd: int, cmd: U32, inp: Ptr, inlen: int, out: Ptr, outlen: int) -> int:
    if fd not in k.io.files:
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    return codes.signed(codes.UNSUPPORTED_OPERATION)


MS_CHECK_INSERTED = 0x02025806
MS_GET_FREE_SPACE = 0x02425818
MS_REGISTER_CALLBACK = 0x02415821
MS_UNREGISTER_CALLBACK = 0x02415822
MS_CHECK_FAT_INSERTED = 0x02425823
MS_FREE_CLUSTERS = 0x100000  # reported free space: 1 M clusters of 32 KiB


@hle(LIB, cost=costs.IO)
def sceIoDevctl(k, device: CStr, cmd: U32, inp: Ptr, inlen: int, out: Ptr, outlen: int) -> int:
    dev = (device or "").lower().rstrip("/")
    if dev in ("emulator:", "kemulator:"):
        return _emulator_devctl(k, cmd, inp, inlen, out, outlen)
    if dev in ("mscmhc0:", "ms0:", "fatms0:"):
        result = _memstick_devctl(k, cmd, inp, inlen, out)
        if result is not None:
            return result
    k.warn_once(("devctl", dev, cmd), f"sceIoDevctl({dev!r}, 0x{cmd:08x}) is not supported")
    return codes.signed(codes.UNSUPPORTED_OPERATION)


MS_INSERTED = 1  # what an insert/eject callback is told: 1 inserted, 2 ejected


def _memstick_devctl(k, cmd, inp, inlen, out) -> int | None:
    """The memory stick's devctl commands (None: not one of them). The stick is always in:
    a registered insert/eject callback is notified so at once (measured: mstick/mstick)."""
    if cmd in (MS_CHECK_INSERTED, MS_CHECK_FAT_INSERTED):
        if out:
            k.memory.write_u32(out, 1)
        return 0
    if cmd == MS_GET_FREE_SPACE:  # {max clusters, free clusters, max sectors, sector size, sectors a cluster}
        info = k.memory.read_u32(inp)
        for i, v in enumerate((MS_FREE_CLUSTERS, MS_FREE_CLUSTERS, MS_FREE_CLUSTERS, 512, 64)):
            k.memory.write_u32(info + 4 * i, v)
        return 0
    if cmd in (MS_REGISTER_CALLBACK, MS_UNREGISTER_CALLBACK):
        cb = k.get(k.memory.read_u32(inp), Callback) if inlen >= 4 and k.memory.is_valid(inp, 4) else None
        if cb is None:
            return codes.signed(codes.ERRNO_INVALID_ARGUMENT)
        if cmd == MS_REGISTER_CALLBACK:
            k.threads.notify(cb, MS_INSERTED)
        return 0
    return None


def _emulator_devctl(k, cmd, inp, inlen, out, outlen) -> int:
    # the test harness's channel costs what a plain syscall does, not a file system call
    refund = costs.IO - costs.SYSCALL
    k.cpu.counters[0] -= refund
    k.hle_cycles -= refund
    if cmd == EMU_IS_EMULATOR:
        return 0
    if cmd == EMU_GET_HAS_DISPLAY:
        if out and outlen >= 4:
            k.memory.write_u32(out, 1 if k.options.has_display else 0)
        return 0
    if cmd == EMU_SEND_OUTPUT:
        if inlen > 0:
            k.io.write_stream("harness", k.memory.read(inp, inlen))
        return 0
    if cmd == EMU_EMIT_SCREENSHOT:
        k.display.emit_screenshot()
        return 0
    if cmd == EMU_SEND_CTRLDATA:
        return 0
    return codes.signed(codes.UNSUPPORTED_OPERATION)


@hle(LIB)
def sceIoGetDevType(k, fd: int) -> int:
    f = k.io.files.get(fd)
    if f is None:
        return codes.signed(codes.BAD_FILE_DESCRIPTOR)
    return 0x20 if f.kind in ("file", "dir") else 0x1  # block device / character device


@hle(LIB)
def sceIoSync(k, device: CStr, flag: U32) -> int:
    k.io.flush_all()
    dirty = [f for f in k.io.files.values() if f.dirty]
    for f in dirty:
        f.dirty = False
    return driver_call(k, 0, memstick.SYNC_US) if dirty else 0


@hle(LIB)
def sceIoAssign(k, alias: CStr, dev1: CStr, dev2: CStr, mode: int, arg: Ptr, arglen: int) -> int:
    return 0


@hle(LIB)
def sceIoUnassign(k, alias: CStr) -> int:
    return 0
