"""The lab's snippet assembler: VFPU lines through vfpu.asm, plain MIPS lines through the
CPU's encoder (allegrex.cpu.asm: the decode table's rows and operand formats),
and `.data`-style directives. A table-driven assembler in Python costs microseconds per
line, where running zig's assembler on a .S costs a process start per snippet, and it
needs no toolchain: good for a teaching loop that re-runs on every keystroke.

Snippet syntax: one statement per line or separated by ';'; comments start with '#'
(at a line start or after whitespace) or '//'. Labels `name:`. Sections `.text`
(default) and `.data`. Directives: .float a, b..; .word n|label..; .space bytes;
.align n (2**n bytes). Pseudo-instructions: nop, move, li, la, b, beqz, bnez.
"""

import re
import struct
from dataclasses import dataclass, field

from allegrex.cpu.asm import AsmError, assemble, expect_operands, number
from allegrex.errors import AllegrexError
from vfpu import asm as vasm
from vfpu.syntax import VfpuAsmError

TEXT_BASE = 0x08804000
DATA_BASE = 0x08810000  # data sits 48 KiB above the code: addresses students can remember
TEXT_LIMIT = DATA_BASE - TEXT_BASE
DATA_LIMIT = 0x00100000


class LabAsmError(AllegrexError):
    """A snippet line the lab cannot assemble (the message names the line)."""


@dataclass
class Program:
    """An assembled snippet: code words with their source text, and initial data."""

    text_base: int = TEXT_BASE
    data_base: int = DATA_BASE
    words: list = field(default_factory=list)  # 32-bit words from text_base
    lines: list = field(default_factory=list)  # source text of each word (pseudo-ops: each word)
    data: bytearray = field(default_factory=bytearray)
    labels: dict = field(default_factory=dict)  # name -> address
    data_items: list = field(default_factory=list)  # (label or None, addr, kind, count)

    def code_bytes(self) -> bytes:
        return struct.pack(f"<{len(self.words)}I", *self.words)


_COMMENT_RE = re.compile(r"(^|\s)#.*$|//.*$")
_LABEL_RE = re.compile(r"^\s*([A-Za-z_.$][\w.$]*)\s*:")
_MEM_RE = re.compile(r"^(.*)\(\s*(\$?\w+)\s*\)$")


def statements(source: str):
    """(line number, statement text) with comments stripped, labels split off as 'name:'."""
    for lineno, line in enumerate(source.splitlines(), 1):
        line = _COMMENT_RE.sub("", line)
        for stmt in line.split(";"):
            stmt = stmt.strip()
            m = _LABEL_RE.match(stmt)
            while m:
                yield lineno, m.group(1) + ":"
                stmt = stmt[m.end():].strip()
                m = _LABEL_RE.match(stmt)
            if stmt:
                yield lineno, stmt


def _split(stmt: str):
    parts = stmt.split(None, 1)
    return parts[0].lower(), (vasm.split_operands(parts[1]) if len(parts) > 1 else [])


# ---------------------------------------------------------------- pass 1: sizes

def _insn_words(mn: str, ops: list[str]) -> int:
    if mn == "li":
        try:
            v = number(ops[1])
        except (AsmError, IndexError):
            return 2
        return 1 if -0x8000 <= v <= 0xFFFF else 2
    if mn == "la":
        return 2
    return 1


def _float_words(ops):
    out = []
    for o in ops:
        try:
            out.append(struct.pack("<f", float(o)))
        except (ValueError, OverflowError):
            raise LabAsmError(f"bad .float value {o!r}") from None
    return out


class _Assembler:
    def __init__(self, source: str):
        self.source = source
        self.prog = Program()

    def run(self) -> Program:
        self._layout()
        self._emit()
        return self.prog

    def _layout(self):
        """Pass 1: addresses of every label."""
        section, pc, dp = "text", TEXT_BASE, DATA_BASE
        for lineno, stmt in statements(self.source):
            try:
                if stmt.endswith(":"):
                    name = stmt[:-1]
                    if name in self.prog.labels:
                        raise LabAsmError(f"label {name!r} defined twice")
                    self.prog.labels[name] = pc if section == "text" else dp
                    continue
                mn, ops = _split(stmt)
                if mn in (".text", ".data"):
                    section = mn[1:]
                elif mn.startswith("."):
                    size = self._directive_size(mn, ops, dp if section == "data" else pc)
                    if section == "data":
                        dp += size
                    else:
                        pc += size
                elif section == "data":
                    raise LabAsmError("instructions belong in .text")
                else:
                    pc += 4 * _insn_words(mn, ops)
            except (LabAsmError, VfpuAsmError, AsmError) as exc:
                raise LabAsmError(f"line {lineno}: {stmt}: {exc}") from None
        if pc - TEXT_BASE > TEXT_LIMIT or dp - DATA_BASE > DATA_LIMIT:
            raise LabAsmError("snippet too large for the lab (48 KiB of code, 1 MiB of data)")

    def _directive_size(self, mn, ops, at):
        if mn == ".float" or mn == ".word":
            return 4 * len(ops)
        if mn == ".space":
            return number(ops[0]) if ops else 0
        if mn == ".align":
            a = 1 << number(ops[0]) if ops else 4
            return (-at) % a
        if mn in (".set", ".globl", ".global", ".ent", ".end"):
            return 0
        raise LabAsmError(f"unknown directive {mn} (.text .data .float .word .space .align)")

    def _emit(self):
        """Pass 2: words and data bytes."""
        section = "text"
        for lineno, stmt in statements(self.source):
            if stmt.endswith(":"):
                continue
            mn, ops = _split(stmt)
            try:
                if mn in (".text", ".data"):
                    section = mn[1:]
                elif mn.startswith("."):
                    self._data(section, mn, ops)
                else:
                    for w, text in self._instruction(stmt, mn, ops):
                        self.prog.words.append(w & 0xFFFFFFFF)
                        self.prog.lines.append(text)
            except (LabAsmError, VfpuAsmError, AsmError) as exc:
                raise LabAsmError(f"line {lineno}: {stmt}: {exc}") from None

    def _data(self, section, mn, ops):
        if section == "text":
            if mn in (".float", ".word"):
                raise LabAsmError(f"{mn} in .text: put data after a .data line")
            if mn in (".space", ".align"):
                n = self._directive_size(mn, ops, self._pc())
                for _ in range(n // 4):
                    self.prog.words.append(0)
                    self.prog.lines.append("nop")
            return
        d = self.prog.data
        addr = DATA_BASE + len(d)
        label = next((k for k, v in self.prog.labels.items() if v == addr and v >= DATA_BASE), None)
        if mn == ".float":
            for b in _float_words(ops):
                d += b
            self.prog.data_items.append((label, addr, "float", len(ops)))
        elif mn == ".word":
            for o in ops:
                d += struct.pack("<I", self._value(o) & 0xFFFFFFFF)
            self.prog.data_items.append((label, addr, "word", len(ops)))
        elif mn in (".space", ".align"):
            n = self._directive_size(mn, ops, addr)
            d += bytes(n)
            if mn == ".space":
                self.prog.data_items.append((label, addr, "space", n))

    def _pc(self):
        return TEXT_BASE + 4 * len(self.prog.words)

    def _value(self, text):
        t = text.strip()
        if t in self.prog.labels:
            return self.prog.labels[t]
        return number(t)

    def _instruction(self, stmt, mn, ops):
        pc = self._pc()
        if mn in vasm.MNEMONICS:
            if mn in ("bvf", "bvt", "bvfl", "bvtl") and len(ops) == 2 and ops[1] in self.prog.labels:
                stmt = f"{mn} {ops[0]}, 0x{self.prog.labels[ops[1]]:08x}"
            return [(vasm.assemble(stmt, pc), stmt)]
        pseudo = self._pseudo(mn, ops)
        if pseudo is not None:
            return pseudo
        return [(self._encode(mn, ops, pc), stmt)]

    def _pseudo(self, mn, ops):
        if mn == "nop":
            return [(0, "nop")]
        if mn == "move":
            expect_operands(ops, 2, mn)
            return [(self._encode("addu", [ops[0], ops[1], "zero"], 0), f"move {ops[0]}, {ops[1]}")]
        if mn == "b":
            expect_operands(ops, 1, mn)
            return [(self._encode("beq", ["zero", "zero", ops[0]], self._pc()), f"b {ops[0]}")]
        if mn in ("beqz", "bnez"):
            expect_operands(ops, 2, mn)
            return [(self._encode(mn[:3], [ops[0], "zero", ops[1]], self._pc()), f"{mn} {ops[0]}, {ops[1]}")]
        if mn in ("li", "la"):
            expect_operands(ops, 2, mn)
            v = self._value(ops[1]) if mn == "la" else number(ops[1])
            if mn == "li" and -0x8000 <= v < 0x8000:
                return [(self._encode("addiu", [ops[0], "zero", str(v)], 0), f"li {ops[0]}, {ops[1]}")]
            if mn == "li" and 0 <= v <= 0xFFFF:
                return [(self._encode("ori", [ops[0], "zero", str(v)], 0), f"li {ops[0]}, {ops[1]}")]
            v &= 0xFFFFFFFF
            return [(self._encode("lui", [ops[0], str(v >> 16)], 0), f"{mn} {ops[0]}, {ops[1]}  (hi)"),
                    (self._encode("ori", [ops[0], ops[0], str(v & 0xFFFF)], 0), f"{mn} {ops[0]}, {ops[1]}  (lo)")]
        return None

    def _encode(self, mn, ops, pc):
        """One word of a decode-table instruction (allegrex.cpu.asm reads its operands)."""
        return assemble(mn, ops, pc, self.prog.labels)


def assemble_snippet(source: str) -> Program:
    """Assemble a lab snippet (see the module doc); raises LabAsmError naming the line."""
    return _Assembler(source).run()
