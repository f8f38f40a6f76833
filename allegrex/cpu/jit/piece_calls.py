"""How a region calls its pieces: through their machine code's addresses, passed in.

A long block's straight code is compiled as piece functions (jit.codegen). Called as
ordinary numba functions, numba linked every piece's code into the region's own and LLVM
optimised and generated the whole again: for the llama2 VFPU matmul region (16 pieces)
that was ~15-20 s of its compile. Here the region's function takes the pieces' addresses
as its first argument (`pieces`, int64) and calls piece k at pieces[k] with numba's own
calling convention (`call_piece`): its code holds no piece and no address, so it is
compiled (and cached) alone, and each piece is compiled and cached on its own too.

`compile_region` is the one way to get a region's machine code: it compiles (or loads)
the pieces for the types the region passes them (`piece_types`), then the region, and
returns the region's entry with their addresses bound in.
"""

import sys
from functools import partial

import numpy as np
from numba import types as nt
from numba.core import cgutils
from numba.core.typing.typeof import typeof
from numba.extending import intrinsic

from allegrex.cpu.jit.codegen import piece_name

PIECES_TYPE = typeof(np.zeros(1, dtype=np.int64))  # the region's first argument


@intrinsic
def call_piece(typingctx, piece, address, *args):
    """piece(*args), a piece function (numba dispatcher) whose compiled code for these
    argument types is at `address`. Typing compiles (or loads) that code, for its result
    type; the call itself goes to the address, so the piece's code is not linked in."""
    star = args[0] if len(args) == 1 and isinstance(args[0], nt.BaseTuple) else nt.StarArgTuple.from_types(args)
    argtypes = tuple(star)
    piece.dispatcher.compile(argtypes)
    result = piece.dispatcher.overloads[argtypes].signature.return_type

    def codegen(context, builder, signature, llargs):
        fnty = context.call_conv.get_function_type(result, argtypes)
        target = builder.inttoptr(llargs[1], fnty.as_pointer())
        values = cgutils.unpack_tuple(builder, llargs[2], len(argtypes))
        status, value = context.call_conv.call_function(builder, target, result, argtypes, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return value

    return result(piece, address, star), codegen


def piece_types(fn, types) -> list:
    """[(name, argument types)] of the piece functions the region `fn` calls when called
    with `types` (the region's own argument types after `pieces`): a piece takes some of
    the region's arguments, `bound` and the carried locals, all int64 (jit.codegen's PROLOGUE)."""
    module = sys.modules[fn.py_func.__module__]
    code = fn.py_func.__code__
    by_name = dict(zip(code.co_varnames[1:code.co_argcount], types))
    found = []
    while hasattr(module, name := piece_name(fn.__name__, len(found))):
        pcode = getattr(module, name).py_func.__code__
        found.append((name, tuple(by_name.get(a, nt.int64) for a in pcode.co_varnames[:pcode.co_argcount])))
    return found


def native_address(piece, types) -> int:
    """The address of `piece`'s compiled code for `types` (compiled or loaded now), in
    numba's calling convention (not the wrapper Python calls)."""
    piece.compile(types)
    compiled = piece.overloads[types]
    address = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
    if not address:
        raise RuntimeError(f"no machine code for {piece.__name__}{types}")
    return address


def compile_region(fn, types):
    """The machine code of region `fn` for `types` (its arguments after `pieces`, those
    Machine.region_args gives) with its pieces' addresses bound in: call it with those
    arguments. The region's typing must ask for each piece with the types bound here, or
    a call would read its arguments wrongly: a region whose typing compiled a piece for
    any other types is refused (RuntimeError), before it ever runs."""
    module = sys.modules[fn.py_func.__module__]
    pieces = [(getattr(module, name), t) for name, t in piece_types(fn, types)]
    addresses = np.array([native_address(piece, t) for piece, t in pieces] or [0], dtype=np.int64)
    known = [set(piece.signatures) for piece, _ in pieces]
    entry = fn.compile((PIECES_TYPE, *types))
    for (piece, t), before in zip(pieces, known):
        if set(piece.signatures) - before:
            raise RuntimeError(f"{piece.__name__} compiled for {piece.signatures}, called with {t}")
    return partial(entry, addresses)
