"""The devices a DeviceClass matches, grouped by shape: devices alike in their driver, in what the
given selectors read (attributes, capacity), in the counters they consume (those named, or all)
and in the answer of each further selector list (a mapping's counter ``deviceSelector``). What
``kubectl get resourceslices -o jsonpath='{..consumesCounters}'`` shows device by device, one line
per kind of device. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cel import CelError, SelectorEvaluator, compile_selector
from .cel.attributes import split_name
from .devices import Pool


@dataclass
class DeviceShape:
    driver: str
    read: dict[str, Any]  # what the selectors read: attribute/capacity name -> value
    counters: dict[str, str]  # counter -> the value consumed (several entries naming it: each, joined)
    other_counters: list[str]  # consumed counters not among the named ones (names only)
    tests: list[bool | str]  # per further selector list: matches, or the error it raises
    profile: str | None = None  # the device's MIG profile, else its product name (``profile_of``)
    devices: int = 0
    pools: set[tuple[str, str]] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    names: list[str] = field(default_factory=list)  # the first device names, for a shape without a profile

    def to_json(self, test_names: Sequence[str]) -> dict[str, Any]:
        return {"driver": self.driver, "profile": self.profile, "devices": self.devices, "pools": len(self.pools),
                "poolNames": sorted(name for _, name in self.pools), "nodes": sorted(self.nodes),
                "deviceNames": self.names, "selectorsRead": self.read, "consumesCounters": self.counters,
                "otherCounters": self.other_counters,
                "counterSelectors": dict(zip(test_names, self.tests))}


#: the attributes that name what a device is, first found wins: the NVIDIA driver's MIG ``profile``
#: (``1g.5gb``, ``3g.20gb``), then the ``productName`` it gives every GPU and MIG device
PROFILE_ATTRIBUTES = ("profile", "productName")
NAMES_SHOWN = 3


def profile_of(driver: str, device: dict[str, Any]) -> str | None:
    """What kind of device it is, by the attributes its driver publishes (``PROFILE_ATTRIBUTES``,
    in the driver's domain)."""
    attrs = device.get("attributes") or {}
    for name in PROFILE_ATTRIBUTES:
        value = _plain(attrs.get(name, attrs.get(f"{driver}/{name}")))
        if isinstance(value, str) and value:
            return value
    return None


def _nodes(pool: Pool, device: dict[str, Any]) -> set[str]:
    node = device.get("nodeName")
    if isinstance(node, str) and node:
        return {node}
    return {str(n) for s in pool.slices if (n := (s.get("spec") or {}).get("nodeName"))}


@dataclass
class ShapeReport:
    shapes: list[DeviceShape]
    errors: dict[str, int]  # the class selectors failed on these devices: message -> devices
    incomplete_pool_devices: int  # matching devices in pools the scheduler does not use


def _plain(value: Any) -> Any:
    """An attribute's or a capacity's value as it is written: ``{"string": "mig"}`` → ``mig``."""
    if isinstance(value, dict):
        for key in ("string", "int", "bool", "version", "value", "strings", "ints", "bools", "versions"):
            if value.get(key) is not None:
                return value[key]
    return value


def _footprint(selector_lists: Sequence[Sequence[str]]) -> frozenset[tuple[Any, ...]] | None:
    """What the selectors read together; None when one reads the whole device (or does not compile)."""
    union: set[tuple[Any, ...]] = set()
    for selectors in selector_lists:
        for expression in selectors:
            try:
                fp = compile_selector(expression).footprint
            except CelError:
                return None
            if fp is None:
                return None
            union |= fp
    return frozenset(union)


def read_parts(footprint: frozenset[tuple[Any, ...]] | None, driver: str, device: dict[str, Any]) -> dict[str, Any]:
    """The parts of ``device`` a footprint reads, by the name the driver's domain makes short
    (``type``, ``gpu.nvidia.com/memory`` for another domain); the whole device when None."""
    attrs = device.get("attributes") or {}
    caps = device.get("capacity") or {}
    out: dict[str, Any] = {}

    def short(name: str) -> str:
        domain, ident = split_name(name, driver)
        return ident if domain == driver else f"{domain}/{ident}"

    if footprint is None:
        out.update({short(n): _plain(v) for n, v in attrs.items()})
        out.update({f"capacity {short(n)}": _plain(v) for n, v in caps.items()})
        return out
    for item in sorted(footprint, key=str):
        kind = item[0]
        if kind == "driver":
            continue
        if kind == "ama":
            out["allowMultipleAllocations"] = bool(device.get("allowMultipleAllocations"))
            continue
        source, prefix = (attrs, "") if kind == "attributes" else (caps, "capacity ")
        if len(item) == 3:
            domain, ident = item[1], item[2]
            names = [f"{domain}/{ident}"] + ([ident] if domain == driver else [])
            value = next((source[n] for n in names if n in source), None)
            out[prefix + short(names[0])] = _plain(value)
        else:
            domain = item[1] if len(item) == 2 else None
            for n, v in source.items():
                if domain is None or split_name(n, driver)[0] == domain:
                    out[prefix + short(n)] = _plain(v)
    return out


def consumed_counters(device: dict[str, Any], named: set[str] | None) -> tuple[dict[str, str], list[str]]:
    """(counter -> value, the other counters' names) of a device's ``consumesCounters``: ``named``
    None shows every counter."""
    values: dict[str, list[str]] = {}
    others: set[str] = set()
    for entry in device.get("consumesCounters") or []:
        counters = entry.get("counters") if isinstance(entry, dict) else None
        for name, counter in (counters or {}).items() if isinstance(counters, dict) else ():
            if named is None or name in named:
                value = counter.get("value") if isinstance(counter, dict) else counter
                values.setdefault(name, []).append(str(value))
            else:
                others.add(name)
    return {n: ", ".join(v) for n, v in sorted(values.items())}, sorted(others)


def device_shapes(pools: Sequence[Pool], selectors: Sequence[str], evaluator: SelectorEvaluator, *,
                  counters: set[str] | None = None,
                  tests: Sequence[tuple[str, Sequence[str]]] = ()) -> ShapeReport:
    """The devices of complete pools that ``selectors`` match, grouped by shape. ``tests``:
    (driver, selector list) pairs, each answered per shape for devices of that driver (a device of
    another driver answers False: the source counts only its driver's devices)."""
    footprint = _footprint([selectors] + [t[1] for t in tests])
    shapes: dict[Any, DeviceShape] = {}
    errors: dict[str, int] = {}
    incomplete = 0
    for pool in pools:
        for device in pool.devices():
            try:
                matched = evaluator.matches(selectors, pool.driver, device)
            except CelError as e:
                errors[str(e)] = errors.get(str(e), 0) + 1
                continue
            if not matched:
                continue
            if not pool.complete:
                incomplete += 1
                continue
            read = read_parts(footprint, pool.driver, device)
            consumed, others = consumed_counters(device, counters)
            answers: list[bool | str] = []
            for driver, test in tests:
                if driver and driver != pool.driver:
                    answers.append(False)
                    continue
                try:
                    answers.append(evaluator.matches(test, pool.driver, device))
                except CelError as e:
                    answers.append(str(e))
            profile = profile_of(pool.driver, device)
            key = (pool.driver, profile, repr(sorted(read.items())), tuple(sorted(consumed.items())), tuple(answers))
            shape = shapes.get(key)
            if shape is None:
                shape = shapes[key] = DeviceShape(pool.driver, read, consumed, others, answers, profile)
            else:
                shape.other_counters = sorted(set(shape.other_counters) | set(others))
            shape.devices += 1
            shape.pools.add((pool.driver, pool.name))
            shape.nodes |= _nodes(pool, device)
            if len(shape.names) < NAMES_SHOWN:
                shape.names.append(str(device.get("name")))
    return ShapeReport(list(shapes.values()), errors, incomplete)
