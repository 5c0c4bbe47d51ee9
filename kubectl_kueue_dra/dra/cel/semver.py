"""Kubernetes' ``Semver`` values (``k8s.io/apiserver/pkg/cel``): versions parsed exactly like
blang/semver v4, compared as it compares them. Needs nothing of cel-python: the device attribute
checks (``keys``) parse versions without loading the CEL engine."""

from __future__ import annotations

from typing import Any

__all__ = ["Semver", "SemverError"]


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
