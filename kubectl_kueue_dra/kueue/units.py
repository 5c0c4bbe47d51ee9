"""Kueue's int64 resource units: how a quantity becomes a charge and how a charge is written back.

``kueue_int`` is ``resources.ResourceValue`` (cpu in milli-units, everything else in units, rounded
up), the arithmetic saturates at int64 like Kueue's, and ``format_usage`` renders an amount the way
Kueue writes it into ``status.admission``.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..dra.quantity import Quantity

INT64_MAX = 2**63 - 1
BINARY_NATIVE = ("memory", "ephemeral-storage")


def sat_add(a: int, b: int) -> int:
    return min(INT64_MAX, a + b)


def sat_mul(a: int, b: int) -> int:
    return min(INT64_MAX, a * b) if a >= 0 else max(-INT64_MAX - 1, a * b)


def kueue_int(name: str, q: Quantity) -> int:
    """``resources.ResourceValue``: cpu in milli-units, everything else in units, rounded up."""
    return kueue_int_value(name, q.value)


def kueue_int_value(name: str, value: Fraction) -> int:
    """``kueue_int`` of an exact value (a transformation's product has no Quantity of its own)."""
    return min(INT64_MAX, math.ceil(value * 1000 if name == "cpu" else value))


def clamp_int64(q: Quantity) -> int:
    """A non-negative quantity as Kueue's int64 (``Value()``: rounded up, saturated)."""
    return max(0, min(INT64_MAX, math.ceil(q.value)))


def format_usage(name: str, value: int, binary: set[str] | frozenset[str] = frozenset()) -> str:
    """Render an int64 amount the way Kueue writes it into status (``ResourceFormatter``):
    cpu as milli DecimalSI, memory/ephemeral-storage/hugepages and counter- or capacity-charged
    names as canonical BinarySI, everything else as DecimalSI."""
    if name == "cpu":
        return str(Quantity(value, -3, "DecimalSI")) if value % 1000 else str(Quantity.from_int(value // 1000))
    if name in BINARY_NATIVE or name.startswith("hugepages-") or name in binary:
        return str(Quantity.from_int(value, "BinarySI"))
    return str(Quantity.from_int(value, "DecimalSI"))
