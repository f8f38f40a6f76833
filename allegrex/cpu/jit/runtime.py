"""Numba functions compiled regions call: the interpreter's and the timing model's
helpers as plain (not numba-inlined) copies, the model's large paths as calls, the
block lookup for jumps through a register, and the per-instruction cost bound.

The called helpers are cached on disk (numba's cache, flushed with the run loop's when
a source compiled into them changes: interp.flush_stale_cache), so a region compiled by
a fresh process links them instead of compiling them again (they were about half of a
VFPU loop's 8.6 s compile). Each region's own cached code holds its copy of them.
"""

from types import ModuleType

from numba import njit
from numba.core.registry import CPUDispatcher

from allegrex import memory
from allegrex.cpu import fpu, interp
from allegrex.cpu.called import called, not_inlined, rebound
from allegrex.cpu.hints import likely
from allegrex.hle import pure
from allegrex.timing import counters as C
from allegrex.timing import memory_model as M
from allegrex.timing import model
from allegrex.timing.classes import (ANNULLED_SLOT_PENALTY, JUMP_PENALTY, OP_BUSY, OP_ISSUE, OP_LATENCY,
                                     TAKEN_BRANCH_PENALTY)
from allegrex.timing.layout import T_DC_DIRTY, T_DC_LRU, T_DC_TAG, T_RATIO_Q8, T_TICK_COST
from allegrex.timing.vfpu_classes import ROW_ISSUE_Q4, ROW_LATENCY, VCMP_TO_BRANCH, VCMP_TO_MFVC
from vfpu import dot as vfpu_dot
from vfpu import exec as vfpu_exec
from vfpu import plain as vfpu_plain
from vfpu.exec import execute_called


def _cached(dispatcher):
    """`dispatcher` with its compiled code kept in numba's disk cache (flushed when a
    source it compiles changed)."""
    dispatcher.enable_caching()
    fn = dispatcher.py_func
    interp.flush_stale_cache(dispatcher, f"{fn.__module__}.{fn.__qualname__}.region-helper")
    return dispatcher


def _plain(helper):
    """A copy of an inline="always" numba helper that is an ordinary call. The run loop
    inlines its helpers; a region calls plain copies, which LLVM inlines (or not, for
    the large ones) when it links the region: numba's own inlining re-analyses the whole
    function at every call site, which made compiling quadratic."""
    return _cached(called(helper))


def _rare(plain):
    """Plain copy `plain` (_plain) as regions call it: never inlined by LLVM (called.not_inlined),
    a large path taken seldom, in a region's code once rather than at every instruction."""
    return _cached(not_inlined(plain, f"{plain.py_func.__name__}_rare"))


# What the helpers regions inline call on their rare paths: an address outside RAM and VRAM's
# fast case, a dot product with a special value. (Not a wait's search for the source to charge:
# as a call, sim_speed's VFPU loop, which waits every time round, ran 0.74x as fast.)
RARE = {"translate_other": _rare(_plain(memory.translate_other)),
        "special_dot_bits": _rare(_plain(vfpu_dot.special_dot_bits))}


def _with_rare(f, name):
    """A copy of Python function `f` named `name` calling the RARE copies of the helpers it names."""
    return rebound(f, name, {k: v for k, v in RARE.items() if k in f.__code__.co_names})


translate = _cached(called(_with_rare(memory.translate.py_func, "translate_region")))
COPIES = {"translate": translate}  # the copies above that the helpers below call too
access = _cached(called(rebound(interp.access.py_func, "access_region", COPIES)))  # (its translate: the one above)
sx32, clz32, bitrev32, div_signed, div_unsigned, finish = map(_plain, (
    interp.sx32, interp.clz32, interp.bitrev32, interp.div_signed, interp.div_unsigned, interp.finish))
float_to_word = _plain(fpu.float_to_word)
answered = _plain(pure.answered)
charge = _plain(pure.charge)
cop2 = ModuleType("cop2")  # stands in for the module in the interpreter's `cop2.execute(...)`
cop2.execute = execute_called  # one cached function: a plain copy inlined the VFPU short path into every region
# The short path's pieces, for the words a region runs directly (jit.vfpu_gen).
vfpu_identity_prefixes, vfpu_consume_prefixes = map(_plain, (vfpu_plain.identity_prefixes, vfpu_exec.consume_prefixes))


@_cached
@njit
def vfpu_prefixes_consumed(vctrl):
    """True when the prefix registers are as vfpu.exec.consume_prefixes leaves them (then
    consuming them again changes nothing): what a region relying on it checks on entry."""
    return (vctrl[vfpu_exec.VC_SPFX] == 0xE4 and vctrl[vfpu_exec.VC_TPFX] == 0xE4 and vctrl[vfpu_exec.VC_DPFX] == 0
            and vctrl[vfpu_exec.PEND_S] == 0 and vctrl[vfpu_exec.PEND_T] == 0 and vctrl[vfpu_exec.PEND_D] == 0)


def _shaped(helper, **options):
    """A plain copy (with numba's `options`) compiled once per value of its bare-number
    operands (the operand kinds and counts timing_gen passes as literals, a VFPU word's
    operation and size): its loops over a vector's cells are then straight code.
    Compiled once per shape (the timing steps' 4 shapes: 1.9 s) and cached on disk; typed
    once per argument type (_plain), a VFPU loop ran at 90 MIPS instead of 170."""
    return _cached(CPUDispatcher(py_func=getattr(helper, "py_func", helper), locals={},
                                 targetoptions={"nopython": True, **options}))


def _calling(helper, plain=(), inlined=()):
    """A called copy of `helper` (one of the VFPU's inline="always" pieces) that LLVM always
    inlines (forceinline: the word's fields become constants there), compiled per value of
    its bare-number operands (_shaped: a vector's size, so its loops over the lanes are
    straight code reading and writing fixed registers once inlined; compiled once for all
    sizes, LLVM kept those loops, reading each lane's cell from a table: the llama2 VFPU
    block32 matmul region ran ~10% slower, MEASURED 2026-12-06, region_speed.py). Its own
    helpers named in `plain` become plain copies (_plain) it calls; those in `inlined`,
    copies compiled the same way as it. Numba's inlining
    re-typed the piece at every call site: with it, numba's passes were most of a VFPU
    region's compile."""
    f = helper.py_func
    replaced = {name: COPIES.get(name) or _plain(f.__globals__[name]) for name in plain}
    for name in inlined:
        g = f.__globals__[name].py_func
        replaced[name] = _shaped(_with_rare(g, f"{g.__name__}_region"), forceinline=True)
    return _shaped(rebound(f, f"{f.__name__}_region", replaced), forceinline=True)


# The loads, stores and plain operations stay inlined (each small once its operation is
# known): as calls LLVM kept them opaque, and a VFPU loop ran 5x slower.
vfpu_load_store_single, vfpu_load_store_quad = (_calling(f, plain=("translate", "mem_fault")) for f in (
    vfpu_exec.load_store_single, vfpu_exec.load_store_quad))
vfpu_plain_arith = _calling(vfpu_plain.plain_arith, plain=("flushed_float", "store_float"))
vfpu_plain_dot = _calling(vfpu_plain.plain_dot, inlined=("dot_cells_bits",))
vfpu_plain_f2i, vfpu_plain_cmp = (_calling(f, plain=("flushed_float",)) for f in (vfpu_plain.plain_f2i,
                                                                                  vfpu_plain.plain_cmp))
vfpu_plain_i2f, vfpu_plain_c2i, vfpu_plain_fill, vfpu_plain_mov, vfpu_plain_pack = (_calling(f) for f in (
    vfpu_plain.plain_i2f, vfpu_plain.plain_c2i, vfpu_plain.plain_fill, vfpu_plain.plain_mov, vfpu_plain.plain_pack))

# The steps of model.account, called by regions with constant operands: one call is one
# statement for numba to type (compiling stays fast).
(tick, next_tick, fetch_line, wait_sources, wait_unit, produce, jump_cost, branch_cost, profile_slot,
 dcache_access_call, cache_op_call, track_calls) = map(_plain, (
    model.os_tick, model.next_tick, model.fetch_line, model.wait_sources, model.wait_unit, model.produce, model.jump_cost,
    model.branch_cost, model.profile_slot, model.dcache_access, model.cache_op, model.track_calls))
# The I-cache step at each new line: always inlined (LLVM's own choice kept it a call in some pieces).
icache_fetch_call = _cached(called(model.icache_fetch, forceinline=True))
# model.vfpu_account's steps, likewise.
vfpu_fraction, vfpu_cc, vfpu_issue, stall_until, later = map(_plain, (
    model.vfpu_fraction, model.vfpu_cc, model.vfpu_issue, model.stall_until, model.later))
# The tick's test, run before every instruction: what LLVM inlines is the test (the tick a call).
tick_due = _cached(called(rebound(model.tick_due.py_func, "tick_due_region", {"os_tick": tick})))


# (a region's `vfpu_wait` is model.vfpu_wait_seldom: the same wait, its latest source found first)
vfpu_wait, vfpu_produce, vfpu_wait_cells = map(_shaped, (model.vfpu_wait_seldom, model.vfpu_produce, model.wait_cells))


# A VFPU word's whole timing in its common shape, as one call (jit.timing_gen._vfpu_step):
# the same steps in the same order as the separate calls it replaces, the OS tick, the wait
# for the sources, the D-cache access (access: 0 none, 1 load, 2 store), the results
# `latency` cycles on and `issue` cycles. A call site is what a region's compile pays for
# (~10 ms of numba's passes each); LLVM inlines this one as it inlined the four.
@njit(inline="always")
def _step_end(tm, counters, t, due, access, addr, latency, stall_kind, d_kind, d_n, d_reg, gdst, cdst, issue):
    if access != 0:
        t += dcache(tm, counters, addr & 0xFFFFFFFC, access == 2)
    done = t + latency
    model.vfpu_produce(tm, done, stall_kind, d_kind, d_n, d_reg, gdst, cdst)
    return t + issue, due, done


def _vfpu_step(tm, counters, t, due, s_kind, s_n, s_reg, t_kind, t_n, t_reg, gpr, ctrl, access, addr, latency,
               stall_kind, d_kind, d_n, d_reg, gdst, cdst, issue):
    """(t, due, done) after a word whose sources are waited for in tm (model.vfpu_wait_seldom)."""
    t, due = tick_due(tm, counters, t, due)
    t = model.vfpu_wait_seldom(tm, counters, t, s_kind, s_n, s_reg, t_kind, t_n, t_reg, gpr, ctrl)
    return _step_end(tm, counters, t, due, access, addr, latency, stall_kind, d_kind, d_n, d_reg, gdst, cdst, issue)


def _vfpu_step_after(tm, counters, t, due, cells_first, c_kind, c_n, c_reg, ready_a, kind_a, ready_b, kind_b,
                     access, addr, latency, stall_kind, d_kind, d_n, d_reg, gdst, cdst, issue):
    """The same for a word whose sources came from one or two earlier words of its block,
    whose ready cycles the region keeps in locals (timing_gen.BlockResults; ready_b 0: one),
    and perhaps one operand from tm (c_kind, c_n, c_reg; kind 0: none), compared in operand
    order (cells_first: the operand from tm is the first)."""
    t, due = tick_due(tm, counters, t, due)
    if likely(max(model.latest_cells(tm, t, c_kind, c_n, c_reg), ready_a, ready_b) <= t):  # no wait (model.vfpu_wait_seldom)
        return _step_end(tm, counters, t, due, access, addr, latency, stall_kind, d_kind, d_n, d_reg, gdst, cdst, issue)
    ready, stall = t, C.STALL_VFPU
    if cells_first:
        ready, stall = model.wait_cells(tm, ready, stall, c_kind, c_n, c_reg)
    ready, stall = model.later(ready, stall, ready_a, kind_a)
    ready, stall = model.later(ready, stall, ready_b, kind_b)
    if not cells_first:
        ready, stall = model.wait_cells(tm, ready, stall, c_kind, c_n, c_reg)
    t = model.stall_until(counters, t, ready, stall)
    return _step_end(tm, counters, t, due, access, addr, latency, stall_kind, d_kind, d_n, d_reg, gdst, cdst, issue)


vfpu_step, vfpu_step_after = (_shaped(f, forceinline=True) for f in (_vfpu_step, _vfpu_step_after))


dcache_miss = _rare(dcache_access_call)  # (and the accesses outside cached RAM)


@_cached
@njit(forceinline=True)
def dcache(tm, counters, addr, is_store):
    """model.dcache_access with its most common case first: a hit in cached main RAM
    (always inlined: LLVM's own choice kept it a call in some pieces; the rest is a call)."""
    phys = addr & M.PHYS_MASK
    if likely(not M.uncached(addr) and phys >= M.VRAM_HI):
        line = phys >> M.LINE_BITS
        way = M.cache_lookup(tm, T_DC_TAG, T_DC_LRU, line)
        if likely(way >= 0):
            counters[C.DCACHE_HITS] += 1
            if is_store:
                tm[T_DC_DIRTY + (line & M.SET_MASK) * M.CACHE_WAYS + way] = 1
            return 0
    return dcache_miss(tm, counters, addr, is_store)


def _trace_run(trace, icount, head, count):
    """The trace ring's entries of `count` instructions at head, head + 4, ... retired
    as instructions icount, icount + 1, ... (the run loop writes one per instruction)."""
    tmask = trace.shape[0] - 1
    for j in range(count):
        trace[(icount + j) & tmask] = head + 4 * j


trace_run = _cached(called(_trace_run))


def _trace_runs(trace, log, runs, logged_to, icount):
    """The trace ring's entries of the last `runs` blocks in `log` (head | count << 32, the
    newest at runs - 1), which retired the instructions up to `logged_to`: newest first, as
    far back as the ring reaches from icount (entries from logged_to on are written already)."""
    tmask, lmask = trace.shape[0] - 1, log.shape[0] - 1
    room = trace.shape[0] - (icount - logged_to)
    pos = logged_to
    k = runs
    while room > 0 and k > 0 and runs - k < log.shape[0]:
        k -= 1
        head, j = log[k & lmask] & 0xFFFFFFFF, log[k & lmask] >> 32
        while room > 0 and j > 0:
            j -= 1
            pos -= 1
            trace[pos & tmask] = head + 4 * j
            room -= 1


trace_runs = _cached(called(_trace_runs))


@_cached
@njit
def find_block(heads, pc):
    """Index of `pc` in the sorted array `heads`, or -1."""
    lo = 0
    hi = heads.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if heads[mid] < pc:
            lo = mid + 1
        else:
            hi = mid
    if lo < heads.shape[0] and heads[lo] == pc:
        return lo
    return -1


def _step_bound_parts():
    """(CPU cycles, bus cycles) no single instruction's cost can exceed, from the model's
    own constants: the OS tick, an I-fetch miss, the longest wait for a source (no
    result is ever later than its latency after the current cycle), a busy unit, a data
    access or cache operation that writes back and fills, the longest issue, a control
    penalty, and a carried quarter-cycle."""
    latency = max(int(OP_LATENCY.max()), int(ROW_LATENCY.max()), VCMP_TO_BRANCH, VCMP_TO_MFVC)
    issue = max(int(OP_ISSUE.max()), int(ROW_ISSUE_Q4.max()) // 4 + 1) + 1
    cpu = (latency + int(OP_BUSY.max()) + issue + TAKEN_BRANCH_PENALTY + JUMP_PENALTY + ANNULLED_SLOT_PENALTY
           + 3 * M.MISS_CPU_CYCLES)
    bus = 3 * (M.BUS_WRITEBACK_CYCLES + M.BUS_FILL_CYCLES + M.BUS_ROW_OPEN_CYCLES + M.UNCACHED_BUS_CYCLES
               + M.VRAM_FILL_BUS_CYCLES + M.UNCACHED_STORE_BUS_CYCLES)
    return cpu, bus


BOUND_CPU, BOUND_BUS = _step_bound_parts()


@_cached
@njit
def step_bound(tm):
    """Cycles one instruction can cost at most, at the clock in force (timed mode)."""
    return BOUND_CPU + tm[T_TICK_COST] + M.bus_to_cpu(tm, T_RATIO_Q8, BOUND_BUS)
