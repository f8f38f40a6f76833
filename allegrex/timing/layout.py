"""Layout of the timing state array `tm` (int64), shared by every numba function of the
model. One flat array keeps the run loop's signature short and makes a machine's whole
timing state one copyable object."""

from allegrex.timing.classes import NREG, NUNITS
from allegrex.timing.memory_model import CACHE_SETS, CACHE_WAYS, DRAM_BANKS

T_ENABLED = 0  # 0: every instruction costs 1 cycle (the plain interpreter's count)
T_FRAC = 1  # quarter-cycle accumulator for fractional issue costs
T_LAST_ILINE = 2  # the instruction line being fetched from (a new line -> I-cache lookup)
T_NEXT_TICK = 3  # cycle at which the next OS tick's interrupt work is charged
T_TICK_PERIOD = 4  # cycles between OS ticks at the clock in force (0 = off)
T_TICK_COST = 5  # cycles of interrupt work per tick
T_RATIO_Q8 = 6  # 256 x cpu MHz / bus MHz
T_PROF_BASE = 7  # guest address of profile slot 0
T_CPU_MHZ = 8
T_BUS_MHZ = 9
T_VFPU_INIT_COUNT = 10  # (unused slot kept for layout stability)

T_READY = 64  # NREG ready times
T_KIND = T_READY + NREG  # NREG stall-counter indices of the last producer
T_UNIT = T_KIND + NREG  # NUNITS busy-until times
T_DRAM_ROW = T_UNIT + NUNITS  # open row per bank
T_DC_TAG = 1024  # CACHE_SETS x CACHE_WAYS line numbers (-1 = invalid)
T_DC_DIRTY = T_DC_TAG + CACHE_SETS * CACHE_WAYS
T_DC_LRU = T_DC_DIRTY + CACHE_SETS * CACHE_WAYS  # per set: the LRU way
T_IC_TAG = T_DC_LRU + CACHE_SETS
T_IC_LRU = T_IC_TAG + CACHE_SETS * CACHE_WAYS
T_VMEMO_WORD = 2048  # VFPU decode memo: word seen at a memo slot
VMEMO_SIZE = 4096
T_VMEMO_ROW = T_VMEMO_WORD + VMEMO_SIZE  # its VFPU table row (-1: not a known row)
TM_SIZE = T_VMEMO_ROW + VMEMO_SIZE

assert T_DRAM_ROW + DRAM_BANKS <= T_DC_TAG
