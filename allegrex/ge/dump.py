"""`allegrex run --ge-dump FILE`: every display-list command the GE executes, in readable
form, grouped by frame (the vblank it ran in):

    == frame 12 (vblank at 200200 us)
    -- GE run from 0x08821260 (list id 0x046e0680) at 200213.41 us: 5 commands, ended: stall
      0x08821260  0x12800118  VERTEXTYPE tc=u16 color=none normal=none pos=s16 ... through=1
      0x08821264  0x04060002  PRIM count=2 type=sprites

Each line: the command's address, its word, its name and argument fields from the
command table (allegrex/ge/commands.py). A run ends at END (after SIGNAL or FINISH), at
the stall address, or after the processor's command budget.
"""

import numpy as np

from allegrex.errors import AllegrexError
from allegrex.ge import commands, hardware, processor
from allegrex.hle.display import vblank_us


def open_dump(path: str):
    """The dump file, checked when the options are read (one clear line if it cannot be written)."""
    try:
        return open(path, "w", encoding="utf-8", buffering=1)
    except OSError as exc:
        raise AllegrexError(f"cannot write GE dump {path}: {exc.strerror}") from None


class ListDump:
    """Writes each run of `hw` (a GeHardware) with the kernel's frame and time."""

    def __init__(self, kernel, hw, out):
        self.k = kernel
        self.out = out
        self.frame = -1
        hw.trace = np.zeros(1 + hardware.BUDGET, dtype=np.int64)
        hw.dump = self.run

    def run(self, addresses, event: int) -> None:
        k = self.k
        frame = k.display.vcount()
        if frame != self.frame:
            self.frame = frame
            self.out.write(f"== frame {frame} (vblank at {vblank_us(frame)} us)\n")
        start = int(addresses[0]) if len(addresses) else int(k.ge.hw.regs[1])
        ended = processor.EVENT_NAMES.get(event, str(event))
        running = k.ge.running
        which = f" (list id 0x{running.id:08x})" if running is not None else ""
        self.out.write(f"-- GE run from 0x{start:08x}{which} at {k.ge.now():.2f} us: {len(addresses)} commands, "
                       f"ended: {ended}\n")
        memory = k.memory
        for addr in addresses:
            word = memory.read_u32(int(addr))
            self.out.write(f"  0x{int(addr):08x}  0x{word:08x}  {commands.describe(word)}\n")
