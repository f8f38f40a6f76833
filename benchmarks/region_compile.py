"""How long a machine waits for a new compiled region: the llama2 VFPU build's matmul loop.

    PYTHONPATH=. python benchmarks/region_compile.py [--repeat R]

Builds realtime.py's llama2-vfpu-15m (the stories15M VFPU build) and runs it until a hot
loop's region holds a block longer than four pieces (vfpu_q80_block32's loops: the
largest region it has), then compiles that region from a new module file R times each
way: as a machine does, with helper processes compiling its pieces alongside
(allegrex.cpu.jit.helper_processes), and alone. Nothing of the region is in numba's cache; the
helpers regions call are (one untimed compile first makes sure: as on any machine once it
has compiled such a region). Prints the wall seconds (what the user waits) and the machine
process's CPU seconds.
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from realtime import programs, run_once

import allegrex.cpu.jit as jit
from allegrex.cpu.jit import helper_processes, room_to_compile, stored_key
from allegrex.cpu.jit.codegen import region_source
from allegrex.cpu.jit.piece_calls import compile_region, piece_types
from allegrex.cpu.jit.region import PIECE
from allegrex.cpu.jit.store import load


class Found(BaseException):
    """Raised from the run when the region is met (it carries the Region and its key's modes)."""


def large_region(program):
    """(Region, timed, profile, the region functions' argument types) of the first region
    met with a block over 4 pieces."""
    scan = jit.Jit.region_at

    def region_at(self, pc, timed, profile):
        region = self._scan(pc)
        if region is not None and max(len(b.instructions) for b in region.blocks) > 4 * PIECE:
            raise Found(region, timed, profile)
        self.reject(pc)
        return None

    jit.Jit.region_at = region_at
    try:
        run_once(program, compile_all=True)
    except Found as found:
        return found.args
    finally:
        jit.Jit.region_at = scan
    sys.exit(f"{program.name} met no region with a block over {4 * PIECE} instructions")


def region_types():
    """The argument types every region is compiled for (a machine's, Machine._region_entry)."""
    from allegrex.machine import Machine
    from numba.core.typing.typeof import typeof
    return tuple(typeof(a) for a in Machine().region_args(0, 0))


def compile_once(region, timed, profile, types, alongside: bool, run: int) -> tuple:
    """(wall s, CPU s, helper processes started) to compile the region from a module file
    written now."""
    key = stored_key(region, timed, profile) + f" (region_compile.py {os.getpid()} {run} {alongside})"
    fn = load(lambda name: region_source(region, name, timed, profile), key)
    wall, cpu = time.perf_counter(), time.process_time()
    with room_to_compile(), helper_processes.compiling_alongside(fn, types, piece_types(fn, types) if alongside else []) as helpers:
        compile_region(fn, types, helpers)
    return time.perf_counter() - wall, time.process_time() - cpu, len(helpers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (program,) = programs(Path(tmp), ["llama2-vfpu-15m"])
        region, timed, profile = large_region(program)
        os.environ["ALLEGREX_CACHE"] = str(Path(tmp) / "cache")  # new module files, thrown away after
        types = region_types()
        print(f"region at 0x{region.entry:08x}: {len(region.words)} words; {os.cpu_count()} cores")
        # untimed: the helpers it calls that the program's earlier regions did not (numba's
        # cache keeps them; after a change to their sources this is minutes)
        compile_once(region, timed, profile, types, True, "warm-up")
        for run in range(args.repeat):
            for alongside in (True, False):
                wall, cpu, started = compile_once(region, timed, profile, types, alongside, run)
                how = f"with {started} helper(s)" if alongside else "alone"
                print(f"  {how:18s} {wall:6.1f} s wall, {cpu:6.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
