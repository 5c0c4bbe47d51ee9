"""The ``device`` variable of a DRA selector, and the keys under which devices share a result.

``device_activation`` builds ``device`` from a v1 ResourceSlice device (a JSON dict) the way
``k8s.io/dynamic-resource-allocation/cel`` ``DeviceMatches`` does, for a dialect (``errors``):
``driver``, ``attributes`` and ``capacity`` (names split at the first ``/`` into domain and id,
names without a domain belong to the driver; versions become Semver values, capacities Quantity
values) and ``allowMultipleAllocations`` (false where the caller does not copy it). An unknown *domain* is an empty map.
An attribute that cannot be converted is an error for every selector on that device.

``device_shape_key`` and ``projected_key`` are what the evaluator caches on: devices with equal
keys get equal results (names, counters, taints and node placement are not part of them).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from itertools import filterfalse, repeat
from typing import Any

from celpy import celtypes

from ..quantity import QuantityError, parse_quantity
from .errors import SCHEDULER, CelDialect, CelEvalError, Footprint
from .lib import CelQuantity, Semver, SemverError

__all__ = ["attribute_problem", "device_activation", "device_shape_key", "projected_key"]

_LIST_KEYS = frozenset({"ints", "bools", "strings", "versions"})

# -- the device variable -------------------------------------------------------------------


class _DomainMap(celtypes.MapType):
    """Outer attributes/capacity map: unknown domains read as an empty map, as in Kubernetes."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return dict.__getitem__(self, key)
        except (KeyError, TypeError):
            return _EMPTY


_EMPTY = celtypes.MapType()
_SEMVERS: dict[str, Any] = {}
_QUANTITIES: dict[str, Any] = {}


def _semver(text: Any) -> Semver:
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


def _quantity(value: Any) -> CelQuantity:
    key = value if isinstance(value, str) else repr(value)
    hit = _QUANTITIES.get(key)
    if hit is None:
        hit = CelQuantity(parse_quantity(value))
        if len(_QUANTITIES) < 100000:
            _QUANTITIES[key] = hit
    return hit


def _split_name(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


def _list_value(a: dict[str, Any]) -> Any:
    if a.get("ints") is not None:
        return celtypes.ListType([celtypes.IntType(x) for x in a["ints"]])
    if a.get("bools") is not None:
        return celtypes.ListType([celtypes.BoolType(bool(x)) for x in a["bools"]])
    if a.get("strings") is not None:
        return celtypes.ListType([celtypes.StringType(x) for x in a["strings"]])
    if a.get("versions") is not None:
        versions: list[Any] = [_semver(x) for x in a["versions"]]
        return celtypes.ListType(versions)
    return None


def _attribute_value(name: str, a: Any, dialect: CelDialect = SCHEDULER) -> Any:
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
                return _semver(a["version"])
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
        domain, ident = _split_name(name, driver)
        attrs.setdefault(domain, {})[ident] = _attribute_value(name, a, dialect)
    caps: dict[str, dict[str, Any]] = {}
    for name, c in (device.get("capacity") or {}).items():
        domain, ident = _split_name(name, driver)
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


# -- shapes -------------------------------------------------------------------------------------


def device_shape_key(driver: str, device: dict[str, Any]) -> Hashable:
    """Everything a selector can see of a device: driver, attributes, capacity values,
    allowMultipleAllocations.  Devices with equal keys get equal results (names,
    counters, taints and node placement are not part of it).  About 5 us per device."""
    attrs = device.get("attributes") or {}
    caps = device.get("capacity") or {}
    key: Hashable = (
        driver,
        tuple(sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v) for k, v in attrs.items())),
        tuple(sorted((k, v.get("value") if isinstance(v, dict) else v) for k, v in caps.items())),
        bool(device.get("allowMultipleAllocations")),
    )
    try:
        hash(key)
    except TypeError:  # list-type attributes or odd JSON: freeze everything
        values = {k: v.get("value") if isinstance(v, dict) else v for k, v in caps.items()}
        key = (driver, _frozen(attrs), _frozen(values), bool(device.get("allowMultipleAllocations")))
    return key


def attribute_problem(driver: str, device: dict[str, Any], dialect: CelDialect = SCHEDULER) -> str | None:
    """Why this dialect could not convert this device's attributes, or None."""
    attrs = device.get("attributes") or {}
    values = attrs.values()
    # the common case, with the loop over plain values in C: every value a non-empty map, the ones
    # not of plain fields only a version string already parsed (see _semver)
    if all(values) and all(map(isinstance, values, repeat(dict))):
        for a in filterfalse(_PLAIN_KEYS.issuperset, values):
            text = a.get("version") if len(a) == 1 else None
            hit = _SEMVERS.get(text) if isinstance(text, str) else None
            if hit is None or isinstance(hit, SemverError):
                break
        else:
            return None
    for name, a in attrs.items():
        if type(a) is dict and a and _PLAIN_KEYS.issuperset(a):  # nothing to convert
            continue
        if not isinstance(a, dict) or not a:
            return str(name)
        if "version" in a or "versions" in a or (not dialect.list_attributes and not _LIST_KEYS.isdisjoint(a)):
            try:
                _attribute_value(name, a, dialect)
            except CelEvalError as e:
                return e.detail
    return None


_SCALARS = (str, int, float, bool, type(None))
#: attribute value fields that convert whatever the dialect (the shape check has their types right)
_PLAIN_KEYS = frozenset(("string", "int", "bool"))


def _frozen(v: Any) -> Hashable:
    if type(v) is dict and len(v) == 1:  # fast path for {"string": "x"}, {"value": "1Gi"}
        for k, x in v.items():
            if type(x) in _SCALARS:
                return ((k, x),)
    if isinstance(v, dict):
        return tuple(sorted((k, _frozen(x)) for k, x in v.items()))
    if isinstance(v, list):
        return tuple(_frozen(x) for x in v)
    return v  # type: ignore[no-any-return]  # a JSON scalar


_PLANS: dict[tuple[Footprint, str], tuple[tuple[Any, ...], ...]] = {}


def _plan(footprint: Footprint, driver: str) -> tuple[tuple[Any, ...], ...]:
    """The footprint as steps for :func:`projected_key`, in a fixed order (computed once)."""
    plan = _PLANS.get((footprint, driver))
    if plan is None:
        steps: list[tuple[Any, ...]] = []
        for item in sorted(footprint):
            kind = item[0]
            if kind == "driver":
                continue
            if kind == "ama":
                steps.append(("ama",))
                continue
            if len(item) == 3:
                domain, ident = item[1], item[2]
                steps.append(("one", kind, (f"{domain}/{ident}",) + ((ident,) if domain == driver else ())))
            else:
                steps.append(("some", kind, item[1] if len(item) == 2 else None))
        plan = _PLANS[(footprint, driver)] = tuple(steps)
    return plan


def projected_key(footprint: Footprint, driver: str, device: dict[str, Any],
                  dialect: CelDialect = SCHEDULER,
                  problems: dict[int, tuple[Any, str | None]] | None = None) -> Hashable:
    """The parts of a device that an expression with this footprint can read. ``problems``: the
    devices' attribute problems already found in this dialect, by identity (kept with the device,
    so an identity is never reused while its entry lives), to share across footprints."""
    return _projection(footprint, driver, device, _problem(driver, device, dialect, problems))


def _problem(driver: str, device: dict[str, Any], dialect: CelDialect,
             problems: dict[int, tuple[Any, str | None]] | None) -> str | None:
    if problems is None:
        return attribute_problem(driver, device, dialect)
    hit = problems.get(id(device))
    if hit is None or hit[0] is not device:
        hit = problems[id(device)] = (device, attribute_problem(driver, device, dialect))
    return hit[1]


def _projection(footprint: Footprint, driver: str, device: dict[str, Any], problem: str | None) -> Hashable:
    parts: list[Any] = [driver, problem]
    attrs = device.get("attributes") or {}
    caps = device.get("capacity") or {}
    for step in _plan(footprint, driver):
        if step[0] == "ama":
            parts.append(bool(device.get("allowMultipleAllocations")))
            continue
        source = attrs if step[1] == "attributes" else caps
        if step[0] == "one":
            parts.append(tuple([_frozen(source.get(n)) for n in step[2]]))
        else:
            domain = step[2]
            selected = [(n, _frozen(v)) for n, v in source.items()
                        if domain is None or _split_name(n, driver)[0] == domain]
            parts.append(tuple(sorted(selected)))
    return tuple(parts)


def footprint_reads(footprint: Footprint | None, driver: str, names: Collection[str | None]) -> bool:
    """Whether an expression with this footprint (None: it may read anything) can read one of
    these attributes (None among them: any)."""
    if not names:
        return False
    if footprint is None or None in names:
        return True
    for step in _plan(footprint, driver):
        if step[0] == "one" and step[1] == "attributes":
            if any(n in names for n in step[2]):
                return True
        elif step[0] == "some" and step[1] == "attributes":
            if step[2] is None or any(_split_name(str(n), driver)[0] == step[2] for n in names):
                return True
    return False


def grouping_keyer(footprint: Footprint, dialect: CelDialect = SCHEDULER,
                   problems: dict[int, tuple[Any, str | None]] | None = None,
                   ) -> Callable[[str, dict[str, Any]], Hashable]:
    """:func:`projected_key` for many devices read at once, computed once per combination of the
    very objects a device's key is made of (the parts the footprint reads, shared between devices by
    ``kube.compact``), and looked up by their identities for the devices after. The keyer keeps
    those objects alive, so an identity it knows is never another object's while it lives."""
    known: dict[tuple[Any, ...], tuple[tuple[Any, ...], Hashable]] = {}
    nothing: dict[str, Any] = {}  # one object for every device without attributes (or capacity)

    def key(driver: str, device: dict[str, Any]) -> Hashable:
        problem = _problem(driver, device, dialect, problems)
        attrs = device.get("attributes") or nothing
        caps = device.get("capacity") or nothing
        parts: list[Any] = []
        for step in _plan(footprint, driver):
            if step[0] == "ama":
                parts.append(device.get("allowMultipleAllocations"))
            else:
                source = attrs if step[1] == "attributes" else caps
                parts.extend(map(source.get, step[2]) if step[0] == "one" else (source,))
        ident = (driver, problem, *map(id, parts))
        found = known.get(ident)
        if found is None:
            found = known[ident] = (tuple(parts), _projection(footprint, driver, device, problem))
        return found[1]

    return key

