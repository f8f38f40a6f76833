"""Runs of a piece's simple statements, typed and lowered by one numba intrinsic.

A piece's text (jit.codegen) is mostly calls with constant operands (a VFPU word's operation
and timing step, jit.vfpu_gen and jit.timing_gen: ~2 a word), small int expressions and
exits (`if status != 0: ... break`). Numba's passes take each statement apart into IR, type
it variable by variable and lower it instruction by instruction: most of the numba side of a
piece's compile. A run of statements of the kinds below is instead one call of an intrinsic
holding the run's text: its typing resolves each operation's signature through numba's own
typing (once a process per operation and operand types), and its lowering emits each
operation through numba's own implementation, in Python's order, with the run's variables in
stack slots as numba keeps them. The operations and their operand types are numba's (a bare
number a literal, a module-level int a literal, an np.int64 global an int64), so LLVM gets
what numba's lowering gives it: the llama2 VFPU matmul region's pieces came out within 1.5%
of the machine code, and ran as fast (MEASURED 2026-12-07, README's JIT section).

Statements: `name = e`, `a, b = e` (a tuple result, or a tuple of expressions), `name op= e`,
`name[e] = e`, a bare call, `if e: ... else: ...` of such statements, and `break` (leaving
the piece: the run returns a flag first, which the piece tests). Expressions: names, bare
ints and bools, calls of module-level functions (and attributes of modules: `np.int64`),
arithmetic, comparisons (chained too), `and`/`or`, `a if c else b`, `not`/`-`/`~`, and
subscripts.
"""

import ast
import builtins
import operator
import sys
from functools import cache
from types import ModuleType

from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

from allegrex.cpu.hints import star_args

MIN_STATEMENTS = 2  # a run shorter than this stays numba's (one statement gains nothing)

BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.BitAnd: operator.and_,
          ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
          ast.RShift: operator.rshift}
INPLACE = {ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul, ast.BitAnd: operator.iand,
           ast.BitOr: operator.ior, ast.BitXor: operator.ixor, ast.LShift: operator.ilshift,
           ast.RShift: operator.irshift}
COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge}
UNARY = {ast.Not: operator.not_, ast.USub: operator.neg, ast.Invert: operator.invert}


def _is_expression(e) -> bool:
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, bool)
    if isinstance(e, ast.Call):
        return (not e.keywords and _is_callee(e.func) and all(_is_expression(a) for a in e.args))
    if isinstance(e, ast.BinOp):
        return type(e.op) in BINARY and _is_expression(e.left) and _is_expression(e.right)
    if isinstance(e, ast.Compare):
        return (all(type(op) in COMPARE for op in e.ops) and _is_expression(e.left)
                and all(_is_expression(c) for c in e.comparators))
    if isinstance(e, ast.UnaryOp):
        return type(e.op) in UNARY and _is_expression(e.operand)
    if isinstance(e, ast.Subscript):
        return _is_expression(e.value) and _is_expression(e.slice)
    if isinstance(e, ast.IfExp):
        return _is_expression(e.test) and _is_expression(e.body) and _is_expression(e.orelse)
    if isinstance(e, ast.BoolOp):
        return all(_is_expression(v) for v in e.values)
    return False


def _is_callee(f) -> bool:
    return isinstance(f, ast.Name) or (isinstance(f, ast.Attribute) and _is_callee(f.value))


def is_simple(node) -> bool:
    """Whether statement `node` is one a run lowers (the kinds in the module's docstring)."""
    if isinstance(node, ast.Expr):
        return isinstance(node.value, ast.Call) and _is_expression(node.value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if isinstance(target, ast.Name):
            return _is_expression(node.value)
        if isinstance(target, ast.Tuple):
            value = node.value
            parts_ok = (all(_is_expression(v) for v in value.elts) and len(value.elts) == len(target.elts)
                        if isinstance(value, ast.Tuple) else _is_expression(value))
            return all(isinstance(n, ast.Name) for n in target.elts) and parts_ok
        if isinstance(target, ast.Subscript):
            return (isinstance(target.value, ast.Name) and _is_expression(target.slice)
                    and _is_expression(node.value))
        return False
    if isinstance(node, ast.AugAssign):
        return isinstance(node.target, ast.Name) and type(node.op) in INPLACE and _is_expression(node.value)
    if isinstance(node, ast.If):
        return _is_expression(node.test) and all(map(is_simple, node.body)) and all(map(is_simple, node.orelse))
    return isinstance(node, (ast.Break, ast.Pass))


def runs_in(lines: list) -> list:
    """`lines` (whole statements, not indented) cut into segments [(is_run, lines)]: the runs
    of at least MIN_STATEMENTS simple statements (is_simple), and the lines between them. A
    comment goes with the statement after it."""
    segments, run, start = [], [], 0

    def close_run():
        if run:
            segments.append((len(run) >= MIN_STATEMENTS, lines[run[0][0]:run[-1][1]]))
        run.clear()

    for node in ast.parse("\n".join(lines)).body:
        span = (start, node.end_lineno)
        start = node.end_lineno
        if is_simple(node):
            run.append(span)
            continue
        close_run()
        segments.append((False, lines[span[0]:span[1]]))
    close_run()
    if start < len(lines):
        segments.append((False, lines[start:]))
    return [(is_run, seg) for is_run, seg in segments if seg]


class Run:
    """A run's statements (text) parsed: `read_first` the names it may read before writing
    them (in order of first use), `written` the names it assigns, `breaks` whether it may
    leave what runs it (a `break`)."""

    def __init__(self, text: str):
        self.body = ast.parse(text).body
        if not all(map(is_simple, self.body)):
            raise ValueError(f"not a run of simple statements:\n{text}")
        self.read_first, self.written = [], []
        self.breaks = any(isinstance(n, ast.Break) for n in ast.walk(ast.Module(self.body, [])))
        self._scan(self.body)

    def _scan(self, body):
        for node in body:  # reads before writes, statement by statement (values before targets)
            values = [node.test] if isinstance(node, ast.If) else [getattr(node, "value", None)]
            if isinstance(node, ast.AugAssign):
                values.append(node.target)
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
                values += [node.targets[0].value, node.targets[0].slice]
            for v in values:
                for n in ast.walk(v) if v is not None else ():
                    if isinstance(n, ast.Name) and n.id not in self.written and n.id not in self.read_first:
                        self.read_first.append(n.id)
            if isinstance(node, ast.If):
                self._scan(node.body)
                self._scan(node.orelse)
            for target in getattr(node, "targets", None) or [getattr(node, "target", None)]:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                self.written += [n.id for n in names if isinstance(n, ast.Name) and n.id not in self.written]


def statement_run(module: str, text: str, inputs: tuple, outputs: tuple):
    """The intrinsic running the statements `text` (a Run) of module `module`: called with
    the values of `inputs` (the locals the run reads or may leave unwritten; every other name
    it reads is a global of the module), it returns the values of `outputs` after the run,
    preceded by whether it left the piece (a `break`) when it may. The text is parsed when
    numba first types a call: a region loaded from numba's cache never does."""

    @cache
    def parsed():
        run = Run(text)
        unknown = [o for o in outputs if o not in run.written and o not in inputs]
        if unknown:
            raise ValueError(f"the run neither writes nor is given {unknown}:\n{text}")
        return run

    @intrinsic
    def lowered(typingctx, *args):
        run = parsed()
        star = star_args(args)
        typer = _Typer(typingctx, vars(sys.modules[module]), dict(zip(inputs, (types.unliteral(t) for t in star))))
        typer.statements(run.body)
        slots = typer.slots
        result = types.Tuple(((types.boolean,) if run.breaks else ()) + tuple(slots[o] for o in outputs))

        def codegen(context, builder, signature, llargs):
            emit = _Emitter(context, builder, typer)
            for name, value, t in zip(inputs, cgutils.unpack_tuple(builder, llargs[0], len(star)), star):
                emit.store(name, value, t)
            emit.statements(run.body)
            if not builder.block.is_terminated:
                builder.branch(emit.end)
            builder.position_at_end(emit.end)
            values = [emit.load(o) for o in outputs]
            if run.breaks:
                values.insert(0, builder.load(emit.broke))
            return context.make_tuple(builder, result, values)

        return result(star), codegen

    return lowered


class _Typer:
    """Types a run's statements: `slots` the type of each variable (one type each, as numba
    keeps them), `types` each expression's type and `calls` each operation's (numba type,
    signature), by node (a chained comparison's by (node, right operand))."""

    def __init__(self, typingctx, names, slots):
        self.ctx, self.names, self.slots = typingctx, names, slots
        self.types, self.calls = {}, {}

    def statements(self, body):
        for node in body:
            if isinstance(node, ast.Expr):
                self.expression(node.value)
            elif isinstance(node, ast.Assign):
                self.assign(node.targets[0], node.value)
            elif isinstance(node, ast.AugAssign):
                self.apply(node, INPLACE[type(node.op)], [node.target, node.value])
                self.bind(node.target.id, self.types[node])
            elif isinstance(node, ast.If):
                self.expression(node.test)
                self.statements(node.body)
                self.statements(node.orelse)

    def assign(self, target, value):
        if isinstance(target, ast.Subscript):
            self.apply(target, operator.setitem, [target.value, target.slice, value])
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            for n, v in zip(target.elts, value.elts):
                self.bind(n.id, self.expression(v))
        elif isinstance(target, ast.Tuple):
            t = self.expression(value)
            if not isinstance(t, types.BaseTuple) or len(t) != len(target.elts):
                raise TypingError(f"cannot unpack {t} into {ast.unparse(target)} (a statement run)")
            for n, member in zip(target.elts, t):
                self.bind(n.id, member)
        else:
            self.bind(target.id, self.expression(value))

    def bind(self, name, t):
        t = types.unliteral(t)
        held = self.slots.setdefault(name, t)
        if held != t and self.ctx.can_convert(t, held) is None:
            raise TypingError(f"{name} is {held} and {t} in a statement run (one type a variable)")

    def expression(self, e):
        if isinstance(e, ast.Name):
            t = self.slots.get(e.id) or _global_type(self.ctx, self.names, e.id)
        elif isinstance(e, ast.Constant):
            t = types.literal(e.value)
        elif isinstance(e, ast.Call):
            t = self.apply(e, _resolve(self.names, e.func), e.args)
        elif isinstance(e, ast.BinOp):
            t = self.apply(e, BINARY[type(e.op)], [e.left, e.right])
        elif isinstance(e, ast.UnaryOp):
            t = self.apply(e, UNARY[type(e.op)], [e.operand])
        elif isinstance(e, ast.Subscript):
            t = self.apply(e, operator.getitem, [e.value, e.slice])
        elif isinstance(e, (ast.IfExp, ast.BoolOp)):  # one of its values, as their common type
            if isinstance(e, ast.IfExp):
                self.expression(e.test)
            t = self.common([self.expression(v) for v in _values(e)])
        else:  # ast.Compare: each comparison typed on its own (chained: anded)
            for left, op, right in _comparisons(e):
                self.calls[(e, right)] = self.signature(COMPARE[type(op)], (self.expression(left),
                                                                            self.expression(right)))
            t = types.boolean
        self.types[e] = t
        return t

    def common(self, found):
        t = types.unliteral(found[0])
        for other in found[1:]:
            t = self.ctx.unify_pairs(t, types.unliteral(other))
            if t is None:
                raise TypingError(f"no common type for {found} (a statement run)")
        return t

    def apply(self, node, fn, operands):
        self.calls[node] = self.signature(fn, tuple(self.expression(o) for o in operands))
        self.types[node] = self.calls[node][1].return_type
        return self.types[node]

    def signature(self, fn, argtypes):
        fnty, sig = _signature(self.ctx, fn, argtypes)
        if sig is None:
            raise TypingError(f"{getattr(fn, '__name__', fn)} cannot take {argtypes} (a statement run)")
        return fnty, sig


class _Emitter:
    """Lowers a run's statements typed by a _Typer: each variable a stack slot, each
    operation numba's implementation of it, a `break` a jump to the run's end."""

    def __init__(self, context, builder, typer):
        self.context, self.builder, self.typer = context, builder, typer
        self.slots = {name: cgutils.alloca_once(builder, context.get_value_type(t), name=name)
                      for name, t in typer.slots.items()}
        self.broke = cgutils.alloca_once_value(builder, cgutils.false_bit)
        self.end = builder.append_basic_block("run_end")

    def store(self, name, value, t):
        held = self.typer.slots[name]
        self.builder.store(self.context.cast(self.builder, value, t, held), self.slots[name])

    def load(self, name):
        return self.builder.load(self.slots[name])

    def statements(self, body):
        for node in body:
            if self.builder.block.is_terminated:
                return  # (after a break)
            if isinstance(node, ast.Expr):
                self.expression(node.value)
            elif isinstance(node, ast.Assign):
                self.assign(node.targets[0], node.value)
            elif isinstance(node, ast.AugAssign):
                self.store(node.target.id, self.apply(node, [node.target, node.value]), self.typer.types[node])
            elif isinstance(node, ast.If):
                self.branch(node)
            elif isinstance(node, ast.Break):
                self.builder.store(cgutils.true_bit, self.broke)
                self.builder.branch(self.end)

    def assign(self, target, value):
        if isinstance(target, ast.Subscript):  # (Python's order: the value, then where it goes)
            operands = [value, target.value, target.slice]
            v, container, index = (self.expression(o) for o in operands)
            fnty, sig = self.typer.calls[target]
            self._call(fnty, sig, [container, index, v], [self.typer.types[o] for o in operands[1:] + operands[:1]])
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            parts = [(n.id, self.expression(v), self.typer.types[v]) for n, v in zip(target.elts, value.elts)]
            for name, v, t in parts:  # (all evaluated before any is assigned)
                self.store(name, v, t)
        elif isinstance(target, ast.Tuple):
            t = self.typer.types[value]
            for n, v, member in zip(target.elts, cgutils.unpack_tuple(self.builder, self.expression(value),
                                                                      len(target.elts)), t):
                self.store(n.id, v, member)
        else:
            self.store(target.id, self.expression(value), self.typer.types[value])

    def branch(self, node):
        builder = self.builder
        truth = self.context.is_true(builder, self.typer.types[node.test], self.expression(node.test))
        then, orelse, after = (builder.append_basic_block(k) for k in ("run_then", "run_else", "run_after"))
        builder.cbranch(truth, then, orelse)
        for block, body in ((then, node.body), (orelse, node.orelse)):
            builder.position_at_end(block)
            self.statements(body)
            if not builder.block.is_terminated:
                builder.branch(after)
        builder.position_at_end(after)

    def expression(self, e):
        types_ = self.typer.types
        if isinstance(e, ast.Name):
            if e.id in self.slots:
                return self.load(e.id)
            return self.context.get_constant_generic(self.builder, types.unliteral(types_[e]),
                                                     self.typer.names[e.id])
        if isinstance(e, ast.Constant):
            return self.context.get_constant_generic(self.builder, types.unliteral(types_[e]), e.value)
        if isinstance(e, ast.Call):
            return self.apply(e, e.args)
        if isinstance(e, ast.BinOp):
            return self.apply(e, [e.left, e.right])
        if isinstance(e, ast.UnaryOp):
            return self.apply(e, [e.operand])
        if isinstance(e, ast.Subscript):
            return self.apply(e, [e.value, e.slice])
        if isinstance(e, ast.IfExp):
            return self.choice(e)
        if isinstance(e, ast.BoolOp):
            return self.short_circuit(e)
        truth = cgutils.true_bit  # ast.Compare, chained: each operand evaluated once
        left_value = self.expression(e.left)
        left_type = types_[e.left]
        for _, _, right in _comparisons(e):
            right_value = self.expression(right)
            fnty, sig = self.typer.calls[(e, right)]
            both = self._call(fnty, sig, [left_value, right_value], [left_type, types_[right]])
            truth = self.builder.and_(truth, self.context.is_true(self.builder, sig.return_type, both))
            left_value, left_type = right_value, types_[right]
        return truth

    def choice(self, e):
        """`body if test else orelse`, only the chosen value evaluated."""
        builder, t = self.builder, self.typer.types[e]
        truth = self.context.is_true(builder, self.typer.types[e.test], self.expression(e.test))
        then, orelse, after = (builder.append_basic_block(k) for k in ("run_if", "run_if_else", "run_if_after"))
        builder.cbranch(truth, then, orelse)
        incoming = []
        for block, value in ((then, e.body), (orelse, e.orelse)):
            builder.position_at_end(block)
            incoming.append((self.context.cast(builder, self.expression(value), self.typer.types[value], t),
                             builder.block))
            builder.branch(after)
        return self._joined(after, t, incoming)

    def short_circuit(self, e):
        """`a and b ...` / `a or b ...`: the first value that decides it, as Python gives it."""
        builder, t = self.builder, self.typer.types[e]
        after = builder.append_basic_block("run_bool_after")
        incoming = []
        for k, value in enumerate(e.values):
            v = self.expression(value)
            incoming.append((self.context.cast(builder, v, self.typer.types[value], t), builder.block))
            if k == len(e.values) - 1:
                builder.branch(after)
                break
            truth = self.context.is_true(builder, self.typer.types[value], v)
            going_on = builder.append_basic_block("run_bool_next")
            builder.cbranch(truth, going_on, after) if isinstance(e.op, ast.And) else builder.cbranch(
                truth, after, going_on)
            builder.position_at_end(going_on)
        return self._joined(after, t, incoming)

    def _joined(self, after, t, incoming):
        self.builder.position_at_end(after)
        phi = self.builder.phi(self.context.get_value_type(t))
        for value, block in incoming:
            phi.add_incoming(value, block)
        return phi

    def apply(self, node, operands):
        values = [self.expression(o) for o in operands]
        fnty, sig = self.typer.calls[node]
        return self._call(fnty, sig, values, [self.typer.types[o] for o in operands])

    def _call(self, fnty, sig, values, actual):
        starred = sig.args and isinstance(sig.args[-1], (types.StarArgTuple, types.StarArgUniTuple))
        fixed = len(sig.args) - 1 if starred else len(sig.args)
        cast = [self.context.cast(self.builder, v, t, want) for v, t, want in zip(values, actual, sig.args[:fixed])]
        if fixed < len(sig.args):  # a *args callee (max, min): the rest packed as numba passes them
            star = sig.args[-1]
            rest = [self.context.cast(self.builder, v, t, want)
                    for v, t, want in zip(values[fixed:], actual[fixed:], star)]
            cast.append(self.context.make_tuple(self.builder, star, rest))
        return self.context.get_function(fnty, sig)(self.builder, cast)


def _values(e):
    """The values an IfExp or BoolOp may give."""
    return [e.body, e.orelse] if isinstance(e, ast.IfExp) else e.values


def _comparisons(e):
    """(left, op, right) of each comparison in a (chained) Compare."""
    lefts = [e.left] + e.comparators[:-1]
    return list(zip(lefts, e.ops, e.comparators))


_SIGNATURES = {}  # (operation, operand types) -> (its numba type, the signature)


def _signature(typingctx, fn, argtypes):
    """(fn's numba type, signature of its call on `argtypes`), resolved once a process: a
    region's words repeat a few shapes of call hundreds of times."""
    key = (fn, argtypes)
    if key not in _SIGNATURES:
        fnty = typingctx.resolve_value_type(fn)
        _SIGNATURES[key] = fnty, typingctx.resolve_function_type(fnty, argtypes, {})
    return _SIGNATURES[key]


def _resolve(names, f):
    """The object a callee expression (a name, or attributes of one) names in the module."""
    if isinstance(f, ast.Name):
        if f.id in names:
            return names[f.id]
        if hasattr(builtins, f.id):
            return getattr(builtins, f.id)
        raise TypingError(f"{f.id} is neither a global of the module nor a builtin (a statement run)")
    return getattr(_resolve(names, f.value), f.attr)


def _global_type(typingctx, names, name):
    """A module global read as a value: a Python int (or bool) a literal, as numba types a
    constant (jit.passes.IntGlobalsAsConstants); anything else its value's type."""
    if name not in names:
        raise TypingError(f"{name} is neither a local of the statement run nor a module global")
    value = names[name]
    if type(value) in (int, bool):
        return types.literal(value)
    if isinstance(value, ModuleType):
        raise TypingError(f"{name} is a module, read as a value (a statement run)")
    return typingctx.resolve_value_type(value)

