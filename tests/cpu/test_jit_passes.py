"""The numba passes a region's pieces go through (jit.passes): fewer than numba's default,
with the same results for what a piece's text holds."""

import numpy as np
from numba import njit

from allegrex.cpu.jit.passes import PieceLibrary, PiecePasses

LEFT = 0
STALE = 8


def _leave(words, stale_at):
    """A region's shapes: a variable given module-level ints in two places, a loop with a
    break, a tuple unpacked, an int64 counter, constant indexes."""
    code = LEFT
    count = np.int64(0)
    for k in range(words.shape[0]):
        if k == stale_at:
            code = STALE
            break
        count += words[k]
    first, last = (words[0], words[-1])
    return code, count, first + last


_default = njit(_leave)
_piece = njit(_leave, pipeline_class=PiecePasses)


def test_a_variable_given_two_module_level_ints_types_as_one_int_without_numbas_ssa():
    """Numba locks a variable to a global's literal type; a piece's passes have no SSA pass,
    so jit.passes gives such globals as constants, whose types unify."""
    words = np.arange(1, 6, dtype=np.int64)
    assert _piece(words, 3) == (STALE, 6, 6)
    assert _piece(words, 9) == (LEFT, 15, 6)


def test_the_piece_passes_give_numbas_default_results():
    words = np.array([7, -3, 12, 0, 5, 9], dtype=np.int64)
    for stale_at in range(-1, 8):
        assert _piece(words, stale_at) == _default(words, stale_at)


def test_a_pieces_code_goes_into_a_piece_library_with_the_same_results():
    """Its LLVM passes run once, after linking (PieceLibrary): the results stay numba's."""
    words = np.array([4, 8, -15, 16, 23, 42], dtype=np.int64)
    assert _piece(words, 4) == _default(words, 4)
    assert isinstance(_piece.overloads[_piece.signatures[0]].library, PieceLibrary)
    assert not isinstance(_default.overloads[_default.signatures[0]].library, PieceLibrary)
