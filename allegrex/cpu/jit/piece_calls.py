"""How a region calls its pieces: through their machine code's addresses, passed in.

A long block's straight code is compiled as piece functions (jit.codegen). Called as
ordinary numba functions, numba linked every piece's code into the region's own and LLVM
optimised and generated the whole again: for the llama2 VFPU matmul region (16 pieces)
that was ~15-20 s of its compile. Here the region's function takes the pieces' addresses
as its first argument (`pieces`, int64) and calls piece k at pieces[k] with numba's own
calling convention (`call_piece`): its code holds no piece and no address, so it is
compiled (and cached) alone, and each piece is compiled and cached on its own too.

A piece returns PIECE_RESULT (`left` and the carried locals, jit.codegen), which the region's
typing takes as given: typing a region compiles none of its pieces, so a helper process can
compile the region's own function while the machine compiles the pieces
(jit.helper_processes). What makes that safe is checked: at the call, that each argument
the region passes is the type the piece is compiled for (`piece_types`: the region's own
argument of that name, else int64), and after the compile, that each piece returns PIECE_RESULT.

`compile_region` is the one way to get a region's machine code: it compiles (or loads)
the pieces for the types the region passes them (`piece_types`), then the region, and
returns the region's entry with their addresses bound in. With helper processes compiling
alongside (jit.helper_processes), it compiles what no helper has taken and loads the rest
from numba's cache as each arrives.
"""

import sys
from functools import partial

import numpy as np
from numba import types as nt
from numba.core.errors import TypingError
from numba.core.typing.typeof import typeof
from numba.extending import intrinsic

from allegrex.cpu.hints import call_packed, star_args
from allegrex.cpu.jit.codegen import CARRIED, piece_name

PIECES_TYPE = typeof(np.zeros(1, dtype=np.int64))  # the region's first argument
PIECE_RESULT = nt.UniTuple(nt.int64, 1 + len(CARRIED.split(", ")))  # what every piece returns


@intrinsic
def call_piece(typingctx, piece, address, *args):
    """piece(*args), a piece function (numba dispatcher) whose compiled code for these
    argument types is at `address`, returning PIECE_RESULT. Typing compiles nothing; it
    refuses an argument of another type than the piece is compiled for. The call goes to
    the address, so the piece's code is not linked in."""
    star = star_args(args)
    argtypes = tuple(nt.unliteral(t) for t in star)  # (a literal is an int64 at the call)
    region_args = _region_args(_region_of(piece.dispatcher))
    code = piece.dispatcher.py_func.__code__
    if code.co_argcount != len(argtypes):
        raise TypingError(f"{piece.dispatcher.__name__} takes {code.co_argcount} arguments, passed {len(argtypes)}")
    for name, t in zip(code.co_varnames, argtypes):
        if name not in region_args and t != nt.int64:
            raise TypingError(f"{piece.dispatcher.__name__} takes {name} as an int64 local (piece_types), passed {t}")

    def codegen(context, builder, signature, llargs):
        fnty = context.call_conv.get_function_type(PIECE_RESULT, argtypes)
        target = builder.inttoptr(llargs[1], fnty.as_pointer())
        return call_packed(context, builder, target, PIECE_RESULT, argtypes, star, llargs[2])

    return PIECE_RESULT(piece, address, star), codegen


def _region_of(piece):
    """The region function whose piece `piece` is (in its module, named as piece_name names its pieces)."""
    module = sys.modules[piece.py_func.__module__]
    return getattr(module, piece.py_func.__name__.rsplit("_piece", 1)[0])


def _region_args(fn) -> tuple:
    """The names of region function `fn`'s arguments after `pieces`."""
    code = fn.py_func.__code__
    return code.co_varnames[1:code.co_argcount]


def piece_types(fn, types) -> list:
    """[(name, argument types)] of the piece functions the region `fn` calls when called
    with `types` (the region's own argument types after `pieces`): a piece takes some of
    the region's arguments, `bound` and the carried locals, all int64 (jit.codegen's PROLOGUE)."""
    module = sys.modules[fn.py_func.__module__]
    by_name = dict(zip(_region_args(fn), types))
    found = []
    while hasattr(module, name := piece_name(fn.__name__, len(found))):
        pcode = getattr(module, name).py_func.__code__
        found.append((name, tuple(by_name.get(a, nt.int64) for a in pcode.co_varnames[:pcode.co_argcount])))
    return found


def largest_first(fn, pieces) -> list:
    """`pieces` ([(name, types)] of region `fn`, piece_types) the largest first, by the
    statements in their text (the region module's PIECE_STATEMENTS; a piece's compile time
    follows them: 0.49-0.92 s of CPU for the llama2 VFPU matmul region's 49-194, MEASURED
    2026-12-07): processes that each compile the next one no other has taken, in this
    order, finish close together (longest first scheduling)."""
    module = sys.modules[fn.py_func.__module__]
    size = {piece_name(fn.__name__, k): n for k, n in enumerate(module.PIECE_STATEMENTS)}
    return sorted(pieces, key=lambda piece: -size[piece[0]])


def native_address(piece, types) -> int:
    """The address of `piece`'s compiled code for `types` (compiled or loaded now), in
    numba's calling convention (not the wrapper Python calls)."""
    piece.compile(types)
    compiled = piece.overloads[types]
    address = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
    if not address:
        raise RuntimeError(f"no machine code for {piece.__name__}{types}")
    return address


def compile_region(fn, types, alongside=None):
    """The machine code of region `fn` for `types` (its arguments after `pieces`, those
    Machine.region_args gives) with its pieces' addresses bound in: call it with those
    arguments. With helper processes compiling alongside (`alongside`,
    helper_processes.Alongside), what they take is waited for, not compiled here. A piece
    that does not return PIECE_RESULT, which the region's code reads, is refused
    (RuntimeError), before the region ever runs."""
    module = sys.modules[fn.py_func.__module__]
    listed = piece_types(fn, types)
    pieces = [(getattr(module, name), t) for name, t in listed]
    found = {}
    for name, t in largest_first(fn, listed):  # those no helper has taken, in the helpers' order
        if alongside is None or alongside.take(name):
            found[name] = native_address(getattr(module, name), t)
    for piece, t in pieces:  # then each a helper took, once it is in numba's cache
        if piece.__name__ not in found:
            alongside.wait_for(piece, t)
            found[piece.__name__] = native_address(piece, t)
    addresses = np.array([found[piece.__name__] for piece, _ in pieces] or [0], dtype=np.int64)
    for piece, t in pieces:
        returned = piece.overloads[t].signature.return_type
        if not isinstance(returned, nt.BaseTuple) or tuple(map(nt.unliteral, returned)) != tuple(PIECE_RESULT):
            raise RuntimeError(f"{piece.__name__} returns {returned}, its region reads {PIECE_RESULT}")
    sig = (PIECES_TYPE, *types)
    if alongside is not None and not alongside.take(fn.__name__):
        alongside.wait_for(fn, sig)
    return partial(fn.compile(sig), addresses)
