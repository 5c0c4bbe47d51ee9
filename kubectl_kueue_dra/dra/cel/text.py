"""The string, list and regex functions of the DRA CEL environment, as cel-python functions:
cel-go ``ext.Strings`` v2 (code-point indexes, Go's ``TrimSpace``), Kubernetes ``library/lists.go``
and cel-go ``ext.Lists`` v3, DRA's ``includes``, Kubernetes ``library/regex.go`` (RE2).

Every function returns a value or a ``CELEvalError``; none raises.
"""

from __future__ import annotations

import itertools
from typing import Any

import re2
from celpy import celtypes
from celpy.evaluation import CELEvalError

from .values import (
    NO_OVERLOAD,
    CelQuantity,
    Semver,
    cel_equal,
    cel_error,
    contains,
    equal,
    is_num,
    ordered,
    plain,
)

__all__ = ["TEXT_FUNCTIONS"]

# argument defaults
_EMPTY_STRING, _ONE, _ALL = celtypes.StringType(""), celtypes.IntType(1), celtypes.IntType(-1)

# -- strings (cel-go ext.Strings v2) ---------------------------------------------------------

# unicode.IsSpace, which strings.TrimSpace uses
_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_LOWER = {i: i + 32 for i in range(ord("A"), ord("Z") + 1)}
_UPPER = {i + 32: i for i in range(ord("A"), ord("Z") + 1)}


def _s(v: Any) -> bool:
    return isinstance(v, str)


def _i(v: Any) -> bool:
    return isinstance(v, celtypes.IntType) and not isinstance(v, celtypes.BoolType)


def _char_at(s: Any, i: Any) -> Any:
    if not (_s(s) and _i(i)):
        return cel_error(NO_OVERLOAD)
    if i < 0 or i > len(s):
        return cel_error(f"index out of range: {int(i)}")
    return celtypes.StringType(s[i] if i < len(s) else "")


def _string_index_of(s: str, sub: str, offset: int | None) -> Any:
    off = 0 if offset is None else offset
    if sub == "":
        return celtypes.IntType(off)
    if off < 0:
        return cel_error(f"index out of range: {off}")
    if off >= len(s):
        return celtypes.IntType(-1)
    return celtypes.IntType(s.find(sub, off))


def _string_last_index_of(s: str, sub: str, offset: int | None) -> Any:
    if offset is None:
        if sub == "":
            return celtypes.IntType(len(s))
        if len(s.encode()) < len(sub.encode()):
            return celtypes.IntType(-1)
        offset = len(s) - 1
    if sub == "":
        return celtypes.IntType(offset)
    if offset < 0:
        return cel_error(f"index out of range: {offset}")
    if offset >= len(s):
        return celtypes.IntType(-1)
    return celtypes.IntType(s.rfind(sub, 0, min(offset, len(s) - len(sub)) + len(sub)))


def _list_index_of(lst: list[Any], item: Any, last: bool) -> Any:
    rng = range(len(lst) - 1, -1, -1) if last else range(len(lst))
    for i in rng:
        r = equal(lst[i], item)
        if isinstance(r, celtypes.BoolType) and r:
            return celtypes.IntType(i)
    return celtypes.IntType(-1)


def _index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, list) and offset is None:
        return _list_index_of(target, item, last=False)
    if _s(target) and _s(item) and (offset is None or _i(offset)):
        return _string_index_of(str(target), str(item), None if offset is None else int(offset))
    return cel_error(NO_OVERLOAD)


def _last_index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, list) and offset is None:
        return _list_index_of(target, item, last=True)
    if _s(target) and _s(item) and (offset is None or _i(offset)):
        return _string_last_index_of(str(target), str(item), None if offset is None else int(offset))
    return cel_error(NO_OVERLOAD)


def _lower_ascii(s: Any) -> Any:
    return celtypes.StringType(str(s).translate(_LOWER)) if _s(s) else cel_error(NO_OVERLOAD)


def _upper_ascii(s: Any) -> Any:
    return celtypes.StringType(str(s).translate(_UPPER)) if _s(s) else cel_error(NO_OVERLOAD)


def _replace(s: Any, old: Any, new: Any, n: Any = None) -> Any:
    if not (_s(s) and _s(old) and _s(new) and (n is None or _i(n))):
        return cel_error(NO_OVERLOAD)
    count = -1 if n is None or n < 0 else int(n)
    return celtypes.StringType(str(s).replace(str(old), str(new), count))


def _go_split(s: str, sep: str, n: int) -> list[Any]:
    """strings.SplitN."""
    if n == 0:
        return []
    if sep == "":
        chars = list(s)
        if n > 0 and len(chars) > n:
            chars = chars[: n - 1] + ["".join(chars[n - 1 :])]
        return chars
    return s.split(sep, n - 1 if n > 0 else -1)


def _split(s: Any, sep: Any, n: Any = None) -> Any:
    if not (_s(s) and _s(sep) and (n is None or _i(n))):
        return cel_error(NO_OVERLOAD)
    parts = _go_split(str(s), str(sep), -1 if n is None else int(n))
    return celtypes.ListType([celtypes.StringType(p) for p in parts])


def _substring(s: Any, start: Any, end: Any = None) -> Any:
    if not (_s(s) and _i(start) and (end is None or _i(end))):
        return cel_error(NO_OVERLOAD)
    n = len(s)
    if end is None:
        if start < 0 or start > n:
            return cel_error(f"index out of range: {int(start)}")
        return celtypes.StringType(s[start:])
    if start > end:
        return cel_error(f"invalid substring range. start: {int(start)}, end: {int(end)}")
    if start < 0 or start > n:
        return cel_error(f"index out of range: {int(start)}")
    if end < 0 or end > n:
        return cel_error(f"index out of range: {int(end)}")
    return celtypes.StringType(s[start:end])


def _trim(s: Any) -> Any:
    return celtypes.StringType(str(s).strip(_GO_SPACE)) if _s(s) else cel_error(NO_OVERLOAD)


def _join(lst: Any, sep: Any = _EMPTY_STRING) -> Any:
    if not isinstance(lst, list) or not _s(sep) or not all(_s(x) for x in lst):
        return cel_error(NO_OVERLOAD)
    return celtypes.StringType(str(sep).join(str(x) for x in lst))


# -- lists --------------------------------------------------------------------------------


def _comparable(lst: Any) -> Any:
    """Check a list for lists-library ordering; returns an error or None."""
    if not isinstance(lst, list):
        return cel_error(NO_OVERLOAD)
    for x in lst:
        if isinstance(x, (CelQuantity, Semver, list, dict)) or x is None:
            return cel_error(NO_OVERLOAD)
    return None


def _cmp(a: Any, b: Any) -> Any:
    r = ordered(a, b)
    if isinstance(r, CELEvalError):
        return r
    return (r[0] > r[1]) - (r[0] < r[1])


def _is_sorted(lst: Any) -> Any:
    err = _comparable(lst)
    if err is not None:
        return err
    for a, b in itertools.pairwise(lst):
        c = _cmp(a, b)
        if isinstance(c, CELEvalError):
            return c
        if c == 1:
            return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _sum(lst: Any) -> Any:
    if not isinstance(lst, list):
        return cel_error(NO_OVERLOAD)
    if not lst:
        return celtypes.IntType(0)
    acc = lst[0]
    for x in lst[1:]:
        if type(x) is not type(acc) or isinstance(x, (celtypes.BoolType, CelQuantity, Semver)) or x is None:
            return cel_error(NO_OVERLOAD)
        try:
            acc = acc + x
        except (TypeError, ValueError) as e:
            return cel_error(str(e) or NO_OVERLOAD)
    return acc


def _extreme(lst: Any, name: str, prefer: int) -> Any:
    err = _comparable(lst)
    if err is not None:
        return err
    if not lst:
        return cel_error(f"{name} called on empty list")
    result = lst[0]
    for x in lst[1:]:
        c = _cmp(result, x)
        if isinstance(c, CELEvalError):
            return c
        if c == prefer:
            result = x
    return result


def _min(lst: Any) -> Any:
    return _extreme(lst, "min", 1)


def _max(lst: Any) -> Any:
    return _extreme(lst, "max", -1)


def _slice(lst: Any, start: Any, end: Any) -> Any:
    if not (isinstance(lst, list) and _i(start) and _i(end)):
        return cel_error(NO_OVERLOAD)
    if start < 0 or end < 0:
        return cel_error(f"cannot slice(start={int(start)}, end={int(end)}), negative indexes not supported")
    if start > end:
        return cel_error(
            f"cannot slice(start={int(start)}, end={int(end)}), start index must be less than or equal to end index"
        )
    if end > len(lst):
        return cel_error(f"cannot slice(start={int(start)}, end={int(end)}), list is length {len(lst)}")
    return celtypes.ListType(lst[start:end])


def _flatten(lst: Any, depth: Any = _ONE) -> Any:
    if not (isinstance(lst, list) and _i(depth)):
        return cel_error(NO_OVERLOAD)
    if depth < 0:
        return cel_error("level must be non-negative")

    def flat(items: list[Any], d: int) -> list[Any]:
        out: list[Any] = []
        for x in items:
            if isinstance(x, list) and d > 0:
                out.extend(flat(x, d - 1))
            else:
                out.append(x)
        return out

    return celtypes.ListType(flat(lst, int(depth)))


def _sort(lst: Any) -> Any:
    err = _comparable(lst)
    if err is not None:
        return err
    if lst and any(type(x) is not type(lst[0]) for x in lst):
        return cel_error("list elements must have the same type")
    return celtypes.ListType(sorted(lst, key=plain if is_num(lst[0]) else None) if lst else [])


def _reverse(lst: Any) -> Any:
    return celtypes.ListType(reversed(lst)) if isinstance(lst, list) else cel_error(NO_OVERLOAD)


def _distinct(lst: Any) -> Any:
    if not isinstance(lst, list):
        return cel_error(NO_OVERLOAD)
    out: list[Any] = []
    for x in lst:
        if not any(isinstance(r, celtypes.BoolType) and r for r in (equal(x, y) for y in out)):
            out.append(x)
    return celtypes.ListType(out)


def _includes(target: Any, arg: Any) -> Any:
    if isinstance(target, list):
        if len(target) > 64:  # ResourceSliceMaxAttributeValuesPerDevice
            return cel_error("'includes' function cannot be applied to lists longer than 64 values")
        return contains(arg, target)
    r = cel_equal(target, arg)
    return celtypes.BoolType(isinstance(r, celtypes.BoolType) and bool(r))


# -- regex (Kubernetes library) -------------------------------------------------------------


def _find(s: Any, pattern: Any) -> Any:
    if not (_s(s) and _s(pattern)):
        return cel_error(NO_OVERLOAD)
    try:
        m = re2.search(str(pattern), str(s))
    except re2.error as e:
        return cel_error(f"invalid regex: {e}")
    return celtypes.StringType(m.group(0) if m else "")


def _find_all(s: Any, pattern: Any, limit: Any = _ALL) -> Any:
    if not (_s(s) and _s(pattern) and _i(limit)):
        return cel_error(NO_OVERLOAD)
    try:
        found = [m.group(0) for m in re2.finditer(str(pattern), str(s))]
    except re2.error as e:
        return cel_error(f"invalid regex: {e}")
    if limit >= 0:
        found = found[: int(limit)]
    return celtypes.ListType([celtypes.StringType(x) for x in found])


TEXT_FUNCTIONS: dict[str, Any] = {
    # cel-go ext.Strings v2
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": _lower_ascii,
    "upperAscii": _upper_ascii,
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": _trim,
    "join": _join,
    # Kubernetes lists library + cel-go ext.Lists v3 + DRA includes
    "isSorted": _is_sorted,
    "sum": _sum,
    "min": _min,
    "max": _max,
    "slice": _slice,
    "flatten": _flatten,
    "sort": _sort,
    "reverse": _reverse,
    "distinct": _distinct,
    "includes": _includes,
    # Kubernetes regex library
    "find": _find,
    "findAll": _find_all,
}
