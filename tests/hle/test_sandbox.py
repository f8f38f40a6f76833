"""The file sandbox: guest paths reach only the mapped folders; every escape attempt is
refused with the PSP error code and reported, and nothing outside is read or written."""

import io
import os

import pytest

from allegrex.hle import codes
from allegrex.hle.io import O_CREAT, O_RDONLY, O_TRUNC, O_WRONLY
from allegrex.hle.kernel import RunOptions
from helpers import call, make_kernel

IO = "IoFileMgrForUser"
PATH = 0x08A00000
BUF = 0x08A10000
REFUSED = codes.signed(codes.ERRNO_NO_PERM)


@pytest.fixture
def world(tmp_path):
    """ms0 and host0 folders, a secret file beside them, a kernel with its stderr captured."""
    ms0, host0 = tmp_path / "ms0", tmp_path / "host0"
    ms0.mkdir()
    host0.mkdir()
    (tmp_path / "secret.txt").write_text("top secret")
    (ms0 / "inside.txt").write_text("hello")
    err = io.StringIO()
    k = make_kernel(RunOptions(ms0=str(ms0), host0=str(host0), stderr=err))
    k.io.set_program_folder("ms0:/PSP/GAME/TEST", None)
    (ms0 / "PSP" / "GAME" / "TEST").mkdir(parents=True)
    return k, tmp_path, err


def open_(k, path, flags=O_RDONLY):
    k.memory.write(PATH, path.encode() + b"\0")
    return call(k, IO, "sceIoOpen", PATH, flags, 0o777)


ESCAPES = [
    "ms0:/../secret.txt",
    "ms0:/PSP/../../secret.txt",
    "host0:/../secret.txt",
    "../../../../secret.txt",  # relative to ms0:/PSP/GAME/TEST
    "ms0:/a/../../secret.txt",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_dotdot_above_the_root_is_refused_and_reported(world, path):
    k, tmp, err = world
    assert open_(k, path) == REFUSED
    assert open_(k, path, O_WRONLY | O_CREAT | O_TRUNC) == REFUSED
    assert "sandbox: refused" in err.getvalue() and path in err.getvalue()
    assert k.sandbox_refusals


def test_symlink_out_of_the_mapped_folder_is_refused(world):
    k, tmp, err = world
    os.symlink(tmp / "secret.txt", tmp / "ms0" / "link.txt")
    os.symlink(tmp, tmp / "ms0" / "linkdir")
    assert open_(k, "ms0:/link.txt") == REFUSED
    assert open_(k, "ms0:/linkdir/secret.txt") == REFUSED
    assert open_(k, "ms0:/linkdir/new.txt", O_WRONLY | O_CREAT) == REFUSED
    assert not (tmp / "new.txt").exists()
    assert "symbolic link" in err.getvalue()


def test_absolute_host_paths_stay_inside_the_device(world):
    k, tmp, err = world
    # "/…" is relative to the current device (ms0:), never the host's root
    assert open_(k, str(tmp / "secret.txt")) == codes.signed(codes.ERRNO_FILE_NOT_FOUND)
    assert open_(k, "/etc/passwd") == codes.signed(codes.ERRNO_FILE_NOT_FOUND)


@pytest.mark.parametrize("path", ["flash0:/kd/loadexec.prx", "disc0:/PSP_GAME/SYSDIR/EBOOT.BIN",
                                  "C:/Windows/win.ini", "proc:/self"])
def test_other_devices_are_refused(world, path):
    k, tmp, err = world
    assert open_(k, path) == codes.signed(codes.NO_SUCH_DEVICE)
    assert "sandbox: refused" in err.getvalue() and path in err.getvalue()


def test_writes_land_only_inside_the_mapped_folders(world):
    k, tmp, err = world
    outside_before = sorted(os.listdir(tmp))
    fd = open_(k, "data.bin", O_WRONLY | O_CREAT | O_TRUNC)  # relative: the program's folder
    assert fd >= 3
    k.memory.write(BUF, b"payload")
    assert call(k, IO, "sceIoWrite", fd, BUF, 7) == 7
    assert call(k, IO, "sceIoClose", fd) == 0
    assert (tmp / "ms0" / "PSP" / "GAME" / "TEST" / "data.bin").read_bytes() == b"payload"
    fd = open_(k, "host0:/out.txt", O_WRONLY | O_CREAT)
    assert fd >= 3 and call(k, IO, "sceIoClose", fd) == 0
    assert (tmp / "host0" / "out.txt").exists()
    assert sorted(os.listdir(tmp)) == outside_before


def test_reading_inside_works_and_missing_files_give_the_psp_code(world):
    k, tmp, err = world
    fd = open_(k, "ms0:/inside.txt")
    assert call(k, IO, "sceIoRead", fd, BUF, 100) == 5
    assert k.memory.read(BUF, 5) == b"hello"
    assert open_(k, "ms0:/nothere.txt") == codes.signed(0x80010002)
    assert not err.getvalue()


def test_rename_and_remove_cannot_reach_outside(world):
    k, tmp, err = world
    k.memory.write(PATH, b"ms0:/inside.txt\0")
    k.memory.write(PATH + 0x100, b"ms0:/../stolen.txt\0")
    assert call(k, IO, "sceIoRename", PATH, PATH + 0x100) == REFUSED
    k.memory.write(PATH, b"ms0:/../secret.txt\0")
    assert call(k, IO, "sceIoRemove", PATH) == REFUSED
    k.memory.write(PATH, b"ms0:/../\0")
    assert call(k, IO, "sceIoDopen", PATH) == REFUSED
    assert call(k, IO, "sceIoMkdir", PATH, 0o777) == REFUSED
    assert (tmp / "secret.txt").read_text() == "top secret"
    assert not (tmp / "stolen.txt").exists()


def test_strict_mode_stops_the_run_on_a_refusal(tmp_path):
    err = io.StringIO()
    k = make_kernel(RunOptions(ms0=str(tmp_path), stderr=err, strict=True))
    open_(k, "ms0:/../x")
    assert k.stop is not None and k.stop.kind == "sandbox"


def listing(k, path):
    """(name, st_attr, st_size) of each entry sceIoDread gives for `path`."""
    k.memory.write(PATH, path.encode() + b"\0")
    fd = call(k, IO, "sceIoDopen", PATH)
    assert fd > 0, hex(fd & 0xFFFFFFFF)
    entries = []
    while call(k, IO, "sceIoDread", fd, BUF) == 1:
        entries.append((k.memory.read_cstring(BUF + 88).decode(), k.memory.read_u32(BUF + 4),
                        k.memory.read_u32(BUF + 8)))
    call(k, IO, "sceIoDclose", fd)
    return entries


def test_directory_listing_has_dot_entries_and_fat_names(world):
    k, tmp, err = world
    (tmp / "ms0" / "Mixed.txt").write_text("x")
    (tmp / "ms0" / "longername.text").write_text("x")
    entries = {e[0]: e[1:] for e in listing(k, "ms0:/")}
    # a PC-copied 8.3 name in one case reads back in capitals; FAT attributes only
    assert sorted(entries) == sorted([".", "..", "PSP", "INSIDE.TXT", "Mixed.txt", "longername.text"])
    assert entries[".."] == (0x10, 4096) and entries["PSP"] == (0x10, 0) and entries["INSIDE.TXT"] == (0x20, 5)


def test_files_the_program_makes_keep_their_case_and_any_case_opens(world):
    k, tmp, err = world
    assert open_(k, "ms0:/save.dat", O_WRONLY | O_CREAT) > 0
    k.memory.write(PATH, b"ms0:/slot\0")
    assert call(k, IO, "sceIoMkdir", PATH, 0o777) == 0
    names = [e[0] for e in listing(k, "ms0:/")]
    assert "save.dat" in names and "slot" in names and "INSIDE.TXT" in names
    assert open_(k, "ms0:/INSIDE.TXT") > 0 and open_(k, "ms0:/Inside.Txt") > 0  # FAT ignores case


def test_an_unmapped_memory_stick_has_the_psp_folders(tmp_path):
    k = make_kernel(RunOptions(stderr=io.StringIO()))
    k.io.set_program_folder("ms0:/PSP/GAME/HELLO", str(tmp_path))
    assert [e[0] for e in listing(k, "ms0:/")] == [".", "..", "PSP"]
    assert [e[0] for e in listing(k, "ms0:/PSP")] == [".", "..", "GAME", "SAVEDATA"]
    assert [e[0] for e in listing(k, "ms0:/PSP/GAME")] == [".", "..", "HELLO"]
    assert [e[0] for e in listing(k, "ms0:/PSP/SAVEDATA")] == [".", ".."]


def test_symlinks_that_lead_outside_are_not_listed_entered_or_read(world):
    """A listing leaves out an entry that leads outside the mapped folder, as if it were
    absent (what it points at stays unseen, and opening it is refused anyway); Chdir,
    Dopen, Getstat and Open through it are refused. A link that stays inside is listed as
    what it points at."""
    k, tmp, err = world
    (tmp / "outdir").mkdir()
    (tmp / "outdir" / "x.bin").write_bytes(bytes(1234))
    os.symlink(tmp / "secret.txt", tmp / "ms0" / "link.txt")
    os.symlink(tmp / "outdir", tmp / "ms0" / "linkdir")
    os.symlink(tmp / "ms0" / "inside.txt", tmp / "ms0" / "alias.txt")
    entries = {e[0]: e[1:] for e in listing(k, "ms0:/")}
    assert sorted(entries) == sorted([".", "..", "PSP", "INSIDE.TXT", "ALIAS.TXT"])
    assert entries["ALIAS.TXT"] == (0x20, 5)
    assert "ms0:/link.txt is a symbolic link that leads outside" in err.getvalue()
    for path in ("ms0:/link.txt", "ms0:/linkdir", "ms0:/linkdir/x.bin"):
        k.memory.write(PATH, path.encode() + b"\0")
        assert call(k, IO, "sceIoGetstat", PATH, BUF) == REFUSED
        assert call(k, IO, "sceIoDopen", PATH) == REFUSED
        assert open_(k, path) == REFUSED
    cwd = k.io.cwd
    k.memory.write(PATH, b"ms0:/linkdir\0")
    assert call(k, IO, "sceIoChdir", PATH) == REFUSED and k.io.cwd == cwd
    k.memory.write(PATH, b"ms0:/not/there/yet\0")
    assert call(k, IO, "sceIoChdir", PATH) == 0  # a folder that does not exist is still accepted


def test_chdir_joins_a_path_without_device_to_the_cwd_and_checks_nothing(world):
    k, tmp, err = world
    k.memory.write(PATH, b"/PSP\0")
    assert call(k, IO, "sceIoChdir", PATH) == 0  # measured (io/io): "/x" is not the device root
    assert k.io.cwd == "ms0:/PSP/GAME/TEST/PSP"


def test_file_transfers_take_memory_stick_time(world):
    from allegrex.timing.clock import MEMSTICK_BYTES_PER_SECOND, MEMSTICK_OP_LATENCY_US
    k, tmp, err = world
    (tmp / "ms0" / "big.bin").write_bytes(bytes(180_000))
    fd = open_(k, "ms0:/big.bin")
    t0 = k.now_us()
    assert call(k, IO, "sceIoRead", fd, BUF, 180_000) == 180_000
    elapsed = k.now_us() - t0
    expected = MEMSTICK_OP_LATENCY_US + 180_000 * 1_000_000 // MEMSTICK_BYTES_PER_SECOND  # 0.1 s at 1.8 MB/s
    assert expected <= elapsed < expected + 50


def test_a_transfer_that_may_not_wait_for_the_memory_stick_fails_and_does_nothing(world):
    k, tmp, err = world  # measured: pspautotests intr/waits (a file on ms0:)
    fd = open_(k, "ms0:/new.txt", O_WRONLY | O_CREAT)
    k.memory.write(BUF, b"x")
    state = call(k, "ThreadManForUser", "sceKernelSuspendDispatchThread")
    assert call(k, IO, "sceIoWrite", fd, BUF, 1) == codes.signed(codes.WAIT_CAN_NOT_WAIT)
    assert call(k, IO, "sceIoWrite", 63, BUF, 1) == codes.signed(codes.BAD_FILE_DESCRIPTOR)  # checked first
    call(k, "ThreadManForUser", "sceKernelResumeDispatchThread", state)
    assert call(k, IO, "sceIoClose", fd) == 0
    assert (tmp / "ms0" / "new.txt").read_bytes() == b""
