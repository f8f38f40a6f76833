"""Region compiler: hot guest loops become numba functions specialised to their code.

The interpreter counts taken backward branches per target address. When a target
reaches the threshold (and every time it is reached again once compiled) the run loop
returns EV_JIT at that address. A region compiled by an earlier run is loaded from the
disk cache then; a new one is compiled only once the loop has gone round COMPILE_AFTER
more times, so short runs never pay for compiling. The machine runs the region compiled from there
(discovered by jit.region, written by jit.codegen, cached on disk by jit.store) until
control leaves it: where it leaves at the entry of another compiled region, the machine
enters that one directly, else it goes back to the interpreter. A region that runs too
little per entry to pay for its round trip (a loop of few iterations per visit: below
MIN_PER_ENTRY instructions on average over its first JUDGE_AFTER entries) is dropped and
its loop left to the interpreter, which runs it without leaving its call. Compiled code keeps the
interpreter's per-instruction contract, so results, cycles and every counter are the
same with or without it (tests/cpu/test_jit.py).

ALLEGREX_JIT=0 turns it off; ALLEGREX_JIT_THRESHOLD and ALLEGREX_JIT_COMPILE_AFTER set
the two counts (backward branches to one target).
"""

import os
import struct
import sys
from contextlib import contextmanager

import numpy as np

from allegrex.cpu.jit.background import RECHECK_AFTER
from allegrex.cpu.jit.codegen import region_source
from allegrex.cpu.jit.region import discover
from allegrex.cpu.jit.store import failed_before, is_stored, load, mark_failed

HOT_BITS = 12
HOT_SIZE = 1 << HOT_BITS
HOT_MASK = HOT_SIZE - 1
DEFAULT_THRESHOLD = 2_000  # backward branches to one target before its region is looked up
COMPILE_AFTER = 2_000_000  # more of them before a region not yet on disk is compiled (seconds)
NEVER = np.iinfo(np.int32).min  # a hot count that cannot reach the threshold again
MAX_STALE = 2  # code found rewritten this often under a region: interpret it from then on
JUDGE_AFTER = 64  # entries of a region before its instructions per entry are judged
# Below this many instructions per entry a region costs more than it saves: a round trip
# (Python's side of entering a region and the interpreter's call after it) costs ~3.5 us, what a
# compiled instruction saves over an interpreted one ~20 ns (ESTIMATE from llama2-vfpu's
# realtime run: interpreter ~35 MIPS, scalar regions ~150 MIPS, 12,524 round trips in ~45 ms)
MIN_PER_ENTRY = 200
# Python frames numba's SSA pass may take: it recurses along a region's dominator tree, a few
# frames per basic block of the generated code (plain Python frames: no C stack in 3.11)
COMPILE_RECURSION = 20_000


@contextmanager
def room_to_compile():
    """Python's recursion limit raised for compiling a region, restored after."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, COMPILE_RECURSION))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


# This process's region scans, by entry: (Region | None, the words the scan read as runs of
# (address, bytes)). A program run again in one process (allegrex test, the benchmarks) meets
# the same loops: a scan is ~1 ms of Python, checking the words it read again ~0.1 ms.
SCANS = {}


def _runs(words: dict) -> list:
    """The words {addr: word} as [(address, little-endian bytes)] of consecutive addresses."""
    runs, start, packed = [], None, []
    for addr in sorted(words):
        if start is None or addr != start + 4 * len(packed):
            if packed:
                runs.append((start, struct.pack(f"<{len(packed)}I", *packed)))
            start, packed = addr, []
        packed.append(words[addr])
    if packed:
        runs.append((start, struct.pack(f"<{len(packed)}I", *packed)))
    return runs


def stored_key(region, timed: bool, profile: bool) -> str:
    """What a region's compiled code is stored under: where it is entered, its words and the
    modes it counts (two loops of one nest share their words, not their entry)."""
    return repr((region.entry, sorted(region.words.items()), timed, profile))


def default_threshold() -> int:
    if os.environ.get("ALLEGREX_JIT", "1") == "0":
        return 0
    return int(os.environ.get("ALLEGREX_JIT_THRESHOLD", DEFAULT_THRESHOLD))


def default_compile_after() -> int:
    return int(os.environ.get("ALLEGREX_JIT_COMPILE_AFTER", COMPILE_AFTER))


class Jit:
    """A machine's compiled regions and the hot counters the run loop keeps."""

    def __init__(self, read_word, threshold: int | None = None, compile_after: int | None = None, read_bytes=None):
        self.read_word = read_word  # addr -> int | None
        self.read_bytes = read_bytes  # (addr, length) -> bytes | None, if given: scans are reused (SCANS)
        self._threshold = default_threshold() if threshold is None else int(threshold)
        self.compile_after = default_compile_after() if compile_after is None else int(compile_after)
        self.hot = np.zeros(HOT_SIZE, dtype=np.int32)
        self.entries = np.full(HOT_SIZE, -1, dtype=np.int64)  # compiled region's entry per slot
        self.regions = {}  # (entry, timed, profile) -> (function, Region)
        self.entry_points = {}  # the same keys -> the function's machine code for the run's argument types
        self.waiting = set()  # keys seen hot once, whose region is not compiled yet
        self.stale = {}  # entry -> times its compiled code was found overwritten
        self.warned = False
        self.compiled = 0  # regions this machine has loaded or compiled
        self.instructions = 0  # instructions executed by compiled regions
        self.entered = 0  # times a compiled region was run
        self.tally = {}  # (entry, timed, profile) -> [runs, instructions] until judged (see ran)
        self.background = None  # a jit.background.Background: new regions compile in a helper process

    @property
    def threshold(self) -> int:
        """Times a loop head is reached before its region is wanted (0: never); fixed for the
        Jit's life (a machine keeps its run loop's arguments between steps)."""
        return self._threshold

    def region_at(self, pc: int, timed: bool, profile: bool):
        """The compiled function entered at `pc`, or None (then never asked again)."""
        key = (pc, timed, profile)
        found = self.regions.get(key)
        if found is not None:
            return found[0]
        region = self._scan(pc)
        if region is None:
            self.reject(pc)
            return None
        slot = (pc >> 2) & HOT_MASK
        text_key = stored_key(region, timed, profile)
        if failed_before(text_key):
            self.reject(pc)
            return None
        source = lambda name: region_source(region, name, timed, profile)  # noqa: E731
        if self.compile_after > 0 and key not in self.waiting and not is_stored(text_key):
            self.waiting.add(key)  # not worth compiling yet: ask again after COMPILE_AFTER more
            self.hot[slot] = self.threshold - self.compile_after
            return None
        try:
            fn = load(source, text_key)
        except OSError as e:  # no writable cache folder: interpret, say so once
            self.reject(pc, f"cannot store compiled code ({e})")
            return None
        self.regions[key] = (fn, region)
        self.entries[slot] = pc
        self.compiled += 1
        return fn

    def _scan(self, pc: int):
        """discover(pc), or this process's earlier scan at `pc` when every word it read is
        still there (then the scan would find the same)."""
        known = SCANS.get(pc)
        if known is not None and self.read_bytes and all(self.read_bytes(a, len(b)) == b for a, b in known[1]):
            return known[0]
        read = {}

        def reading(addr):
            read[addr] = word = self.read_word(addr)
            return word

        region = discover(pc, reading)
        if self.read_bytes is not None and None not in read.values():
            SCANS[pc] = (region, _runs(read))
        return region

    def ran(self, key, instructions: int) -> None:
        """Count a run of the region at `key` that retired `instructions`; after JUDGE_AFTER
        runs, one that averaged under MIN_PER_ENTRY is dropped (its loop interpreted). Guest
        instruction counts only: the same program drops the same regions on every run."""
        self.entered += 1
        self.instructions += instructions
        tally = self.tally.get(key)
        if tally is None:
            tally = self.tally[key] = [0, 0]
        tally[0] += 1
        tally[1] += instructions
        if tally[0] == JUDGE_AFTER and tally[1] < MIN_PER_ENTRY * JUDGE_AFTER:
            self.reject(key[0])

    def defer(self, pc: int) -> None:
        """Ask for the region at `pc` again once its loop has come round RECHECK_AFTER more
        times (a helper process compiles it meanwhile: jit.background)."""
        slot = (pc >> 2) & HOT_MASK
        self.entries[slot] = -1
        self.hot[slot] = self.threshold - RECHECK_AFTER

    def compile_failed(self, pc: int, timed: bool, profile: bool, error: Exception) -> None:
        """The region at `pc` would not compile: interpret it, in this run and later ones."""
        why = f"compiling the loop at 0x{pc:08x} failed: {type(error).__name__}"
        found = self.regions.get((pc, timed, profile))
        if found is not None:
            mark_failed(stored_key(found[1], timed, profile), why)
        self.reject(pc, why)

    def reject(self, pc: int, why: str | None = None) -> None:
        """Never compile at `pc` again (the interpreter runs it); `why` is reported once."""
        self.hot[self._drop(pc)] = NEVER
        if why and not self.warned:
            self.warned = True
            print(f"allegrex: hot loops stay interpreted: {why}", file=sys.stderr)

    def forget(self, pc: int) -> None:
        """Drop the regions entered at `pc` (their code changed): count from zero again,
        or never compile there again when it keeps changing (self-modifying loops)."""
        self.stale[pc] = self.stale.get(pc, 0) + 1
        self.hot[self._drop(pc)] = NEVER if self.stale[pc] >= MAX_STALE else 0

    def _drop(self, pc: int) -> int:
        """Forget the regions entered at `pc`; returns its hot-counter slot."""
        for key in [k for k in self.regions if k[0] == pc]:
            del self.regions[key]
            self.entry_points.pop(key, None)
        slot = (pc >> 2) & HOT_MASK
        self.entries[slot] = -1
        return slot
