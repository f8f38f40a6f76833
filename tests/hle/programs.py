"""Tiny static PSP ELF programs written word by word, for run-command tests."""

import struct

LOAD_ADDR = 0x08900000
NOP = 0x00000000
LOOP_FOREVER = [0x1000FFFF, NOP]  # beq zero, zero, . ; nop
RETURN = [0x03E00008, NOP]  # jr ra ; nop (the thread's entry returns)
LOAD_FROM_NULL = [0x8C080000, NOP] + RETURN  # lw t0, 0(zero)


def static_elf(words, addr=LOAD_ADDR) -> bytes:
    code = struct.pack(f"<{len(words)}I", *words)
    ehdr = struct.pack("<4sBBBB8xHHIIIIIHHHHHH", b"\x7fELF", 1, 1, 1, 0, 2, 8, 1, addr, 52, 0, 0, 52, 32, 1, 0, 0, 0)
    phdr = struct.pack("<8I", 1, 84, addr, addr, len(code), len(code), 5, 16)
    return ehdr + phdr + code
