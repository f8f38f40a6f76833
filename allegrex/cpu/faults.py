"""Guest faults: what went wrong in the simulated program, in terms a developer can act on."""

from allegrex.cpu.disasm import disassemble
from allegrex.cpu.events import FAULT_FETCH, FAULT_LOAD, FAULT_NAMES, FAULT_STORE
from allegrex.cpu.state import FCR31, GPR_NAMES, HI, LO, NPC, PC
from allegrex.errors import AllegrexError
from allegrex.memory import KERNEL_END, KERNEL_START

MEMORY_FAULTS = (FAULT_FETCH, FAULT_LOAD, FAULT_STORE)


class GuestFault(AllegrexError):
    """The guest did something the hardware would trap: bad address, overflow trap,
    reserved or unavailable instruction. str() is the full report."""

    def __init__(self, kind, pc, word, address=None, regs=None, recent_pcs=(), symbol_lookup=None,
                 read_word=None, user_mode=False):
        self.kind = kind  # FAULT_* code
        self.kind_name = FAULT_NAMES.get(kind, f"fault {kind}")
        self.pc = pc & 0xFFFFFFFF
        self.word = word
        self.address = address
        self.regs = [int(r) for r in regs] if regs is not None else []
        self.recent_pcs = [int(p) for p in recent_pcs]
        self.symbol_lookup = symbol_lookup
        self.instruction = disassemble(word, self.pc, symbol_lookup) if word is not None else "(unreadable)"
        self._read_word = read_word
        self.user_mode = user_mode
        super().__init__(self.report())

    def where(self, addr) -> str:
        """`0x08804010 <main+0x10>`, or just the address without a symbol lookup."""
        text = f"0x{addr:08x}"
        if self.symbol_lookup is not None:
            lookup = getattr(self.symbol_lookup, "symbol_at", self.symbol_lookup)
            try:
                found = lookup(addr)
            except (KeyError, LookupError, ValueError):
                found = None
            if found:
                sym, off = found
                text += f" <{sym.name}+0x{off:x}>" if off else f" <{sym.name}>"
        return text

    def report(self) -> str:
        lines = [f"guest fault: {self.kind_name} at pc {self.where(self.pc)}"]
        lines.append(f"  instruction: {self.instruction}")
        if self.kind in MEMORY_FAULTS and self.address is not None:
            kernel = self.user_mode and KERNEL_START <= self.address & 0xFFFFFFFF < KERNEL_END
            lines.append(f"  address: 0x{self.address:08x}" + ("  (kernel memory: user-mode code may not touch it)"
                                                              if kernel else ""))
        if self.regs:
            r = self.regs
            for row in range(0, 32, 4):
                lines.append("  " + "  ".join(f"{GPR_NAMES[i]:>4}={r[i]:08x}" for i in range(row, row + 4)))
            lines.append(f"    hi={r[HI]:08x}    lo={r[LO]:08x}    pc={r[PC]:08x}   npc={r[NPC]:08x}"
                         f"  fcr31={r[FCR31]:08x}")
        if self.recent_pcs:
            lines.append(f"  last {len(self.recent_pcs)} instructions executed (oldest first):")
            for addr in self.recent_pcs[-16:]:
                text = ""
                if self._read_word is not None:
                    w = self._read_word(addr)
                    text = disassemble(w, addr, self.symbol_lookup) if w is not None else "?"
                lines.append(f"    {self.where(addr)}  {text}")
        return "\n".join(lines)
