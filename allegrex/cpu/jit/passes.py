"""The numba and LLVM passes a region's pieces go through: only those their text needs.

A piece (a straight run of up to 32 words, jit.piece_calls) is plain statements and calls on
int64 operands written by jit.codegen: no closures, `with` blocks, literal_unroll, inlinable
functions or raises for numba's inliners and most of its rewrites to act on, and no SSA form
of numba's needed (its variables keep one type each; LLVM's mem2reg makes its own). Numba's
default pipeline runs all of those passes anyway: 15-18% of a piece's compile, for the same
machine code (five pieces of the llama2 VFPU matmul region; MEASURED 2026-12-07, README).
Kept: GenericRewrites (constant indexes as static ones: without it sim_speed's float loop
ran 0.94-0.96x as fast). A region's own function, whose blocks loop, keeps numba's default
passes: with these its loops ran 0.97-0.98x as fast (q80mm), with these and SSA 0.98x (int8,
sim_speed_ab.py), and the matmul region compiled no sooner. (Most of a piece's statements
are typed and lowered by jit.statement_runs' intrinsics, not by these passes.) LLVM's module
passes run once on a piece, its helpers linked in (PieceLibrary).
"""

from numba.core import ir
from numba.core.codegen import JITCodeLibrary
from numba.core import typed_passes as T
from numba.core import untyped_passes as U
from numba.core.compiler import CompilerBase
from numba.core.compiler_machinery import FunctionPass, PassManager, register_pass


@register_pass(mutates_CFG=False, analysis_only=False)
class IntGlobalsAsConstants(FunctionPass):
    """A module-level int read into a variable becomes a constant of the same value. Numba
    locks a variable to the literal type of a global it is given, so without its SSA pass
    `code = EV_NONE` ... `code = EV_STALE` would not type; a constant's type unifies."""

    _name = "piece_int_globals_as_constants"

    def __init__(self):  # (numba's passes declare __init__ abstract)
        FunctionPass.__init__(self)

    def run_pass(self, state):
        changed = False
        for block in state.func_ir.blocks.values():
            for inst in block.body:
                if isinstance(inst, ir.Assign) and isinstance(inst.value, ir.Global) and type(inst.value.value) is int:
                    inst.value = ir.Const(inst.value.value, inst.value.loc)
                    changed = True
        return changed


class PieceLibrary(JITCodeLibrary):
    """A piece's code library: LLVM's module passes run once, on the piece with the helpers it
    calls linked in. numba also runs its function passes on the piece before linking and a
    cheap module pass before the full one (to prune reference counts, which a piece has
    none of): ~7% of a piece's compile, for code within 0.2% of the size (MEASURED 2026-12-07)."""

    def _optimize_functions(self, ll_module):
        ll_module.data_layout = self._codegen._data_layout  # (what numba's own does before its passes)

    def _optimize_final_module(self):
        passes, builder = self._codegen._module_pass_manager()
        passes.run(self._final_module, builder)


@register_pass(mutates_CFG=False, analysis_only=False)
class CompileIntoPieceLibrary(FunctionPass):
    """The piece's code goes into a PieceLibrary (numba's lowering makes a library only
    when it finds none)."""

    _name = "piece_library"

    def __init__(self):  # (numba's passes declare __init__ abstract)
        FunctionPass.__init__(self)

    def run_pass(self, state):
        if state.library is None:
            state.library = PieceLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
            state.library.enable_object_caching()  # (as numba's lowering does: numba's cache saves it)
        return False


PASSES = (
    (U.TranslateByteCode, "bytecode to numba IR"),
    (CompileIntoPieceLibrary, "a piece's code library"),
    (U.FixupArgs, "arguments"),
    (U.IRProcessing, "IR post-processing"),
    (IntGlobalsAsConstants, "int globals as constants"),
    (U.GenericRewrites, "constant indexes"),
    (T.NopythonTypeInference, "typing"),
    (T.NoPythonSupportedFeatureValidation, "nopython features"),
    (T.IRLegalization, "IR legal for lowering"),
    (T.AnnotateTypes, "types annotated"),
    (T.NativeLowering, "LLVM IR and machine code"),
    (T.NoPythonBackend, "the compiled function"),
)


class PiecePasses(CompilerBase):
    """numba's compiler with a piece's passes (`@njit(pipeline_class=PiecePasses)`)."""

    def define_pipelines(self):
        pm = PassManager("piece")
        for pass_class, what in PASSES:
            pm.add_pass(pass_class, what)
        pm.finalize()
        return [pm]
