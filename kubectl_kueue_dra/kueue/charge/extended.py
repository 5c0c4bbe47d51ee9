"""Path B: extended resources backed by a DeviceClass (``extendedResourceName``).

Per pod: max(init containers) vs sum(containers) of each extended resource, integers only; the
DeviceClass Kueue picks when several carry the name (by Kueue version); charged under the mapping
name when the class is mapped, else under its own name; the raw name is then not charged."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...dra.device_classes import scheduler_choice
from ...dra.quantity import Quantity, parse_quantity
from ..fielderrors import INVALID, FieldError, FieldPath
from ..units import INT64_MAX
from ..workloads.podsets import PodSet, is_extended_resource_name
from .common import Tally
from .inputs import ChargeInputs
from .results import ExtendedResourceLine, Stop

STEP = "extended-resources"


@dataclass(frozen=True)
class _Entry:
    """One container's request of an extended resource."""

    key: str  # initContainers | containers
    container: str
    quantity: Quantity
    path: str


def run(inputs: ChargeInputs, podsets: list[PodSet], tallies: list[Tally]) -> None:
    errors: list[FieldError] = []
    for i, ps in enumerate(podsets):
        for name, entries in _entries(ps, i).items():
            errors.extend(_charge_name(inputs, tallies[i], name, entries))
    if errors:
        raise Stop(STEP, errors)


def _entries(ps: PodSet, i: int) -> dict[str, list[_Entry]]:
    base = FieldPath("spec", "podSets").index(i).child("template", "spec")
    entries: dict[str, list[_Entry]] = {}
    for key in ("initContainers", "containers"):
        for j, c in enumerate(ps.spec.get(key) or []):
            for name, raw in (((c.get("resources") or {}).get("requests")) or {}).items():
                if not is_extended_resource_name(name):
                    continue
                q = parse_quantity(raw)
                if q.value > 0:
                    path = str(base.child(key).index(j))
                    entries.setdefault(name, []).append(_Entry(key, c.get("name") or "", q, path))
    return entries


def _charge_name(inputs: ChargeInputs, tally: Tally, name: str, entries: list[_Entry]) -> list[FieldError]:
    """Charge one extended resource of a pod set; the errors Kueue reports for it."""
    inputs.require("DeviceClass", STEP)  # whether a class backs the name, and which one
    candidates = [dc for dc in inputs.device_classes if (dc.get("spec") or {}).get("extendedResourceName") == name]
    if not candidates:
        return []
    inputs.require("KueueConfig", STEP)
    first_path = entries[0].path
    selected = scheduler_choice(candidates) if inputs.semantics.er_scheduler_class_choice \
        else _first_mapped_device_class(candidates, inputs)
    sname = selected["metadata"]["name"]
    mapping = inputs.mapping_for(sname)
    quota_key = mapping.name if mapping is not None else name
    if mapping is not None:
        refused = _refused_class(inputs, name, sname, first_path)
        if refused:
            return [refused]
    int_errors = [FieldError(INVALID, f"{e.path}.resources.requests.{name}",
                             "extended resource quantity must be an integer", str(e.quantity))
                  for e in entries if e.quantity.value.denominator != 1]
    if int_errors:
        return int_errors
    init_max = max((e.quantity.value for e in entries if e.key == "initContainers"), default=Fraction(0))
    regular = sum((e.quantity.value for e in entries if e.key == "containers"), Fraction(0))
    pod_value = max(init_max, regular)
    if pod_value > INT64_MAX:
        return [FieldError(INVALID, f"{first_path}.resources.requests.{name}",
                           "total extended resource quantity overflows int64", str(pod_value))]
    value = int(pod_value)
    tally.replaced.add(name)
    tally.add(quota_key, value)
    tally.charge.lines.append(ExtendedResourceLine(
        resource_name=name, device_class=sname, candidates=sorted(dc["metadata"]["name"] for dc in candidates),
        mapping=mapping.name if mapping else None, resource=quota_key, per_pod=value,
        containers=[e.container for e in entries],
        detail=f"{name}: max(init containers) vs sum(containers) = {value} → {quota_key}"
        + ("" if quota_key == name else f" (mapping of {sname}); {name} itself is not charged")))
    return []


def _refused_class(inputs: ChargeInputs, name: str, sname: str, path: str) -> FieldError | None:
    """Kueue refuses an extended resource whose class is charged by counters or capacity."""
    if inputs.gates.partitionable and inputs.counter_configs(sname):
        return FieldError(INVALID, path, f"extended resource {name} resolves to DeviceClass {sname} with counters "
                                         "configured; use ResourceClaimTemplates with CEL selectors for "
                                         "counter-based quota", name)
    if inputs.gates.consumable_capacity and inputs.capacity_configs(sname):
        return FieldError(INVALID, path, f"extended resource {name} resolves to DeviceClass {sname} with capacity "
                                         "sources configured; use ResourceClaimTemplates with capacity.requests "
                                         "for capacity-based quota", name)
    return None


def _first_mapped_device_class(candidates: list[dict[str, Any]], inputs: ChargeInputs) -> dict[str, Any]:
    """Kueue before 0.18.5 and 0.19.0: the first class (in list order) that is in a mapping, else
    the first class (the extended resource name itself is then the quota key). Kueue lists them
    from an informer index, in no defined order; name order here."""
    ordered = sorted(candidates, key=lambda dc: dc["metadata"]["name"])
    return next((dc for dc in ordered if inputs.mapping_for(dc["metadata"]["name"])), ordered[0])

