"""Kernel.run plans a pass (the next timer, the cycle limit, the idle limit, who runs) again
only after a change: a system call that changed nothing it rests on (ThreadManager.changes,
the top timer, the clock, the CPU's hold, the limits) goes straight back into the run loop,
and Kernel.on_syscall leaves the scheduler alone. A program of many such calls between
calls that do change things (a thread made ready, waits, interrupts off and on, a vblank
handler, GE lists, memory-stick reads) ends with the same text, statistics and registers
as when every pass plans and every call reschedules."""

import itertools

import pytest

from allegrex.hle import threads
from allegrex.sdk import build
from helpers import run_ms0_program

PROGRAM = r"""
#include <stdio.h>
#include <pspsdk.h>
#include <pspuser.h>
#include <pspge.h>
PSP_MODULE_INFO("calls", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);

static volatile unsigned sink, handled, turns;
static SceUID sema;

static int worker(SceSize args, void *argp)
{
    int i;
    for (i = 0; i < 16; i++) {
        sceKernelWaitSema(sema, 1, 0);
        turns++;
        sink += (unsigned)sceGeEdramGetAddr();
    }
    return 0;
}

static void on_vblank(int sub, void *arg) { handled++; sink += (unsigned)sceGeEdramGetAddr(); }

int main(void)
{
    static unsigned list[64] __attribute__((aligned(16)));
    static unsigned at[64], seen[64];
    char buf[16];
    int i, j, flags;
    SceUID fd = sceIoOpen("data.bin", PSP_O_RDONLY, 0);
    sema = sceKernelCreateSema("turns", 0, 0, 100, 0);
    sceKernelStartThread(sceKernelCreateThread("worker", worker, 0x30, 0x1000, 0, 0), 0, 0);
    sceKernelRegisterSubIntrHandler(PSP_VBLANK_INT, 0, on_vblank, 0);
    sceKernelEnableSubIntr(PSP_VBLANK_INT, 0);
    for (i = 0; i < 64; i++) {
        for (j = 0; j < 300; j++) sink += (unsigned)sceGeEdramGetAddr();  /* calls that change nothing */
        if (i % 4 == 0) sceKernelSignalSema(sema, 1);  /* the worker ready, behind main: it runs when main waits */
        if (i % 4 == 1) sceKernelDelayThread(100 + 50 * i);
        if (i % 8 == 2) {
            flags = sceKernelCpuSuspendIntr();
            for (j = 0; j < 50; j++) sink += (unsigned)sceGeEdramGetAddr();
            sceKernelCpuResumeIntr(flags);
        }
        if (i % 8 == 3) sink += sceGeListEnQueue(list, list, -1, 0);
        if (i % 8 == 7) sink += sceGeListUpdateStallAddr(1, list + i);
        if (i % 4 == 3) sink += sceIoRead(fd, buf, 16);
        at[i] = sceKernelGetSystemTimeLow();
        seen[i] = handled * 1000 + turns;
    }
    for (i = 0; i < 64; i++) printf("%d %u %u\n", i, at[i], seen[i]);
    printf("%u\n", sink);
    sceIoClose(fd);
    return 0;
}
"""


@pytest.fixture(scope="module")
def eboot(tmp_path_factory):
    game = tmp_path_factory.mktemp("calls") / "ms0" / "PSP" / "GAME" / "calls"
    game.mkdir(parents=True)
    (game / "main.c").write_text(PROGRAM)
    (game / "data.bin").write_bytes(bytes(range(256)) * 8)
    return build([game / "main.c"], game / "EBOOT.PBP")


def run(eboot, monkeypatch, short: bool):
    """(text, stats, registers, the passes Kernel.run planned)."""
    plans = []
    cpu_free = threads.ThreadManager.cpu_free  # asked once per planned pass
    monkeypatch.setattr(threads.ThreadManager, "cpu_free", lambda self: (plans.append(1), cpu_free(self))[1])
    if not short:  # a change at every look: every pass plans, every call reschedules
        counter = itertools.count()
        monkeypatch.setattr(threads.ThreadManager, "changes", property(lambda self: next(counter),
                                                                       lambda self, value: None), raising=False)
    try:
        return (*run_ms0_program(eboot), len(plans))
    finally:
        monkeypatch.undo()


def test_calls_that_change_nothing_skip_the_plan_and_end_the_same(eboot, monkeypatch):
    text, stats, regs, planned = run(eboot, monkeypatch, short=True)
    text_planned, stats_planned, regs_planned, planned_always = run(eboot, monkeypatch, short=False)
    calls = sum(stats["hle_calls"].values())
    assert calls > 64 * 300 and planned_always > 64 * 300  # every Python-answered call planned its pass
    assert planned < planned_always // 10  # most calls changed nothing
    assert text == text_planned
    assert stats == stats_planned
    assert (regs == regs_planned).all()
    rows = [line.split() for line in text.splitlines()[:64]]
    assert int(rows[-1][2]) // 1000 > 0 and int(rows[-1][2]) % 1000 == 16  # the handler ran, the worker took its 16 turns
