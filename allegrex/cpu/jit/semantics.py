"""Per-instruction semantics for compiled regions, taken from the interpreter itself.

The run loop in allegrex/cpu/interp.py holds the one definition of what every
instruction does: a chain of `if sem == S_X: ... elif ...` branches. A region compiler
needs the branch of one semantic id at a time; it reads them from interp.py's syntax
tree, so the interpreter and compiled code can never disagree on an instruction.
Specialised to a known word, the branch's field accessors (allegrex.cpu.fields:
`imm_of(word)`, `branch_target(npc, word)`...) become constants.
"""

import ast
import inspect
from functools import lru_cache

from allegrex.cpu import fields, interp

# The field accessors, as plain Python: a call with constant operands is folded to its value.
ACCESSORS = {name: f.py_func for name, f in vars(fields).items() if hasattr(f, "py_func")}


def _semantic_chain(run_def: ast.FunctionDef) -> ast.If:
    """The `if sem == S_ADDIU: ... elif ...` statement inside the run loop."""
    for node in ast.walk(run_def):
        if isinstance(node, ast.If) and "S_ADDIU" in ast.unparse(node.test):
            return node
    raise RuntimeError("interp.run has no semantic if-chain (was it restructured?)")


@lru_cache(maxsize=1)
def _branches():
    """[(test, body source)] in chain order; the final `else` has test None."""
    tree = ast.parse(inspect.getsource(interp))
    run_def = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "run")
    node = _semantic_chain(run_def)
    out = []
    while True:
        out.append((compile(ast.Expression(node.test), "<sem>", "eval"), ast.unparse(ast.Module(node.body, []))))
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
        else:
            out.append((None, ast.unparse(ast.Module(node.orelse, []))))
            return out


@lru_cache(maxsize=None)
def body_of(sem: int) -> str:
    """Source of the interpreter's branch for semantic id `sem` (names as in interp.run)."""
    env = vars(interp)
    for test, body in _branches():
        if test is None or eval(test, env, {"sem": sem}):
            return body
    raise AssertionError("unreachable: the chain ends in else")


class _Specialise(ast.NodeTransformer):
    """Put known values in for names, fold what became constant, drop dead branches,
    and turn `break` (leaving the run loop) into the caller's exit statements."""

    def __init__(self, known: dict, on_break: list):
        self.known = known
        self.on_break = on_break

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.known:
            return ast.copy_location(ast.Constant(self.known[node.id]), node)
        return node

    def _fold(self, node):
        node = self.generic_visit(node)
        if all(isinstance(c, ast.Constant) for c in ast.iter_child_nodes(node)
               if not isinstance(c, (ast.operator, ast.unaryop, ast.cmpop, ast.boolop))):
            try:
                value = eval(compile(ast.Expression(node), "<fold>", "eval"), {})
            except Exception:  # e.g. a division by zero that the guest code never reaches
                return node
            if isinstance(value, (int, bool)):
                return ast.copy_location(ast.Constant(value), node)
        return node

    visit_BinOp = visit_UnaryOp = visit_Compare = visit_BoolOp = _fold

    def visit_Call(self, node):
        node = self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id in ACCESSORS and not node.keywords
                and all(isinstance(a, ast.Constant) for a in node.args)):
            value = ACCESSORS[node.func.id](*(a.value for a in node.args))
            return ast.copy_location(ast.Constant(value), node)
        return node

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_If(self, node):
        node = self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            kept = node.body if node.test.value else node.orelse
            return kept or [ast.Pass()]
        if not node.body:
            node.body = [ast.Pass()]
        return node

    def visit_Break(self, node):
        return [ast.parse(line).body[0] for line in self.on_break] + [node]


@lru_cache(maxsize=1)
def _module_constants():
    """interp's integer constants (S_*, EV_*, FAULT_*, register indices...)."""
    return {k: v for k, v in vars(interp).items() if k.isupper() and type(v) is int}


def specialised(sem: int, known: dict, on_break: list) -> list[str]:
    """The interpreter's statements for `sem` with `known` names replaced by their values
    (word fields, pc...), constant tests resolved, and every `break` preceded by the
    statements in `on_break`."""
    tree = ast.parse(body_of(sem))
    values = dict(_module_constants(), **known)
    tree = ast.fix_missing_locations(_Specialise(values, on_break).visit(tree))
    return ast.unparse(tree).splitlines()
