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


#: the C99 (libm) function of each of math's that raises a ValueError or an OverflowError where its result is
#: not a number or infinite (CPython's math module); abs, min and max are builtins, radians and degrees
#: multiply by math's constants, step is the unit step: none of these raises
_C_CHECKED = {"sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp"}
_C_PLAIN = {"abs": "fabs({0})", "radians": "({0} * " + repr(math.pi / 180.0) + ")",
            "degrees": "({0} * " + repr(180.0 / math.pi) + ")", "step": "({0} >= 0.0 ? 1.0 : 0.0)"}
_C_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.UAdd: "+", ast.USub: "-"}


def c_double(x: float) -> str:
    """A C99 double literal of x, exact (Python's repr reads back as x)."""
    text = repr(float(x))
    return text if any(c in text for c in ".en") else text + ".0"


def to_c(value, names: dict, bad: str = "bad") -> str:
    """The C99 expression (over libm) that computes what ``evaluate(value, ...)`` does, in the same IEEE
    operations: ``names`` maps each parameter name to its C text ({"a1": "p[1]"}). Where evaluate raises (a
    division by zero, a domain or range error of ** or of math's functions) the C expression sets the int
    ``bad`` to 1 through the helpers of native/src/assembly_file.c (fj_file_div, fj_file_f1, fj_file_f2).
    ValueError for what evaluate refuses to parse."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return c_double(value)
    tree = ast.parse(str(value).strip(), mode="eval")

    def c(node):
        if isinstance(node, ast.Expression):
            return c(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return c_double(node.value)
        if isinstance(node, ast.Name) and (node.id in names or node.id in CONSTANTS):
            return names[node.id] if node.id in names else c_double(CONSTANTS[node.id])
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Pow)):
            helper = ("fj_file_div(&{0}, {1}, {2})" if isinstance(node.op, ast.Div) else
                      "fj_file_f2(&{0}, pow, {1}, {2})")
            return helper.format(bad, c(node.left), c(node.right))
        if isinstance(node, ast.BinOp) and type(node.op) in _C_OPERATORS:
            return f"({c(node.left)} {_C_OPERATORS[type(node.op)]} {c(node.right)})"
        if isinstance(node, ast.UnaryOp) and type(node.op) in _C_OPERATORS:
            return f"({_C_OPERATORS[type(node.op)]}{c(node.operand)})"
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
                and not node.keywords):
            name, args = node.func.id, [c(a) for a in node.args]
            if name in ("min", "max"):  # Python's min and max of any number of arguments
                text = args[0]
                for a in args[1:]:
                    text = f"f{name}({text}, {a})"
                return text
            if name in _C_CHECKED:
                return f"fj_file_f{len(args)}(&{bad}, {name}, {', '.join(args)})"
            return _C_PLAIN[name].format(*args)
        raise ValueError(f"{value!r}: {ast.unparse(node)!r} is not allowed (numbers, parameters, + - * / **, "
                         f"{', '.join(FUNCTIONS)})")

    return c(tree)
