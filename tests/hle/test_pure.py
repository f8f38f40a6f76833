"""System calls the run loop answers itself (allegrex.hle.pure) end exactly as when Python
answers them (Kernel.on_syscall): the same results, registers, memory, cycle count,
counters and call statistics, with timers and thread switches in between, in the
interpreter and in compiled regions (which hold the calls)."""

import io

import pytest

from allegrex.commands.run import load_program
from allegrex.cpu.decode import SEM
from allegrex.cpu.jit import Jit
from allegrex.cpu.fields import code_of
from allegrex.cpu.jit.region import discover
from allegrex.hle import pure
from allegrex.hle.ctrl import parse_script
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


# Pad peeks (the loop answers them from the input script): both calls, 1 and 3 records, digital
# and analog mode, vblank and timed sampling, and the calls Python answers instead (a size it
# refuses, a buffer that is not word-aligned), with button presses and stick moves between.
PAD_PROGRAM = r"""
#include <stdio.h>
#include <pspsdk.h>
PSP_MODULE_INFO("pad", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);

static volatile unsigned sink;

int main(void)
{
    static SceCtrlData pads[64][3];
    static int got[64];
    static unsigned char odd[64];
    int i, j;
    for (i = 0; i < 64; i++) {
        if (i == 16) sceCtrlSetSamplingMode(1);
        if (i == 40) sceCtrlSetSamplingCycle(7000);
        if (i % 8 == 3) got[i] = sceCtrlPeekBufferNegative(pads[i], 3);
        else if (i % 8 == 5) got[i] = sceCtrlPeekBufferPositive(pads[i], 0);
        else if (i % 8 == 6) got[i] = sceCtrlPeekBufferPositive((SceCtrlData *)(odd + 2), 1);
        else got[i] = sceCtrlPeekBufferPositive(pads[i], i % 4 == 0 ? 3 : 1);
        for (j = 0; j < 500 * (i % 5); j++) sink += j;
        sceKernelDelayThread(9000);
    }
    for (i = 0; i < 64; i++)
        for (j = 0; j < 3; j++)
            printf("%d %d %u %08x %d %d\n", i, got[i], pads[i][j].TimeStamp, pads[i][j].Buttons,
                   pads[i][j].Lx, pads[i][j].Ly);
    for (j = 0; j < 20; j++) printf("%02x", odd[j]);  /* the record Python wrote at odd + 2 */
    printf("\n");
    return 0;
}
"""
PAD_INPUT = """
50ms CROSS for 100ms
120ms START analog 10 250
200ms UP+LEFT for 30ms analog 0 0
300ms TRIANGLE for 200ms
450ms R analog 200 40
"""
# Vblank waits (the loop answers them with the idle skip when the thread runs alone until
# the vblank): waits alone, with frame buffers set for the next frame (latched at the vblank),
# with a worker thread whose delays fall due first, with a vblank interrupt handler (a timer
# each vblank), and after both went away; the time after each wait and the frame on screen.
VBLANK_PROGRAM = r"""
#include <stdio.h>
#include <pspsdk.h>
#include <pspuser.h>
PSP_MODULE_INFO("vblank", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);

static volatile unsigned sink, handled;

static int worker(SceSize args, void *argp)
{
    int i;
    for (i = 0; i < 8; i++) {
        sceKernelDelayThread(7000);
        sink += i;
    }
    return 0;
}

static void on_vblank(int sub, void *arg) { handled++; }

int main(void)
{
    static unsigned got[40], at[40], shown[40], counted[40];
    void *top;
    int stride, format, i, j;
    for (i = 0; i < 40; i++) {
        if (i == 8) sceKernelStartThread(sceKernelCreateThread("worker", worker, 0x18, 0x1000, 0, 0), 0, 0);
        if (i == 20) {
            sceKernelRegisterSubIntrHandler(PSP_VBLANK_INT, 0, on_vblank, 0);
            sceKernelEnableSubIntr(PSP_VBLANK_INT, 0);
        }
        if (i == 26) sceKernelReleaseSubIntrHandler(PSP_VBLANK_INT, 0);
        if (i % 3 == 1) sceDisplaySetFrameBuf((void *)(0x04000000 + (i & 1) * 0x88000), 512, 3, 1);
        for (j = 0; j < 700 * (i % 5); j++) sink += j;
        got[i] = sceDisplayWaitVblankStart();
        at[i] = sceKernelGetSystemTimeLow();
        sceDisplayGetFrameBuf(&top, &stride, &format, 0);
        shown[i] = (unsigned)top;
        counted[i] = handled;
    }
    for (i = 0; i < 40; i++) printf("%d %u %u %08x %u\n", got[i], at[i], i ? at[i] - at[i - 1] : 0, shown[i], counted[i]);
    return 0;
}
"""
# of the 40, Python answers the 4 waits (i = 8..11) a worker's delay falls due in and the 7
# (i = 20..26) the vblank handlers' timer comes first in (armed once more before its release)
VBLANK_WAITS_IN_LOOP = 29
# of the 48 reads, Python answers the 6 of size 0 and the 2 a worker's delay falls due before
PAD_READS_IN_LOOP = 40
# Pad reads (the loop answers them: at once with the samples not yet read, or with the idle
# skip to the next sample when the thread runs alone until then): 1 and 3 records, after a
# delay that let samples pile up, digital and analog mode, vblank and timed sampling, a size
# Python refuses, and reads while a worker's delays fall due first, with the script's input.
READ_PROGRAM = r"""
#include <stdio.h>
#include <pspsdk.h>
PSP_MODULE_INFO("read", PSP_MODULE_USER, 1, 0);
PSP_MAIN_THREAD_ATTR(PSP_THREAD_ATTR_USER);

static volatile unsigned sink;

static int worker(SceSize args, void *argp)
{
    int i;
    for (i = 0; i < 6; i++) sceKernelDelayThread(4000);
    return 0;
}

int main(void)
{
    static SceCtrlData pads[48][3];
    static int got[48];
    static unsigned at[48];
    int i, j;
    for (i = 0; i < 48; i++) {
        if (i == 12) sceKernelStartThread(sceKernelCreateThread("worker", worker, 0x18, 0x1000, 0, 0), 0, 0);
        if (i == 24) sceCtrlSetSamplingMode(1);
        if (i == 32) sceCtrlSetSamplingCycle(7000);
        if (i % 6 == 5) sceKernelDelayThread(40000);  /* samples pile up: the next read returns them at once */
        for (j = 0; j < 400 * (i % 3); j++) sink += j;
        got[i] = sceCtrlReadBufferPositive(pads[i], i % 8 == 6 ? 0 : (i % 6 == 5 || i % 4 == 3 ? 3 : 1));
        at[i] = sceKernelGetSystemTimeLow();
    }
    for (i = 0; i < 48; i++)
        for (j = 0; j < 3; j++)
            printf("%d %d %u %u %08x %d %d\n", i, got[i], at[i], pads[i][j].TimeStamp, pads[i][j].Buttons,
                   pads[i][j].Lx, pads[i][j].Ly);
    return 0;
}
"""
PAD_PEEKS_IN_LOOP = 48  # of the 64: the refused sizes (i % 8 == 5) and odd buffers (6) go to Python


def _build(folder, text):
    source = folder / "main.c"
    source.write_text(text)
    return build([source], folder / "EBOOT.PBP")


@pytest.fixture(scope="module")
def eboot(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("pure"), PROGRAM)


@pytest.fixture(scope="module")
def vblank_eboot(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("vblank"), VBLANK_PROGRAM)


@pytest.fixture(scope="module")
def read_eboot(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("read"), READ_PROGRAM)


@pytest.fixture(scope="module")
def pad_eboot(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("pad"), PAD_PROGRAM)


class OneCallRegion(Jit):
    """Compiles one region, the first to get hot that holds a system call the loop answers:
    the code under test. (Compiling every hot loop, printf's too, took minutes of a cold
    test run: a region costs ~15 s of CPU to compile.)"""

    def __init__(self, kernel, **options):
        super().__init__(kernel.machine._read_word, **options)
        self.kernel = kernel

    def region_at(self, pc, timed, profile):
        if self.regions:
            self.reject(pc)
            return None
        region = discover(pc, self.read_word)
        codes = [] if region is None else [code_of(i.word) - pure.SYSCALL_BASE for b in region.blocks
                                           for i in b.instructions if i.sem == SEM["syscall"]]
        if not any(0 <= code < pure.CODES and self.kernel.syscall_table[pure.KIND + code] for code in codes):
            self.reject(pc)
            return None
        return super().region_at(pc, timed, profile)


def run(eboot, in_loop: bool, jit: bool = False, input_events=()):
    out = io.StringIO()
    options = RunOptions(stdout=out, stderr=io.StringIO(), input_events=list(input_events))
    machine, kernel = load_program(str(eboot), "psp-2000", options)
    machine.jit = OneCallRegion(kernel, threshold=3 if jit else 0, compile_after=0)
    if not in_loop:  # Python answers every call
        kernel.syscall_table[pure.KIND:pure.KIND + pure.CODES] = 0
    stop = kernel.run(max_seconds=5)
    assert stop.kind in ("exit", "threads-ended"), stop
    assert (machine.jit.instructions > 0) == jit
    loop_calls = int(kernel.syscall_table[pure.ANSWERS])
    stats = {**kernel.stats(), "pad": (kernel.ctrl.last_read, kernel.ctrl.latch_base, kernel.ctrl.latch)}
    return out.getvalue(), stats, machine.cpu.regs.copy(), loop_calls


def same_as_python(eboot, by_python, jit: bool, loop_calls: int, input_events=()) -> str:
    """Runs `eboot` with the loop answering what it can and checks that it ends as the run
    where Python answered every call (`by_python`): the same text, statistics (cycles, idle
    and HLE cycles, calls by name, every counter, the pad's state) and registers, with
    `loop_calls` calls answered in the loop. Returns the text."""
    text, stats, regs, in_loop = run(eboot, in_loop=True, jit=jit, input_events=input_events)
    text_py, stats_py, regs_py, in_loop_py = by_python
    assert in_loop == loop_calls and in_loop_py == 0
    assert text == text_py
    assert stats == stats_py
    assert (regs == regs_py).all()
    return text


@pytest.fixture(scope="module")
def answered_by_python(eboot):
    return run(eboot, in_loop=False)


@pytest.mark.parametrize("jit", [False, True], ids=["interpreted", "compiled-regions"])
def test_time_calls_answered_in_the_run_loop_end_as_python_answers_them(eboot, answered_by_python, jit):
    text = same_as_python(eboot, answered_by_python, jit, 96)  # every reading came from the loop
    readings = [tuple(map(int, line.split())) for line in text.splitlines()]
    assert len(readings) == 48
    assert all(0 <= wide - low < 10_000 for low, wide in readings)  # read with a little work between
    times = [t for low, wide in readings for t in (low, wide)]
    assert times == sorted(times) and times[-1] - times[0] >= 3000  # the three 1 ms delays


@pytest.fixture(scope="module")
def pad_answered_by_python(pad_eboot):
    return run(pad_eboot, in_loop=False, input_events=parse_script(PAD_INPUT))


@pytest.mark.parametrize("jit", [False, True], ids=["interpreted", "compiled-regions"])
def test_pad_peeks_answered_in_the_run_loop_end_as_python_answers_them(pad_eboot, pad_answered_by_python, jit):
    text = same_as_python(pad_eboot, pad_answered_by_python, jit, PAD_PEEKS_IN_LOOP, parse_script(PAD_INPUT))
    rows = [line.split() for line in text.splitlines()[:-1]]
    assert {row[1] for row in rows if int(row[0]) % 8 == 5} == {str(0x80000104 - (1 << 32))}  # INVALID_SIZE
    assert {int(row[3], 16) for row in rows} > {0, 0x4000, 0x8, 0x1000, 0x200}  # the script's buttons were seen
    assert {(row[4], row[5]) for row in rows} > {("128", "128"), ("10", "250"), ("200", "40")}  # and its stick
    assert text.splitlines()[-1][4:36].strip("0")  # Python's record at the odd address


@pytest.fixture(scope="module")
def vblank_answered_by_python(vblank_eboot):
    return run(vblank_eboot, in_loop=False)


@pytest.mark.parametrize("jit", [False, True], ids=["interpreted", "compiled-regions"])
def test_vblank_waits_answered_in_the_run_loop_end_as_python_answers_them(vblank_eboot, vblank_answered_by_python,
                                                                          jit):
    time_calls = 40
    text = same_as_python(vblank_eboot, vblank_answered_by_python, jit, time_calls + VBLANK_WAITS_IN_LOOP)
    rows = [list(map(int, line.split()[:3])) + [int(line.split()[3], 16), int(line.split()[4])]
            for line in text.splitlines()]
    assert {row[0] for row in rows} == {0}
    frame = 1e6 / 59.94006
    assert all(abs(row[2] - frame) < 0.6 * frame for row in rows[1:])  # each wait ends at the next vblank
    assert {row[3] for row in rows[2:]} == {0x04000000, 0x04088000}  # the buffers set for the next frame
    assert rows[-1][4] == 6  # the handler ran at the six vblanks it was registered for


@pytest.fixture(scope="module")
def read_answered_by_python(read_eboot):
    return run(read_eboot, in_loop=False, input_events=parse_script(PAD_INPUT))


@pytest.mark.parametrize("jit", [False, True], ids=["interpreted", "compiled-regions"])
def test_pad_reads_answered_in_the_run_loop_end_as_python_answers_them(read_eboot, read_answered_by_python, jit):
    time_calls = 48
    text = same_as_python(read_eboot, read_answered_by_python, jit, time_calls + PAD_READS_IN_LOOP,
                          parse_script(PAD_INPUT))
    rows = [line.split() for line in text.splitlines()]
    got = {int(row[0]): int(row[1]) for row in rows}
    assert {got[i] for i in got if i % 8 == 6} == {0x80000104 - (1 << 32)}  # INVALID_SIZE
    assert min(got[i] for i in range(5, 48, 6)) >= 2  # after a 40 ms delay: the samples piled up
    assert {int(row[4], 16) for row in rows} > {0, 0x4000, 0x8, 0x1000}  # the script's buttons were seen
