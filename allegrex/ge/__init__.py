"""The GE (graphics engine): a device beside the CPU that executes display lists.

commands.py (the command table), state.py (registers, matrices, CLUT), processor.py (the
numba list processor), vertex.py / geometry.py / draw.py / raster.py (the drawing path),
transfer.py (block transfers), pixels.py (the seam to texture, fragment and lighting),
cost.py (the cost model), queue.py (the firmware's display-list queue, in Python),
dump.py (readable list dumps). docs/ge.md describes what is modelled.
"""
