"""CEL value types and the cel-go runtime semantics the DRA libraries build on.

* Kubernetes ``Quantity`` values (``k8s.io/apiserver/pkg/cel``; ``Semver``, blang/semver v4
  parsing, is ``semver``'s), ``==`` only between two of a kind;
* cel-go runtime equality and ordering: heterogeneous ``==``/``!=`` (``1 == 1.0`` is true,
  ``'a' == 1`` is false, ``quantity('1') == 1`` is an error), numeric ``<`` across
  int/uint/double, and ``&&``/``||`` that keep the first error instead of cel-python's
  "no matching overload" when both sides fail;
* the helpers the library functions share (errors are returned, never raised).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from ..quantity import Quantity
from .semver import Semver, SemverError

__all__ = ["CelQuantity", "Semver", "SemverError", "cel_equal"]

# -- value types --------------------------------------------------------------------------


class CelQuantity:
    """A Kubernetes Quantity as a CEL value (``kubernetes.Quantity``): equality only."""

    __slots__ = ("q",)

    def __init__(self, q: Quantity):
        self.q = q

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelQuantity) and self.q == other.q

    def __hash__(self) -> int:
        return hash(self.q)

    def __repr__(self) -> str:
        return f"quantity({str(self.q)!r})"


# -- utilities ----------------------------------------------------------------------------


def cel_error(msg: str) -> CELEvalError:
    return CELEvalError(msg)


NO_OVERLOAD = "no such overload"
NUMERIC = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)


def is_num(v: Any) -> bool:
    return isinstance(v, NUMERIC) and not isinstance(v, celtypes.BoolType)


def first_error(*args: Any) -> CELEvalError | None:
    for a in args:
        if isinstance(a, CELEvalError):
            return a
    return None


def cel_int(v: int) -> Any:
    if not -(1 << 63) <= v < (1 << 63):
        return cel_error("integer overflow")
    return celtypes.IntType(v)


# -- equality, ordering, logic --------------------------------------------------------------


def plain(v: Any) -> Any:
    """int or float without the celtypes operator overrides (which refuse mixed types)."""
    return float(v) if isinstance(v, float) else int(v)


def equal(a: Any, b: Any) -> Any:
    """cel-go ``types.Equal``: BoolType, or CELEvalError (Quantity/Semver vs other)."""
    if a is None or b is None:
        return celtypes.BoolType(a is None and b is None)
    if isinstance(a, (CelQuantity, Semver)):
        if type(a) is not type(b):
            return cel_error(NO_OVERLOAD)
        return celtypes.BoolType(a == b)
    if is_num(a):
        # Python compares int with float exactly, as cel-go does; NaN equals nothing.
        return celtypes.BoolType(is_num(b) and plain(a) == plain(b))
    if isinstance(a, celtypes.BoolType):
        return celtypes.BoolType(isinstance(b, celtypes.BoolType) and int(a) == int(b))
    if isinstance(a, str):
        return celtypes.BoolType(isinstance(b, str) and str.__eq__(a, b))
    if isinstance(a, bytes):
        return celtypes.BoolType(isinstance(b, bytes) and bytes.__eq__(a, b))
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return celtypes.BoolType(False)
        for x, y in zip(a, b):
            r = equal(x, y)
            if isinstance(r, celtypes.BoolType) and not r:  # errors do not decide, as in cel-go
                return celtypes.BoolType(False)
        return celtypes.BoolType(True)
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return celtypes.BoolType(False)
        for k, v in a.items():
            other = _lookup(b, k)
            if other is _MISSING:
                return celtypes.BoolType(False)
            r = equal(v, other)
            if isinstance(r, celtypes.BoolType) and not r:
                return celtypes.BoolType(False)
        return celtypes.BoolType(True)
    if type(a) is type(b):
        return celtypes.BoolType(a == b)
    return celtypes.BoolType(False)


_MISSING = object()


def _lookup(m: dict[Any, Any], key: Any) -> Any:
    if type(key) is celtypes.StringType or type(key) is str:
        return dict.get(m, key, _MISSING)
    for k, v in m.items():
        r = equal(k, key)
        if isinstance(r, celtypes.BoolType) and r:
            return v
    return _MISSING


def cel_equal(a: Any, b: Any) -> Any:
    err = first_error(a, b)
    return err if err is not None else equal(a, b)


def not_equal(a: Any, b: Any) -> Any:
    r = cel_equal(a, b)
    return r if isinstance(r, CELEvalError) else celtypes.BoolType(not r)


_ORDERED_TYPES = (
    celtypes.BoolType, celtypes.StringType, celtypes.BytesType, celtypes.TimestampType, celtypes.DurationType
)


def ordered(a: Any, b: Any) -> Any:
    """Python-comparable plain values for a CEL ordering, or CELEvalError."""
    err = first_error(a, b)
    if err is not None:
        return err
    if is_num(a) and is_num(b):
        return plain(a), plain(b)
    for t in _ORDERED_TYPES:
        if isinstance(a, t) and isinstance(b, t):
            return a, b
    return cel_error(NO_OVERLOAD)


def make_cmp(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    def cmp(a: Any, b: Any) -> Any:
        r = ordered(a, b)
        if isinstance(r, CELEvalError):
            return r
        return celtypes.BoolType(op(r[0], r[1]))

    return cmp


def logical_and(x: Any, y: Any) -> Any:
    if (isinstance(x, celtypes.BoolType) and not x) or (isinstance(y, celtypes.BoolType) and not y):
        return celtypes.BoolType(False)
    if isinstance(x, celtypes.BoolType) and isinstance(y, celtypes.BoolType):
        return celtypes.BoolType(True)
    return first_error(x, y) or cel_error(NO_OVERLOAD)


def logical_or(x: Any, y: Any) -> Any:
    if (isinstance(x, celtypes.BoolType) and x) or (isinstance(y, celtypes.BoolType) and y):
        return celtypes.BoolType(True)
    if isinstance(x, celtypes.BoolType) and isinstance(y, celtypes.BoolType):
        return celtypes.BoolType(False)
    return first_error(x, y) or cel_error(NO_OVERLOAD)


def contains(item: Any, container: Any) -> Any:
    err = first_error(item, container)
    if err is not None:
        return err
    if isinstance(container, dict):
        return celtypes.BoolType(_lookup(container, item) is not _MISSING)
    if isinstance(container, list):
        for x in container:
            r = equal(item, x)
            if isinstance(r, celtypes.BoolType) and r:
                return celtypes.BoolType(True)
        return celtypes.BoolType(False)
    return cel_error(NO_OVERLOAD)
