"""The memory stick as a program sees it through the PSP's driver: how long each
sceIoRead / sceIoWrite request takes, and that the CPU does the copying.

MEASURED on a PSP-2000 (the published hardware notes of the llama2 port that runs a
90M-parameter model, quoted in issue 19): large sequential reads run at about 7-8 MB/s,
reads of 256 KiB at scattered offsets at about 4.6 MB/s, the driver copies on the CPU
(an asynchronous read does not overlap computation), and a synced write costs tens of
milliseconds. MB is 10^6 bytes.

The model, per request:
- read of n bytes: REQUEST_US + (SEEK_US unless it starts where the previous transfer on
  that file ended) + n / READ_BYTES_PER_SECOND. SEEK_US is derived so that a scattered
  256 KiB read takes exactly the measured 4.6 MB/s; a sequential 256 KiB read then runs
  at 7.4 MB/s, and 64 KiB requests at 7.1 MB/s.
- write of n bytes: REQUEST_US + n / WRITE_BYTES_PER_SECOND (ESTIMATE: no write rate
  was published), and SYNC_US when a written file is closed or synced.
- a request moving no data (open, close, a missing file): REQUEST_US.
The whole time holds the CPU (allegrex/hle/io.py): no other thread runs meanwhile.
"""

READ_BYTES_PER_SECOND = 7_500_000  # MEASURED: large sequential reads, 7-8 MB/s (the middle)
SCATTERED_READ_BYTES_PER_SECOND = 4_600_000  # MEASURED: 256 KiB reads at scattered offsets
SCATTERED_READ_BYTES = 256 * 1024
REQUEST_US = 400  # ESTIMATE: per request (command, FAT lookup, sector setup)
SEEK_US = round(SCATTERED_READ_BYTES * 1e6 / SCATTERED_READ_BYTES_PER_SECOND
                - SCATTERED_READ_BYTES * 1e6 / READ_BYTES_PER_SECOND) - REQUEST_US  # derived: 21,635 us
WRITE_BYTES_PER_SECOND = 1_800_000  # ESTIMATE: sustained write rate (the former read/write estimate)
SYNC_US = 30_000  # MEASURED "tens of milliseconds" for a synced write; we take 30 ms


def read_us(nbytes: int, sequential: bool = True) -> int:
    """Microseconds of one read request of `nbytes`; `sequential`: it continues the
    previous transfer on the same file (no seek)."""
    _check(nbytes)
    return REQUEST_US + (0 if sequential else SEEK_US) + nbytes * 1_000_000 // READ_BYTES_PER_SECOND


def write_us(nbytes: int) -> int:
    """Microseconds of one write request of `nbytes` (the sync is SYNC_US on its own)."""
    _check(nbytes)
    return REQUEST_US + nbytes * 1_000_000 // WRITE_BYTES_PER_SECOND


def memstick_cycles(nbytes: int, cpu_mhz: int) -> int:
    """CPU cycles that reading `nbytes` sequentially takes at the CPU clock in force (the
    CPU is busy copying), as one request."""
    return read_us(nbytes) * cpu_mhz


def _check(nbytes: int) -> None:
    if nbytes < 0:
        raise ValueError("byte count must be >= 0")
