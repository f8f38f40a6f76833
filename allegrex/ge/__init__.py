"""The GE (graphics engine): a device beside the CPU that executes display lists.

commands.py (the command table), state.py (registers, matrices, CLUT), processor.py (the
numba list processor), vertex.py / geometry.py / draw.py / raster.py (the drawing path),
transfer.py (block transfers), cost.py (the cost model), queue.py (the firmware's
display-list queue, in Python), dump.py (readable list dumps). Per pixel and per vertex: texture.py, fragment.py,
lighting.py, curves.py, with regs.py (opcodes) and colors.py (pixel formats).
docs/ge.md and docs/ge-pixels.md describe what is modelled.
"""
