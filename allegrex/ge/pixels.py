"""The seam between the geometry side (ge-core) and the per-pixel / per-vertex functions
of texture.py, fragment.py, lighting.py and curves.py (docs/ge.md, the shared interface).

Everything the rasterizer and the vertex stage call through is imported here, once.
TEMPORARY: while those modules are not in this checkout, the stand-ins of
allegrex/ge/interim.py are used instead (the simplest pixel writes ge-core's own tests
need); this file and interim.py are the only places that know.
"""

try:
    from allegrex.ge.texture import combine, load_clut, sample  # noqa: F401
    from allegrex.ge.fragment import process  # noqa: F401
    from allegrex.ge.lighting import light_vertex  # noqa: F401
    INTERIM = False
except ImportError:  # TEMPORARY: ge-pixels' modules not merged yet
    from allegrex.ge.interim import combine, light_vertex, load_clut, process, sample  # noqa: F401
    INTERIM = True
