"""allegrex: a simulator of the Sony PSP's Allegrex CPU and its VFPU."""

import os

# Numba colours the message of every typing error it creates, and it creates and drops
# thousands while typing a compiled region (each int64 constant it reads is first tried as
# a literal): with colorama installed that was ~5% of a region piece's compile (MEASURED
# 2026-12-07). Read once, when numba is first imported; the messages we show are our own.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

__version__ = "0.1.0"
