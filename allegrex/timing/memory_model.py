"""Caches and main memory: 16 KiB I- and D-caches (64-byte lines, 2-way set associative,
LRU, D-cache write-back with write-allocate) in front of a DRAM model clocked by the bus.

Why these choices (fitted to shared/reference/allegrex-timing.md, memory table):
- 2-way LRU: a 16 KiB working set that is not 64-byte aligned (257 lines) then thrashes
  exactly one set, which is what lifts the 16 KiB rows slightly above the 8 KiB rows
  (3.10 / 1.09 vs 3.04 / 1.04); a direct-mapped cache would do the same for 8 KiB
  buffers straddling a way, a 4-way or fully associative one would not miss at all.
- Blocking fills: sequential `lw` streaming costs 4.52 cycles/load = 16 loads + one
  ~55-cycle fill per line, the same fill the sequential pointer chase sees (6.40).
- DRAM rows: random chasing on a large buffer pays ~15 more cycles per fill (72.46 vs
  6.40 * 16 - 45) than sequential: the row-miss cost of opening a new DRAM row.
Fill cost (CPU cycles) = MISS_CPU_CYCLES + bus cycles x (cpu MHz / bus MHz), so the
same code takes the same bus time at 222/111 and 333/166 but more CPU cycles at 333/111.

State lives in the timing state array `tm` (see model.py for the layout).
"""

from numba import njit

# No cache=True here: these functions are compiled into the run loop, whose cache is
# flushed when any timing source changes (interp.flush_stale_cache); a separately
# cached copy would keep stale constants.

LINE_BITS = 6  # 64-byte lines
CACHE_SETS = 128  # 16 KiB / 64 B / 2 ways
CACHE_WAYS = 2
SET_MASK = CACHE_SETS - 1
WAY_BYTES = CACHE_SETS << LINE_BITS  # 8 KiB: index ops pick the way with this address bit

# Main memory (DDR SDRAM) model. MEASURED-fitted unless marked.
MISS_CPU_CYCLES = 3  # CPU side of a fill: miss detection, refill, restart (fitted)
BUS_FILL_CYCLES = 25  # bus cycles for a 64-byte fill from an open row (fitted: seq 6.40, lw 4.52)
BUS_ROW_OPEN_CYCLES = 8  # extra bus cycles when the fill must open a new row (fitted: random 72.46)
DRAM_BANKS = 4
DRAM_ROW_BITS = 11  # 2 KiB rows, banks interleaved by row (ESTIMATE: sets the mid-size random curve)
BUS_WRITEBACK_CYCLES = 16  # ESTIMATE: a dirty line's 64 bytes over a 32-bit DDR bus, no row cost
UNCACHED_BUS_CYCLES = 20  # ESTIMATE: one uncached word load: a row access without the line burst
UNCACHED_STORE_BUS_CYCLES = 3  # ESTIMATE: uncached stores drain through the write buffer
VRAM_FILL_BUS_CYCLES = 12  # ESTIMATE: VRAM (eDRAM in the graphics chip) fills faster than DDR
SCRATCHPAD_CYCLES = 0  # scratchpad: no stall beyond the load latency (on-chip SRAM)

# Address regions (guest view).
UNCACHED_BIT = 0x40000000  # the uncached views 0x40000000 and 0xC0000000
# Bit 29 is set only in kseg1 (0xA0000000, kernel mode) among the addresses translate lets
# through, and kseg1 is uncached too: one mask test tells a cached access.
UNCACHED_BITS = UNCACHED_BIT | 0x20000000
PHYS_MASK = 0x1FFFFFFF
SCRATCH_LO, SCRATCH_HI = 0x00010000, 0x00014000
VRAM_LO, VRAM_HI = 0x04000000, 0x04800000  # 2 MiB plus its mirrors

# Region codes.
REG_RAM, REG_SCRATCH, REG_VRAM, REG_UNCACHED = 0, 1, 2, 3


@njit(inline="always")
def uncached(addr):
    """Whether an access at `addr` (one translate accepted) bypasses the caches."""
    return (addr & UNCACHED_BITS) != 0


@njit(inline="always")
def region(addr):
    if uncached(addr):
        phys = addr & PHYS_MASK
        if SCRATCH_LO <= phys < SCRATCH_HI:
            return REG_SCRATCH
        return REG_UNCACHED
    phys = addr & PHYS_MASK
    if phys >= VRAM_HI:
        return REG_RAM
    if phys >= VRAM_LO:
        return REG_VRAM
    if SCRATCH_LO <= phys < SCRATCH_HI:
        return REG_SCRATCH
    return REG_RAM


@njit(inline="always")
def bus_to_cpu(tm, ratio_slot, bus_cycles):
    """CPU cycles for `bus_cycles` at the clock ratio in force (tm[ratio_slot] = 256 x cpu/bus)."""
    return (bus_cycles * tm[ratio_slot] + 255) >> 8


@njit(inline="always")
def dram_fill(tm, row_base, ratio_slot, phys, counters, row_miss_counter):
    """Bus cycles of a line fill from main RAM at `phys`, updating the open-row state."""
    bank = (phys >> DRAM_ROW_BITS) & (DRAM_BANKS - 1)
    row = phys >> DRAM_ROW_BITS
    bus = BUS_FILL_CYCLES
    if tm[row_base + bank] != row:
        tm[row_base + bank] = row
        bus += BUS_ROW_OPEN_CYCLES
        counters[row_miss_counter] += 1
    return bus


@njit(inline="always")
def cache_lookup(tm, tag_base, lru_base, line):
    """Way holding `line` (line = address >> 6), or -1. Marks it most recently used."""
    s = line & SET_MASK
    i = tag_base + s * CACHE_WAYS
    if tm[i] == line:
        tm[lru_base + s] = 1  # way 1 is now the LRU
        return 0
    if tm[i + 1] == line:
        tm[lru_base + s] = 0
        return 1
    return -1


@njit(inline="always")
def cache_victim(tm, tag_base, lru_base, line):
    """Way to refill for `line` (an invalid way first, else the LRU); marks it MRU."""
    s = line & SET_MASK
    i = tag_base + s * CACHE_WAYS
    if tm[i] < 0:
        way = 0
    elif tm[i + 1] < 0:
        way = 1
    else:
        way = tm[lru_base + s]
    tm[lru_base + s] = 1 - way
    return way
