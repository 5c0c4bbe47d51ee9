"""Static analysis of a DRA selector: what Kubernetes rejects at compile time, what this tool
cannot evaluate, and which parts of ``device`` the expression reads (its footprint).

What Kubernetes itself rejects (unknown function or variable, unknown ``device`` field for the
dialect, ``has()`` on a non-field) is ``CelCompileError(unsupported=False)``; what cel-python
cannot do (optional values other than selection chains, namespaced functions, two-variable
comprehensions, the 3-argument ``map``, URL/IP/CIDR) is ``unsupported=True``. ``cel.bind`` and
optional selection chains are rewritten before this (``bind``, ``optional``) and
``format()`` evaluated (``format``, but for what it names not evaluable).
"""

from __future__ import annotations

from typing import Any

import lark
from celpy.evaluation import base_functions, celstr

from .errors import SCHEDULER, CelCompileError, CelDialect, Footprint
from .lib import FUNCTIONS

__all__ = ["ALL", "analyze"]

_DEVICE_FIELDS = frozenset({"driver", "attributes", "capacity", "allowMultipleAllocations"})
_TYPE_IDENTS = frozenset(
    {"int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn"}
)
_KNOWN_FUNCTIONS = frozenset(k for k in list(base_functions) + list(FUNCTIONS) if not k.startswith(("_", "!", "-"))) | \
    {"_opt_select", "_opt_index"}  # what optional.py rewrites an optional selection chain into
_ONE_VAR_MACROS = frozenset({"all", "exists", "exists_one", "filter", "map"})
# In the Kubernetes CEL environment but not implemented here.
_UNSUPPORTED_FUNCTIONS = frozenset(
    {
        "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
        "ip", "isIP", "cidr", "isCIDR", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
        "isLinkLocalUnicast", "isGlobalUnicast", "isCanonical", "containsIP", "containsCIDR", "masked",
        "prefixLength", "validate", "optMap", "optFlatMap", "or",
        "sortBy", "transformList", "transformMap", "transformMapEntry", "existsOne", "quote",
    }
)
_UNSUPPORTED_NAMESPACES = frozenset({"cel", "sets", "lists", "strings", "optional", "format", "ip", "cidr", "url"})


def _text(token: Any) -> str:
    """A lark token's text (children are typed as trees or tokens)."""
    return str(token.value)


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


def _string_literal(tree: Any) -> str | None:
    leaf = _leaf(tree)
    if leaf is not None and leaf.data == "literal":
        tok = leaf.children[0]
        if tok.type in ("STRING_LIT", "MLSTRING_LIT"):
            return str(celstr(tok))
    return None


def _ident_name(tree: Any) -> str | None:
    leaf = _leaf(tree)
    return _text(leaf.children[0]) if leaf is not None and leaf.data == "ident" else None


def _member_chain(member: lark.Tree[Any]) -> tuple[str, list[tuple[str, str | None, Any]]] | None:
    """For ``root.a['b'].c`` return ("root", [("dot","a",None), ("index","b",tree), ...])."""
    steps: list[tuple[str, str | None, Any]] = []
    node = member
    while True:
        child = node.children[0]
        if not isinstance(child, lark.Tree):
            return None
        if child.data == "member_dot":
            steps.append(("dot", _text(child.children[1]), None))
            node = child.children[0]
        elif child.data == "member_index":
            steps.append(("index", _string_literal(child.children[1]), child.children[1]))
            node = child.children[0]
        elif child.data == "primary":
            p = child.children[0]
            if isinstance(p, lark.Tree) and p.data == "ident":
                steps.reverse()
                return _text(p.children[0]), steps
            return None
        else:
            return None


# Footprint entries: ("driver",) ("ama",) ("attributes"|"capacity", [domain, [id]]) ("all",)
ALL = ("all",)


class _Analyzer:
    """Static checks that Kubernetes does at compile time, plus what ``device`` parts are read."""

    def __init__(self, expression: str, dialect: CelDialect):
        self.expression = expression
        self.footprint: set[tuple[Any, ...]] = set()
        self.dialect = dialect  # declarations do not differ between dialects (StoredExpressions)

    def fail(self, detail: str, unsupported: bool = False) -> None:
        raise CelCompileError(self.expression, detail, unsupported)

    def visit(self, node: Any, bound: frozenset[str]) -> None:
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
            name = _text(node.children[0])
            if name not in bound and name != "device" and name not in _TYPE_IDENTS:
                self.fail(f"undeclared reference to '{name}'")
        elif d == "dot_ident_arg":
            self.check_function(_text(node.children[0]))
        elif d == "member_object":
            self.fail("message construction is not available in the DRA CEL environment")
        for child in node.children:
            self.visit(child, bound)

    def device_access(self, steps: list[tuple[str, str | None, Any]], bound: frozenset[str]) -> None:
        for kind, _, tree in steps:
            if kind == "index" and tree is not None:
                self.visit(tree, bound)
        if not steps or steps[0][0] != "dot":
            self.footprint.add(ALL)
            return
        field = steps[0][1]
        if field not in _DEVICE_FIELDS:
            self.fail(f"undefined field '{field}'")
        if field == "driver":
            self.footprint.add(("driver",))
        elif field == "allowMultipleAllocations":
            self.footprint.add(("ama",))
        else:
            keys: list[str] = []
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

    def global_call(self, node: lark.Tree[Any], bound: frozenset[str]) -> None:
        name = _text(node.children[0])
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

    def method_call(self, node: lark.Tree[Any], bound: frozenset[str]) -> None:
        target, name = node.children[0], _text(node.children[1])
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
                    raise CelCompileError(self.expression, f"{name}() macro: the first argument must be a simple name")
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


_LITERAL_TYPES = {"STRING_LIT": "string", "MLSTRING_LIT": "string", "BYTES_LIT": "bytes", "INT_LIT": "int",
                  "UINT_LIT": "uint", "FLOAT_LIT": "double", "NULL_LIT": "null_type"}
#: functions and methods whose result is never a bool
_VALUE_CALLS = {"size": "int", "int": "int", "uint": "uint", "double": "double", "string": "string", "bytes": "bytes",
                "quantity": "kubernetes.Quantity", "semver": "kubernetes.Semver", "lowerAscii": "string",
                "upperAscii": "string", "trim": "string", "replace": "string", "substring": "string",
                "charAt": "string", "indexOf": "int", "lastIndexOf": "int", "split": "list", "join": "string"}
_ARITHMETIC = frozenset({"addition_add", "addition_sub", "multiplication_mul", "multiplication_div",
                         "multiplication_mod", "unary_neg"})


def value_type(node: Any) -> str | None:
    """What a selector plainly evaluates to when that is not a bool (a literal, arithmetic, a string or
    number function, ``device.driver``), which the DRA environment refuses at compile time ("must
    evaluate to bool"); None when it is a bool or cannot be told without the types of attributes."""
    while isinstance(node, lark.Tree):
        kids = node.children
        if node.data == "expr" and len(kids) == 3:  # c ? a : b: both branches the same non-bool type
            a, b = value_type(kids[1]), value_type(kids[2])
            return a if a == b else None
        if node.data in _ARITHMETIC or any(isinstance(k, lark.Tree) and k.data in _ARITHMETIC for k in kids):
            return "an arithmetic result"
        if node.data == "member" and isinstance(kids[0], lark.Tree) and kids[0].data == "member_dot":
            chain = _member_chain(node)
            return "string" if chain is not None and chain == ("device", [("dot", "driver", None)]) else None
        if node.data in ("member_dot_arg", "ident_arg"):
            return _VALUE_CALLS.get(_text(kids[1] if node.data == "member_dot_arg" else kids[0]))
        if node.data == "literal":
            return _LITERAL_TYPES.get(str(getattr(kids[0], "type", "")))
        if node.data in ("list_lit", "map_lit"):
            return node.data[:-4]
        if len(kids) != 1 or node.data not in _CHAIN_RULES | {"paren_expr"}:
            return None
        node = kids[0]
    return None


def analyze(expression: str, ast: lark.Tree[Any], dialect: CelDialect = SCHEDULER) -> Footprint | None:
    """Raise CelCompileError for what Kubernetes (or this tool) cannot compile; else the footprint
    (None: the expression may read any part of ``device``)."""
    analyzer = _Analyzer(expression, dialect)
    try:
        analyzer.visit(ast, frozenset())
        kind = value_type(ast)
    except RecursionError:
        raise CelCompileError(expression, "too deeply nested for cel-python", unsupported=True) from None
    if kind is not None:
        raise CelCompileError(expression, f"must evaluate to bool, not {kind}")
    return None if ALL in analyzer.footprint else frozenset(analyzer.footprint)
