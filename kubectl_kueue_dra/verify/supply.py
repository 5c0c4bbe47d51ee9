"""What the cluster has, in quota units: devices matching classes, counter totals, and the
quotas ClusterQueues give. Pure; only complete pools at their newest generation count (what the
scheduler and Kueue use)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterator, Sequence

from ..dra.cel import CelError, SelectorEvaluator
from ..dra.devices import Pool
from ..dra.quantity import Quantity, QuantityError, parse_quantity
from ..kueue.mappings import Source
from ..kueue.queues import QuotaEntry

Obj = dict[str, Any]


@dataclass
class Match:
    devices: list[tuple[Pool, Obj]] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)  # CEL error → devices that hit it


def matching(pools: Sequence[Pool], selectors: Sequence[str], evaluator: SelectorEvaluator,
             driver: str | None = None) -> Match:
    """Devices of complete pools (of ``driver``, when given) for which every selector is true."""
    out = Match()
    for pool in pools:
        if not pool.complete or (driver is not None and pool.driver != driver):
            continue
        for device in pool.devices():
            try:
                if evaluator.matches(selectors, pool.driver, device):
                    out.devices.append((pool, device))
            except CelError as e:
                out.errors[str(e)] = out.errors.get(str(e), 0) + 1
    return out


def device_key(pool: Pool, device: Obj) -> tuple[str, str, str]:
    return (pool.driver, pool.name, str(device.get("name")))


def count_devices(pools: Sequence[Pool], selector_lists: Sequence[Sequence[str]],
                  evaluator: SelectorEvaluator) -> tuple[int, dict[str, int]]:
    """Distinct devices matching any of the selector lists (one list per DeviceClass)."""
    seen: set[tuple[str, str, str]] = set()
    errors: dict[str, int] = {}
    for selectors in selector_lists:
        found = matching(pools, selectors, evaluator)
        seen.update(device_key(p, d) for p, d in found.devices)
        for message, n in found.errors.items():
            errors[message] = errors.get(message, 0) + n
    return len(seen), errors


def _consumed(device: Obj, counter: str) -> Iterator[tuple[str, Quantity]]:
    """(counterSet, value) of every consumesCounters entry that holds ``counter``."""
    for entry in device.get("consumesCounters") or []:
        value = ((entry.get("counters") or {}).get(counter) or {}).get("value")
        if value is None:
            continue
        try:
            yield str(entry.get("counterSet")), parse_quantity(value)
        except QuantityError:
            continue


def published_counters(slices: Sequence[Obj], driver: str) -> dict[str, int]:
    """Counter name → devices of ``driver`` consuming it (any pool, any generation)."""
    names: dict[str, int] = {}
    for s in slices:
        spec = s.get("spec") or {}
        if spec.get("driver") != driver:
            continue
        for device in spec.get("devices") or []:
            for name in {n for e in device.get("consumesCounters") or [] for n in (e.get("counters") or {})}:
                names[name] = names.get(name, 0) + 1
    return names


@dataclass
class CounterSupply:
    total: Quantity | None  # sum of the shared counter sets the matching devices draw from
    smallest: Quantity | None  # the smallest per-device consumption (what one device costs at least)
    devices: int  # matching devices that consume the counter
    errors: dict[str, int]


def counter_supply(pools: Sequence[Pool], source: Source, evaluator: SelectorEvaluator) -> CounterSupply:
    selectors = [source.selector] if source.selector else []
    found = matching(pools, selectors, evaluator, driver=source.driver)
    sets: set[tuple[str, str]] = set()
    smallest: Quantity | None = None
    devices = 0
    for pool, device in found.devices:
        consumed = list(_consumed(device, source.name))
        if consumed:
            devices += 1
        for counter_set, value in consumed:
            sets.add((pool.name, counter_set))
            smallest = value if smallest is None or value < smallest else smallest
    total: Quantity | None = None
    for pool in pools:
        if pool.driver != source.driver or not pool.complete:
            continue
        for s in pool.slices:
            for counter_set in (s.get("spec") or {}).get("sharedCounters") or []:
                if (pool.name, str(counter_set.get("name"))) not in sets:
                    continue
                text = ((counter_set.get("counters") or {}).get(source.name) or {}).get("value")
                try:
                    q = parse_quantity(text) if text is not None else None
                except QuantityError:
                    q = None
                if q is not None:
                    total = q if total is None else total + q
    return CounterSupply(total, smallest, devices, found.errors)


# ---- quotas --------------------------------------------------------------------------------

def total_quota(entries: Sequence[QuotaEntry]) -> Quantity | None:
    total: Quantity | None = None
    for e in entries:
        try:
            q = parse_quantity(e.text)
        except QuantityError:
            continue
        total = q if total is None else total + q
    return total
