"""Path C: counters (partitionable devices, e.g. MIG). Per request of a counter-mapped class: the
MAX ``consumesCounters`` value of the counter over every matching device × the request's count."""

from __future__ import annotations

from typing import Any

from ...dra.devices import Pool
from ...dra.quantity import Quantity, QuantityError, parse_quantity
from ..fielderrors import INTERNAL, FieldError
from ..units import clamp_int64, sat_mul
from ..workloads.podsets import PodSet
from .common import Tally, exact_requests
from .inputs import ChargeInputs
from .matching import class_and_request_selectors, match_devices, require_count
from .results import CounterLine, Stop

STEP = "counters"
_Best = tuple[Quantity, Pool, dict[str, Any]]


def run(inputs: ChargeInputs, podsets: list[PodSet], tallies: list[Tally]) -> None:
    for r in exact_requests(inputs, podsets):
        configs = inputs.counter_configs(r.device_class)
        if not configs:
            continue
        class_sel, req_sel = class_and_request_selectors(inputs, r, STEP)
        for quota, source in configs:
            matched = match_devices(inputs, source, class_sel, req_sel, r.path, STEP)
            require_count(matched, r, "counter", STEP)
            first_only = inputs.semantics.first_counter_entry_only
            if (source.name, first_only) not in matched.derived:
                matched.derived[source.name, first_only] = _max_counter(matched.devices, source.name, first_only)
            best = matched.derived[source.name, first_only]
            if best is None:
                raise Stop(STEP, [FieldError(INTERNAL, r.path, "matched devices have no consumesCounters entry for "
                                                               f'counter "{source.name}"')])
            value_q, pool, device = best
            total = sat_mul(clamp_int64(value_q), r.count)
            tallies[r.i].add(quota, total)
            n = len(matched.devices)
            tallies[r.i].charge.lines.append(CounterLine(
                ref=r.ref(), resource=quota, counter=source.name, driver=source.driver, matched_devices=n,
                matched_pools=matched.pools, max_device=f"{pool.name}/{device.get('name')}",
                counter_value=str(value_q), per_pod=total,
                detail=f"MAX {source.name} over {n} matching device(s) in {matched.pools} pool(s) = "
                       f"{value_q} × {r.count}"))


def _max_counter(matched: list[tuple[Pool, dict[str, Any]]], counter: str, first_entry_only: bool) -> _Best | None:
    best: _Best | None = None
    parsed: dict[Any, Quantity] = {}  # the same few values repeat on every node
    for pool, device in matched:
        for consumption in device.get("consumesCounters") or []:
            raw = (consumption.get("counters") or {}).get(counter)
            if raw is None:
                continue
            value: Any = raw.get("value") if isinstance(raw, dict) else raw
            if value is None:  # the shape check removed a value that is no quantity (a MalformedObject finding)
                continue
            q = parsed.get(value) if isinstance(value, str) else None
            if q is None:
                try:
                    q = parse_quantity(value)
                except QuantityError:  # a value the shape check did not see (a hand-built device)
                    continue
                if isinstance(value, str):
                    parsed[value] = q
            if best is None or q.value > best[0].value:
                best = (q, pool, device)
            if first_entry_only:
                break
    return best
