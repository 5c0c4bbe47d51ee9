"""The CEL engine: a selector compiled and evaluated with cel-python (``celpy``, InterpretedRunner:
its CompiledRunner cannot call user functions) and ``lib`` (the Kubernetes CEL libraries), its
errors worded as cel-go words them. Loaded by ``evaluator`` for the first selector that is not
``simple`` (and by ``device`` for the ``device`` variable): a command whose selectors are all
simple does not load cel-python at all (~35 ms, and ~15 ms for the parser's tables).

* cel-python turns ``<error> && <error>`` into "no matching overload", and an error in
  ``c ? x : y`` likewise; here the first error is kept, as in cel-go.
* A non-bool result is ``CEL result of type T could not be converted to bool: <cel-go's
  conversion error>`` (the conversion error worded per type as cel-go v0.26/v0.27 word it).
"""

from __future__ import annotations

from typing import Any

from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError

from .analysis import analyze
from .bind import expand_bindings
from .errors import MAX_EXPRESSION_LENGTH, NO_SUCH_KEY_HINT, SCHEDULER, CelCompileError, CelDialect, CelEvalError, \
    Footprint
from .format import NOT_EVALUABLE
from .lib import FUNCTIONS, CelQuantity, Semver
from .optional import expand_optionals
from .parser import environment
from .source import OPTIONAL_SYNTAX, blank_literals

__all__ = ["Selector", "compile_full"]


def _conditional(cond: Any, x: Any, y: Any) -> Any:
    """``c ? x : y`` keeping the condition's own error (cel-python reports "no overload")."""
    if isinstance(cond, CELEvalError):
        return cond
    if not isinstance(cond, celtypes.BoolType):
        return CELEvalError("no such overload")
    return x if cond else y


_FUNCTIONS = dict(FUNCTIONS, **{"_?_:_": _conditional})


class Selector:
    """A compiled selector expression."""

    def __init__(self, expression: str, runner: Any, footprint: Footprint | None,
                 dialect: CelDialect = SCHEDULER):
        self.expression = expression
        self.dialect = dialect
        self._runner = runner
        #: What parts of ``device`` the expression reads; None = anything.
        self.footprint = footprint

    def evaluate(self, activation: dict[str, Any]) -> bool:
        """Evaluate on an activation from :func:`device_activation`; raises CelEvalError."""
        try:
            value = self._runner.evaluate(activation)
        except CELEvalError as e:
            if str(e.args[0] if e.args else "").startswith(NOT_EVALUABLE):
                raise CelCompileError(self.expression, str(e.args[0])[len(NOT_EVALUABLE):], True) from None
            raise CelEvalError(self.expression, _eval_message(e, self.dialect)) from None
        except RecursionError:
            raise CelCompileError(self.expression, "too deeply nested for cel-python", True) from None
        except Exception as e:  # noqa: BLE001 - cel-python failing on syntax it parsed
            raise CelCompileError(self.expression, f"cel-python failed: {type(e).__name__}: {e}", True) from None
        if not isinstance(value, celtypes.BoolType):
            name = _type_name(value)
            raise CelEvalError(self.expression, f"CEL result of type {name} could not be converted to bool: "
                                                f"{_CONVERSION.get(name, f'type conversion error to {_BOOL}')}")
        return bool(value)

    def __repr__(self) -> str:
        return f"Selector({self.expression!r})"


def compile_full(expr: str, dialect: CelDialect) -> Selector:
    """Compile with cel-python (not cached: ``evaluator.compile_selector`` caches); raises CelCompileError."""
    if not isinstance(expr, str):
        raise CelCompileError(str(expr), "the expression is not a string")
    size = len(expr.encode("utf-8"))
    if size > MAX_EXPRESSION_LENGTH:
        raise CelCompileError(
            expr, f"expression is {size} bytes long, Kubernetes allows at most {MAX_EXPRESSION_LENGTH}"
        )
    text = expand_bindings(expr) if "bind" in expr else expr
    if "?" in text:
        text = expand_optionals(text)
    if OPTIONAL_SYNTAX.search(blank_literals(text)):
        raise CelCompileError(expr, "optional syntax (optional.of/none, optional list or map elements, .?field "
                                    "outside a selection chain)", unsupported=True)
    try:
        ast = environment().compile(text)
    except CELParseError as e:
        line, col = getattr(e, "line", None), getattr(e, "column", None)
        where = f" at line {line}, column {col}" if line and col else ""
        near = ""
        if line and col:
            text_line = expr.splitlines()[line - 1] if expr.splitlines() else ""
            near = f" near {text_line[col - 1 : col + 19]!r}"
        raise CelCompileError(expr, f"syntax error{where}{near}") from None
    except RecursionError:
        raise CelCompileError(expr, "too deeply nested for cel-python", unsupported=True) from None
    footprint = analyze(expr, ast, dialect)
    return Selector(expr, environment().program(ast, _FUNCTIONS), footprint, dialect)


_TYPE_NAMES = {
    celtypes.BoolType: "bool", celtypes.IntType: "int", celtypes.UintType: "uint", celtypes.DoubleType: "double",
    celtypes.StringType: "string", celtypes.BytesType: "bytes", celtypes.ListType: "list", celtypes.MapType: "map",
    CelQuantity: "kubernetes.Quantity", Semver: "kubernetes.Semver", type(None): "null_type",
}


def _type_name(v: Any) -> str:
    for t, name in _TYPE_NAMES.items():
        if isinstance(v, t):
            return name
    return type(v).__name__


# ConvertToNative(bool) errors of cel-go v0.26/v0.27 and k8s.io/apiserver v0.36, by type name
_BOOL = "'bool'"
_CONVERSION = {
    "string": "unsupported native conversion from string to 'bool'",
    "int": "unsupported type conversion from 'int' to bool",
    "uint": "unsupported type conversion from 'uint' to bool",
    "double": "type conversion error from Double to 'bool'",
    "bytes": "type conversion error from Bytes to 'bool'",
    "list": "type conversion error from list to 'bool'",
    "map": "type conversion error from map to 'bool'",
    "null_type": "type conversion error from 'null_type' to 'bool'",
    "kubernetes.Quantity": "type conversion error from 'Quantity' to 'bool'",
    "kubernetes.Semver": "type conversion error from 'Semver' to 'bool'",
}


def _eval_message(e: CELEvalError, dialect: CelDialect = SCHEDULER) -> str:
    """cel-python's error in cel-go's words, plus (for dialects that add it) the hint for missing keys."""
    args = e.args
    msg = str(args[0]) if args else "evaluation error"
    cause = args[2] if len(args) > 2 and isinstance(args[2], tuple) else ()
    if msg == "no such key" and cause:
        msg = f"no such key: {cause[0]}"
    elif msg.startswith("no such member in mapping: "):
        msg = "no such key: " + msg[len("no such member in mapping: ") :].strip("'\"")
    elif msg.startswith("undeclared reference to"):
        msg = msg.split(" (in activation", 1)[0]
    elif msg.startswith("found no matching overload") or msg == "no such overload":
        msg = "no such overload"
    elif msg == "modulus or divide by zero":
        msg = "division by zero"
    elif msg == "return error for overflow":
        msg = "integer overflow" if cause == ("overflow",) else f"{msg}: {cause[0] if cause else ''}".rstrip(": ")
    if "no such key:" in msg and dialect.no_such_key_hint:
        msg = f"{msg}. {NO_SUCH_KEY_HINT}"
    return msg
