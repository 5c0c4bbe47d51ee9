"""The ``classes`` report: for each DeviceClass, the quota resource Kueue charges for it and why,
the queues that cover that resource, the devices that match, and what is wrong.

Pure: takes the objects, returns the JSON document of the output contract.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...dra.cel import CelCompileError, CelError, SelectorEvaluator, compile_selector
from ...dra.device_classes import class_selectors, extended_resource_winners
from ...dra.devices import Pool, ShapeIndex, count_matching
from ...findings import codes as F
from ...kueue.config.mappings import Mapping, lookup, mappings_for
from ...kueue.install.command import map_restart
from ...kueue.queues.cluster_queue import queues_covering
from ...kueue.queues.proposals import cover_fix, quota_resource_for
from ...kueue.queues.supply import resource_supply
from ..dropped import Dropped


@dataclass(frozen=True, kw_only=True)
class Fixes:
    """What the fixes of every class are filled with: the resources already charged (None: unknown),
    how ``map set`` is run here (``--restart`` upstream)."""

    charged: set[str] | None
    restart: str = ""


def _sharing(device_classes: list[dict[str, Any]], ern: str) -> list[str]:
    return sorted(dc["metadata"]["name"] for dc in device_classes
                  if (dc.get("spec") or {}).get("extendedResourceName") == ern)


def describe_class(dc: dict[str, Any], *, device_classes: list[dict[str, Any]],
                   mappings: list[Mapping] | None, cluster_queues: list[dict[str, Any]] | None,
                   pools: list[Pool] | None, evaluator: SelectorEvaluator,
                   winners: dict[str, str], index: ShapeIndex | None = None,
                   fixes: Fixes | None = None,
                   dropped: Sequence[tuple[Dropped, dict[str, Any]]] = ()) -> dict[str, Any]:
    name = dc["metadata"]["name"]
    ern: str | None = (dc.get("spec") or {}).get("extendedResourceName")
    selectors = class_selectors(dc)
    findings: list[dict[str, Any]] = [f for _, f in dropped]  # written, not stored: said first
    fixes = fixes or Fixes(charged=None)

    mapping = lookup(mappings, name) if mappings is not None else None
    all_mappings = mappings_for(mappings, name) if mappings is not None else []
    ern_usable = bool(ern) and ern is not None and winners.get(ern) == name
    quota_resource: str | None
    quota_source: str | None
    if mapping is not None:
        quota_resource, quota_source = mapping.name, "mapping"
    elif ern_usable:
        quota_resource, quota_source = ern, "extendedResourceName"
    else:
        quota_resource, quota_source = None, None

    if ern and ern_usable and len(_sharing(device_classes, ern)) > 1:  # said once, by the class that wins
        losers = [c for c in _sharing(device_classes, ern) if c != name]
        findings.append(F.DuplicateExtendedResourceName.make(
            f"extendedResourceName {ern} is set on {name} and {', '.join(losers)}; the scheduler and Kueue "
            f"pick {name} (newest, then first by name), so requests for {ern} never use {', '.join(losers)}",
            clear="; ".join(f"kubectl kueue-dra classes set-extended-resource {c} --clear" for c in losers)))

    if mappings is not None and quota_resource is None:
        choice = quota_resource_for(name, cluster_queues=cluster_queues, charged=fixes.charged)
        lost = " (the one it was written with was dropped by the API server)" if any(
            d.written.field == "spec.extendedResourceName" for d, _ in dropped) else ""
        findings.append(F.NoQuotaResource.make(
            f"{name} is not in deviceClassMappings and has no usable extendedResourceName{lost}: Kueue "
            f"rejects ResourceClaimTemplates that request it (\"DeviceClass {name} is not mapped in "
            f"DRA configuration\")", device_class=name, quota_resource=choice.value, why=choice.why,
            restart=fixes.restart))

    if ern and ern_usable and mapping is not None and mapping.counter_sources:
        findings.append(F.ExtendedResourceWithCounters.make(
            f"pods requesting {ern} resolve to {name}, whose mapping {mapping.name} has counter "
            f"sources: Kueue rejects them (\"use ResourceClaimTemplates with CEL selectors for "
            f"counter-based quota\")", device_class=name))

    covered_by: list[str] | None = None
    if cluster_queues is not None:
        covered_by = []
        charged = [m.name for m in all_mappings] or ([quota_resource] if quota_resource else [])
        for resource in charged:
            queues = queues_covering(cluster_queues, resource)
            covered_by.extend(q for q in queues if q not in covered_by)
            if not queues:
                found = next((m for m in all_mappings if m.name == resource), None)
                have, what = (resource_supply(pools, classes=found.device_class_names if found else (name,),
                                              mapping=found, device_classes=device_classes, evaluator=evaluator,
                                              index=index)
                              if pools is not None else (None, "the ResourceSlices could not be read"))
                findings.append(F.NotCoveredByQueue.make(
                    f"no ClusterQueue covers {resource}: workloads charged {resource} for {name} "
                    f"are not admitted (\"resource {resource} unavailable in ClusterQueue\")",
                    **cover_fix(cluster_queues, resource, have, what=what)))

    matching: int | None = None
    matching_pools: int | None = None
    compiled_ok = True
    for expr in selectors:
        try:
            compile_selector(expr)
        except CelError as e:
            compiled_ok = False
            findings.append(_selector_problem(name, e))
    if pools is not None and compiled_ok:
        count = count_matching(pools, selectors, evaluator, index)
        matching, matching_pools = count.devices, count.pools
        if count.unevaluable:
            matching = matching_pools = None
        for detail, n in count.unevaluable.items():
            findings.append(F.SelectorNotEvaluable.make(
                f"selector of {name} is valid in Kubernetes but not evaluable by this tool on {n} device(s) "
                f"({detail}): the number of matching devices is unknown"))
        for message, n in count.errors.items():
            findings.append(F.SelectorEvaluationError.make(
                f"selector of {name} fails on {n} device(s): {message}; the scheduler cannot allocate "
                f"claims of this class while such devices exist"))
        if count.incomplete_pool_devices:
            findings.append(F.IncompletePool.make(
                f"{count.incomplete_pool_devices} matching device(s) are in incomplete pools and are not "
                "allocatable until the driver publishes every slice"))
        if matching == 0 and not count.errors:
            findings.append(F.NoMatchingDevices.make(f"no device in any complete ResourceSlice pool matches {name}"))

    return {
        "name": name,
        "extendedResourceName": ern,
        "quotaResource": quota_resource,
        "quotaSource": quota_source,
        "mappings": [m.name for m in all_mappings],
        "matchingDevices": matching,
        "matchingPools": matching_pools,
        "coveredBy": covered_by,
        "selectors": selectors,
        "droppedFields": [d.to_json() for d, _ in dropped],
        "findings": findings,
    }


def classes_report(device_classes: list[dict[str, Any]], *, mappings: list[Mapping] | None,
                   cluster_queues: list[dict[str, Any]] | None, pools: list[Pool] | None,
                   evaluator: SelectorEvaluator | None = None, config_kind: str | None = None,
                   dropped: Sequence[tuple[Dropped, dict[str, Any]]] = ()) -> list[dict[str, Any]]:
    """Each DeviceClass described; ``dropped``: the gated fields the API server dropped (``commands/
    dropped``), each with its finding — a class's own are said with it."""
    evaluator = evaluator or SelectorEvaluator()
    winners = extended_resource_winners(device_classes)
    fixes = Fixes(charged=None if mappings is None else {m.name for m in mappings} | set(winners),
                  restart=map_restart(config_kind))
    ordered = sorted(device_classes, key=lambda dc: dc["metadata"]["name"])
    index = _shape_index(ordered, pools, evaluator) if pools is not None else None
    return [describe_class(dc, device_classes=device_classes, mappings=mappings,
                           cluster_queues=cluster_queues, pools=pools, evaluator=evaluator,
                           winners=winners, index=index, fixes=fixes,
                           dropped=[(d, f) for d, f in dropped if d.kind == "DeviceClass"
                                    and d.name == dc["metadata"]["name"]]) for dc in ordered]


def _shape_index(device_classes: list[dict[str, Any]], pools: list[Pool],
                 evaluator: SelectorEvaluator) -> ShapeIndex | None:
    """One grouping of the devices for every class whose selectors compile and read named parts of
    the device only: each device is keyed once, not once per class."""
    shared = []
    for dc in device_classes:
        selectors = class_selectors(dc)
        try:
            if all(compile_selector(e).footprint is not None for e in selectors):
                shared.append(selectors)
        except CelError:
            continue
    return ShapeIndex(pools, shared, evaluator) if shared else None


def _selector_problem(name: str, e: Exception) -> dict[str, Any]:
    """A selector that does not compile, or that compiles in Kubernetes but not here."""
    if isinstance(e, CelCompileError) and e.unsupported:
        return F.SelectorNotEvaluable.make(f"selector of {name} is valid in Kubernetes but not evaluable by this "
                                           f"tool ({e.detail}): the number of matching devices is unknown")
    return F.SelectorInvalid.make(f"selector of {name} does not compile: {e}", device_class=name)


def class_devices(dc: dict[str, Any], *, mappings: list[Mapping] | None, pools: list[Pool],
                  evaluator: SelectorEvaluator) -> dict[str, Any]:
    """The devices one DeviceClass matches, grouped by shape (``dra/device_shapes``): what its
    selectors and its mappings' counter selectors read, the counters those mappings charge (every
    counter when none does), and whether each counter source's deviceSelector matches."""
    from ...dra.device_shapes import device_shapes

    name = dc["metadata"]["name"]
    selectors = class_selectors(dc)
    sources = [(m.name, s) for m in mappings_for(mappings, name) for s in m.counter_sources] if mappings else []
    findings: list[dict[str, Any]] = []
    for expr in selectors:
        try:
            compile_selector(expr)
        except CelError as e:
            findings.append(_selector_problem(name, e))
    doc: dict[str, Any] = {
        "deviceClass": name, "selectors": selectors,
        "counterSources": [dict(s.to_json(), mapping=m) for m, s in sources],
        "matchingDevices": None, "shapes": [], "findings": findings}
    if findings:
        return doc
    labels = [f"{m}/{s.name}" for m, s in sources]
    report = device_shapes(pools, selectors, evaluator, counters={s.name for _, s in sources} or None,
                           tests=[(s.driver, [s.selector] if s.selector else []) for _, s in sources])
    shapes = sorted(report.shapes, key=lambda s: (s.driver, -s.devices, s.profile or "", repr(s.read),
                                                  repr(s.counters)))
    doc["shapes"] = [s.to_json(labels) for s in shapes]
    doc["matchingDevices"] = sum(s.devices for s in shapes)
    for message, n in report.errors.items():
        findings.append(F.SelectorEvaluationError.make(
            f"selector of {name} fails on {n} device(s): {message}; they are not listed"))
    if report.incomplete_pool_devices:
        findings.append(F.IncompletePool.make(
            f"{report.incomplete_pool_devices} matching device(s) are in incomplete pools and are not listed (not "
            "allocatable until the driver publishes every slice)"))
    for label, (_, source) in zip(labels, sources):
        if shapes and not any(s.tests[labels.index(label)] is True for s in shapes):
            findings.append(F.CounterSelectorMatchesNone.make(
                f"the counter source {label} (driver {source.driver}) matches none of the devices of {name}: Kueue "
                f"charges them nothing under {label.split('/')[0]}"))
    return doc
