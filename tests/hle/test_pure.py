"""System calls the run loop answers itself (allegrex.hle.pure) end exactly as when Python
answers them (Kernel.on_syscall): the same results, registers, cycle count, counters and
call statistics, with timers and thread switches in between, in the interpreter and in
compiled regions (which hold the calls)."""

import io

import pytest

from allegrex.commands.run import load_program
from allegrex.cpu.jit import Jit
from allegrex.hle import pure
from allegrex.hle.kernel import RunOptions
from allegrex.sdk import build

PROGRAM = r"""
#include <stdio.h>
#include <pspsdk.h>
PSP_MODULE_INFO("pure", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);

static volatile unsigned sink;

int main(void)
{
    static unsigned low[48];
    static long long wide[48];
    int i, j;
    for (i = 0; i < 48; i++) {
        low[i] = sceKernelGetSystemTimeLow();
        for (j = 0; j < 37 * i; j++) sink += j;  /* some work between two readings */
        wide[i] = sceKernelGetSystemTimeWide();
        if (i % 16 == 15) sceKernelDelayThread(1000);  /* a timer and an idle skip */
    }
    for (i = 0; i < 48; i++) printf("%u %lld\n", low[i], wide[i]);
    return 0;
}
"""


@pytest.fixture(scope="module")
def eboot(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pure")
    source = folder / "main.c"
    source.write_text(PROGRAM)
    return build([source], folder / "EBOOT.PBP")


def run(eboot, in_loop: bool, jit: bool = False):
    out = io.StringIO()
    machine, kernel = load_program(str(eboot), "psp-2000", RunOptions(stdout=out, stderr=io.StringIO()))
    machine.jit = Jit(machine._read_word, threshold=3 if jit else 0, compile_after=0)
    if not in_loop:  # Python answers every call
        kernel.syscall_table[pure.KIND:pure.KIND + pure.CODES] = 0
    stop = kernel.run(max_seconds=5)
    assert stop.kind in ("exit", "threads-ended"), stop
    assert (machine.jit.instructions > 0) == jit
    loop_calls = int(kernel.syscall_table[pure.COUNT:pure.COUNT + pure.CODES].sum())
    return out.getvalue(), kernel.stats(), machine.cpu.regs.copy(), loop_calls


@pytest.fixture(scope="module")
def answered_by_python(eboot):
    return run(eboot, in_loop=False)


@pytest.mark.parametrize("jit", [False, True], ids=["interpreted", "compiled-regions"])
def test_time_calls_answered_in_the_run_loop_end_as_python_answers_them(eboot, answered_by_python, jit):
    text, stats, regs, loop_calls = run(eboot, in_loop=True, jit=jit)
    text_py, stats_py, regs_py, loop_calls_py = answered_by_python
    assert loop_calls == 96 and loop_calls_py == 0  # every reading came from the loop, or none
    assert text == text_py
    assert stats == stats_py  # cycles, HLE cycles and calls (by name), every counter
    assert (regs == regs_py).all()
    readings = [tuple(map(int, line.split())) for line in text.splitlines()]
    assert len(readings) == 48
    assert all(0 <= wide - low < 10_000 for low, wide in readings)  # read with a little work between
    times = [t for low, wide in readings for t in (low, wide)]
    assert times == sorted(times) and times[-1] - times[0] >= 3000  # the three 1 ms delays
