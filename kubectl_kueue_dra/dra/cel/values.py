"""CEL value types and the cel-go runtime semantics the DRA libraries build on.

* Kubernetes ``Quantity`` and ``Semver`` values (``k8s.io/apiserver/pkg/cel``; blang/semver v4
  parsing), ``==`` only between two of a kind;
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

    __slots__ = ("build", "major", "minor", "patch", "pre")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[Any, ...] = (), build: tuple[Any, ...] = ()):
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    @classmethod
    def parse(cls, s: str) -> Semver:
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
    def parse_normalized(cls, s: str) -> Semver:
        """The ``normalize=true`` form: ``v`` prefix, leading zeros, short versions."""
        s = s.removeprefix("v")
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

    def compare(self, o: Semver) -> int:
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
