"""Devices whose counter consumption does not fit the counter sets of their pool. Pure.

What the two readers of these fields do (Kueue v0.19.2 ``pkg/dra/counters.go``, the 1.36
structured allocator ``checkAvailableCounters``):
  * Kueue charges the MAX of the counter's value over every matched device's ``consumesCounters``
    entries, whatever set the entry names and whether that set exists or holds that much;
  * the scheduler checks only the counters its pool's ``sharedCounters`` define: an entry naming a
    set no slice of the pool defines, or a counter its set does not have, is not checked (the
    device stays allocatable); a consumption larger than the set holds never fits, so that device
    is never allocated — and still sets Kueue's MAX charge.
So the charge is computed as Kueue does (``kueue/charge/counters.py``) and each such device is a
finding on its driver.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .devices import Pool
from .quantity import Quantity, QuantityError, parse_quantity


def _value(counter: Any) -> Quantity | None:
    """The counter's value; None when it is not a quantity (that is a finding of its own)."""
    value = counter.get("value") if isinstance(counter, dict) else None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return None
    try:
        return parse_quantity(value)
    except (QuantityError, ValueError):
        return None


def _defined_sets(pool: Pool) -> dict[str, dict[str, Any]]:
    sets: dict[str, dict[str, Any]] = {}
    for s in pool.slices:
        for counter_set in (s.get("spec") or {}).get("sharedCounters") or []:
            if isinstance(counter_set, dict) and isinstance(counter_set.get("name"), str):
                counters = counter_set.get("counters")
                sets[counter_set["name"]] = counters if isinstance(counters, dict) else {}
    return sets


def _device_problems(pool: Pool, device: dict[str, Any], sets: dict[str, dict[str, Any]]) -> Iterable[str]:
    where = f"device {device.get('name')} of pool {pool.name}"
    for entry in device.get("consumesCounters") or []:
        if not isinstance(entry, dict):
            continue
        set_name, counters = entry.get("counterSet"), entry.get("counters")
        if not isinstance(counters, dict):
            continue
        if set_name not in sets:
            yield (f"{where} consumes counter set {set_name}, which no ResourceSlice of the pool defines: the "
                   "scheduler does not check it, Kueue charges it")
            continue
        for name, counter in counters.items():
            if name not in sets[set_name]:
                yield (f"{where} consumes counter {name}, which counter set {set_name} does not define: the "
                       "scheduler does not check it, Kueue charges it")
                continue
            used, held = _value(counter), _value(sets[set_name][name])
            if used is not None and held is not None and used.cmp(held) > 0:
                yield (f"{where} consumes {counter.get('value')} of counter {name} from set {set_name}, which "
                       f"holds {sets[set_name][name].get('value')}: the scheduler never allocates it, yet Kueue's "
                       "MAX charge counts it")


def counter_problems(pools: Iterable[Pool]) -> dict[str, list[str]]:
    """driver -> what is inconsistent in its devices' counter consumption (complete pools only,
    as both readers use only those)."""
    found: dict[str, list[str]] = {}
    for pool in pools:
        if not pool.complete:
            continue
        sets = _defined_sets(pool)
        for device in pool.devices():
            if isinstance(device, dict):
                for problem in _device_problems(pool, device, sets):
                    found.setdefault(pool.driver, []).append(problem)
    return found
