"""What the cluster has, in quota units: devices matching classes, counter totals, what a quota
resource has in all (the nominal quota a fix proposes, what verify compares quota with), and the
quotas ClusterQueues give. Pure; only complete pools at their newest generation count (what the
scheduler and Kueue use)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import methodcaller
from typing import Any

from ...dra.cel import CelError, SelectorEvaluator, compile_selector
from ...dra.device_classes import class_selectors
from ...dra.devices import Pool, ShapeIndex
from ...dra.quantity import Quantity, QuantityError, parse_quantity
from ..config.mappings import Mapping, Source
from .cluster_queue import QuotaEntry

Obj = dict[str, Any]


@dataclass
class Match:
    devices: list[tuple[Pool, Obj]] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)  # CEL error → devices that hit it


def matching(pools: Sequence[Pool], selectors: Sequence[str], evaluator: SelectorEvaluator,
             driver: str | None = None, index: ShapeIndex | None = None) -> Match:
    """Devices of complete pools (of ``driver``, when given) for which every selector is true.
    ``index``: a ShapeIndex of these pools; when it covers ``selectors`` they are evaluated once
    per group of alike devices (same answers, same order)."""
    per_pool, errors = matching_by_pool(pools, selectors, evaluator, driver, index)
    return Match([(pool, device) for pool, devices in per_pool for device in devices], errors)


def matching_by_pool(pools: Sequence[Pool], selectors: Sequence[str], evaluator: SelectorEvaluator,
                     driver: str | None = None, index: ShapeIndex | None = None,
                     ) -> tuple[list[tuple[Pool, Sequence[Obj]]], dict[str, int]]:
    """``matching``, pool by pool: each complete pool with a matching device and those devices in
    order, and the errors (CEL error -> devices that hit it, first met first)."""
    out: list[tuple[Pool, Sequence[Obj]]] = []
    errors: dict[str, int] = {}
    if index is not None and index.covers(selectors):
        outcomes = index.outcomes(selectors)
        matched = [_matched(ok) for ok in outcomes]
        for pool, devices, ids, counts in index.pools:
            if not pool.complete or (driver is not None and pool.driver != driver):
                continue
            _add_errors(errors, outcomes, counts)
            hits = [matched[gid] for gid in counts]
            if hits and all(hits):
                out.append((pool, devices))
            elif any(hits):  # the matching devices picked at C speed by their groups' answers
                out.append((pool, list(compress(devices, map(matched.__getitem__, ids)))))
        return out, errors
    for pool in pools:
        if not pool.complete or (driver is not None and pool.driver != driver):
            continue
        found = []
        for device in pool.devices():
            try:
                if evaluator.matches(selectors, pool.driver, device):
                    found.append(device)
            except CelError as e:
                errors[str(e)] = errors.get(str(e), 0) + 1
        if found:
            out.append((pool, found))
    return out, errors


def _add_errors(errors: dict[str, int], outcomes: Sequence[bool | CelError], counts: dict[int, int]) -> None:
    """Add the devices of the groups (group id -> devices) whose selectors raised, by message.
    Groups are in the order their first devices were met, so messages are too."""
    for gid, n in counts.items():
        ok = outcomes[gid]
        if isinstance(ok, CelError):
            errors[str(ok)] = errors.get(str(ok), 0) + n


def device_key(pool: Pool, device: Obj) -> tuple[str, str, str]:
    return (pool.driver, pool.name, str(device.get("name")))


def count_devices(pools: Sequence[Pool], selector_lists: Sequence[Sequence[str]],
                  evaluator: SelectorEvaluator, index: ShapeIndex | None = None) -> tuple[int, dict[str, int]]:
    """Distinct devices matching any of the selector lists (one list per DeviceClass)."""
    if index is not None and len(selector_lists) == 1 and index.covers(selector_lists[0]):
        return _indexed_count(index, selector_lists[0])
    seen: set[tuple[str, str, str]] = set()
    errors: dict[str, int] = {}
    for selectors in selector_lists:
        found = matching(pools, selectors, evaluator, index=index)
        seen.update(device_key(p, d) for p, d in found.devices)
        for message, n in found.errors.items():
            errors[message] = errors.get(message, 0) + n
    return len(seen), errors


def _matched(outcome: bool | CelError) -> bool:
    return not isinstance(outcome, CelError) and bool(outcome)


def _indexed_count(index: ShapeIndex, selectors: Sequence[str]) -> tuple[int, dict[str, int]]:
    """``count_devices`` of one list from the group sizes summed over the complete pools (each
    pool whose device names repeat, which the API forbids, counted by name)."""
    outcomes = index.outcomes(selectors)
    totals = index.complete_totals
    count = sum(n for gid, n in totals.named.items() if _matched(outcomes[gid]))
    for devices, ids in totals.repeated:
        count += len({str(d.get("name")) for d, gid in zip(devices, ids) if _matched(outcomes[gid])})
    errors: dict[str, int] = {}
    _add_errors(errors, outcomes, totals.all)
    return count, errors


def _parsed(value: Any, cache: dict[Any, Quantity | None]) -> Quantity | None:
    """``parse_quantity`` of a value as written, None when it is not a quantity; each distinct text
    parsed once (a fleet of alike devices repeats a handful of values)."""
    key = (type(value), value) if isinstance(value, (str, int, float)) else None
    if key is not None and key in cache:
        return cache[key]
    try:
        q: Quantity | None = parse_quantity(value)
    except QuantityError:
        q = None
    if key is not None:
        cache[key] = q
    return q


def _consumed(held: Any, counter: str, cache: dict[Any, Quantity | None]) -> Iterator[tuple[str, Quantity]]:
    """(counterSet, value) of every entry of a device's consumesCounters that holds ``counter``."""
    for entry in held or []:
        value = ((entry.get("counters") or {}).get(counter) or {}).get("value")
        q = None if value is None else _parsed(value, cache)
        if q is not None:
            yield str(entry.get("counterSet")), q


_CONSUMES = methodcaller("get", "consumesCounters")


@dataclass
class CounterSupply:
    total: Quantity | None  # sum of the shared counter sets the matching devices draw from
    smallest: Quantity | None  # the smallest per-device consumption (what one device costs at least)
    devices: int  # matching devices that consume the counter
    errors: dict[str, int]


@dataclass
class _PoolConsumption:
    devices: int  # devices that consume the counter
    sets: set[str]  # the counter sets they draw from
    values: dict[int, Quantity]  # the distinct values they consume (by id), first met first


def _pool_consumption(held: list[Any], counter: str, cache: dict[Any, Quantity | None],
                      consumptions: dict[int, list[tuple[str, Quantity]]]) -> _PoolConsumption:
    """What a pool's devices (their consumesCounters lists, ``held``) consume of ``counter``; each
    distinct list read once (``consumptions``: by id, shared across pools)."""
    out = _PoolConsumption(0, set(), {})
    lists = dict(zip(map(id, held), held))
    for key, n in Counter(map(id, held)).items():
        consumed = consumptions.get(key)
        if consumed is None:
            consumed = consumptions[key] = list(_consumed(lists[key], counter, cache))
        if consumed:
            out.devices += n
        for counter_set, value in consumed:
            out.sets.add(counter_set)
            out.values.setdefault(id(value), value)
    return out


def counter_supply(pools: Sequence[Pool], source: Source, evaluator: SelectorEvaluator,
                   index: ShapeIndex | None = None) -> CounterSupply:
    selectors = [source.selector] if source.selector else []
    per_pool, errors = matching_by_pool(pools, selectors, evaluator, source.driver, index)
    sets: set[tuple[str, str]] = set()
    values: dict[int, Quantity] = {}  # the distinct parsed values, first seen first
    devices = 0
    cache: dict[Any, Quantity | None] = {}
    # devices of one model share one consumesCounters list (kube/compact.py), and alike nodes hold
    # the same lists in the same order: a pool's consumption is read once per such sequence
    consumptions: dict[int, list[tuple[str, Quantity]]] = {}
    pools_read: dict[tuple[int, ...], _PoolConsumption] = {}
    for pool, matched in per_pool:
        held = list(map(_CONSUMES, matched))
        key = tuple(map(id, held))  # the devices keep the lists alive: no id is reused meanwhile
        read = pools_read.get(key)
        if read is None:
            read = pools_read[key] = _pool_consumption(held, source.name, cache, consumptions)
        devices += read.devices
        sets.update((pool.name, name) for name in read.sets)
        for value_id, value in read.values.items():
            values.setdefault(value_id, value)
    smallest = min(values.values()) if values else None  # the first of equal minima, as a running min
    total: Quantity | None = None
    for pool in pools:
        if pool.driver != source.driver or not pool.complete:
            continue
        for s in pool.slices:
            for counter_set in (s.get("spec") or {}).get("sharedCounters") or []:
                if (pool.name, str(counter_set.get("name"))) not in sets:
                    continue
                text = ((counter_set.get("counters") or {}).get(source.name) or {}).get("value")
                q = None if text is None else _parsed(text, cache)
                if q is not None:
                    total = q if total is None else total + q
    return CounterSupply(total, smallest, devices, errors)


def resource_supply(pools: Sequence[Pool], *, classes: Sequence[str], mapping: Mapping | None,
                    device_classes: Sequence[Obj] | None, evaluator: SelectorEvaluator,
                    index: ShapeIndex | None = None,
                    supply_of: Callable[[Source], CounterSupply] | None = None) -> tuple[Quantity | None, str]:
    """What the cluster has of a quota resource, in its units, and what that is: the total of the
    shared counter a counter-sourced mapping charges, else the devices its DeviceClasses match;
    (None, why) when it cannot be known. ``supply_of``: ``counter_supply`` of a source, cached by
    the caller (else computed here)."""
    if mapping is not None and mapping.capacity_sources:
        return None, "capacity sources are not compared"
    if mapping is not None and mapping.counter_sources:
        source = mapping.counter_sources[0]
        try:
            supply = (supply_of or (lambda s: counter_supply(pools, s, evaluator, index)))(source)
        except CelError as e:
            return None, str(e)
        if supply.total is None:
            return None, f"no shared counter {source.name} found in complete {source.driver} pools"
        return supply.total, f"the {source.name} counters of {source.driver}"
    by_name = {dc["metadata"]["name"]: dc for dc in device_classes or []}
    selector_lists = []
    for name in classes:
        if name in by_name:
            selectors = class_selectors(by_name[name])
            try:
                for expr in selectors:
                    compile_selector(expr)
            except CelError:
                return None, f"the selector of {name} does not compile"
            selector_lists.append(selectors)
    if not selector_lists:
        return None, "none of its DeviceClasses exists"
    count, errors = count_devices(pools, selector_lists, evaluator, index)
    if errors:
        return None, next(iter(errors))
    return Quantity.from_int(count), f"devices matching {', '.join(classes)}"


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
