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
``&&``/``||`` can absorb errors as CEL requires.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import re2
from celpy import celtypes
from celpy.evaluation import CELEvalError

from .quantity import DECIMAL_EXPONENT, Quantity, QuantityError, parse_quantity

__all__ = ["CelQuantity", "Semver", "SemverError", "FUNCTIONS", "cel_equal"]


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


class SemverError(ValueError):
    pass


_NUMBERS = frozenset("0123456789")
_ALPHANUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")
_UINT64_MAX = (1 << 64) - 1


def _parse_uint(s: str) -> int:
    if not s or not set(s) <= _NUMBERS:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": invalid syntax')
    v = int(s)
    if v > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{s}": value out of range')
    return v


class Semver:
    """A semantic version (``kubernetes.Semver``), parsed exactly like blang/semver v4."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple = (), build: tuple = ()):
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    @classmethod
    def parse(cls, s: str) -> "Semver":
        if not s:
            raise SemverError("Version string empty")
        parts = s.split(".", 2)
        if len(parts) != 3:
            raise SemverError("No Major.Minor.Patch elements found")
        nums = []
        for label, p in (("major", parts[0]), ("minor", parts[1])):
            if not set(p) <= _NUMBERS:
                raise SemverError(f"Invalid character(s) found in {label} number {p!r}")
            if len(p) > 1 and p[0] == "0":
                raise SemverError(f"{label.capitalize()} number must not contain leading zeroes {p!r}")
            nums.append(_parse_uint(p))
        patch_str, build, pre = parts[2], [], []
        if "+" in patch_str:
            patch_str, _, b = patch_str.partition("+")
            build = b.split(".")
        if "-" in patch_str:
            patch_str, _, p = patch_str.partition("-")
            pre = p.split(".")
        if not set(patch_str) <= _NUMBERS:
            raise SemverError(f"Invalid character(s) found in patch number {patch_str!r}")
        if len(patch_str) > 1 and patch_str[0] == "0":
            raise SemverError(f"Patch number must not contain leading zeroes {patch_str!r}")
        patch = _parse_uint(patch_str)
        pre_parsed = []
        for p in pre:
            if not p:
                raise SemverError("Prerelease is empty")
            if set(p) <= _NUMBERS:
                if len(p) > 1 and p[0] == "0":
                    raise SemverError(f"Numeric PreRelease version must not contain leading zeroes {p!r}")
                pre_parsed.append((True, _parse_uint(p), ""))
            elif set(p) <= _ALPHANUM:
                pre_parsed.append((False, 0, p))
            else:
                raise SemverError(f"Invalid character(s) found in prerelease {p!r}")
        for b in build:
            if not b:
                raise SemverError("Build meta data is empty")
            if not set(b) <= _ALPHANUM:
                raise SemverError(f"Invalid character(s) found in build meta data {b!r}")
        return cls(nums[0], nums[1], patch, tuple(pre_parsed), tuple(build))

    @classmethod
    def parse_normalized(cls, s: str) -> "Semver":
        """The ``normalize=true`` form: ``v`` prefix, leading zeros, short versions."""
        if s.startswith("v"):
            s = s[1:]
        parts = s.split(".", 2)
        for i, p in enumerate(parts):
            if len(p) > 1:
                p = p.lstrip("0")
                if not p or p[0] not in _NUMBERS:
                    p = "0" + p
                parts[i] = p
        if len(parts) < 3:
            if "+" in parts[-1] or "-" in parts[-1]:
                raise SemverError("short version cannot contain PreRelease/Build meta data")
            parts += ["0"] * (3 - len(parts))
        return cls.parse(".".join(parts))

    def compare(self, o: "Semver") -> int:
        a, b = (self.major, self.minor, self.patch), (o.major, o.minor, o.patch)
        if a != b:
            return 1 if a > b else -1
        if not self.pre or not o.pre:
            return (not self.pre) - (not o.pre)
        for (an, av, astr), (bn, bv, bstr) in zip(self.pre, o.pre):
            if an != bn:
                return -1 if an else 1  # numeric identifiers sort first
            x, y = (av, bv) if an else (astr, bstr)
            if x != y:
                return 1 if x > y else -1
        return (len(self.pre) > len(o.pre)) - (len(self.pre) < len(o.pre))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(v) if n else t for n, v, t in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s

    def __repr__(self) -> str:
        return f"semver({str(self)!r})"


# -- utilities ----------------------------------------------------------------------------


def _err(msg: str) -> CELEvalError:
    return CELEvalError(msg)


_NO_OVERLOAD = "no such overload"
_NUMERIC = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)


def _is_num(v: Any) -> bool:
    return isinstance(v, _NUMERIC) and not isinstance(v, celtypes.BoolType)


def _first_error(*args: Any) -> Optional[CELEvalError]:
    for a in args:
        if isinstance(a, CELEvalError):
            return a
    return None


def _int(v: int) -> Any:
    if not -(1 << 63) <= v < (1 << 63):
        return _err("integer overflow")
    return celtypes.IntType(v)


# -- equality, ordering, logic --------------------------------------------------------------


def _plain(v: Any) -> Any:
    """int or float without the celtypes operator overrides (which refuse mixed types)."""
    return float(v) if isinstance(v, float) else int(v)


def _equal(a: Any, b: Any) -> Any:
    """cel-go ``types.Equal``: BoolType, or CELEvalError (Quantity/Semver vs other)."""
    if a is None or b is None:
        return celtypes.BoolType(a is None and b is None)
    if isinstance(a, (CelQuantity, Semver)):
        if type(a) is not type(b):
            return _err(_NO_OVERLOAD)
        return celtypes.BoolType(a == b)
    if _is_num(a):
        # Python compares int with float exactly, as cel-go does; NaN equals nothing.
        return celtypes.BoolType(_is_num(b) and _plain(a) == _plain(b))
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
            r = _equal(x, y)
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
            r = _equal(v, other)
            if isinstance(r, celtypes.BoolType) and not r:
                return celtypes.BoolType(False)
        return celtypes.BoolType(True)
    if type(a) is type(b):
        return celtypes.BoolType(a == b)
    return celtypes.BoolType(False)


_MISSING = object()


def _lookup(m: dict, key: Any) -> Any:
    if type(key) is celtypes.StringType or type(key) is str:
        return dict.get(m, key, _MISSING)
    for k, v in m.items():
        r = _equal(k, key)
        if isinstance(r, celtypes.BoolType) and r:
            return v
    return _MISSING


def cel_equal(a: Any, b: Any) -> Any:
    err = _first_error(a, b)
    return err if err is not None else _equal(a, b)


def _not_equal(a: Any, b: Any) -> Any:
    r = cel_equal(a, b)
    return r if isinstance(r, CELEvalError) else celtypes.BoolType(not r)


_ORDERED_TYPES = (
    celtypes.BoolType, celtypes.StringType, celtypes.BytesType, celtypes.TimestampType, celtypes.DurationType
)


def _ordered(a: Any, b: Any) -> Any:
    """Python-comparable plain values for a CEL ordering, or CELEvalError."""
    err = _first_error(a, b)
    if err is not None:
        return err
    if _is_num(a) and _is_num(b):
        return _plain(a), _plain(b)
    for t in _ORDERED_TYPES:
        if isinstance(a, t) and isinstance(b, t):
            return a, b
    return _err(_NO_OVERLOAD)


def _make_cmp(op: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
    def cmp(a: Any, b: Any) -> Any:
        r = _ordered(a, b)
        if isinstance(r, CELEvalError):
            return r
        return celtypes.BoolType(op(r[0], r[1]))

    return cmp


def _logical_and(x: Any, y: Any) -> Any:
    if (isinstance(x, celtypes.BoolType) and not x) or (isinstance(y, celtypes.BoolType) and not y):
        return celtypes.BoolType(False)
    if isinstance(x, celtypes.BoolType) and isinstance(y, celtypes.BoolType):
        return celtypes.BoolType(True)
    return _first_error(x, y) or _err(_NO_OVERLOAD)


def _logical_or(x: Any, y: Any) -> Any:
    if (isinstance(x, celtypes.BoolType) and x) or (isinstance(y, celtypes.BoolType) and y):
        return celtypes.BoolType(True)
    if isinstance(x, celtypes.BoolType) and isinstance(y, celtypes.BoolType):
        return celtypes.BoolType(False)
    return _first_error(x, y) or _err(_NO_OVERLOAD)


def _in(item: Any, container: Any) -> Any:
    err = _first_error(item, container)
    if err is not None:
        return err
    if isinstance(container, dict):
        return celtypes.BoolType(_lookup(container, item) is not _MISSING)
    if isinstance(container, list):
        for x in container:
            r = _equal(item, x)
            if isinstance(r, celtypes.BoolType) and r:
                return celtypes.BoolType(True)
        return celtypes.BoolType(False)
    return _err(_NO_OVERLOAD)


# -- quantity library ---------------------------------------------------------------------


def _quantity(s: Any) -> Any:
    if not isinstance(s, str):
        return _err(_NO_OVERLOAD)
    try:
        return CelQuantity(parse_quantity(str(s)))
    except QuantityError as e:
        return _err(str(e))


def _is_quantity(s: Any) -> Any:
    if not isinstance(s, str):
        return _err(_NO_OVERLOAD)
    try:
        parse_quantity(str(s))
    except QuantityError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _q(v: Any) -> Optional[Quantity]:
    return v.q if isinstance(v, CelQuantity) else None


def _sign(v: Any) -> Any:
    q = _q(v)
    return _err(_NO_OVERLOAD) if q is None else celtypes.IntType(q.sign())


def _is_integer(v: Any) -> Any:
    q = _q(v)
    return _err(_NO_OVERLOAD) if q is None else celtypes.BoolType(q.go_as_int64() is not None)


def _as_integer(v: Any) -> Any:
    q = _q(v)
    if q is None:
        return _err(_NO_OVERLOAD)
    i = q.go_as_int64()
    return _err("cannot convert value to integer") if i is None else celtypes.IntType(i)


def _as_approximate_float(v: Any) -> Any:
    q = _q(v)
    return _err(_NO_OVERLOAD) if q is None else celtypes.DoubleType(q.approximate_float())


def _operand(v: Any) -> Optional[Quantity]:
    if isinstance(v, CelQuantity):
        return v.q
    if isinstance(v, celtypes.IntType) and not isinstance(v, celtypes.BoolType):
        return Quantity.from_int(int(v), DECIMAL_EXPONENT)
    return None


def _add(a: Any, b: Any) -> Any:
    qa, qb = _q(a), _operand(b)
    return _err(_NO_OVERLOAD) if qa is None or qb is None else CelQuantity(qa + qb)


def _sub(a: Any, b: Any) -> Any:
    qa, qb = _q(a), _operand(b)
    return _err(_NO_OVERLOAD) if qa is None or qb is None else CelQuantity(qa - qb)


def _compare(a: Any, b: Any) -> Optional[int]:
    if isinstance(a, CelQuantity) and isinstance(b, CelQuantity):
        return a.q.cmp(b.q)
    if isinstance(a, Semver) and isinstance(b, Semver):
        return a.compare(b)
    return None


def _is_greater_than(a: Any, b: Any) -> Any:
    c = _compare(a, b)
    return _err(_NO_OVERLOAD) if c is None else celtypes.BoolType(c == 1)


def _is_less_than(a: Any, b: Any) -> Any:
    c = _compare(a, b)
    return _err(_NO_OVERLOAD) if c is None else celtypes.BoolType(c == -1)


def _compare_to(a: Any, b: Any) -> Any:
    c = _compare(a, b)
    return _err(_NO_OVERLOAD) if c is None else celtypes.IntType(c)


# -- semver library -----------------------------------------------------------------------


def _semver(s: Any, normalize: Any = celtypes.BoolType(False)) -> Any:
    if not isinstance(s, str) or not isinstance(normalize, celtypes.BoolType):
        return _err(_NO_OVERLOAD)
    try:
        return Semver.parse_normalized(str(s)) if normalize else Semver.parse(str(s))
    except SemverError as e:
        return _err(str(e))


def _is_semver(s: Any, normalize: Any = celtypes.BoolType(False)) -> Any:
    r = _semver(s, normalize)
    if isinstance(r, Semver):
        return celtypes.BoolType(True)
    return r if r.args[0] == _NO_OVERLOAD else celtypes.BoolType(False)


def _major(v: Any) -> Any:
    return celtypes.IntType(v.major) if isinstance(v, Semver) else _err(_NO_OVERLOAD)


def _minor(v: Any) -> Any:
    return celtypes.IntType(v.minor) if isinstance(v, Semver) else _err(_NO_OVERLOAD)


def _patch(v: Any) -> Any:
    return celtypes.IntType(v.patch) if isinstance(v, Semver) else _err(_NO_OVERLOAD)


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
        return _err(_NO_OVERLOAD)
    if i < 0 or i > len(s):
        return _err(f"index out of range: {int(i)}")
    return celtypes.StringType(s[i] if i < len(s) else "")


def _string_index_of(s: str, sub: str, offset: Optional[int]) -> Any:
    off = 0 if offset is None else offset
    if sub == "":
        return celtypes.IntType(off)
    if off < 0:
        return _err(f"index out of range: {off}")
    if off >= len(s):
        return celtypes.IntType(-1)
    return celtypes.IntType(s.find(sub, off))


def _string_last_index_of(s: str, sub: str, offset: Optional[int]) -> Any:
    if offset is None:
        if sub == "":
            return celtypes.IntType(len(s))
        if len(s.encode()) < len(sub.encode()):
            return celtypes.IntType(-1)
        offset = len(s) - 1
    if sub == "":
        return celtypes.IntType(offset)
    if offset < 0:
        return _err(f"index out of range: {offset}")
    if offset >= len(s):
        return celtypes.IntType(-1)
    return celtypes.IntType(s.rfind(sub, 0, min(offset, len(s) - len(sub)) + len(sub)))


def _list_index_of(lst: list, item: Any, last: bool) -> Any:
    rng = range(len(lst) - 1, -1, -1) if last else range(len(lst))
    for i in rng:
        r = _equal(lst[i], item)
        if isinstance(r, celtypes.BoolType) and r:
            return celtypes.IntType(i)
    return celtypes.IntType(-1)


def _index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, list) and offset is None:
        return _list_index_of(target, item, last=False)
    if _s(target) and _s(item) and (offset is None or _i(offset)):
        return _string_index_of(str(target), str(item), None if offset is None else int(offset))
    return _err(_NO_OVERLOAD)


def _last_index_of(target: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(target, list) and offset is None:
        return _list_index_of(target, item, last=True)
    if _s(target) and _s(item) and (offset is None or _i(offset)):
        return _string_last_index_of(str(target), str(item), None if offset is None else int(offset))
    return _err(_NO_OVERLOAD)


def _lower_ascii(s: Any) -> Any:
    return celtypes.StringType(str(s).translate(_LOWER)) if _s(s) else _err(_NO_OVERLOAD)


def _upper_ascii(s: Any) -> Any:
    return celtypes.StringType(str(s).translate(_UPPER)) if _s(s) else _err(_NO_OVERLOAD)


def _replace(s: Any, old: Any, new: Any, n: Any = None) -> Any:
    if not (_s(s) and _s(old) and _s(new) and (n is None or _i(n))):
        return _err(_NO_OVERLOAD)
    count = -1 if n is None or n < 0 else int(n)
    return celtypes.StringType(str(s).replace(str(old), str(new), count))


def _go_split(s: str, sep: str, n: int) -> list:
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
        return _err(_NO_OVERLOAD)
    parts = _go_split(str(s), str(sep), -1 if n is None else int(n))
    return celtypes.ListType([celtypes.StringType(p) for p in parts])


def _substring(s: Any, start: Any, end: Any = None) -> Any:
    if not (_s(s) and _i(start) and (end is None or _i(end))):
        return _err(_NO_OVERLOAD)
    n = len(s)
    if end is None:
        if start < 0 or start > n:
            return _err(f"index out of range: {int(start)}")
        return celtypes.StringType(s[start:])
    if start > end:
        return _err(f"invalid substring range. start: {int(start)}, end: {int(end)}")
    if start < 0 or start > n:
        return _err(f"index out of range: {int(start)}")
    if end < 0 or end > n:
        return _err(f"index out of range: {int(end)}")
    return celtypes.StringType(s[start:end])


def _trim(s: Any) -> Any:
    return celtypes.StringType(str(s).strip(_GO_SPACE)) if _s(s) else _err(_NO_OVERLOAD)


def _join(lst: Any, sep: Any = celtypes.StringType("")) -> Any:
    if not isinstance(lst, list) or not _s(sep) or not all(_s(x) for x in lst):
        return _err(_NO_OVERLOAD)
    return celtypes.StringType(str(sep).join(str(x) for x in lst))


# -- lists --------------------------------------------------------------------------------


def _comparable(lst: Any) -> Any:
    """Check a list for lists-library ordering; returns an error or None."""
    if not isinstance(lst, list):
        return _err(_NO_OVERLOAD)
    for x in lst:
        if isinstance(x, (CelQuantity, Semver, list, dict)) or x is None:
            return _err(_NO_OVERLOAD)
    return None


def _cmp(a: Any, b: Any) -> Any:
    r = _ordered(a, b)
    if isinstance(r, CELEvalError):
        return r
    return (r[0] > r[1]) - (r[0] < r[1])


def _is_sorted(lst: Any) -> Any:
    err = _comparable(lst)
    if err is not None:
        return err
    for a, b in zip(lst, lst[1:]):
        c = _cmp(a, b)
        if isinstance(c, CELEvalError):
            return c
        if c == 1:
            return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _sum(lst: Any) -> Any:
    if not isinstance(lst, list):
        return _err(_NO_OVERLOAD)
    if not lst:
        return celtypes.IntType(0)
    acc = lst[0]
    for x in lst[1:]:
        if type(x) is not type(acc) or isinstance(x, (celtypes.BoolType, CelQuantity, Semver)) or x is None:
            return _err(_NO_OVERLOAD)
        try:
            acc = acc + x
        except (TypeError, ValueError) as e:
            return _err(str(e) or _NO_OVERLOAD)
    return acc


def _extreme(lst: Any, name: str, prefer: int) -> Any:
    err = _comparable(lst)
    if err is not None:
        return err
    if not lst:
        return _err(f"{name} called on empty list")
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
        return _err(_NO_OVERLOAD)
    if start < 0 or end < 0:
        return _err(f"cannot slice(start={int(start)}, end={int(end)}), negative indexes not supported")
    if start > end:
        return _err(
            f"cannot slice(start={int(start)}, end={int(end)}), start index must be less than or equal to end index"
        )
    if end > len(lst):
        return _err(f"cannot slice(start={int(start)}, end={int(end)}), list is length {len(lst)}")
    return celtypes.ListType(lst[start:end])


def _flatten(lst: Any, depth: Any = celtypes.IntType(1)) -> Any:
    if not (isinstance(lst, list) and _i(depth)):
        return _err(_NO_OVERLOAD)
    if depth < 0:
        return _err("level must be non-negative")

    def flat(items: list, d: int) -> list:
        out: list = []
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
        return _err("list elements must have the same type")
    return celtypes.ListType(sorted(lst, key=_plain if _is_num(lst[0]) else None) if lst else [])


def _reverse(lst: Any) -> Any:
    return celtypes.ListType(reversed(lst)) if isinstance(lst, list) else _err(_NO_OVERLOAD)


def _distinct(lst: Any) -> Any:
    if not isinstance(lst, list):
        return _err(_NO_OVERLOAD)
    out: list = []
    for x in lst:
        if not any(isinstance(r, celtypes.BoolType) and r for r in (_equal(x, y) for y in out)):
            out.append(x)
    return celtypes.ListType(out)


def _includes(target: Any, arg: Any) -> Any:
    if isinstance(target, list):
        if len(target) > 64:  # ResourceSliceMaxAttributeValuesPerDevice
            return _err("'includes' function cannot be applied to lists longer than 64 values")
        return _in(arg, target)
    r = cel_equal(target, arg)
    return celtypes.BoolType(isinstance(r, celtypes.BoolType) and bool(r))


# -- regex (Kubernetes library) -------------------------------------------------------------


def _find(s: Any, pattern: Any) -> Any:
    if not (_s(s) and _s(pattern)):
        return _err(_NO_OVERLOAD)
    try:
        m = re2.search(str(pattern), str(s))
    except re2.error as e:
        return _err(f"invalid regex: {e}")
    return celtypes.StringType(m.group(0) if m else "")


def _find_all(s: Any, pattern: Any, limit: Any = celtypes.IntType(-1)) -> Any:
    if not (_s(s) and _s(pattern) and _i(limit)):
        return _err(_NO_OVERLOAD)
    try:
        found = [m.group(0) for m in re2.finditer(str(pattern), str(s))]
    except re2.error as e:
        return _err(f"invalid regex: {e}")
    if limit >= 0:
        found = found[: int(limit)]
    return celtypes.ListType([celtypes.StringType(x) for x in found])


FUNCTIONS: Dict[str, Callable[..., Any]] = {
    # operators with cel-go semantics
    "_==_": cel_equal,
    "_!=_": _not_equal,
    "_<_": _make_cmp(lambda a, b: a < b),
    "_<=_": _make_cmp(lambda a, b: a <= b),
    "_>_": _make_cmp(lambda a, b: a > b),
    "_>=_": _make_cmp(lambda a, b: a >= b),
    "_&&_": _logical_and,
    "_||_": _logical_or,
    "_in_": _in,
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
