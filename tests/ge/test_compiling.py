"""What keeps the GE's first compile short (docs/ge.md, Compiling): numba compiles a
called (not inlined) function once per distinct argument types, and a literal int or
bool argument is a type of its own, so `f(x, 0)` beside `f(x, i)` compiles f and
everything it calls twice. The GE's kernels pass such constants as np.int64/np.bool_
values (texture.LEVEL0, vertex.SIGNED...)."""

import ast
import importlib
import inspect
import pkgutil
import textwrap

import allegrex.ge
from numba.core.registry import CPUDispatcher


def _kernels():
    """(module, name, dispatcher) of every numba function the GE's modules define."""
    for info in pkgutil.iter_modules(allegrex.ge.__path__):
        module = importlib.import_module(f"allegrex.ge.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == module.__name__:
                yield module, name, value


def _resolve(module, node):
    """The object a name or module.attribute expression names in `module`, else None."""
    if isinstance(node, ast.Name):
        return vars(module).get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        base = vars(module).get(node.value.id)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _is_literal(module, arg):
    """Would numba type this argument as a literal int or bool?"""
    if isinstance(arg, ast.UnaryOp):
        arg = arg.operand
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, (bool, int))
    value = _resolve(module, arg)
    return isinstance(value, (bool, int)) and not isinstance(value, CPUDispatcher)


def literal_calls():
    found = []
    for module, name, kernel in _kernels():
        tree = ast.parse(textwrap.dedent(inspect.getsource(kernel.py_func)))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = _resolve(module, node.func)
            if not isinstance(callee, CPUDispatcher) or callee.targetoptions.get("inline") == "always":
                continue
            for i, arg in enumerate(node.args):
                if _is_literal(module, arg):
                    found.append(f"{module.__name__}.{name} passes {ast.unparse(arg)} to "
                                 f"{callee.py_func.__name__} (argument {i})")
    return found


def test_no_called_ge_function_gets_a_literal_argument():
    assert literal_calls() == []


def test_the_check_sees_literal_arguments():
    """The rule's own check finds the calls it is about (a literal, a module constant)."""
    from allegrex.ge import raster
    module = raster
    call = ast.parse("shade_span(mem, ram_size, mapping, regs, cmds, pix, rs, y, x, 1)").body[0].value
    assert _is_literal(module, call.args[-1]) and not _is_literal(module, call.args[-2])
    assert _is_literal(module, ast.parse("SPAN_MAX").body[0].value)
    assert not _is_literal(module, ast.parse("np.int64(1)").body[0].value)
