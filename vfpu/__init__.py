"""The PSP's vector unit (VFPU): registers, semantics, assembler and disassembler."""

from vfpu import _numba_cache

_numba_cache.refresh()
