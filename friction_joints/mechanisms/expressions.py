"""Arithmetic expressions of mechanism files: numbers, named parameters, + - * / ** and a few functions.

``evaluate("-a1 * cos(pi / 6)", {"a1": 0.25})`` -> -0.2165... The expression is parsed by Python's
``ast`` and only the nodes listed here are evaluated: no attribute access, no calls other than the
functions of FUNCTIONS, no names other than the given ones, ``pi`` and (where given) ``t``.
"""

from __future__ import annotations

import ast
import math
import operator

FUNCTIONS = {"sqrt": math.sqrt, "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
             "acos": math.acos, "atan": math.atan, "atan2": math.atan2, "exp": math.exp, "abs": abs,
             "radians": math.radians, "degrees": math.degrees, "min": min, "max": max,
             "step": lambda x: 1.0 if x >= 0 else 0.0}  # step(x): the unit step, 1 from x = 0 on
CONSTANTS = {"pi": math.pi}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.Pow: operator.pow}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def names_in(text: str) -> set:
    """The names (parameters, t) an expression refers to, functions and constants left out."""
    tree = ast.parse(text, mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(FUNCTIONS) - set(CONSTANTS)


def evaluate(value, names: dict) -> float:
    """The float value of a number or an expression string over ``names`` ({name: float}).

    Raises ValueError naming the unknown name, the refused construct or the arithmetic failure."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number or an expression, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a number or an expression, got {value!r}")
    try:
        tree = ast.parse(value.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"{value!r} is not an arithmetic expression") from None
    scope = {**CONSTANTS, **names}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in scope:
                known = ", ".join(sorted(names)) or "none"
                raise ValueError(f"{value!r} refers to {node.id!r}, which is not a parameter (parameters: {known})")
            return float(scope[node.id])
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](ev(node.operand))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
                and not node.keywords):
            args = [ev(a) for a in node.args]
            try:
                return float(FUNCTIONS[node.func.id](*args))
            except ValueError:  # math domain error
                raise ValueError(f"{value!r}: {node.func.id}{tuple(args)} is undefined") from None
        raise ValueError(f"{value!r}: {ast.unparse(node)!r} is not allowed (numbers, parameters, + - * / **, "
                         f"{', '.join(FUNCTIONS)})")

    try:
        result = ev(tree)
    except (ArithmeticError, TypeError) as exc:
        raise ValueError(f"{value!r} cannot be evaluated: {exc}") from None
    if isinstance(result, complex) or not math.isfinite(result):
        raise ValueError(f"{value!r} evaluates to {result!r}, not a finite real number")
    return result
