"""The ``device`` variable of a DRA selector, in cel-python's values.

``device_activation`` builds ``device`` from a v1 ResourceSlice device (a JSON dict) the way
``k8s.io/dynamic-resource-allocation/cel`` ``DeviceMatches`` does, for a dialect (``errors``):
``driver``, ``attributes`` and ``capacity`` (names split at the first ``/`` into domain and id,
names without a domain belong to the driver; versions become Semver values, capacities Quantity
values) and ``allowMultipleAllocations`` (false where the caller does not copy it). An unknown
*domain* is an empty map. An attribute that cannot be converted is an error for every selector on
that device (what the error is, without building the variable: ``keys.attribute_problem``).
"""

from __future__ import annotations

from typing import Any

from celpy import celtypes

from ..quantity import QuantityError, parse_quantity
from .attributes import split_name, version_of
from .errors import SCHEDULER, CelDialect, CelEvalError
from .lib import CelQuantity
from .semver import SemverError

__all__ = ["attribute_value", "device_activation"]

# -- the device variable -------------------------------------------------------------------


class _DomainMap(celtypes.MapType):
    """Outer attributes/capacity map: unknown domains read as an empty map, as in Kubernetes."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return dict.__getitem__(self, key)
        except (KeyError, TypeError):
            return _EMPTY


_EMPTY = celtypes.MapType()
_QUANTITIES: dict[str, Any] = {}


def _quantity(value: Any) -> CelQuantity:
    key = value if isinstance(value, str) else repr(value)
    hit = _QUANTITIES.get(key)
    if hit is None:
        hit = CelQuantity(parse_quantity(value))
        if len(_QUANTITIES) < 100000:
            _QUANTITIES[key] = hit
    return hit


def _list_value(a: dict[str, Any]) -> Any:
    if a.get("ints") is not None:
        return celtypes.ListType([celtypes.IntType(x) for x in a["ints"]])
    if a.get("bools") is not None:
        return celtypes.ListType([celtypes.BoolType(bool(x)) for x in a["bools"]])
    if a.get("strings") is not None:
        return celtypes.ListType([celtypes.StringType(x) for x in a["strings"]])
    if a.get("versions") is not None:
        versions: list[Any] = [version_of(x) for x in a["versions"]]
        return celtypes.ListType(versions)
    return None


def attribute_value(name: str, a: Any, dialect: CelDialect = SCHEDULER) -> Any:
    """``getAttributeValue``: without list attributes a list-only attribute is unsupported."""
    if isinstance(a, dict):
        try:
            listed = _list_value(a) if dialect.list_attributes else None
            if listed is not None:
                return listed
            if a.get("int") is not None:
                return celtypes.IntType(a["int"])
            if a.get("bool") is not None:
                return celtypes.BoolType(bool(a["bool"]))
            if a.get("string") is not None:
                return celtypes.StringType(a["string"])
            if a.get("version") is not None:
                return version_of(a["version"])
        except SemverError as e:
            raise CelEvalError("", f"attribute {name}: parse semantic version: {e}") from None
        except (TypeError, ValueError) as e:
            raise CelEvalError("", f"attribute {name}: {e}") from None
    raise CelEvalError("", f"attribute {name}: unsupported attribute value")


def device_activation(driver: str, device: dict[str, Any], dialect: CelDialect = SCHEDULER) -> dict[str, Any]:
    """The ``device`` variable for one v1 ResourceSlice device (a JSON dict), as ``dialect`` builds it.

    Raises CelEvalError when an attribute cannot be converted (as the scheduler does
    before evaluating any selector on that device).
    """
    attrs: dict[str, dict[str, Any]] = {}
    for name, a in (device.get("attributes") or {}).items():
        domain, ident = split_name(name, driver)
        attrs.setdefault(domain, {})[ident] = attribute_value(name, a, dialect)
    caps: dict[str, dict[str, Any]] = {}
    for name, c in (device.get("capacity") or {}).items():
        domain, ident = split_name(name, driver)
        value = c.get("value", "0") if isinstance(c, dict) else c
        try:
            caps.setdefault(domain, {})[ident] = _quantity(value)
        except QuantityError as e:
            raise CelEvalError("", f"capacity {name}: {e}") from None
    multi = dialect.copies_allow_multiple_allocations and bool(device.get("allowMultipleAllocations"))
    return {"device": celtypes.MapType({
        "driver": celtypes.StringType(driver),
        "allowMultipleAllocations": celtypes.BoolType(multi),
        "attributes": _DomainMap({k: celtypes.MapType(v) for k, v in attrs.items()}),
        "capacity": _DomainMap({k: celtypes.MapType(v) for k, v in caps.items()}),
    })}
