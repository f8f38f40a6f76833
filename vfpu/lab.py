"""The VFPU lab: run a snippet on a fresh machine one instruction at a time and record,
per instruction, its text and encoding, what it read and wrote (by register name) and
its timing as the cycle model saw it; explain register names with pictures.

    trace = run_snippet("vone.q C000; vadd.q C010, C000, C000")
    trace.steps[1].writes  ->  [Access('vpr', 'C010', cells, values)]
    explain("C012.t")      ->  words + picture of the cells the name covers

Rendering lives beside it: vfpu.lab_text (terminal), vfpu.lab_html (web page). Timing
comes only from vfpu.lab_timing (which reads allegrex.timing).
"""

import math
import re
import struct
from dataclasses import dataclass, field

import numpy as np

from allegrex.cpu import decode as D
from allegrex.cpu.disasm import disassemble as cpu_disassemble
from allegrex.cpu.fields import fs_of, ft_of, imm_of, rd_of, rs_of, rt_of
from allegrex.cpu.state import FCR31, GPR_NAMES, HI, LO
from allegrex.errors import AllegrexError
from allegrex.machine import Machine
from vfpu import lab_timing, regs
from vfpu.disasm import disassemble as vfpu_disassemble
from vfpu.disasm import mem_field
from vfpu.lab_asm import Program, assemble_snippet
from vfpu.table import find as vfpu_row

BREAK_WORD = 0x0000000D  # appended after the snippet: reaching it ends the run
MAX_STEPS = 20000
CONTROL_SHORT = [n[5:] for n in regs.CONTROL_NAMES]  # PFXS, PFXT, PFXD, CC...


class LabError(AllegrexError):
    """A snippet the lab cannot run as asked (bad --mem, endless loop...)."""


@dataclass
class Access:
    """One register or memory operand: kind vpr/gpr/fpr/hilo/vctrl/mem; name as a
    student writes it; cells (vpr indices) for VFPU operands; values as shown."""

    kind: str
    name: str
    values: list
    cells: list = field(default_factory=list)
    note: str = ""  # e.g. the prefix that rewrote the lanes

    def as_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "values": [_json_value(v) for v in self.values],
                "cells": [cell_name(c) for c in self.cells], "note": self.note}


@dataclass
class Step:
    index: int  # 1-based
    pc: int
    word: int
    text: str  # disassembly
    source: str  # the snippet's text for this word
    reads: list
    writes: list
    timing: lab_timing.StepTiming
    vpr_bits: np.ndarray  # the register file after this instruction

    def as_dict(self) -> dict:
        return {"index": self.index, "pc": self.pc, "word": self.word, "text": self.text, "source": self.source,
                "reads": [a.as_dict() for a in self.reads], "writes": [a.as_dict() for a in self.writes],
                "timing": self.timing.as_dict()}


@dataclass
class Trace:
    program: Program
    steps: list
    initial_vpr_bits: np.ndarray
    final_vpr_bits: np.ndarray
    total_cycles: int
    clock_mhz: int | None
    timed: bool  # the cycle model was present

    @property
    def changed_cells(self) -> list[int]:
        """Cells some instruction wrote, in register-file order."""
        out = set()
        for s in self.steps:
            for a in s.writes:
                if a.kind == "vpr":
                    out.update(a.cells)
        return sorted(out)

    def as_dict(self) -> dict:
        final = self.final_vpr_bits
        return {"text_base": self.program.text_base, "data_base": self.program.data_base,
                "clock_mhz": self.clock_mhz, "timing_model": self.timed,
                "instructions": len(self.steps), "total_cycles": self.total_cycles,
                "steps": [s.as_dict() for s in self.steps],
                "final": {cell_name(c): _json_value(bits_value(final[c])) for c in range(128)},
                "changed": [cell_name(c) for c in self.changed_cells]}


# ---------------------------------------------------------------- names and values

def cell_name(cell: int) -> str:
    """S<m><c><r> of vpr index m*16 + c*4 + r."""
    return f"S{cell >> 4}{(cell >> 2) & 3}{cell & 3}"


def bits_value(bits) -> float | int:
    """What a register holds, as shown: a float, or the integer when the bits are not a
    normal float (integer results of vf2i*, vi2uc... read as denormals or NaNs)."""
    b = int(bits) & 0xFFFFFFFF
    exp = (b >> 23) & 0xFF
    if (exp == 0 and b & 0x7FFFFF) or (exp == 0xFF and b & 0x7FFFFF):
        return b - (1 << 32) if b & 0x80000000 else b
    return struct.unpack("<f", struct.pack("<I", b))[0]


def fmt_value(v, digits: int = 7) -> str:
    """A float as short as it reads exactly enough; an integer pattern as e.g. '448i'."""
    if isinstance(v, int):
        return f"{v}i"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "-0" if math.copysign(1, v) < 0 else "0"
    text = f"{v:.{digits}g}"
    return text.replace("e+", "e")


def _json_value(v):
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    return v


# ---------------------------------------------------------------- register views

_VIEW_RE = re.compile(r"^([SCRME])([0-7])([0-3])([0-3])(?:\.([sptq]))?$", re.IGNORECASE)
_SIZE_WORD = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


def view_cells(name: str) -> tuple[str, int, list[int]]:
    """(kind 'v' or 'm', size n, cells) of a register name with an optional size suffix;
    without one: singles are .s, C/R vectors and M/E matrices .q."""
    m = _VIEW_RE.match(name.strip())
    if not m:
        raise LabError(f"bad VFPU register name {name!r} (S/C/R/M/E + matrix, column, row, e.g. C012.t)")
    letter = m.group(1).upper()
    suffix = (m.group(5) or ("s" if letter == "S" else "q")).lower()
    n = regs.SUFFIX_SIZE[suffix]
    if letter == "S" and n != 1:
        raise LabError(f"{name}: a single (S) has no size suffix but .s")
    if letter != "S" and n == 1:
        raise LabError(f"{name}: .s is for singles (S...); vectors and matrices are .p, .t or .q")
    kind = "m" if letter in "ME" else "v"
    size = f"m{n}" if kind == "m" else n
    try:
        f = regs.parse(name.split(".")[0], size)
    except regs.VfpuRegisterError:
        f = None
    if f is None or f not in regs.valid_fields(size):
        raise LabError(f"{name.strip()} is not a register: {_VALID_TEXT[kind, n]}")
    return kind, n, regs.cells(f, size)


_VALID_TEXT = {
    ("v", 2): "a pair starts at row 0 or 2 of its column (C<m><c>0, C<m><c>2) "
              "or column 0 or 2 of its row (R<m>0<r>, R<m>2<r>)",
    ("v", 3): "a triple starts at row 0 or 1 of its column (C<m><c>0, C<m><c>1) "
              "or column 0 or 1 of its row (R<m>0<r>, R<m>1<r>)",
    ("v", 4): "a quad is a whole column (C<m><c>0) or a whole row (R<m>0<r>)",
    ("m", 2): "a 2x2 matrix starts at column 0 or 2 and row 0 or 2 (M<m>00, M<m>20, M<m>02, M<m>22; E likewise)",
    ("m", 3): "a 3x3 matrix starts at column 0 or 1 and row 0 or 1 (M<m>00, M<m>10, M<m>01, M<m>11; E likewise)",
    ("m", 4): "a 4x4 matrix is a whole matrix: M<m>00 or its transpose E<m>00",
    ("v", 1): "a single is S<matrix 0-7><column 0-3><row 0-3>",
}


def explain(name: str) -> dict:
    """Words and a picture for a register name (S/C/R/M/E, .s/.p/.t/.q)."""
    kind, n, cells = view_cells(name)
    base = name.strip().split(".")[0].upper()
    letter, mat, a, b = base[0], int(base[1]), int(base[2]), int(base[3])
    size = name.strip().split(".")[1].lower() if "." in name else ("s" if letter == "S" else "q")
    if letter == "S":
        words = (f"{base} is one float: matrix {mat}, column {a}, row {b} "
                 f"(register file index {cells[0]}).")
    elif letter == "C":
        words = (f"{base}.{size} is a column vector of {n} ({_SIZE_WORD[n]}): matrix {mat}, column {a}, "
                 f"rows {b} to {b + n - 1}" + (" wrapping around" if b + n > 4 else "") + ".")
    elif letter == "R":
        words = (f"{base}.{size} is a row vector of {n} ({_SIZE_WORD[n]}): matrix {mat}, row {b}, "
                 f"columns {a} to {a + n - 1}" + (" wrapping around" if a + n > 4 else "") + ".")
    elif letter == "M":
        words = (f"{base}.{size} is a {n}x{n} matrix in matrix {mat}: columns {a}-{a + n - 1}, rows {b}-{b + n - 1}; "
                 f"its vectors are the columns C{mat}{a}{b}..C{mat}{a + n - 1}{b}.")
    else:
        words = (f"{base}.{size} is the transpose view of the {n}x{n} block in matrix {mat} at rows {b}-{b + n - 1}, "
                 f"columns {a}-{a + n - 1}; its vectors are the rows R{mat}{a}{b}..R{mat}{a}{b + n - 1}.")
    order = " ".join(cell_name(c) for c in cells)
    words += f" Elements in order: {order}."
    return {"name": name.strip(), "kind": kind, "size": n, "cells": [cell_name(c) for c in cells],
            "order": list(cells), "text": words}


# ---------------------------------------------------------------- operands

def _vpr_access(vpr_bits, name, cells, note=""):
    return Access("vpr", name, [bits_value(vpr_bits[c]) for c in cells], list(cells), note)


def _reg_name(row, which, field):
    kind, _ = getattr(row, which)
    n = row.count(which)
    return regs.name(field, f"m{n}" if kind == "m" else n)


def _reg_cells(row, which, field):
    kind, _ = getattr(row, which)
    n = row.count(which)
    return regs.cells(field, f"m{n}" if kind == "m" else n)


def _prefixed_read(row, which, field, vpr_bits, pfx, mode):
    """Access for a source read through prefix `pfx` (mode 0 none, 1 swizzle, 2 full): the
    cells it reads and the lane values the operation sees; constant lanes read no cell."""
    n = row.count(which)
    name = _reg_name(row, which, field)
    if mode == 0 or pfx == 0xE4 or getattr(row, which)[0] == "m":
        return _vpr_access(vpr_bits, name, _reg_cells(row, which, field))
    from vfpu.prefix import CONST_VALUES
    from vfpu.syntax import source_prefix_text
    cells, values = [], []
    for i in range(n):
        swz = (pfx >> (2 * i)) & 3
        absb, const, neg = (pfx >> (8 + i)) & 1, (pfx >> (12 + i)) & 1, (pfx >> (16 + i)) & 1
        if mode == 2 and const:
            v = CONST_VALUES[swz + 4 * absb]
        else:
            cell = int(regs.VEC_CELLS[n, field, swz])
            cells.append(cell)
            v = bits_value(vpr_bits[cell])
            if mode == 2 and absb and isinstance(v, float):
                v = abs(v)
        if mode == 2 and neg and isinstance(v, float):
            v = -v
        values.append(v)
    return Access("vpr", name, values, cells, "prefix " + source_prefix_text(pfx))


def vfpu_operands(word, cpu, mem_read):
    """(reads, writes-declared, sources for timing, memory access) of a VFPU word before it runs."""
    row = vfpu_row(word)
    reads, writes, sources, memop = [], [], [], None
    if row is None:
        return reads, writes, sources, memop
    vb, vctrl, gregs = cpu.vpr_bits, cpu.vctrl, cpu.regs
    fmt = row.fmt
    rd, rs, rt = word & 0x7F, (word >> 8) & 0x7F, (word >> 16) & 0x7F

    def read_vec(name, cells, note=""):
        reads.append(_vpr_access(vb, name, cells, note))
        sources.extend((cell_name(c), "vpr", c) for c in cells)

    def read_ctrl(num):
        idx = num - 128
        reads.append(Access("vctrl", regs.CONTROL_NAMES[idx], [int(vctrl[idx])]))
        sources.append((regs.CONTROL_NAMES[idx], "vctrl", idx))

    def read_gpr(n):
        reads.append(Access("gpr", "$" + GPR_NAMES[n], [int(gregs[n])]))
        sources.append(("$" + GPR_NAMES[n], "gpr", n))

    if fmt in ("mems", "memq", "memlr"):
        field_ = mem_field(row, word)
        size = 1 if fmt == "mems" else 4
        name = regs.name(field_, size)
        cells = regs.cells(field_, size)
        base = (word >> 21) & 31
        off = word & 0xFFFC
        off = off - 0x10000 if off & 0x8000 else off
        addr = (int(gregs[base]) + off) & 0xFFFFFFFF
        read_gpr(base)
        nbytes = 4 * size
        if fmt == "memlr":  # the quad line holding addr
            addr, nbytes = addr & ~15, 16
        memop = (addr, nbytes, row.mnemonic.startswith("s"))
        if row.mnemonic.startswith("l"):
            reads.append(Access("mem", f"0x{addr:08x}", mem_read(addr, nbytes)))
            writes.append(Access("vpr", name, [], cells))
        else:
            read_vec(name, cells)
        return reads, writes, sources, memop
    if fmt == "gv":
        cell = regs.cells(word & 0x7F, 1)
        if row.mnemonic == "mfv":
            read_vec(regs.name(word & 0x7F, 1), cell)
        else:
            read_gpr((word >> 16) & 31)
            writes.append(Access("vpr", regs.name(word & 0x7F, 1), [], cell))
        return reads, writes, sources, memop
    if fmt == "gc":
        if row.mnemonic == "mfvc":
            read_ctrl(word & 0xFF)
        else:
            read_gpr((word >> 16) & 31)
            writes.append(Access("vctrl", regs.CONTROL_NAMES[(word & 0xFF) - 128], []))
        return reads, writes, sources, memop
    if fmt == "vc":
        read_ctrl((word >> 8) & 0xFF)
        writes.append(Access("vpr", regs.name(rd, 1), [], regs.cells(rd, 1)))
        return reads, writes, sources, memop
    if fmt == "cv":
        read_vec(regs.name(rs, 1), regs.cells(rs, 1))
        writes.append(Access("vctrl", regs.CONTROL_NAMES[(word & 0xFF) - 128], []))
        return reads, writes, sources, memop
    if fmt == "br":
        reads.append(Access("vctrl", "VFPU_CC", [int(vctrl[3])]))
        sources.append(("VFPU_CC", "vcc", 0))
        return reads, writes, sources, memop
    if fmt in ("pfxs", "pfxt", "pfxd"):
        writes.append(Access("vctrl", "VFPU_" + fmt.upper(), []))
        return reads, writes, sources, memop
    use = not row.pfx_single_only or row.size == 1
    for which, f, k, mode in (("s", rs, 0, row.pfx_s), ("t", rt, 1, row.pfx_t)):
        if getattr(row, which) is not None:
            acc = _prefixed_read(row, which, f, vb, int(vctrl[k]), mode if use else 0)
            reads.append(acc)
            sources.extend((cell_name(c), "vpr", c) for c in acc.cells)
    if fmt == "cmov":
        read_ctrl(128 + 3)
    if fmt == "cmp":
        writes.append(Access("vctrl", "VFPU_CC", []))
    if row.d is not None:
        d = rt if fmt in ("iim", "fim") else rd
        cells = _reg_cells(row, "d", d)
        dp = int(vctrl[2])
        note = ""
        if use and row.pfx_d and dp:
            from vfpu.syntax import dest_prefix_text
            note = "prefix " + dest_prefix_text(dp)
            cells = [c for i, c in enumerate(cells) if not (dp >> (8 + i)) & 1]
        writes.append(Access("vpr", _reg_name(row, "d", d), [], cells, note))
    return reads, writes, sources, memop


_GPR_FIELDS = {"rs": rs_of, "rt": rt_of, "rd": rd_of}
_FPR_FIELDS = {"fs": fs_of, "ft": ft_of}


def cpu_operands(word, cpu, mem_read):
    """(reads, writes-declared, sources, memory access) of a plain MIPS word before it runs:
    the registers its decode-table row reads (its roles), then the memory a load reads."""
    ins = D.lookup(word)
    reads, sources, memop = [], [], None
    if ins is None or word == 0:
        return reads, [], sources, memop
    for role in ins.reads:
        if role in _GPR_FIELDS:
            r = _GPR_FIELDS[role](word)
            reads.append(Access("gpr", "$" + GPR_NAMES[r], [int(cpu.regs[r])]))
            sources.append(("$" + GPR_NAMES[r], "gpr", r))
        elif role in _FPR_FIELDS:
            r = _FPR_FIELDS[role](word)
            reads.append(Access("fpr", f"$f{r}", [float(cpu.fpr[r])]))
            sources.append((f"$f{r}", "fpr", r))
        elif role in ("hi", "lo"):
            reads.append(Access("hilo", role, [int(cpu.regs[HI if role == "hi" else LO])]))
            sources.append((role, role, 0))
        elif role == "fcc":
            reads.append(Access("fcc", "fcc", [int(cpu.regs[FCR31]) >> 23 & 1]))
            sources.append(("fcc", "fcc", 0))
    n = ins.width
    if n:
        addr = (int(cpu.regs[rs_of(word)]) + imm_of(word)) & 0xFFFFFFFF
        if ins.flags & D.STORE:
            memop = (addr & ~(n - 1), n, True)
        else:
            memop = (addr & ~3 if n == 4 else addr, n, False)
            reads.append(Access("mem", f"0x{addr:08x}", mem_read(addr & ~(n - 1), n)))
    return reads, [], sources, memop


# ---------------------------------------------------------------- running

def parse_mem_option(text: str) -> tuple[int, list[float]]:
    """'ADDR=1,2,3' -> (address, floats)."""
    if "=" not in text:
        raise LabError(f"--mem {text!r}: expected ADDR=v1,v2,...")
    a, v = text.split("=", 1)
    try:
        addr = int(a.strip(), 0)
        values = [float(x) for x in v.split(",") if x.strip()]
    except ValueError:
        raise LabError(f"--mem {text!r}: expected ADDR=v1,v2,... (numbers)") from None
    if addr & 3:
        raise LabError(f"--mem {text!r}: address must be a multiple of 4")
    return addr, values


class Lab:
    """A fresh machine loaded with one snippet, run one instruction at a time."""

    def __init__(self, source: str, mem=(), warm: bool = False, model: str = "psp-2000"):
        self.program = assemble_snippet(source)
        if not self.program.words:
            raise LabError("the snippet has no instructions")
        self.machine = Machine(model)
        p = self.program
        self.machine.load_raw(p.text_base, p.code_bytes() + struct.pack("<I", BREAK_WORD), entry=p.text_base)
        self.end = p.text_base + 4 * len(p.words)
        data_ranges = []
        if p.data:
            self.machine.load_raw(p.data_base, bytes(p.data))
            data_ranges.append((p.data_base, len(p.data)))
        for addr, values in mem:
            blob = struct.pack(f"<{len(values)}f", *values)
            try:
                self.machine.load_raw(addr, blob)
            except AllegrexError as exc:
                raise LabError(f"--mem 0x{addr:08x}: {exc}") from None
            data_ranges.append((addr, len(blob)))
        if warm:
            lab_timing.warm_caches(self.machine, p.text_base, 4 * len(p.words) + 4, data_ranges)
        self.steps: list[Step] = []
        self.initial = self.machine.cpu.vpr_bits.copy()
        self.done = False

    def _mem_read(self, addr, nbytes):
        """Values at a guest address as an instruction sees them: floats (or integer
        patterns) per word, or one integer for a byte or halfword access."""
        mem = self.machine.memory
        try:
            off = mem.offset(addr, min(nbytes, 4))
        except AllegrexError:
            return []  # the instruction itself will fault and say so
        raw = bytes(mem.mem[off:off + nbytes])
        if nbytes < 4:
            return [int.from_bytes(raw, "little")]
        return [bits_value(w) for w in struct.unpack(f"<{nbytes // 4}I", raw)]

    def step(self) -> Step | None:
        """Run the next instruction and record it; None once the snippet has ended."""
        if self.done:
            return None
        m, cpu = self.machine, self.machine.cpu
        pc = cpu.pc
        if pc == self.end:
            self.done = True
            return None
        if len(self.steps) >= MAX_STEPS:
            raise LabError(f"the snippet ran {MAX_STEPS} instructions without reaching its end (endless loop?)")
        word = m.memory.read_u32(pc)
        is_vfpu = D.lookup(word) is not None and D.lookup(word).fmt in (D.F_VFPU, D.F_BRV)
        operands = vfpu_operands if is_vfpu else cpu_operands
        reads, writes, sources, memop = operands(word, cpu, self._mem_read)
        before = (cpu.regs.copy(), cpu.fpr_bits.copy(), cpu.vpr_bits.copy(), cpu.vctrl.copy())
        event, timing = lab_timing.timed_step(m, sources)
        if event.kind == "fault":
            raise m.fault(event)
        if event.kind not in ("budget", "break"):
            raise LabError(f"the snippet stopped with a {event.kind} at 0x{event.pc:08x}")
        writes = self._writes(writes, before, memop)
        text = vfpu_disassemble(word, pc) if is_vfpu else cpu_disassemble(word, pc)
        text = " ".join((text or f".word 0x{word:08x}").split())
        idx = (pc - self.program.text_base) // 4
        source = self.program.lines[idx] if 0 <= idx < len(self.program.lines) else ""
        st = Step(len(self.steps) + 1, pc, word, text, source, reads, writes, timing, cpu.vpr_bits.copy())
        self.steps.append(st)
        if event.kind == "break" or cpu.pc == self.end:
            self.done = cpu.pc == self.end or event.kind == "break"
        return st

    def _writes(self, declared, before, memop):
        """Declared destinations with their new values, plus anything else that changed."""
        cpu = self.machine.cpu
        regs0, fpr0, vpr0, vctrl0 = before
        out, seen_cells = [], set()
        for a in declared:
            if a.kind == "vpr":
                out.append(_vpr_access(cpu.vpr_bits, a.name, a.cells, a.note))
                seen_cells.update(a.cells)
            elif a.kind == "vctrl":
                idx = regs.CONTROL_NAMES.index(a.name)
                out.append(Access("vctrl", a.name, [int(cpu.vctrl[idx])]))
        extra = [c for c in np.nonzero(cpu.vpr_bits != vpr0)[0] if c not in seen_cells]
        for c in extra:
            out.append(_vpr_access(cpu.vpr_bits, cell_name(c), [int(c)]))
        declared_ctrl = {a.name for a in out if a.kind == "vctrl"}
        for i in np.nonzero(cpu.vctrl[:16] != vctrl0[:16])[0]:
            if regs.CONTROL_NAMES[i] not in declared_ctrl:
                out.append(Access("vctrl", regs.CONTROL_NAMES[i], [int(cpu.vctrl[i])]))
        for r in np.nonzero(cpu.regs[:32] != regs0[:32])[0]:
            out.append(Access("gpr", "$" + GPR_NAMES[r], [int(cpu.regs[r])]))
        for r, nm in ((HI, "hi"), (LO, "lo")):
            if cpu.regs[r] != regs0[r]:
                out.append(Access("hilo", nm, [int(cpu.regs[r])]))
        for r in np.nonzero(cpu.fpr_bits != fpr0)[0]:
            out.append(Access("fpr", f"$f{r}", [float(cpu.fpr[r])]))
        if memop is not None and memop[2]:
            addr, n, _ = memop
            out.append(Access("mem", f"0x{addr:08x}", self._mem_read(addr, n)))
        return out

    def run(self) -> "Trace":
        while self.step() is not None:
            pass
        return self.trace()

    def trace(self) -> "Trace":
        m = self.machine
        return Trace(self.program, self.steps, self.initial, m.cpu.vpr_bits.copy(), m.cycles,
                     lab_timing.clock_mhz(m), lab_timing.available() and hasattr(m, "timing"))


def run_snippet(source: str, mem=(), warm: bool = False) -> Trace:
    """Assemble and run a snippet on a fresh machine; the full trace."""
    return Lab(source, mem=mem, warm=warm).run()

