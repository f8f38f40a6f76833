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

# Profiling (used only while Timing.prof has columns): the PROF_TRACKED counters as the
# last profiled instruction left them, and the instructions profiled so far.
T_PROF_LAST = 16  # len(counters.PROF_TRACKED) slots
T_PROF_INSNS = 25
# Call tracking (timing/calls.py), used only when tm is longer than TM_SIZE: the area
# after TM_SIZE holds the shadow call stack, the call-edge table and the event log.
T_CG_STATE = 26  # 1: a call or return retired, its delay slot is next
T_CG_KIND = 27  # CALL or RETURN (calls.py)
T_CG_SITE = 28  # address of that call or return instruction
T_CG_TARGET = 29  # where it goes (callee entry, or the return address)
T_CG_DEPTH = 30  # frames on the shadow stack
T_CG_MAX_DEPTH = 31
T_CG_EDGES = 32  # tm index of the edge table
T_CG_EDGE_CAP = 33  # its entries (a power of two)
T_CG_LOG = 34  # tm index of the event log
T_CG_LOG_CAP = 35  # its entries
T_CG_LOG_N = 36  # entries written
T_CG_LOST = 37  # calls not recorded: stack too deep or edge table full
T_CG_HLE_EDGE = 38  # edge of a stub whose return slot was a syscall: its HLE charge comes next (-1: none)
T_CG_HLE_BASE = 39  # counters[STALL_SYSCALL] when that syscall retired
T_CG_LOG_LOST = 40  # events not logged: the log was full

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
assert T_CG_LOG_LOST < T_READY
