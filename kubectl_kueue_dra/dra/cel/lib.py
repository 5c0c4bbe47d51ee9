"""The Kubernetes CEL libraries the DRA scheduler offers, as cel-python functions.

Ports (semantics and error texts) of what kube-scheduler evaluates selectors with:

* ``k8s.io/apiserver/pkg/cel/library/quantity.go`` + ``pkg/cel/quantity.go``:
  ``quantity, isQuantity, sign, isInteger, asInteger, asApproximateFloat, add, sub,
  isGreaterThan, isLessThan, compareTo``.  Quantities have ``==`` only, no ``<``.
  ``isInteger``/``asInteger`` follow apimachinery's ``AsInt64``, so
  ``quantity("1000m").isInteger()`` and ``quantity("1.5Gi").isInteger()`` are false
  in Kubernetes and here.
* ``library/semverlib.go`` + ``pkg/cel/semver.go`` (blang/semver v4 parsing):
  ``semver(s[, normalize]), isSemver(s[, normalize]), major, minor, patch`` and the
  same comparison methods.  ``==`` only between two Semvers.
* cel-go ``ext.Strings`` v2: ``charAt, indexOf, lastIndexOf, lowerAscii, upperAscii,
  replace, split, substring, trim, join`` (code-point indexes, Go's ``TrimSpace``).
* ``library/lists.go``: ``isSorted, sum, min, max, indexOf, lastIndexOf``; cel-go
  ``ext.Lists`` v3 ``slice, flatten, sort, reverse, distinct``; ``library/regex.go``
  ``find, findAll``; DRA's ``includes`` (list-type attributes).
* cel-go runtime equality and ordering: heterogeneous ``==``/``!=`` (``1 == 1.0`` is
  true, ``'a' == 1`` is false, ``quantity('1') == 1`` is an error), numeric ``<``
  across int/uint/double, and ``&&``/``||`` that keep the first error instead of
  cel-python's "no matching overload" when both sides fail.

Every function returns a value or a ``CELEvalError``; none raises, so cel-python's
``&&``/``||`` can absorb errors as CEL requires. The value types and cel-go's runtime semantics are
in ``values``, the string, list and regex functions in ``text``; this module has the
quantity and semver libraries and the table of everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celpy import celtypes

from ..quantity import DECIMAL_EXPONENT, Quantity, QuantityError, parse_quantity
from .format import FORMAT_FUNCTIONS
from .optional import OPTIONAL_FUNCTIONS
from .text import TEXT_FUNCTIONS
from .values import (
    NO_OVERLOAD,
    CelQuantity,
    Semver,
    SemverError,
    cel_equal,
    cel_error,
    contains,
    logical_and,
    logical_or,
    make_cmp,
    not_equal,
)

__all__ = ["FUNCTIONS", "CelQuantity", "Semver", "SemverError", "cel_equal"]

_FALSE = celtypes.BoolType(False)

# -- quantity library ---------------------------------------------------------------------


def _quantity(s: Any) -> Any:
    if not isinstance(s, str):
        return cel_error(NO_OVERLOAD)
    try:
        return CelQuantity(parse_quantity(str(s)))
    except QuantityError as e:
        return cel_error(str(e))


def _is_quantity(s: Any) -> Any:
    if not isinstance(s, str):
        return cel_error(NO_OVERLOAD)
    try:
        parse_quantity(str(s))
    except QuantityError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _q(v: Any) -> Quantity | None:
    return v.q if isinstance(v, CelQuantity) else None


def _sign(v: Any) -> Any:
    q = _q(v)
    return cel_error(NO_OVERLOAD) if q is None else celtypes.IntType(q.sign())


def _is_integer(v: Any) -> Any:
    q = _q(v)
    return cel_error(NO_OVERLOAD) if q is None else celtypes.BoolType(q.go_as_int64() is not None)


def _as_integer(v: Any) -> Any:
    q = _q(v)
    if q is None:
        return cel_error(NO_OVERLOAD)
    i = q.go_as_int64()
    return cel_error("cannot convert value to integer") if i is None else celtypes.IntType(i)


def _as_approximate_float(v: Any) -> Any:
    q = _q(v)
    return cel_error(NO_OVERLOAD) if q is None else celtypes.DoubleType(q.approximate_float())


def _operand(v: Any) -> Quantity | None:
    if isinstance(v, CelQuantity):
        return v.q
    if isinstance(v, celtypes.IntType) and not isinstance(v, celtypes.BoolType):
        return Quantity.from_int(int(v), DECIMAL_EXPONENT)
    return None


def _add(a: Any, b: Any) -> Any:
    qa, qb = _q(a), _operand(b)
    return cel_error(NO_OVERLOAD) if qa is None or qb is None else CelQuantity(qa + qb)


def _sub(a: Any, b: Any) -> Any:
    qa, qb = _q(a), _operand(b)
    return cel_error(NO_OVERLOAD) if qa is None or qb is None else CelQuantity(qa - qb)


def _compare(a: Any, b: Any) -> int | None:
    if isinstance(a, CelQuantity) and isinstance(b, CelQuantity):
        return a.q.cmp(b.q)
    if isinstance(a, Semver) and isinstance(b, Semver):
        return a.compare(b)
    return None


def _is_greater_than(a: Any, b: Any) -> Any:
    c = _compare(a, b)
    return cel_error(NO_OVERLOAD) if c is None else celtypes.BoolType(c == 1)


def _is_less_than(a: Any, b: Any) -> Any:
    c = _compare(a, b)
    return cel_error(NO_OVERLOAD) if c is None else celtypes.BoolType(c == -1)


def _compare_to(a: Any, b: Any) -> Any:
    c = _compare(a, b)
    return cel_error(NO_OVERLOAD) if c is None else celtypes.IntType(c)


# -- semver library -----------------------------------------------------------------------


def _semver(s: Any, normalize: Any = _FALSE) -> Any:
    if not isinstance(s, str) or not isinstance(normalize, celtypes.BoolType):
        return cel_error(NO_OVERLOAD)
    try:
        return Semver.parse_normalized(str(s)) if normalize else Semver.parse(str(s))
    except SemverError as e:
        return cel_error(str(e))


def _is_semver(s: Any, normalize: Any = _FALSE) -> Any:
    r = _semver(s, normalize)
    if isinstance(r, Semver):
        return celtypes.BoolType(True)
    return r if r.args[0] == NO_OVERLOAD else celtypes.BoolType(False)


def _major(v: Any) -> Any:
    return celtypes.IntType(v.major) if isinstance(v, Semver) else cel_error(NO_OVERLOAD)


def _minor(v: Any) -> Any:
    return celtypes.IntType(v.minor) if isinstance(v, Semver) else cel_error(NO_OVERLOAD)


def _patch(v: Any) -> Any:
    return celtypes.IntType(v.patch) if isinstance(v, Semver) else cel_error(NO_OVERLOAD)



FUNCTIONS: dict[str, Callable[..., Any]] = {
    # operators with cel-go semantics
    "_==_": cel_equal,
    "_!=_": not_equal,
    "_<_": make_cmp(lambda a, b: a < b),
    "_<=_": make_cmp(lambda a, b: a <= b),
    "_>_": make_cmp(lambda a, b: a > b),
    "_>=_": make_cmp(lambda a, b: a >= b),
    "_&&_": logical_and,
    "_||_": logical_or,
    "_in_": contains,
    # Kubernetes quantity library
    "quantity": _quantity,
    "isQuantity": _is_quantity,
    "sign": _sign,
    "isInteger": _is_integer,
    "asInteger": _as_integer,
    "asApproximateFloat": _as_approximate_float,
    "add": _add,
    "sub": _sub,
    "isGreaterThan": _is_greater_than,
    "isLessThan": _is_less_than,
    "compareTo": _compare_to,
    # Kubernetes semver library
    "semver": _semver,
    "isSemver": _is_semver,
    "major": _major,
    "minor": _minor,
    "patch": _patch,
    **TEXT_FUNCTIONS,
    **FORMAT_FUNCTIONS,
    **OPTIONAL_FUNCTIONS,
}
