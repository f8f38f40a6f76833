"""The seam between the geometry side (ge-core) and the per-pixel / per-vertex functions
of texture.py, fragment.py, lighting.py and curves.py (docs/ge.md, the shared interface).

Everything the rasterizer and the vertex stage call through is imported here, once, in
the prepared forms (a per-draw state, then per-pixel or per-vertex calls; docs/ge-pixels.md).
TEMPORARY: while those modules are not in this checkout, the stand-ins of
allegrex/ge/interim.py are used instead (the simplest pixel writes ge-core's own tests
need); this file and interim.py are the only places that know.
"""

try:
    from allegrex.ge.texture import combine, load_clut, sample_prepared  # noqa: F401
    from allegrex.ge.texture import prepare as texture_prepare  # noqa: F401
    from allegrex.ge.fragment import fog_depth, process_prepared  # noqa: F401
    from allegrex.ge.fragment import prepare as fragment_prepare  # noqa: F401
    from allegrex.ge.lighting import light_vertex_prepared  # noqa: F401
    from allegrex.ge.lighting import prepare as lighting_prepare  # noqa: F401
    from allegrex.ge.curves import tessellate  # noqa: F401
    INTERIM = False
except ImportError:  # TEMPORARY: ge-pixels' modules not merged yet
    from allegrex.ge.interim import (combine, fog_depth, fragment_prepare, light_vertex_prepared,  # noqa: F401
                                     lighting_prepare, load_clut, process_prepared, sample_prepared, tessellate,
                                     texture_prepare)
    INTERIM = True
