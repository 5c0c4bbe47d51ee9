"""DRA device selectors (CEL) evaluated the way kube-scheduler - or Kueue - evaluates them.

Built on cel-python (``celpy``, InterpretedRunner: its CompiledRunner cannot call user
functions) plus ``lib`` (the Kubernetes CEL libraries). Mirrors
``k8s.io/dynamic-resource-allocation/cel`` and the allocator's ``selectorsMatch``. The pieces:
``parser`` (the parser, its tables cached), ``analysis`` (compile-time checks and the
footprint), ``device`` (the ``device`` variable), ``errors`` (errors and the dialects:
what differs between the scheduler and Kueue); this module compiles and evaluates.

* An unknown *domain* is an empty map (``has(device.attributes['x.com'].a)`` is false,
  ``'x.com' in device.attributes`` is false); an unknown *id* is the runtime error
  ``no such key: <id>`` (followed, in the scheduler dialect, by the 1.37 hint about ``has()``/``.?``).
* A runtime error is not "false": the scheduler aborts the allocation attempt, Kueue rejects the
  workload. Only ``&&``/``||`` absorb errors (``false && <error>`` is false).
* Selectors are evaluated in order and stop at the first false one; an attribute that cannot be
  converted (bad version string; a list without list attributes) is an error for every selector.
* A non-bool result is ``CEL result of type T could not be converted to bool: <cel-go's
  conversion error>`` (the conversion error worded per type as cel-go v0.26/v0.27 word it).
* Expressions over 10240 bytes are rejected without compiling, as the API server does.

Not reproduced: static type checking (a non-bool result is only found when evaluated), the CEL
cost limit, and cel-go's compile error text (``ERROR: <input>:1:7: ...`` with a caret line).

Checked against the Kubernetes sources (dynamic-resource-allocation v0.36 and the 1.37
development branch, apiserver v0.36, cel-go v0.26/v0.27) and cel-python 0.5.0:

* cel-python turns ``<error> && <error>`` into "no matching overload", and an error in
  ``c ? x : y`` likewise; here the first error is kept, as in cel-go.
* ``has(m['k'])`` is a compile error in cel-go (``has()`` needs a field selection).
* Real drivers publish per-device attributes (``uuid``, ``pciBusID``), so whole device shapes
  rarely repeat; the evaluator keys its cache on what the expressions can read instead.
* An A100-40GB publishes ``memory: 40192Mi``, which is *less* than ``40Gi``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError

from .analysis import analyze
from .bind import expand_bindings
from .device import (
    attribute_problem as device_attribute_problem,
    device_activation,
    device_shape_key,
    footprint_reads,
    grouping_keyer,
    projected_key,
)
from .errors import (
    KUEUE_DRA_V036,
    MAX_EXPRESSION_LENGTH,
    NO_SUCH_KEY_HINT,
    SCHEDULER,
    CelCompileError,
    CelDialect,
    CelError,
    CelEvalError,
    Footprint,
)
from .format import NOT_EVALUABLE
from .lib import FUNCTIONS, CelQuantity, Semver
from .optional import expand_optionals
from .parser import environment
from .source import OPTIONAL_SYNTAX, blank_literals

__all__ = [
    "KUEUE_DRA_V036",
    "MAX_EXPRESSION_LENGTH",
    "SCHEDULER",
    "CelCompileError",
    "CelDialect",
    "CelError",
    "CelEvalError",
    "Selector",
    "SelectorEvaluator",
    "compile_selector",
    "device_activation",
    "device_shape_key",
    "footprint_reads",
]


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


_COMPILED: dict[tuple[CelDialect, str], Any] = {}


def compile_selector(expr: str, dialect: CelDialect = SCHEDULER) -> Selector:
    """Compile (cached by dialect and text); raises CelCompileError, the same error for the same text."""
    hit = _COMPILED.get((dialect, expr))
    if hit is None:
        try:
            hit = _compile(expr, dialect)
        except CelCompileError as e:
            hit = e
        _COMPILED[(dialect, expr)] = hit
    if isinstance(hit, CelCompileError):
        raise hit
    return hit


def _compile(expr: str, dialect: CelDialect) -> Selector:
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



# -- the evaluator ------------------------------------------------------------------------------

_MISS = object()


class SelectorEvaluator:
    """Evaluates selector lists on devices, once per distinct device shape.

    ``matches`` raises CelCompileError / CelEvalError; errors are cached like results.
    When every expression reads only named parts of ``device`` (the usual
    ``device.attributes['d'].x`` / ``device.capacity['d'].y`` / ``device.driver``
    forms) the cache key holds just those parts, so devices that differ only in,
    say, ``uuid`` share one evaluation; otherwise it is :func:`device_shape_key`.

    ``evaluations`` counts CEL evaluations actually run (one per expression),
    ``cache_hits`` the ``matches`` calls answered from the cache.
    """

    def __init__(self, dialect: CelDialect = SCHEDULER) -> None:
        #: how ``device`` is built and errors are worded (kube-scheduler's, or Kueue's)
        self.dialect = dialect
        self.evaluations = 0
        self.cache_hits = 0
        from ... import stats

        stats.track_evaluator(self)
        self._results: dict[tuple[tuple[str, ...], Hashable], Any] = {}
        self._footprints: dict[tuple[str, ...], Footprint | None] = {}
        #: each device's attribute problem in this dialect, found once for every grouping (``projected_key``);
        #: kept from the second grouping on: a run that groups the devices once (classes, verify) would
        #: only pay for it (an entry per device: ~120 MiB at 5,000 nodes)
        self._problems: dict[int, tuple[Any, str | None]] = {}
        self._groupings = 0

    def compile(self, expression: str) -> Selector:
        """``compile_selector`` in this evaluator's dialect."""
        return compile_selector(expression, self.dialect)

    def _footprint(self, exprs: tuple[str, ...]) -> Footprint | None:
        if exprs not in self._footprints:
            fp: set[tuple[Any, ...]] = set()
            anything = False
            for e in exprs:
                try:
                    sel_fp = compile_selector(e, self.dialect).footprint
                except CelCompileError:
                    sel_fp = None
                if sel_fp is None:
                    anything = True
                    break
                fp |= sel_fp
            self._footprints[exprs] = None if anything else frozenset(fp)
        return self._footprints[exprs]

    def group_keyer(self, selector_lists: Sequence[Sequence[str]]) -> Callable[[str, dict[str, Any]], Hashable]:
        """A function (driver, device) -> key such that devices with equal keys get equal results
        from every one of these selector lists: the projection on the union of what they read,
        or the full :func:`device_shape_key` when one of them may read anything. Lets callers
        group many devices and evaluate once per group (see ``dra/devices.ShapeIndex``)."""
        union = self.union_footprint(selector_lists)
        if union is None:
            return device_shape_key
        self._groupings += 1
        dialect, problems = self.dialect, (self._problems if self._groupings > 1 else None)
        return grouping_keyer(union, dialect, problems)

    def attribute_problem(self, driver: str, device: dict[str, Any]) -> str | None:
        """Why this dialect could not convert the device's attributes, or None."""
        return device_attribute_problem(driver, device, self.dialect)

    def union_footprint(self, selector_lists: Sequence[Sequence[str]]) -> Footprint | None:
        """Every part of a device these selector lists can read together, or None when one of
        them may read anything: devices alike in it get equal results from each list."""
        union: set[tuple[Any, ...]] = set()
        for exprs in selector_lists:
            fp = self._footprint(tuple(exprs))
            if fp is None:
                return None
            union |= fp
        return frozenset(union)

    def shape_key(self, expressions: Sequence[str], driver: str, device: dict[str, Any]) -> Hashable:
        """The cache key used for these expressions and this device."""
        exprs = tuple(expressions)
        fp = self._footprint(exprs)
        return device_shape_key(driver, device) if fp is None else projected_key(fp, driver, device, self.dialect)

    def matches(self, expressions: Sequence[str], driver: str, device: dict[str, Any]) -> bool:
        """True when all expressions are true for the device (evaluated in order)."""
        exprs = tuple(expressions)
        key = (exprs, self.shape_key(exprs, driver, device))
        hit = self._results.get(key, _MISS)
        if hit is not _MISS:
            self.cache_hits += 1
            if isinstance(hit, CelError):
                raise hit
            return bool(hit)
        try:
            result = self._evaluate(exprs, driver, device)
        except CelError as e:
            self._results[key] = e
            raise
        self._results[key] = result
        return result

    def _evaluate(self, exprs: tuple[str, ...], driver: str, device: dict[str, Any]) -> bool:
        activation = None
        for expr in exprs:
            selector = compile_selector(expr, self.dialect)
            if activation is None:
                try:
                    activation = device_activation(driver, device, self.dialect)
                except CelEvalError as e:
                    raise CelEvalError(expr, e.detail) from None
            self.evaluations += 1
            if not selector.evaluate(activation):
                return False
        return True
