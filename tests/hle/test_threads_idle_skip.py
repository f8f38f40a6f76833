"""A timed wait of a thread that runs alone (a delay, the memory stick's driver time of a
file read, a PLL settle: allegrex.hle.threads.IDLE_SKIP_KINDS) is skipped to its timeout
inside the call, and ends exactly as blocking, Kernel.run's idle skip, the wake-up and the
switch back end it: the same text, statistics (cycles, idle, memory-stick and HLE cycles,
calls, every counter) and registers as a run where every such wait blocks; waits with
another thread ready, a timer falling due first or callbacks allowed block as before."""


import pytest

from allegrex.hle import threads
from allegrex.sdk import build
from helpers import run_ms0_program

PROGRAM = r"""
#include <stdio.h>
#include <pspsdk.h>
#include <pspuser.h>
PSP_MODULE_INFO("waits", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);

static volatile unsigned sink, handled;

static int worker(SceSize args, void *argp)
{
    int i;
    for (i = 0; i < 9; i++) sceKernelDelayThread(1000);
    return 0;
}

static void on_vblank(int sub, void *arg) { handled++; }

int main(void)
{
    static int got[48];
    static unsigned at[48], sum[48];
    unsigned char buf[80];
    int i, j;
    SceUID fd = sceIoOpen("data.bin", PSP_O_RDONLY, 0);
    for (i = 0; i < 48; i++) {
        if (i == 12) sceKernelStartThread(sceKernelCreateThread("worker", worker, 0x18, 0x1000, 0, 0), 0, 0);
        if (i == 24) {
            sceKernelRegisterSubIntrHandler(PSP_VBLANK_INT, 0, on_vblank, 0);
            sceKernelEnableSubIntr(PSP_VBLANK_INT, 0);
        }
        if (i == 30) sceKernelReleaseSubIntrHandler(PSP_VBLANK_INT, 0);
        if (i == 36) scePowerSetClockFrequency(333, 333, 166);  /* a new clock, and the PLL's settle wait */
        if (i == 42) sceIoLseek32(fd, -20, PSP_SEEK_END);  /* a short read */
        for (j = 0; j < 300 * (i % 4); j++) sink += j;
        if (i % 3 == 0) got[i] = sceIoRead(fd, buf, 16 + i);
        else if (i % 3 == 1) got[i] = sceKernelDelayThread(i * 40);  /* below and above the shortest delay */
        else got[i] = sceKernelDelayThreadCB(500);  /* callbacks allowed: it blocks */
        at[i] = sceKernelGetSystemTimeLow();
        for (j = 0, sum[i] = 0; j < 16; j++) sum[i] = sum[i] * 31 + buf[j];
    }
    for (i = 0; i < 48; i++) printf("%d %d %u %08x %u\n", i, got[i], at[i], sum[i], handled);
    sceIoClose(fd);
    return 0;
}
"""
# waits of IDLE_SKIP_KINDS without callbacks: main's open, 16 reads, 16 delays, the PLL's and
# the close, the worker's 9 delays; those the other thread's delays (from i = 12) or the
# vblank handler's timer come first in block
TIMED_WAITS, ALONE = 44, 29
DATA = bytes(range(256)) * 8


def checksum(data: bytes) -> int:
    """The program's sum over the first 16 bytes of its buffer."""
    total = 0
    for b in data[:16]:
        total = (total * 31 + b) & 0xFFFFFFFF
    return total


@pytest.fixture(scope="module")
def eboot(tmp_path_factory):
    game = tmp_path_factory.mktemp("waits") / "ms0" / "PSP" / "GAME" / "waits"
    game.mkdir(parents=True)
    (game / "main.c").write_text(PROGRAM)
    (game / "data.bin").write_bytes(DATA)
    return build([game / "main.c"], game / "EBOOT.PBP")


def run(eboot, monkeypatch, skip: bool):
    """(text, stats, registers, the kinds of the waits skipped or, with skip=False, of the
    ones that could have been)."""
    waits = []
    tm = threads.ThreadManager
    if skip:
        skip_to_timeout = tm._skip_to_timeout
        monkeypatch.setattr(tm, "_skip_to_timeout",
                            lambda self, w, now: (waits.append(w.kind), skip_to_timeout(self, w, now)))
    else:
        monkeypatch.setattr(tm, "_waits_alone", lambda self, t, w: bool(waits.append(w.kind)) if w.kind in
                            threads.IDLE_SKIP_KINDS and not w.cb else False)
    try:
        return (*run_ms0_program(eboot), waits)
    finally:
        monkeypatch.undo()


def test_a_lone_threads_timed_waits_skip_to_their_end_as_blocking_would(eboot, monkeypatch):
    text, stats, regs, skipped = run(eboot, monkeypatch, skip=True)
    text_blocked, stats_blocked, regs_blocked, timed = run(eboot, monkeypatch, skip=False)
    assert (len(timed), len(skipped)) == (TIMED_WAITS, ALONE) and set(skipped) == {"io", "delay"}
    assert text == text_blocked
    assert stats == stats_blocked
    assert (regs == regs_blocked).all()
    rows = [line.split() for line in text.splitlines()]
    assert [int(r[1]) for r in rows[:3]] == [16, 0, 0]  # a read's byte count, the delays' 0
    assert [int(rows[i][3], 16) for i in (0, 3)] == [checksum(DATA), checksum(DATA[16:])]  # the file's bytes
    assert int(rows[42][1]) == 20  # the read past the seek near the end: what was left
    assert stats["memstick_cycles"] > 0 and stats["idle_cycles"] > 0
    assert stats["cpu_mhz"] == 333
