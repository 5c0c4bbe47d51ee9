"""The keys under which devices share a selector's result, and the attribute problems that make
every selector on a device an error: computed from the ResourceSlice device (a JSON dict) without
loading cel-python, so that a command whose selectors are all simple (``simple``) never loads it.

``device_shape_key`` and ``projected_key`` are what the evaluator caches on: devices with equal
keys get equal results (names, counters, taints and node placement are not part of them).
``attribute_problem`` is why a dialect could not convert a device's attributes (``device`` builds
the ``device`` variable and raises the same error); versions are parsed here (``semver``), and
only what is neither a plain value nor a version is converted by ``device``, loaded then.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from itertools import filterfalse, repeat
from typing import Any

from .attributes import LIST_KEYS, split_name, version_of
from .errors import SCHEDULER, CelDialect, CelEvalError, Footprint
from .semver import SemverError

__all__ = ["attribute_problem", "device_shape_key", "footprint_reads", "grouping_keyer", "projected_key"]


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
    # not of plain fields only a version string that parses (once a process: version_of)
    if all(values) and all(map(isinstance, values, repeat(dict))):
        for a in filterfalse(_PLAIN_KEYS.issuperset, values):
            text = a.get("version") if len(a) == 1 else None
            if not isinstance(text, str):
                break
            try:
                version_of(text)
            except SemverError:
                break
        else:
            return None
    for name, a in attrs.items():
        if type(a) is dict and a and _PLAIN_KEYS.issuperset(a):  # nothing to convert
            continue
        if not isinstance(a, dict) or not a:
            return str(name)
        if "version" in a or "versions" in a or (not dialect.list_attributes and not LIST_KEYS.isdisjoint(a)):
            from .device import attribute_value  # as the device variable converts it: loads cel-python

            try:
                attribute_value(name, a, dialect)
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
                        if domain is None or split_name(n, driver)[0] == domain]
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
            if step[2] is None or any(split_name(str(n), driver)[0] == step[2] for n in names):
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

