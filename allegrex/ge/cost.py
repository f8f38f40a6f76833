"""The GE's cost model: how long the GE takes for a list, in GE cycles.

The list processor adds these figures as it executes; the queue turns the total into
simulated time (`GE_MHZ`) to decide when a list finishes, when its interrupts fire and
when sceGeDrawSync/sceGeListSync waits return. Every figure is an ESTIMATE (listed in
docs/timing.md) unless marked MEASURED with its source; none changes the CPU's cycles.
"""

GE_MHZ = 166  # ESTIMATE: the GE clock published in PSP spec sheets (half the 333 MHz CPU top clock)

COMMAND = 1  # ESTIMATE: one command word per GE cycle (PPSSPP charges 2 ticks of a clock twice as fast)
LIST_START = 10  # ESTIMATE: fetching the first words of a started or resumed list
END = 10  # ESTIMATE: END and raising the interrupt
VERTEX = 20  # ESTIMATE: decode + transform of one vertex (PPSSPP's per-vertex base cost)
VERTEX_LIT = 10  # ESTIMATE: extra per vertex with lighting on
VERTEX_PER_LIGHT = 7  # ESTIMATE: extra per vertex per enabled light
VERTEX_TEXGEN = 20  # ESTIMATE: extra per vertex for texture-matrix / environment-map coordinates
VERTEX_MORPH = 5  # ESTIMATE: extra per vertex per morph target beyond the first
BOUNDINGBOX_VERTEX = 16  # MEASURED by PPSSPP on a PSP: 22 ticks of its 222 MHz clock per tested vertex (~0.1 us)
PRIMITIVE = 8  # ESTIMATE: triangle/line setup
PIXEL_QUADS = 4  # ESTIMATE: pixels written per GE cycle (664 Mpixel/s published fill rate / 166 MHz)
PIXEL_TEXTURED = 1  # ESTIMATE: extra cycles per textured pixel (texel fetch)
TRANSFER_CYCLES_PER_16_BYTES = 19  # ESTIMATE: PPSSPP's 1.6 ticks of 222 MHz per byte (1.2 GE cycles)
CLUT_BYTES = 8  # ESTIMATE: bytes of CLUT loaded per GE cycle


def us(cycles: int) -> int:
    """Simulated microseconds for GE cycles, rounded up (a list never takes 0 time)."""
    return -(-int(cycles) // GE_MHZ)
