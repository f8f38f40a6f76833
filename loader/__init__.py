"""Files in, Image out: PBP, SFO, ELF and PRX readers (and the PBP/SFO writers).

    image = loader.load("EBOOT.PBP")        # or a .prx / .elf path, or bytes
"""

from loader.errors import LoaderError
from loader.image import (ExportEntry, ExportLibrary, Image, ImportFunction, ImportLibrary, ImportVariable,
                          ModuleInfo, Segment, Symbol)
from loader.load import DEFAULT_PRX_BASE, load

__all__ = ["DEFAULT_PRX_BASE", "ExportEntry", "ExportLibrary", "Image", "ImportFunction", "ImportLibrary",
           "ImportVariable", "LoaderError", "ModuleInfo", "Segment", "Symbol", "load"]
