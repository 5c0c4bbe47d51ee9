"""Path D: capacity sources (consumable capacity, alpha). Per request of a class with a capacity
source: the MAX over matching devices of the request's capacity (explicit, the policy default, or
the whole capacity) rounded up to the device's request policy, × the request's count."""

from __future__ import annotations

import math
from typing import Any

from ...dra.devices import Pool
from ...dra.quantity import Quantity, parse_quantity
from ..fielderrors import INTERNAL, INVALID, FieldError
from ..units import clamp_int64, sat_mul
from ..workloads.podsets import PodSet
from .common import Tally, exact_requests
from .inputs import ChargeInputs
from .matching import class_and_request_selectors, match_devices, require_count
from .results import CapacityLine, Stop

STEP = "capacity"


def run(inputs: ChargeInputs, podsets: list[PodSet], tallies: list[Tally]) -> None:
    for r in exact_requests(inputs, podsets):
        configs = inputs.capacity_configs(r.device_class)
        mapping = inputs.mapping_for(r.device_class)
        if not configs or mapping is None:
            continue
        class_sel, req_sel = class_and_request_selectors(inputs, r, STEP)
        explicit = ((r.exactly.get("capacity") or {}).get("requests")) or {}
        for source in configs:
            matched = match_devices(inputs, source, class_sel, req_sel, r.path, STEP)
            require_count(matched, r, "capacity", STEP)
            charge = _capacity_charge(matched.devices, source.name, explicit.get(source.name), r.path)
            total = sat_mul(clamp_int64(charge), r.count)
            tallies[r.i].add(mapping.name, total)
            n = len(matched.devices)
            tallies[r.i].charge.lines.append(CapacityLine(
                ref=r.ref(), resource=mapping.name, capacity=source.name, driver=source.driver, matched_devices=n,
                matched_pools=matched.pools, per_pod=total,
                detail=f"MAX rounded {source.name} over {n} device(s) = {charge} × {r.count}"))


def _capacity_charge(matched: list[tuple[Pool, dict[str, Any]]], dimension: str, explicit: Any,
                     rpath: str) -> Quantity:
    best: Quantity | None = None
    has_dimension = False
    for _, device in matched:
        cap = (device.get("capacity") or {}).get(dimension)
        if cap is None:
            continue
        has_dimension = True
        policy = cap.get("requestPolicy") or None
        if explicit is not None:
            base = parse_quantity(explicit)
        elif policy and policy.get("default") is not None:
            base = parse_quantity(policy["default"])
        else:
            base = parse_quantity(cap.get("value"))
        rounded = _round_to_policy(base, policy)
        if rounded is not None and (best is None or rounded.value > best.value):
            best = rounded
    if not has_dimension:
        raise Stop(STEP, [FieldError(INTERNAL, rpath, f'matched devices have no capacity dimension "{dimension}"')])
    if best is None:
        raise Stop(STEP, [FieldError(INVALID, rpath, "capacity request cannot be satisfied by any matched "
                                                     f'device\'s RequestPolicy for dimension "{dimension}"', None)])
    return best


def _round_to_policy(base: Quantity, policy: dict[str, Any] | None) -> Quantity | None:
    if not policy:
        return base
    valid = policy.get("validValues") or []
    if valid:
        for v in valid:
            q = parse_quantity(v)
            if q.value >= base.value:
                return q
        return None
    vr = policy.get("validRange")
    if vr:
        return _round_to_range(base, vr)
    return base


def _round_to_range(base: Quantity, vr: dict[str, Any]) -> Quantity | None:
    val = math.ceil(base.value)
    if vr.get("min") is not None:
        mn = math.ceil(parse_quantity(vr["min"]).value)
        val = max(val, mn)
        if vr.get("step") is not None:
            step = math.ceil(parse_quantity(vr["step"]).value)
            if step > 0 and (val - mn) % step:
                val = mn + ((val - mn) // step + 1) * step
    if vr.get("max") is not None and val > math.ceil(parse_quantity(vr["max"]).value):
        return None
    return Quantity.from_int(val, base.format)
