"""DRA device selectors (CEL) evaluated the way kube-scheduler evaluates them.

Built on cel-python (``celpy``, InterpretedRunner: its CompiledRunner cannot call
user functions) plus ``cel_lib`` (the Kubernetes CEL libraries).  Mirrors
``k8s.io/dynamic-resource-allocation/cel`` and the allocator's ``selectorsMatch``:

* ``device`` has ``driver``, ``attributes``, ``capacity`` and
  ``allowMultipleAllocations``.  Attribute and capacity names split at the first
  ``/`` into domain and id; names without a domain belong to the driver.  Version
  attributes become Semver values, capacities Quantity values (``value`` only).
* An unknown *domain* is an empty map (``has(device.attributes['x.com'].a)`` is
  false, ``'x.com' in device.attributes`` is false); an unknown *id* is the runtime
  error ``no such key: <id>`` followed by the scheduler's hint about ``has()``/``.?``.
* A runtime error is not "false": the scheduler aborts the allocation attempt.  Only
  ``&&``/``||`` absorb errors (``false && <error>`` is false).
* Selectors are evaluated in order and stop at the first false one; an attribute
  that cannot be converted (bad version string) is an error for every selector.
* Expressions over 10240 bytes are rejected without compiling, as the API server does.

What cel-python cannot do is reported as :class:`CelCompileError` with
``unsupported=True`` ("not evaluable by this tool") - never as a mismatch: optional
syntax (``x.?y``, ``m[?k]``, ``orValue()``), ``cel.bind``, namespaced functions
(``sets.*``, ``lists.range``, ``strings.quote``, ``format.*``, ``ip.*``),
two-variable comprehensions and the 3-argument ``map``, URL/IP/CIDR/``format``.
What Kubernetes itself rejects at compile time (unknown function or variable,
unknown ``device`` field, ``has()`` on a non-field) is ``unsupported=False``.
Not reproduced: static type checking (a non-bool result is only found when
evaluated) and the CEL cost limit.

Checked against the Kubernetes sources (dynamic-resource-allocation v0.36 and the
1.37 development branch, apiserver v0.36, cel-go v0.26) and cel-python 0.5.0:

* The ``has()``/``.?`` hint after ``no such key`` comes from
  ``cel.EnhanceRuntimeError``, which is in the 1.37 development branch but not in
  v0.36; older schedulers print the bare cel-go message.
* cel-python turns ``<error> && <error>`` into "no matching overload", and an
  error in ``c ? x : y`` likewise; here the first error is kept, as in cel-go.
* ``has(m['k'])`` is a compile error in cel-go (``has()`` needs a field selection).
* Real drivers publish per-device attributes (``uuid``, ``pciBusID``), so whole
  device shapes rarely repeat; the evaluator keys its cache on what the
  expressions can read instead (see :class:`SelectorEvaluator`).
* An A100-40GB publishes ``memory: 40192Mi``, which is *less* than ``40Gi``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, FrozenSet, Hashable, List, Optional, Sequence, Tuple

import celpy
import lark
from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, base_functions, celstr

from .cel_lib import FUNCTIONS, CelQuantity, Semver, SemverError
from .quantity import QuantityError, parse_quantity

__all__ = [
    "MAX_EXPRESSION_LENGTH",
    "CelCompileError",
    "CelError",
    "CelEvalError",
    "Selector",
    "SelectorEvaluator",
    "compile_selector",
    "device_activation",
    "device_shape_key",
]

MAX_EXPRESSION_LENGTH = 10240  # resource.CELSelectorExpressionMaxLength, in bytes
NO_SUCH_KEY_HINT = (
    "consider using CEL optional chaining (.? followed by orValue()) or guarding the check "
    "with has() for optional fields"
)


class CelError(Exception):
    """A selector that cannot be compiled or evaluated; ``str()`` is one readable line."""

    def __init__(self, expression: str, detail: str):
        super().__init__(detail)
        self.expression = expression
        self.detail = detail


class CelCompileError(CelError):
    """Does not compile (``unsupported=False``) or is not evaluable by this tool (``True``)."""

    def __init__(self, expression: str, detail: str, unsupported: bool = False):
        super().__init__(expression, detail)
        self.unsupported = unsupported

    def __str__(self) -> str:
        if self.unsupported:
            return f"valid in Kubernetes but not evaluable by this tool: {self.detail}"
        return f"does not compile: {self.detail}"


class CelEvalError(CelError):
    """A runtime error: the scheduler would fail the allocation attempt, not skip the device."""

    def __str__(self) -> str:
        return f"runtime error: {self.detail}"


# -- compiling --------------------------------------------------------------------------

def _cel_environment() -> celpy.Environment:
    """``celpy.Environment()``, with cel-python's LALR parser tables cached on disk (per user, in
    ``$XDG_CACHE_HOME/kueue-dra``): building them costs ~0.35 s per run, loading ~0.04 s. The
    parser is made with the options of celpy's own ``CELParser``; lark checks the cache against
    the grammar's hash and rebuilds it when it differs; on any problem celpy builds its own."""
    from celpy.celparser import CELParser

    try:
        import os
        from pathlib import Path

        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kueue-dra"
        base.mkdir(parents=True, exist_ok=True)
        if CELParser.CEL_PARSER is None:
            CELParser.CEL_PARSER = lark.Lark(
                (Path(celpy.__file__).parent / "cel.lark").read_text(),
                parser="lalr", start="expr", debug=True, g_regex_flags=re.M,
                lexer_callbacks={"IDENT": CELParser.ambiguous_literals}, propagate_positions=True,
                maybe_placeholders=False, priority="invert", tree_class=lark.Tree,
                cache=str(base / f"cel-parser-lark-{lark.__version__}.cache"))
    except Exception:  # noqa: BLE001 - only an optimisation
        CELParser.CEL_PARSER = None
    return celpy.Environment()


_ENV = _cel_environment()


def _conditional(cond: Any, x: Any, y: Any) -> Any:
    """``c ? x : y`` keeping the condition's own error (cel-python reports "no overload")."""
    if isinstance(cond, CELEvalError):
        return cond
    if not isinstance(cond, celtypes.BoolType):
        return CELEvalError("no such overload")
    return x if cond else y


_FUNCTIONS = dict(FUNCTIONS, **{"_?_:_": _conditional})

_DEVICE_FIELDS = frozenset({"driver", "attributes", "capacity", "allowMultipleAllocations"})
_TYPE_IDENTS = frozenset(
    {"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"}
)
_KNOWN_FUNCTIONS = frozenset(k for k in list(base_functions) + list(FUNCTIONS) if not k.startswith(("_", "!", "-")))
_ONE_VAR_MACROS = frozenset({"all", "exists", "exists_one", "filter", "map"})
# In the Kubernetes CEL environment but not implemented here.
_UNSUPPORTED_FUNCTIONS = frozenset(
    {
        "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
        "ip", "isIP", "cidr", "isCIDR", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
        "isLinkLocalUnicast", "isGlobalUnicast", "isCanonical", "containsIP", "containsCIDR", "masked",
        "prefixLength", "format", "validate", "orValue", "hasValue", "optMap", "optFlatMap", "value",
        "sortBy", "transformList", "transformMap", "transformMapEntry", "existsOne", "quote",
    }
)
_UNSUPPORTED_NAMESPACES = frozenset({"cel", "sets", "lists", "strings", "optional", "format", "ip", "cidr", "url"})
_OPTIONAL_SYNTAX = re.compile(r"\.\s*\?|\[\s*\?")


def _blank_literals(expr: str) -> str:
    """The expression with string/bytes literal bodies and comments replaced by spaces."""
    out = list(expr)
    i, n = 0, len(expr)
    while i < n:
        c = expr[i]
        if c == "/" and expr.startswith("//", i):
            j = expr.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
            continue
        if c in "'\"":
            raw = i > 0 and expr[i - 1] in "rR" or (i > 1 and expr[i - 1] in "bB" and expr[i - 2] in "rR")
            quote = expr[i : i + 3] if expr[i : i + 3] in ("'''", '"""') else c
            j = i + len(quote)
            while j < n and not expr.startswith(quote, j):
                j += 2 if expr[j] == "\\" and not raw else 1
            j = min(n, j + len(quote))
            out[i:j] = " " * (j - i)
            i = j
            continue
        i += 1
    return "".join(out)


_CHAIN_RULES = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary", "member", "primary"}
)


def _leaf(tree: Any) -> Any:
    """The single literal/ident node a one-child chain ends in, else None."""
    while isinstance(tree, lark.Tree) and tree.data in _CHAIN_RULES and len(tree.children) == 1:
        tree = tree.children[0]
    if isinstance(tree, lark.Tree) and tree.data in ("literal", "ident"):
        return tree
    return None


def _string_literal(tree: Any) -> Optional[str]:
    leaf = _leaf(tree)
    if leaf is not None and leaf.data == "literal":
        tok = leaf.children[0]
        if tok.type in ("STRING_LIT", "MLSTRING_LIT"):
            return str(celstr(tok))
    return None


def _ident_name(tree: Any) -> Optional[str]:
    leaf = _leaf(tree)
    return str(leaf.children[0].value) if leaf is not None and leaf.data == "ident" else None


def _member_chain(member: lark.Tree) -> Optional[Tuple[str, List[Tuple[str, Optional[str], Any]]]]:
    """For ``root.a['b'].c`` return ("root", [("dot","a",None), ("index","b",tree), ...])."""
    steps: List[Tuple[str, Optional[str], Any]] = []
    node = member
    while True:
        child = node.children[0]
        if not isinstance(child, lark.Tree):
            return None
        if child.data == "member_dot":
            steps.append(("dot", str(child.children[1].value), None))
            node = child.children[0]
        elif child.data == "member_index":
            steps.append(("index", _string_literal(child.children[1]), child.children[1]))
            node = child.children[0]
        elif child.data == "primary":
            p = child.children[0]
            if isinstance(p, lark.Tree) and p.data == "ident":
                steps.reverse()
                return str(p.children[0].value), steps
            return None
        else:
            return None


# Footprint entries: ("driver",) ("ama",) ("attributes"|"capacity", [domain, [id]]) ("all",)
_ALL = ("all",)


class _Analyzer:
    """Static checks that Kubernetes does at compile time, plus what ``device`` parts are read."""

    def __init__(self, expression: str):
        self.expression = expression
        self.footprint: set = set()

    def fail(self, detail: str, unsupported: bool = False) -> None:
        raise CelCompileError(self.expression, detail, unsupported)

    def visit(self, node: Any, bound: FrozenSet[str]) -> None:
        if not isinstance(node, lark.Tree):
            return
        d = node.data
        if d == "member":
            chain = _member_chain(node)
            if chain is not None and chain[0] == "device" and "device" not in bound:
                self.device_access(chain[1], bound)
                return
        elif d == "member_dot_arg":
            self.method_call(node, bound)
            return
        elif d == "ident_arg":
            self.global_call(node, bound)
            return
        elif d in ("ident", "dot_ident"):
            name = str(node.children[0].value)
            if name not in bound and name != "device" and name not in _TYPE_IDENTS:
                self.fail(f"undeclared reference to '{name}'")
        elif d == "dot_ident_arg":
            self.check_function(str(node.children[0].value))
        elif d == "member_object":
            self.fail("message construction is not available in the DRA CEL environment")
        for child in node.children:
            self.visit(child, bound)

    def device_access(self, steps: List[Tuple[str, Optional[str], Any]], bound: FrozenSet[str]) -> None:
        for kind, _, tree in steps:
            if kind == "index" and tree is not None:
                self.visit(tree, bound)
        if not steps or steps[0][0] != "dot":
            self.footprint.add(_ALL)
            return
        field = steps[0][1]
        if field not in _DEVICE_FIELDS:
            self.fail(f"undefined field '{field}'")
        if field == "driver":
            self.footprint.add(("driver",))
        elif field == "allowMultipleAllocations":
            self.footprint.add(("ama",))
        else:
            keys: List[str] = []
            for _, key, _ in steps[1:3]:
                if key is None:
                    break
                keys.append(key)
            self.footprint.add((field, *keys))

    def check_function(self, name: str) -> None:
        if name in _UNSUPPORTED_FUNCTIONS:
            self.fail(f"function {name}()", unsupported=True)
        if name not in _KNOWN_FUNCTIONS:
            self.fail(f"undeclared reference to '{name}'")

    def global_call(self, node: lark.Tree, bound: FrozenSet[str]) -> None:
        name = str(node.children[0].value)
        args = node.children[1].children if len(node.children) > 1 else []
        if name == "has":
            arg = args[0] if len(args) == 1 else None
            inner = arg
            while isinstance(inner, lark.Tree) and inner.data in _CHAIN_RULES and inner.data != "member":
                inner = inner.children[0] if len(inner.children) == 1 else None
            if inner is None or inner.data != "member" or inner.children[0].data != "member_dot":
                self.fail("invalid argument to has() macro")
        elif name != "dyn":
            self.check_function(name)
        for a in args:
            self.visit(a, bound)

    def method_call(self, node: lark.Tree, bound: FrozenSet[str]) -> None:
        target, name = node.children[0], str(node.children[1].value)
        args = node.children[2].children if len(node.children) > 2 else []
        root = _ident_name(target)
        if root is not None and root not in bound and root != "device" and root not in _TYPE_IDENTS:
            if root in _UNSUPPORTED_NAMESPACES:
                self.fail(f"namespaced function {root}.{name}()", unsupported=True)
            self.fail(f"undeclared reference to '{root}.{name}'")
        if name in _ONE_VAR_MACROS:
            if len(args) == 2:
                var = _ident_name(args[0])
                if var is None:
                    self.fail(f"{name}() macro: the first argument must be a simple name")
                self.visit(target, bound)
                self.visit(args[1], bound | {var})
                return
            if len(args) == 3:
                what = "map() with a filter" if name == "map" else f"two-variable comprehension {name}()"
                self.fail(what, unsupported=True)
            self.fail(f"{name}() macro takes 2 arguments, not {len(args)}")
        if name == "reduce":
            self.fail("undeclared reference to 'reduce'")
        self.check_function(name)
        self.visit(target, bound)
        for a in args:
            self.visit(a, bound)


class Selector:
    """A compiled selector expression."""

    def __init__(self, expression: str, runner: Any, footprint: Optional[FrozenSet[tuple]]):
        self.expression = expression
        self._runner = runner
        #: What parts of ``device`` the expression reads; None = anything.
        self.footprint = footprint

    def evaluate(self, activation: Dict[str, Any]) -> bool:
        """Evaluate on an activation from :func:`device_activation`; raises CelEvalError."""
        try:
            value = self._runner.evaluate(activation)
        except CELEvalError as e:
            raise CelEvalError(self.expression, _eval_message(e)) from None
        except RecursionError:
            raise CelCompileError(self.expression, "too deeply nested for cel-python", True) from None
        except Exception as e:  # cel-python failing on syntax it parsed
            raise CelCompileError(self.expression, f"cel-python failed: {type(e).__name__}: {e}", True) from None
        if not isinstance(value, celtypes.BoolType):
            raise CelEvalError(
                self.expression, f"CEL result of type {_type_name(value)} could not be converted to bool"
            )
        return bool(value)

    def __repr__(self) -> str:
        return f"Selector({self.expression!r})"


_COMPILED: Dict[str, Any] = {}


def compile_selector(expr: str) -> Selector:
    """Compile (cached by text); raises CelCompileError, the same error for the same text."""
    hit = _COMPILED.get(expr)
    if hit is None:
        try:
            hit = _compile(expr)
        except CelCompileError as e:
            hit = e
        _COMPILED[expr] = hit
    if isinstance(hit, CelCompileError):
        raise hit
    return hit


def _compile(expr: str) -> Selector:
    if not isinstance(expr, str):
        raise CelCompileError(str(expr), "the expression is not a string")
    size = len(expr.encode("utf-8"))
    if size > MAX_EXPRESSION_LENGTH:
        raise CelCompileError(
            expr, f"expression is {size} bytes long, Kubernetes allows at most {MAX_EXPRESSION_LENGTH}"
        )
    if _OPTIONAL_SYNTAX.search(_blank_literals(expr)):
        raise CelCompileError(expr, "optional syntax (.?field, [?key], orValue())", unsupported=True)
    try:
        ast = _ENV.compile(expr)
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
    analyzer = _Analyzer(expr)
    try:
        analyzer.visit(ast, frozenset())
    except RecursionError:
        raise CelCompileError(expr, "too deeply nested for cel-python", unsupported=True) from None
    fp = analyzer.footprint
    footprint = None if _ALL in fp else frozenset(fp)
    return Selector(expr, _ENV.program(ast, _FUNCTIONS), footprint)


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


def _eval_message(e: CELEvalError) -> str:
    """cel-python's error in cel-go's words, plus the scheduler's hint for missing keys."""
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
    if "no such key:" in msg:
        msg = f"{msg}. {NO_SUCH_KEY_HINT}"
    return msg


# -- the device variable -------------------------------------------------------------------


class _DomainMap(celtypes.MapType):
    """Outer attributes/capacity map: unknown domains read as an empty map, as in Kubernetes."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return dict.__getitem__(self, key)
        except (KeyError, TypeError):
            return _EMPTY


_EMPTY = celtypes.MapType()
_SEMVERS: Dict[str, Any] = {}
_QUANTITIES: Dict[str, Any] = {}


def _semver(text: Any) -> Semver:
    hit = _SEMVERS.get(text) if isinstance(text, str) else None
    if hit is None:
        try:
            hit = Semver.parse(text if isinstance(text, str) else str(text))
        except SemverError as e:
            hit = e
        if len(_SEMVERS) < 100000 and isinstance(text, str):
            _SEMVERS[text] = hit
    if isinstance(hit, SemverError):
        raise hit
    return hit


def _quantity(value: Any) -> CelQuantity:
    key = value if isinstance(value, str) else repr(value)
    hit = _QUANTITIES.get(key)
    if hit is None:
        hit = CelQuantity(parse_quantity(value))
        if len(_QUANTITIES) < 100000:
            _QUANTITIES[key] = hit
    return hit


def _split_name(name: str, driver: str) -> Tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _attribute_value(name: str, a: Any) -> Any:
    if isinstance(a, dict):
        try:
            if a.get("ints") is not None:
                return celtypes.ListType([celtypes.IntType(x) for x in a["ints"]])
            if a.get("bools") is not None:
                return celtypes.ListType([celtypes.BoolType(bool(x)) for x in a["bools"]])
            if a.get("strings") is not None:
                return celtypes.ListType([celtypes.StringType(x) for x in a["strings"]])
            if a.get("versions") is not None:
                return celtypes.ListType([_semver(x) for x in a["versions"]])
            if a.get("int") is not None:
                return celtypes.IntType(a["int"])
            if a.get("bool") is not None:
                return celtypes.BoolType(bool(a["bool"]))
            if a.get("string") is not None:
                return celtypes.StringType(a["string"])
            if a.get("version") is not None:
                return _semver(a["version"])
        except SemverError as e:
            raise CelEvalError("", f"attribute {name}: parse semantic version: {e}") from None
        except (TypeError, ValueError) as e:
            raise CelEvalError("", f"attribute {name}: {e}") from None
    raise CelEvalError("", f"attribute {name}: unsupported attribute value")


def device_activation(driver: str, device: Dict[str, Any]) -> Dict[str, Any]:
    """The ``device`` variable for one v1 ResourceSlice device (a JSON dict).

    Raises CelEvalError when an attribute cannot be converted (as the scheduler does
    before evaluating any selector on that device).
    """
    attrs: Dict[str, Dict[str, Any]] = {}
    for name, a in (device.get("attributes") or {}).items():
        domain, ident = _split_name(name, driver)
        attrs.setdefault(domain, {})[ident] = _attribute_value(name, a)
    caps: Dict[str, Dict[str, Any]] = {}
    for name, c in (device.get("capacity") or {}).items():
        domain, ident = _split_name(name, driver)
        value = c.get("value", "0") if isinstance(c, dict) else c
        try:
            caps.setdefault(domain, {})[ident] = _quantity(value)
        except QuantityError as e:
            raise CelEvalError("", f"capacity {name}: {e}") from None
    return {
        "device": celtypes.MapType(
            {
                "driver": celtypes.StringType(driver),
                "allowMultipleAllocations": celtypes.BoolType(bool(device.get("allowMultipleAllocations"))),
                "attributes": _DomainMap({k: celtypes.MapType(v) for k, v in attrs.items()}),
                "capacity": _DomainMap({k: celtypes.MapType(v) for k, v in caps.items()}),
            }
        )
    }


# -- shapes and the evaluator -----------------------------------------------------------------


def device_shape_key(driver: str, device: Dict[str, Any]) -> Hashable:
    """Everything a selector can see of a device: driver, attributes, capacity values,
    allowMultipleAllocations.  Devices with equal keys get equal results (names,
    counters, taints and node placement are not part of it).  About 5 us per device."""
    attrs = device.get("attributes") or {}
    caps = device.get("capacity") or {}
    key = (
        driver,
        tuple(sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v) for k, v in attrs.items())),
        tuple(sorted((k, v.get("value") if isinstance(v, dict) else v) for k, v in caps.items())),
        bool(device.get("allowMultipleAllocations")),
    )
    try:
        hash(key)
    except TypeError:  # list-type attributes or odd JSON: freeze everything
        values = {k: v.get("value") if isinstance(v, dict) else v for k, v in caps.items()}
        key = (driver, _frozen(attrs), _frozen(values), key[3])
    return key


def _attribute_problem(driver: str, device: Dict[str, Any]) -> Optional[str]:
    """Why the scheduler could not convert this device's attributes, or None."""
    for name, a in (device.get("attributes") or {}).items():
        if not isinstance(a, dict):
            return name
        if "version" in a or "versions" in a:
            if len(a) == 1:  # fast path: a version string already parsed (see _semver)
                hit = _SEMVERS.get(a.get("version")) if type(a.get("version")) is str else None
                if hit is not None and not isinstance(hit, SemverError):
                    continue
            try:
                _attribute_value(name, a)
            except CelEvalError as e:
                return e.detail
        elif not a:
            return name
    return None


_SCALARS = (str, int, float, bool, type(None))


def _frozen(v: Any) -> Hashable:
    if type(v) is dict and len(v) == 1:  # fast path for {"string": "x"}, {"value": "1Gi"}
        for k, x in v.items():
            if type(x) in _SCALARS:
                return ((k, x),)
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(_frozen(x) for x in v)
    return v


_PLANS: Dict[Tuple[FrozenSet[tuple], str], Tuple[tuple, ...]] = {}


def _plan(footprint: FrozenSet[tuple], driver: str) -> Tuple[tuple, ...]:
    """The footprint as steps for :func:`_projected_key`, in a fixed order (computed once)."""
    plan = _PLANS.get((footprint, driver))
    if plan is None:
        steps: List[tuple] = []
        for item in sorted(footprint):
            kind = item[0]
            if kind == "driver":
                continue
            if kind == "ama":
                steps.append(("ama",))
                continue
            if len(item) == 3:
                domain, ident = item[1], item[2]
                steps.append(("one", kind, (f"{domain}/{ident}",) + ((ident,) if domain == driver else ())))
            else:
                steps.append(("some", kind, item[1] if len(item) == 2 else None))
        plan = _PLANS[(footprint, driver)] = tuple(steps)
    return plan


def _projected_key(footprint: FrozenSet[tuple], driver: str, device: Dict[str, Any]) -> Hashable:
    """The parts of a device that an expression with this footprint can read."""
    parts: List[Any] = [driver, _attribute_problem(driver, device)]
    attrs = device.get("attributes") or {}
    caps = device.get("capacity") or {}
    for step in _plan(footprint, driver):
        if step[0] == "ama":
            parts.append(bool(device.get("allowMultipleAllocations")))
            continue
        source = attrs if step[1] == "attributes" else caps
        if step[0] == "one":
            parts.append(tuple([_frozen(source.get(n)) for n in step[2]]))
        else:
            domain = step[2]
            selected = [(n, _frozen(v)) for n, v in source.items()
                        if domain is None or _split_name(n, driver)[0] == domain]
            parts.append(tuple(sorted(selected)))
    return tuple(parts)


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

    def __init__(self) -> None:
        self.evaluations = 0
        self.cache_hits = 0
        from .. import stats

        stats.track_evaluator(self)
        self._results: Dict[Tuple[Tuple[str, ...], Hashable], Any] = {}
        self._footprints: Dict[Tuple[str, ...], Optional[FrozenSet[tuple]]] = {}

    def _footprint(self, exprs: Tuple[str, ...]) -> Optional[FrozenSet[tuple]]:
        if exprs not in self._footprints:
            fp: Optional[set] = set()
            for e in exprs:
                try:
                    sel_fp = compile_selector(e).footprint
                except CelCompileError:
                    sel_fp = None
                if sel_fp is None:
                    fp = None
                    break
                fp |= sel_fp
            self._footprints[exprs] = None if fp is None else frozenset(fp)
        return self._footprints[exprs]

    def group_keyer(self, selector_lists: Sequence[Sequence[str]]) -> Callable[[str, Dict[str, Any]], Hashable]:
        """A function (driver, device) -> key such that devices with equal keys get equal results
        from every one of these selector lists: the projection on the union of what they read,
        or the full :func:`device_shape_key` when one of them may read anything. Lets callers
        group many devices and evaluate once per group (see ``dra/devices.ShapeIndex``)."""
        union: Optional[set] = set()
        for exprs in selector_lists:
            fp = self._footprint(tuple(exprs))
            if fp is None:
                union = None
                break
            union |= fp
        if union is None:
            return device_shape_key
        frozen = frozenset(union)
        return lambda driver, device: _projected_key(frozen, driver, device)

    def shape_key(self, expressions: Sequence[str], driver: str, device: Dict[str, Any]) -> Hashable:
        """The cache key used for these expressions and this device."""
        exprs = tuple(expressions)
        fp = self._footprint(exprs)
        return device_shape_key(driver, device) if fp is None else _projected_key(fp, driver, device)

    def matches(self, expressions: Sequence[str], driver: str, device: Dict[str, Any]) -> bool:
        """True when all expressions are true for the device (evaluated in order)."""
        exprs = tuple(expressions)
        key = (exprs, self.shape_key(exprs, driver, device))
        hit = self._results.get(key, _MISS)
        if hit is not _MISS:
            self.cache_hits += 1
            if isinstance(hit, CelError):
                raise hit
            return hit
        try:
            result = self._evaluate(exprs, driver, device)
        except CelError as e:
            self._results[key] = e
            raise
        self._results[key] = result
        return result

    def _evaluate(self, exprs: Tuple[str, ...], driver: str, device: Dict[str, Any]) -> bool:
        activation = None
        for expr in exprs:
            selector = compile_selector(expr)
            if activation is None:
                try:
                    activation = device_activation(driver, device)
                except CelEvalError as e:
                    raise CelEvalError(expr, e.detail) from None
            self.evaluations += 1
            if not selector.evaluate(activation):
                return False
        return True
