"""Time one function of a PSP program on the simulated PSP, as a kernel author does:
arguments and buffers from numpy, N calls, warm or cold caches; cycles per call, the
stall breakdown and the buffers back (`allegrex bench kernel`).

    from allegrex.bench import kernel
    r = kernel.call("build/EBOOT.PBP", "saxpy", 2.0, x, y, len(x), n=10)
    r.cycles, r.cpi, r.stalls["vfpu"], r.outputs[2]      # y after the calls, as numpy
    prog = kernel.Program("build/EBOOT.PBP")              # boot once, call many times
    for size in (64, 256, 1024): prog.call("saxpy", 2.0, x[:size], y[:size], size)

How a call runs: the program is booted and run up to `main` (its C runtime set up:
heap, stdio), then stopped. Each call starts from that state: the buffers are written
(each aligned to a cache line, between guard bytes), the arguments placed as the
program's calling convention says (o32 for our SDK, EABI for psp-gcc: Image.abi), `ra`
set to an unmapped address, and the kernel run until the function returns there. Memory
writes from Python do not touch the cache model: a warm call (the default) follows an
untimed warm-up call, a cold one starts with both caches empty (timing.reset_caches).

What is counted: the function from its first instruction to its return's delay slot,
callees and HLE calls included: cycles = instructions + stall cycles + HLE cycles, the
profiler's measure (a function's profile row, a call edge's inclusive cost). OS
interrupt work during the call is reported beside it, not in it. Call overhead, not
counted: the caller's `jal` and its delay slot (CALL_OVERHEAD cycles) and the
instructions that set up the arguments; the harness adds nothing (it stops at the
return address before anything runs there).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from allegrex.cpu.state import A0, PC, RA, SP, V0, V1
from allegrex.errors import AllegrexError
from allegrex.timing import counters as C
from allegrex.timing.classes import JUMP_PENALTY

RETURN_ADDR = 0x0FFF0000  # unmapped: the function's return faults here before anything runs
ALIGN = 64  # buffers start on a cache line
GUARD = 64  # bytes of pattern before and after each buffer, checked after every call
GUARD_BYTE = 0xA5
STACK_MARGIN = 256  # below main's stack pointer, where calls start
DEFAULT_MAX_SECONDS = 10.0  # simulated seconds a call may take
CALL_OVERHEAD = 1 + JUMP_PENALTY + 1  # jal (issue + refill, MEASURED, docs/timing.md) and its delay slot
STALL_NAMES = tuple(C.NAMES[k] for k in C.PROF_STALL_KINDS)
INT_RANGE = (-(1 << 31), (1 << 32) - 1)
O32_FLOAT_REGS, EABI_INT_REGS, EABI_FLOAT_REGS = 2, 8, 8


class KernelError(AllegrexError):
    """A kernel call that cannot be made or did not complete."""


class ArgumentError(KernelError):
    """Arguments the harness cannot pass, or that do not fit the buffers given."""


@dataclass
class Result:
    function: str
    program: str
    calls: int
    warm: bool
    clock: str
    per_call: list  # counter deltas of each timed call (dicts, see Program._delta)
    outputs: list  # per argument: the buffer after the last call (numpy), None for scalars
    returned: dict  # v0, v1 (uint32) and f0 (float) after the last call
    guest_output: str = ""  # what the program printed (init and calls)
    notes: list = field(default_factory=list)

    def _mean(self, key) -> float:
        return sum(c[key] for c in self.per_call) / len(self.per_call)

    @property
    def cycles(self) -> float:
        """Cycles per call (mean over the timed calls)."""
        return self._mean("cycles")

    @property
    def instructions(self) -> float:
        return self._mean("instructions")

    @property
    def cpi(self) -> float:
        return self.cycles / self.instructions if self.instructions else 0.0

    @property
    def stalls(self) -> dict:
        """Stall cycles per call by cause (mean)."""
        return {k: self._mean(k) for k in STALL_NAMES}

    def summary(self) -> dict:
        keys = ("cycles", "instructions", *STALL_NAMES, "hle_cycles", "dcache_misses", "icache_misses",
                "dcache_hits", "os_cycles")
        return {"function": self.function, "program": self.program, "calls": self.calls, "warm": self.warm,
                "clock": self.clock, "per_call": {k: self._mean(k) for k in keys}, "cpi": self.cpi,
                "call_overhead_cycles": CALL_OVERHEAD, "cycles_each_call": [c["cycles"] for c in self.per_call],
                "returned": self.returned, "notes": self.notes}


class Program:
    """A booted program stopped at `main`, ready for calls."""

    def __init__(self, path, symbols=None, model: str = "psp-2000", clock: int | None = None, abi: str | None = None,
                 os_tick: bool = True):
        from allegrex.commands.run import load_program
        from allegrex.hle.kernel import RunOptions
        self.path = str(path)
        self.output = io.StringIO()
        options = RunOptions(program_path=self.path, stdout=self.output, stderr=self.output)
        self.machine, self.kernel = load_program(self.path, model, options, symbols)
        self.image = self.kernel.image
        self.abi = abi or self.image.abi or "o32"
        if self.abi not in ("o32", "eabi32"):
            raise ArgumentError(f"unknown calling convention {self.abi!r}: o32 (our SDK, zig) or eabi32 (psp-gcc)")
        self.started_at_main = self._run_to_main()
        if clock:
            self.kernel.set_clock(int(clock), int(clock) // 2)
        if not os_tick:
            self.machine.timing.set_os_tick(False, self.machine.cycles)
        self.context = self.machine.cpu.save_context()
        self.sp = int(self.context[0][SP])

    def _run_to_main(self) -> bool:
        """Run the program's start-up code up to its `main` (False: no main symbol; the
        calls then start from the entry thread's first state)."""
        main = self.image.symbol_named("main")
        if main is None:
            self.kernel.threads.reschedule()
            if self.kernel.threads.current is None:
                raise KernelError(f"{self.path}: the program's first thread did not start")
            return False
        self.machine.breakpoints.add(main.addr)
        try:
            stop = self.kernel.run(max_seconds=DEFAULT_MAX_SECONDS)
        finally:
            self.machine.breakpoints.discard(main.addr)
        if stop.kind != "breakpoint":
            raise KernelError(f"{self.path}: the program stopped before reaching main: {stop.message}")
        self.kernel.stop = None
        return True

    # --- one call ---
    def call(self, function: str, *args, n: int = 1, warm: bool = True,
             max_seconds: float = DEFAULT_MAX_SECONDS) -> Result:
        """Call `function(*args)` n times (after one untimed call when warm); numpy
        arrays are passed as pointers to copies in guest memory, written again before
        every call, and returned as they are after the last one."""
        from allegrex.timing.annotate import find_function
        if n < 1:
            raise ArgumentError(f"the number of calls must be at least 1, got {n}")
        entry = find_function(self.image, function).addr
        values, buffers = self._arguments(args)
        blocks = self._allocate(buffers)
        try:
            per_call = []
            for k in range(n + (1 if warm else 0)):
                before = self._start(entry, values, buffers, cold=not warm)
                self._finish(function, max_seconds, buffers)
                if k or not warm:
                    per_call.append(self._delta(before))
            outputs = [self._read(b) if b is not None else None for b in buffers]
        finally:
            for block in blocks:
                self.kernel.sysmem.free_block(block)
        regs, fpr = self.machine.cpu.regs, self.machine.cpu.fpr
        returned = {"v0": int(regs[V0]), "v1": int(regs[V1]), "f0": float(fpr[0])}
        notes = []
        if not self.started_at_main:
            notes.append("no main symbol: calls start from the program's entry state (C runtime not set up)")
        if len({c["cycles"] for c in per_call}) > 1:
            notes.append("the calls differ in cycles: an OS interrupt during a call lets pending results complete "
                         "(--no-os-tick times every call alike)")
        return Result(function, self.path, n, warm, self.machine.timing.clock_text(), per_call, outputs, returned,
                      self.output.getvalue(), notes)

    def _arguments(self, args):
        """(register/stack value per argument, Buffer or None per argument)."""
        values, buffers = [], []
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                if a.dtype.kind not in "biuf" or a.size == 0:
                    raise ArgumentError(f"argument {i}: an array of {a.size} {a.dtype} cannot be passed "
                                        "(give a non-empty array of numbers)")
                buffers.append(_Buffer(i, np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))))
                values.append(("int", 0))  # the address, known once allocated
            elif isinstance(a, (bool, int, np.integer)):
                v = int(a)
                if not INT_RANGE[0] <= v <= INT_RANGE[1]:
                    raise ArgumentError(f"argument {i}: {v} does not fit a 32-bit register")
                buffers.append(None)
                values.append(("int", v & 0xFFFFFFFF))
            elif isinstance(a, (float, np.floating)):
                buffers.append(None)
                values.append(("float", int(np.array(a, dtype=np.float32).view(np.uint32))))
            else:
                raise ArgumentError(f"argument {i}: {type(a).__name__} cannot be passed "
                                    "(give ints, floats or numpy arrays)")
        return values, buffers

    def _allocate(self, buffers):
        blocks = []
        for b in buffers:
            if b is None:
                continue
            size = GUARD + b.array.nbytes + GUARD
            block = self.kernel.sysmem.alloc_block(2, f"bench-arg{b.index}", size=size + ALIGN, align=ALIGN)
            if block is None:
                for done in blocks:
                    self.kernel.sysmem.free_block(done)
                free = self.kernel.sysmem.max_free()
                raise ArgumentError(f"argument {b.index} ({b.describe()}) does not fit in the PSP's free memory "
                                    f"({free:,} bytes in one piece, after the program's own)")
            blocks.append(block)
            b.addr = (block.addr + GUARD + ALIGN - 1) & ~(ALIGN - 1)
        return blocks

    def _start(self, entry, values, buffers, cold):
        """Write the buffers, set the registers, empty the caches if cold; the counters now."""
        m = self.machine
        guard = bytes([GUARD_BYTE]) * GUARD
        for b in buffers:
            if b is not None:
                m.memory.write(b.addr - GUARD, guard + b.array.tobytes() + guard)
        m.cpu.load_context(self.context)
        regs, fpr_bits = m.cpu.regs, m.cpu.fpr_bits
        addrs = iter(b.addr for b in buffers if b is not None)
        placed = [(kind, next(addrs) if buffer is not None else v) for (kind, v), buffer in zip(values, buffers)]
        gprs, fprs, stack = _place(placed, self.abi)
        sp = (self.sp - STACK_MARGIN - 4 * (len(stack) + 4)) & ~15
        for r, v in gprs.items():
            regs[r] = v
        for r, v in fprs.items():
            fpr_bits[r] = v
        for offset, v in stack:
            m.memory.write_u32(sp + offset, v)
        regs[SP], regs[RA] = sp, RETURN_ADDR
        m.cpu.jump(entry)
        m.timing.jumped()  # as a jal would: the entry's I-cache line is looked up
        if cold:
            m.timing.reset_caches()
        return m.cpu.counters.copy()

    def _finish(self, function, max_seconds, buffers):
        """Run until the call returns; raise KernelError for anything else."""
        k = self.kernel
        k.stop = None
        stop = k.run(max_seconds=k.clock.seconds() + max_seconds)
        pc = int(self.machine.cpu.regs[PC])
        if stop.kind == "fault" and pc == RETURN_ADDR:
            k.stop = None
            self._check_guards(function, buffers)
            return
        k.stop = None
        if stop.kind == "max-seconds":
            raise KernelError(f"{function} did not return within {max_seconds:g} simulated seconds")
        raise KernelError(f"{function} did not return: {stop.message}")

    def _check_guards(self, function, buffers):
        for b in buffers:
            if b is None:
                continue
            for where, addr in (("before its start", b.addr - GUARD), ("after its end", b.addr + b.array.nbytes)):
                got = np.frombuffer(self.machine.memory.read(addr, GUARD), dtype=np.uint8)
                changed = np.nonzero(got != GUARD_BYTE)[0]
                if len(changed):
                    raise ArgumentError(
                        f"{function} wrote outside argument {b.index} ({b.describe()} at 0x{b.addr:08x}): "
                        f"{len(changed)} of the {GUARD} bytes {where} changed, from 0x{addr + int(changed[0]):08x}; "
                        "the arguments do not fit the buffers")

    def _read(self, b):
        data = self.machine.memory.read(b.addr, b.array.nbytes)
        return np.frombuffer(data, dtype=b.array.dtype).reshape(b.array.shape).copy()

    def _delta(self, before) -> dict:
        d = self.machine.cpu.counters - before
        out = {name: int(d[k]) for k, name in zip(C.PROF_STALL_KINDS, STALL_NAMES)}
        out.update(instructions=int(d[C.INSTRUCTIONS]), hle_cycles=int(d[C.STALL_SYSCALL]),
                   os_cycles=int(d[C.OS_TICK_CYCLES]), dcache_misses=int(d[C.DCACHE_MISSES]),
                   dcache_hits=int(d[C.DCACHE_HITS]), icache_misses=int(d[C.ICACHE_MISSES]),
                   elapsed=int(d[C.CYCLES]))
        out["cycles"] = out["instructions"] + sum(out[k] for k in STALL_NAMES) + out["hle_cycles"]
        out["other"] = out["elapsed"] - out["cycles"] - out["os_cycles"]  # idle, thread switches
        return out


@dataclass
class _Buffer:
    index: int
    array: np.ndarray
    addr: int = 0

    def describe(self) -> str:
        shape = "x".join(map(str, self.array.shape))
        return f"{self.array.dtype}[{shape}], {self.array.nbytes:,} bytes"


def _place(values, abi):
    """({gpr: value}, {fpr: bits}, [(stack offset, value)]) for (kind, value) arguments."""
    gprs, fprs, stack = {}, {}, []
    if abi == "o32":  # slot k: a0-a3, then sp+4k; leading floats in f12, f14
        leading_floats = True
        for slot, (kind, v) in enumerate(values):
            if kind == "float" and leading_floats and slot < O32_FLOAT_REGS:
                fprs[12 + 2 * slot] = v
            elif slot < 4:
                gprs[A0 + slot] = v
            else:
                stack.append((4 * slot, v))
            leading_floats = leading_floats and kind == "float"
        return gprs, fprs, stack
    n_int = n_float = 0  # EABI: a0-a3, t0-t3 and f12-f19 in turn, then the stack from sp
    for kind, v in values:
        if kind == "float" and n_float < EABI_FLOAT_REGS:
            fprs[12 + n_float] = v
            n_float += 1
        elif kind == "int" and n_int < EABI_INT_REGS:
            gprs[A0 + n_int] = v
            n_int += 1
        else:
            stack.append((4 * len(stack), v))
    return gprs, fprs, stack


DTYPES = {"f32": np.float32, "f64": np.float64, "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
          "i32": np.int32, "u32": np.uint32}


def parse_arg(text: str, index: int):
    """An argument as `allegrex bench kernel` takes it: 12, -3, 0x40 (int); 2.5, 1e-3
    (float); TYPE:COUNT[:FILL] a buffer of COUNT elements of TYPE (f32, f64, i8, u8, i16,
    u16, i32, u32) filled with zeros (default), ones, ramp (0, 1, 2...), rand (uniform in
    [-1, 1) for floats, the whole range for integers; seeded by the argument's position)
    or a value list (1,2.5,3); @FILE.npy: an array saved by numpy."""
    if text.startswith("@"):
        try:
            return np.load(text[1:], allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise ArgumentError(f"argument {index}: cannot read {text[1:]}: {exc}") from None
    if ":" not in text:
        for convert in (lambda t: int(t, 0), float):
            try:
                return convert(text)
            except ValueError:
                pass
        raise ArgumentError(f"argument {index}: {text!r} is not a number, TYPE:COUNT[:FILL] or @FILE.npy")
    kind, _, rest = text.partition(":")
    count, _, fill = rest.partition(":")
    if kind not in DTYPES:
        raise ArgumentError(f"argument {index}: unknown element type {kind!r} (one of {', '.join(DTYPES)})")
    try:
        n = int(count, 0)
    except ValueError:
        n = -1
    if n <= 0:
        raise ArgumentError(f"argument {index}: {count!r} is not a positive element count")
    dtype = np.dtype(DTYPES[kind])
    if fill in ("", "zeros"):
        return np.zeros(n, dtype)
    if fill == "ones":
        return np.ones(n, dtype)
    if fill == "ramp":
        return np.arange(n).astype(dtype)
    if fill == "rand":
        rng = np.random.default_rng(index)
        if dtype.kind == "f":
            return rng.uniform(-1, 1, n).astype(dtype)
        info = np.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), n, endpoint=True).astype(dtype)
    try:
        values = [float(v) if dtype.kind == "f" else int(v, 0) for v in fill.split(",")]
    except ValueError:
        raise ArgumentError(f"argument {index}: fill {fill!r} is not zeros, ones, ramp, rand or a value list") from None
    if len(values) == 1:
        values *= n
    if len(values) != n:
        raise ArgumentError(f"argument {index}: {len(values)} values for {n} elements")
    return np.array(values, dtype=dtype)


def call(path, function: str, *args, n: int = 1, warm: bool = True, symbols=None, model: str = "psp-2000",
         clock: int | None = None, abi: str | None = None, os_tick: bool = True) -> Result:
    """Boot the program at `path` and time `function(*args)` (see Program.call)."""
    return Program(path, symbols, model, clock, abi, os_tick).call(function, *args, n=n, warm=warm)


def _signed(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


def format_result(r: Result, returns: str | None = None) -> str:
    """The result as text; returns="int" or "float" adds the return value (v0 or $f0)."""
    s = r.summary()
    per = s["per_call"]
    lines = [f"{r.function} in {r.program}: {r.calls} {'warm' if r.warm else 'cold'} call"
             f"{'s' if r.calls > 1 else ''} at {r.clock}",
             f"cycles per call      {per['cycles']:,.1f}  (instructions + stalls + HLE; OS interrupts "
             f"{per['os_cycles']:,.1f} more)",
             f"instructions         {per['instructions']:,.1f}",
             f"CPI                  {r.cpi:.3f}",
             "stall cycles         " + ", ".join(f"{k} {per[k]:,.1f}" for k in STALL_NAMES if per[k]) or "none",
             f"D-cache              {per['dcache_misses']:,.1f} misses, {per['dcache_hits']:,.1f} hits; "
             f"I-cache {per['icache_misses']:,.1f} misses",
             f"call overhead        not counted: the caller's jal + delay slot ({CALL_OVERHEAD} cycles) "
             "and argument setup"]
    if per["hle_cycles"]:
        lines.insert(5, f"HLE cycles           {per['hle_cycles']:,.1f}")
    if returns == "int":
        lines.append(f"returned             {_signed(r.returned['v0'])} (v0 0x{r.returned['v0']:08x})")
    elif returns == "float":
        lines.append(f"returned             {r.returned['f0']:.9g} (f0)")
    lines += [f"note: {n}" for n in r.notes]
    return "\n".join(lines)


def format_comparison(a: Result, b: Result) -> str:
    """Two results side by side, with B's speed-up over A."""
    sa, sb = a.summary()["per_call"], b.summary()["per_call"]
    label_a, label_b = _label(a, b), _label(b, a)
    width = max(len(label_a), len(label_b), 12)
    rows = [("cycles per call", sa["cycles"], sb["cycles"]), ("instructions", sa["instructions"], sb["instructions"]),
            ("CPI", a.cpi, b.cpi)]
    rows += [(f"stalls: {k}", sa[k], sb[k]) for k in STALL_NAMES if sa[k] or sb[k]]
    rows += [("HLE cycles", sa["hle_cycles"], sb["hle_cycles"])] if sa["hle_cycles"] or sb["hle_cycles"] else []
    rows += [("D-cache misses", sa["dcache_misses"], sb["dcache_misses"]),
             ("I-cache misses", sa["icache_misses"], sb["icache_misses"]),
             ("OS interrupt cycles", sa["os_cycles"], sb["os_cycles"])]
    lines = [f"{'':20s}  {label_a:>{width}s}  {label_b:>{width}s}"]
    for name, x, y in rows:
        fmt = (lambda v: f"{v:.3f}") if name == "CPI" else (lambda v: f"{v:,.1f}")
        lines.append(f"{name:20s}  {fmt(x):>{width}s}  {fmt(y):>{width}s}")
    speedup = sa["cycles"] / sb["cycles"] if sb["cycles"] else float("inf")
    lines.append(f"speed-up of {label_b} over {label_a}: {speedup:.2f}x "
                 f"({a.calls} {'warm' if a.warm else 'cold'} calls each, at {a.clock})")
    return "\n".join(lines)


def _label(r: Result, other: Result) -> str:
    if r.program == other.program:
        return r.function
    if r.function == other.function:
        return r.program
    return f"{r.program}:{r.function}"
