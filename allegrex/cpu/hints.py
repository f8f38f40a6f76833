"""Branch hints for LLVM inside numba code.

A compiled region inlines each instruction's rare paths (the OS tick, a fault, a D-cache
miss, a NaN in a dot product) next to its common one. Told which way such a test usually
goes, LLVM lays the rare blocks out of the common path, so the code a loop runs stays
dense in the host's instruction cache: a VFPU word is ~50-200 host instructions, and a
loop of a few hundred words outgrows that cache (the llama2 VFPU matmul region ran 1.23x
as fast with the hints, MEASURED 2026-12-07; docs/architecture.md, compiled regions).
The rarest and largest of those paths are calls LLVM may not inline (not_inlined_call): their
code is then in a region once, not at every instruction that may take them.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.typing.typeof import typeof
from numba.extending import intrinsic

BIT = ir.IntType(1)


def _expect(builder, cond, value: int):
    expect = cgutils.get_or_insert_function(builder.module, ir.FunctionType(BIT, [BIT, BIT]), "llvm.expect.i1")
    return builder.call(expect, [cond, ir.Constant(BIT, value)])


@intrinsic
def likely(typingctx, cond):
    """`cond` (a bool), which LLVM is told is usually True (llvm.expect)."""
    return types.boolean(types.boolean), lambda context, builder, signature, args: _expect(builder, args[0], 1)


@intrinsic
def unlikely(typingctx, cond):
    """`cond` (a bool), which LLVM is told is usually False (llvm.expect)."""
    return types.boolean(types.boolean), lambda context, builder, signature, args: _expect(builder, args[0], 0)


def star_args(args):
    """An intrinsic's `*args` types as one tuple type: numba passes them packed in a tuple
    or one by one, depending on how the call was written."""
    packed = len(args) == 1 and isinstance(args[0], types.BaseTuple)
    return args[0] if packed else types.StarArgTuple.from_types(args)


def call_packed(context, builder, fn, restype, argtypes, star, packed, attrs=()):
    """An intrinsic's codegen calling numba-compiled `fn` (a function value or pointer) with
    the arguments in `packed` (of type `star`) cast to `argtypes`; an error status it returns
    is passed on. Returns the result."""
    values = [context.cast(builder, v, t, u)
              for v, t, u in zip(cgutils.unpack_tuple(builder, packed, len(star)), star, argtypes)]
    status, value = context.call_conv.call_function(builder, fn, restype, argtypes, values, attrs=attrs)
    with cgutils.if_unlikely(builder, status.is_error):
        context.call_conv.return_status_propagate(builder, status)
    return value


def not_inlined_call(helper):
    """An intrinsic calling numba function `helper` with the arguments it is given, through a
    call LLVM may not inline (the call site is marked noinline). LLVM's inliner weighs each
    call on its own and inlined large rare paths at every site: how much depended on what
    numba's cache held when the caller was compiled (a piece of the llama2 VFPU matmul region
    compiled to 7,408 LLVM instructions on a fresh machine and 4,525 on one with an older
    cache; 4,395 with these calls, MEASURED 2026-12-07). The helper is bound here, not passed:
    numba types a function passed as a value as an experimental feature, and warns."""
    helper_type = typeof(helper)

    @intrinsic
    def call(typingctx, *args):
        star = star_args(args)
        target = typingctx.resolve_function_type(helper_type, tuple(star), {})

        def codegen(context, builder, signature, llargs):
            compiled = helper.overloads[target.args]
            context.add_linking_libs([compiled.library])
            fn = context.declare_function(builder.module, compiled.fndesc)
            return call_packed(context, builder, fn, target.return_type, target.args, star, llargs[0],
                               attrs=("noinline",))

        return target.return_type(star), codegen

    return call
