"""Optional field selection and indexing (cel-go ``OptionalTypes``, in Kubernetes' base CEL
environment since 1.28) on a chain of selections: ``x.?f`` and ``x[?k]``, the plain ``.f`` and
``[k]`` after them (cel-go qualifies the rest of the chain "if present" once a step is optional),
and ``orValue(d)``, ``hasValue()``, ``value()`` on the result.

cel-python has no optional syntax, so the chain is rewritten before parsing into calls of
functions of this module: ``device.attributes['d'].?model.orValue('')`` becomes
``_opt_select(device.attributes['d'], 'model').orValue('')``. What this does not cover —
``optional.of``/``optional.none``, optional list and map elements, ``or``/``optMap``/``optFlatMap``
— stays optional syntax, which this tool does not evaluate.

As in Kubernetes' DRA environment, ``device.attributes`` and ``device.capacity`` hold every domain
(an unknown one is an empty map), so ``device.attributes[?'d']`` always has a value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from celpy import celtypes

from .source import OPTIONAL_SYNTAX, blank_literals
from .values import NO_OVERLOAD, cel_error

__all__ = ["OPTIONAL_FUNCTIONS", "CelOptional", "expand_optionals"]

_IDENT = re.compile(r"[A-Za-z_]\w*")
_DEVICE_FIELDS = frozenset({"driver", "attributes", "capacity", "allowMultipleAllocations"})
_CLOSE_TO_OPEN = {")": "(", "]": "[", "}": "{"}
_OPEN_TO_CLOSE = {v: k for k, v in _CLOSE_TO_OPEN.items()}


class CelOptional:
    """cel-go's ``optional_type``: a value, or none."""

    __slots__ = ("present", "value")

    def __init__(self, present: bool, value: Any = None):
        self.present, self.value = present, value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelOptional) and (self.present, self.value) == (other.present, other.value)

    def __hash__(self) -> int:
        return hash((self.present, self.value if self.present else None))

    def __repr__(self) -> str:
        return f"optional.of({self.value!r})" if self.present else "optional.none()"


_NONE = CelOptional(False)


def _qualify(x: Any, key: Any) -> Any:
    if isinstance(x, CelOptional):
        if not x.present:
            return x
        x = x.value
    if isinstance(x, celtypes.MapType):
        if type(x) is not celtypes.MapType:  # the DRA domain maps: every domain is present
            return CelOptional(True, x[key])
        return CelOptional(True, x[key]) if key in x else _NONE
    if isinstance(x, celtypes.ListType) and isinstance(key, celtypes.IntType) and \
            not isinstance(key, celtypes.BoolType):
        return CelOptional(True, x[key]) if 0 <= key < len(x) else _NONE
    return cel_error(NO_OVERLOAD)


def _or_value(opt: Any, default: Any) -> Any:
    if not isinstance(opt, CelOptional):
        return cel_error(NO_OVERLOAD)
    return opt.value if opt.present else default


def _has_value(opt: Any) -> Any:
    if not isinstance(opt, CelOptional):
        return cel_error(NO_OVERLOAD)
    return celtypes.BoolType(opt.present)


def _value(opt: Any) -> Any:
    if not isinstance(opt, CelOptional):
        return cel_error(NO_OVERLOAD)
    return opt.value if opt.present else cel_error("optional.none() dereference")


OPTIONAL_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "_opt_select": _qualify, "_opt_index": _qualify, "orValue": _or_value, "hasValue": _has_value, "value": _value}


def _matching(blank: str, i: int) -> int | None:
    """The index of the bracket closing the one at ``i`` (None: unbalanced)."""
    close, depth = _OPEN_TO_CLOSE[blank[i]], 0
    for j in range(i, len(blank)):
        if blank[j] == blank[i]:
            depth += 1
        elif blank[j] == close:
            depth -= 1
            if depth == 0:
                return j
    return None


def _opening(blank: str, j: int) -> int | None:
    """The index of the bracket opening the one closing at ``j``."""
    open_, depth = _CLOSE_TO_OPEN[blank[j]], 0
    for i in range(j, -1, -1):
        if blank[i] == blank[j]:
            depth += 1
        elif blank[i] == open_:
            depth -= 1
            if depth == 0:
                return i
    return None


def _operand_start(blank: str, p: int) -> int | None:
    """Where the selection chain ending before ``p`` starts (a primary and its member steps)."""
    i = p - 1
    while True:
        while i >= 0 and blank[i].isspace():
            i -= 1
        if i < 0:
            return None
        if blank[i] in _CLOSE_TO_OPEN:
            start = _opening(blank, i)
            if start is None:
                return None
            i = start - 1
            k = i
            while k >= 0 and blank[k].isspace():
                k -= 1
            if k >= 0 and (blank[k].isalnum() or blank[k] == "_" or blank[k] in ")]"):
                i = k  # a call or an index: its target is part of the chain
                continue
            return start
        if blank[i].isalnum() or blank[i] == "_":
            while i >= 0 and (blank[i].isalnum() or blank[i] == "_"):
                i -= 1
            start = i + 1
            k = i
            while k >= 0 and blank[k].isspace():
                k -= 1
            if k >= 0 and blank[k] == ".":
                i = k - 1
                continue
            return start
        return None


def _rewrite_one(expr: str, blank: str, p: int) -> str | None:
    """The expression with the chain whose first optional step is at ``p`` rewritten."""
    start = _operand_start(blank, p)
    if start is None or not expr[start:p].strip():
        return None  # an optional list or map element, or nothing to select from
    acc = expr[start:p].strip()
    i, optional_seen = p, False
    while i < len(blank):
        j = i
        while j < len(blank) and blank[j].isspace():
            j += 1
        if j >= len(blank):
            break
        if blank[j] == ".":
            k = j + 1
            while k < len(blank) and blank[k].isspace():
                k += 1
            opt = k < len(blank) and blank[k] == "?"
            if opt:
                k += 1
                while k < len(blank) and blank[k].isspace():
                    k += 1
            m = _IDENT.match(blank, k)
            if m is None:
                return None
            after = m.end()
            while after < len(blank) and blank[after].isspace():
                after += 1
            if after < len(blank) and blank[after] == "(":
                if opt:
                    return None
                break  # a method call ends the chain: orValue(), hasValue(), value(), …
            if not opt and not optional_seen:
                break
            if acc == "device" and m.group() not in _DEVICE_FIELDS:
                return None  # Kubernetes rejects the field; leave it to the checks
            acc = f"_opt_select({acc}, '{m.group()}')"
            optional_seen = True
            i = m.end()
        elif blank[j] == "[":
            close = _matching(blank, j)
            if close is None:
                return None
            k = j + 1
            while k < close and blank[k].isspace():
                k += 1
            opt = blank[k] == "?"
            inner = expr[k + 1 if opt else j + 1:close]
            if not opt and not optional_seen:
                break
            acc = f"_opt_index({acc}, {inner.strip()})"
            optional_seen = True
            i = close + 1
        else:
            break
    return expr[:start] + acc + expr[i:]


def expand_optionals(expr: str) -> str:
    """The expression with every optional selection chain this module evaluates rewritten; what
    it leaves keeps its optional syntax."""
    for _ in range(64):
        blank = blank_literals(expr)
        found = OPTIONAL_SYNTAX.search(blank)
        while found is not None:
            rewritten = _rewrite_one(expr, blank, found.start())
            if rewritten is not None:
                expr = rewritten
                break
            found = OPTIONAL_SYNTAX.search(blank, found.end())
        else:
            return expr
    return expr
