"""pspautotests conformance: each program's output must equal the real PSP's .expected.

Programs in REQUIRED passed when this list was written and must keep passing;
`allegrex test $PSPAUTOTESTS/tests <groups>` prints the full table, with the first
differing line of each program that does not pass yet.
"""

import os
from pathlib import Path

import pytest

GROUPS = ["cpu", "io", "sysmem", "rtc", "threads/threads", "threads/semaphores", "threads/lwmutex",
          "display", "ctrl", "threads/alarm", "threads/vtimers", "threads/fpl", "threads/vpl",
          "threads/msgpipe", "threads/tls", "threads/callbacks", "threads/mutex", "threads/mbx",
          "threads/k0", "threads/wakeup", "threads/events", "power", "dmac", "hash", "intr", "misc", "ccc", "mstick",
          "utility/msgdialog", "utility/savedata", "utility/systemparam", "umd", "audio/sceaudio", "audio/output2",
          "net", "hle", "loader", "malloc", "string", "gpu"]

REQUIRED = {  # passing when written (`allegrex test`: 293 of the 318 programs of these groups)
    "ccc/convertstring", "cpu/cpu_alu/cpu_alu", "cpu/cpu_alu/cpu_branch", "cpu/cpu_alu/cpu_branch2", "cpu/exec/exec_addr",
    "cpu/fpu/fcr", "cpu/fpu/fpu", "cpu/icache/icache", "cpu/lsu/lsu", "cpu/vfpu/colors", "cpu/vfpu/convert",
    "cpu/vfpu/gum", "cpu/vfpu/matrix", "cpu/vfpu/prefixes", "cpu/vfpu/vavg", "cpu/vfpu/vector", "ctrl/ctrl", "ctrl/idle/idle",
    "ctrl/sampling/sampling", "ctrl/sampling2/sampling2", "ctrl/vblank", "dmac/dmactest", "hash/hash",
    "intr/enablesub", "intr/intr", "intr/registersub", "intr/releasesub", "intr/suspended", "intr/vblank/vblank",
    "power/cpu", "power/freq", "power/power", "display/display", "display/hcount",
    "display/isstate", "display/setframebuf", "display/setmode", "display/vblankmulti", "io/cwd/cwd", "io/directory/directory",
    "misc/dcache", "misc/deadbeef", "misc/libc", "misc/reg", "misc/sdkver", "misc/testgp", "misc/timeconv", "mstick/mstick",
    "io/file/rename", "io/open/badparent", "power/volatile/lock", "power/volatile/trylock",
    "power/volatile/unlock", "rtc/arithmetic", "rtc/convert", "rtc/lookup", "rtc/rtc", "sysmem/freesize",
    "sysmem/memblock", "sysmem/sysmem", "sysmem/volatile", "threads/alarm/alarm",
    "threads/alarm/cancel/cancel", "threads/alarm/refer/refer", "threads/alarm/set/set",
    "threads/callbacks/callbacks", "threads/callbacks/cancel", "threads/callbacks/check",
    "threads/callbacks/create", "threads/callbacks/delete", "threads/callbacks/exit",
    "threads/callbacks/notify", "threads/callbacks/refer", "threads/events/cancel/cancel",
    "threads/events/clear/clear", "threads/events/create/create", "threads/events/delete/delete",
    "threads/events/events", "threads/events/poll/poll", "threads/events/refer/refer",
    "threads/events/set/set", "threads/fpl/allocate", "threads/fpl/cancel", "threads/fpl/create",
    "threads/fpl/delete", "threads/fpl/fpl", "threads/fpl/free", "threads/fpl/priority", "threads/fpl/refer",
    "threads/fpl/tryallocate", "threads/k0/k0", "threads/lwmutex/create", "threads/lwmutex/delete",
    "threads/lwmutex/lock", "threads/lwmutex/priority", "threads/lwmutex/refer", "threads/lwmutex/try",
    "threads/lwmutex/try600", "threads/lwmutex/unlock", "threads/mbx/cancel/cancel",
    "threads/mbx/create/create", "threads/mbx/delete/delete", "threads/mbx/mbx", "threads/mbx/poll/poll",
    "threads/mbx/priority/priority", "threads/mbx/receive/receive", "threads/mbx/refer/refer",
    "threads/mbx/send/send", "threads/msgpipe/cancel", "threads/msgpipe/create", "threads/msgpipe/data",
    "threads/msgpipe/delete", "threads/msgpipe/msgpipe", "threads/msgpipe/receive", "threads/msgpipe/refer",
    "threads/msgpipe/send", "threads/msgpipe/tryreceive", "threads/msgpipe/trysend", "threads/mutex/create",
    "threads/mutex/delete", "threads/mutex/lock", "threads/mutex/mutex", "threads/mutex/priority",
    "threads/mutex/refer", "threads/mutex/try", "threads/mutex/unlock", "threads/mutex/unlock2",
    "threads/semaphores/cancel", "threads/semaphores/create", "threads/semaphores/delete",
    "threads/semaphores/fifo", "threads/semaphores/poll", "threads/semaphores/priority",
    "threads/semaphores/refer", "threads/semaphores/semaphores", "threads/semaphores/signal",
    "threads/threads/change", "threads/threads/exitstatus", "threads/threads/extend", "threads/threads/refer",
    "threads/threads/release", "threads/threads/rotate", "threads/threads/stackfree", "threads/threads/start",
    "threads/threads/suspend", "threads/threads/terminate", "threads/threads/threadend",
    "threads/threads/threadmanidlist", "threads/threads/threadmanidtype", "threads/threads/threads",
    "threads/tls/create", "threads/tls/delete", "threads/tls/free", "threads/tls/get", "threads/tls/priority",
    "threads/tls/refer", "threads/vpl/allocate", "threads/vpl/cancel", "threads/vpl/delete",
    "threads/vpl/fifo", "threads/vpl/order", "threads/vpl/priority", "threads/vpl/refer", "threads/vpl/vpl",
    "threads/vtimers/cancelhandler", "threads/vtimers/create", "threads/vtimers/delete",
    "threads/vtimers/getbase", "threads/vtimers/gettime", "threads/vtimers/interrupt",
    "threads/vtimers/refer", "threads/vtimers/sethandler", "threads/vtimers/settime", "threads/vtimers/start",
    "threads/vtimers/stop", "threads/vtimers/vtimer", "threads/wakeup/wakeup",
    "utility/msgdialog/abort", "utility/savedata/autosave", "utility/savedata/deletebroken", "utility/savedata/deletedata",
    "utility/savedata/deleteemptyfilename", "utility/savedata/filelist", "utility/savedata/getsize",
    "utility/savedata/idlist", "utility/savedata/loadbroken", "utility/savedata/loaddata",
    "utility/savedata/loademptyfilename", "utility/savedata/makedata", "utility/savedata/saveemptyfilename",
    "utility/savedata/secureversion",
    "utility/savedata/sizes", "utility/systemparam/systemparam",
    "umd/register", "umd/callbacks/umd",
    "audio/output2/changelength", "audio/output2/frequency", "audio/output2/release", "audio/output2/reserve",
    "audio/output2/rest", "audio/output2/threads", "audio/sceaudio/datalen", "audio/sceaudio/reserve",
    "net/primary/ether", "net/http/http", "hle/check_not_used_uids", "loader/bss/bss",
    "threads/events/wait/wait", "threads/mutex/cancel", "threads/semaphores/wait", "threads/vpl/free",
    "threads/vpl/try", "utility/msgdialog/dialog", "malloc/malloc", "string/string",
    # the GE (allegrex/ge): the driver's lists, signals and callbacks, drawing, transfers
    "gpu/bounding/count", "gpu/bounding/planes", "gpu/bounding/vertexaddr", "gpu/bounding/viewport",
    "gpu/callbacks/ge_callbacks", "gpu/clipping/guardband", "gpu/clipping/homogeneous", "gpu/commands/basic",
    "gpu/commands/blocktransfer", "gpu/commands/material", "gpu/complex/complex", "gpu/displaylist/alignment",
    "gpu/displaylist/state", "gpu/ge/break", "gpu/ge/context", "gpu/ge/edram", "gpu/ge/enqueueparam", "gpu/ge/get",
    "gpu/ge/queue", "gpu/primitives/bezier", "gpu/primitives/continue", "gpu/primitives/immediate",
    "gpu/primitives/indices", "gpu/primitives/invalidprim", "gpu/primitives/lines", "gpu/primitives/linestrip",
    "gpu/primitives/points", "gpu/primitives/rectangles", "gpu/primitives/spline", "gpu/primitives/trianglefan",
    "gpu/primitives/triangles", "gpu/primitives/trianglestrip", "gpu/reflection/reflection",
    "gpu/rendertarget/rendertarget", "gpu/signals/continue", "gpu/signals/jumps", "gpu/signals/pause",
    "gpu/signals/pause2", "gpu/signals/simple", "gpu/signals/suspend", "gpu/signals/sync", "gpu/texcolors/rgb565",
    "gpu/texcolors/rgba4444", "gpu/texcolors/rgba5551", "gpu/textures/rotate", "gpu/transfer/overlap",
    "gpu/triangle/triangle", "gpu/vertices/colors", "gpu/vertices/morph", "gpu/vertices/texcoords",
    # with the pixel stage (texture.py, fragment.py) in; rendertarget/copy is the slowest (about
    # 10 s of CPU, nearly all of it the guest's own per-pixel loops, not the GE)
    "gpu/clut/masks", "gpu/commands/cull", "gpu/commands/fog", "gpu/dither/dither", "gpu/filtering/mipmaplinear",
    "gpu/filtering/precisionnearest2d", "gpu/filtering/precisionnearest3d", "gpu/rendertarget/depal",
    "gpu/texcolors/dxt1", "gpu/texcolors/dxt3", "gpu/texcolors/dxt5", "gpu/texfunc/add", "gpu/texfunc/blend",
    "gpu/texfunc/decal", "gpu/texfunc/modulate", "gpu/texfunc/replace", "gpu/texmtx/normals", "gpu/texmtx/prims",
    "gpu/texmtx/source", "gpu/texmtx/uvs", "gpu/clut/offset", "gpu/clut/shifts", "gpu/commands/blend",
    "gpu/commands/blend565", "gpu/filtering/precisionlinear2d", "gpu/filtering/precisionlinear3d",
    "gpu/textures/mipmap", "gpu/rendertarget/copy",
    # with the VRAM mirrors in the memory map (gpu/ge/edramswizzle passes too, but takes a minute),
    # the GE reading them in the translation the program set
    "gpu/clut/address", "gpu/transfer/invalid", "gpu/transfer/mirrors",
}

# Programs that need more simulated time than the default: power/freq runs at 1-3 MHz,
# where the timing model's fixed OS-tick charge (allegrex.timing.model) takes most cycles;
# msgdialog/dialog shows 15 dialogs for 1.5 s each.
SIMULATED_SECONDS = {"power/freq": 60, "utility/msgdialog/dialog": 30}  # the dialogs take 22 s

ROOT = Path(os.environ.get("PSPAUTOTESTS", "/nonexistent"))


def programs():
    found = []
    for group in GROUPS:
        base = ROOT / "tests" / group
        if base.is_dir():
            found += sorted(p for p in base.rglob("*.prx") if p.with_suffix(".expected").exists())
    return found


def name_of(prx: Path) -> str:
    return str(prx.relative_to(ROOT / "tests").with_suffix(""))


PROGRAMS = programs()


@pytest.mark.parametrize("prx", [p for p in PROGRAMS if name_of(p) in REQUIRED] or [None],
                         ids=lambda p: name_of(p) if p else "none")
def test_required_programs_print_what_the_psp_printed(pspautotests, prx):
    if prx is None:
        pytest.fail("PSPAUTOTESTS is set but none of the required programs were found")
    from allegrex.commands.test import first_difference, normalise, run_one
    seconds = SIMULATED_SECONDS.get(name_of(prx), 10)
    got, stop = run_one(str(prx), max_seconds=seconds, timeout=600)  # generous: the first run may compile the CPU loop
    want = normalise(prx.with_suffix(".expected").read_text(encoding="latin-1"))
    lines = normalise(got)
    assert lines == want, f"{first_difference(lines, want)} (stop: {stop.kind})"
    assert stop.kind == "exit"
