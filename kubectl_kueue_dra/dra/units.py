"""The unit scale a quantity is written in: what ``map`` and ``verify`` compare when the
ClusterQueues of one cohort give the same resource's quota.

Counter and capacity resources are charged in the driver's base unit (bytes for memory), so
``80Gi`` next to ``80G`` (about 7% apart) or next to a bare ``80`` (80 bytes) lends and borrows
amounts that were never meant to be equal. The scale is one of:

* ``binary``: a Ki, Mi, Gi, Ti, Pi or Ei suffix;
* ``decimal``: a decimal SI suffix (n, u, m, k, M, G, T, P, E) or an exponent (``1e3``, ``5E9``):
  both scale by powers of ten;
* ``plain``: a bare number, counted in the base unit;
* ``zero``: zero in any spelling, the same amount in every scale (never a mismatch);
* ``unparseable``: not a Kubernetes quantity (the API server would have refused it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .quantity import QuantityError, parse_quantity

BINARY, DECIMAL, PLAIN, ZERO, UNPARSEABLE = "binary", "decimal", "plain", "zero", "unparseable"
_BINARY_SUFFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_NUMBER = re.compile(r"[+-]?[0-9.]*")


@dataclass(frozen=True)
class UnitScale:
    family: str
    suffix: str = ""  # as written: "Gi", "G", "e3", "" …

    @property
    def comparable(self) -> bool:
        """Whether it takes part in a comparison of scales (zero and unparseable do not)."""
        return self.family in (BINARY, DECIMAL, PLAIN)

    def __str__(self) -> str:
        if self.family == PLAIN:
            return "plain number"
        return f"{self.family} ({self.suffix})" if self.suffix else self.family


def unit_scale(quantity: object) -> UnitScale:
    """The scale of a quantity as written (a string, or a number as YAML gives it)."""
    text = quantity if isinstance(quantity, str) else str(quantity)
    try:
        if isinstance(quantity, bool):
            raise QuantityError("a boolean")
        parsed = parse_quantity(text)
    except QuantityError:
        return UnitScale(UNPARSEABLE)
    number = _NUMBER.match(text)
    suffix = text[number.end():] if number else ""
    if parsed.is_zero():
        return UnitScale(ZERO, suffix)
    if suffix in _BINARY_SUFFIXES:
        return UnitScale(BINARY, suffix)
    return UnitScale(DECIMAL, suffix) if suffix else UnitScale(PLAIN)
