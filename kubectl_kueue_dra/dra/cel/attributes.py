"""A device attribute's name and version value as every reader of them reads them: the ``device``
variable (``device``), the keys devices share a result under (``keys``) and the simple selectors
(``simple``). A name is split at its first ``/`` into domain and id (without one, the driver is
the domain); a version string is parsed once per process (its Semver, or the SemverError).
"""

from __future__ import annotations

from typing import Any

from .semver import Semver, SemverError

__all__ = ["LIST_KEYS", "split_name", "version_of"]

LIST_KEYS = frozenset({"ints", "bools", "strings", "versions"})
_SEMVERS: dict[str, Any] = {}


def split_name(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def version_of(text: Any) -> Semver:
    """The version a string (or anything, as its text) is; raises SemverError, the same for the same text."""
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
