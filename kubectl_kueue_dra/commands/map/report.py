"""The ``map`` report: each mapping with its DeviceClasses (and whether they exist), its sources,
the ClusterQueues covering its name, and what would keep it from charging anything.

Pure: takes the objects, returns the JSON document parts of the output contract. ``None`` for an
input means it could not be read; the checks that need it are then skipped.
"""

from __future__ import annotations

from typing import Any

from ...dra.cel import SelectorEvaluator
from ...dra.counter_sets import counter_problems
from ...dra.devices import group_pools
from ...dra.published import published
from ...dra.units import unit_scale
from ...findings import codes as F
from ...kueue.config.mappings import Mapping
from ...kueue.queues.cluster_queue import queues_covering, quota_entries
from ...kueue.queues.proposals import cover_fix
from ...kueue.queues.supply import resource_supply


def _counter_set_findings(m: Mapping, slices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Devices of a counter source's driver whose consumption does not fit their counter sets."""
    drivers = {s.driver for s in m.sources if s.type == "counter"}
    if not drivers:
        return []
    problems = counter_problems(group_pools(x for x in slices if (x.get("spec") or {}).get("driver") in drivers))
    out = []
    for driver in sorted(problems):
        found = problems[driver]
        more = f" (and {len(found) - 2} more)" if len(found) > 2 else ""
        out.append(F.InconsistentCounterSets.make(
            f"mapping {m.name}: driver {driver} publishes {len(found)} device(s) whose counters do not fit "
            f"their counter sets: {'; '.join(found[:2])}{more}", driver=driver, extra={"mapping": m.name}))
    return out


def _source_findings(m: Mapping, slices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = _counter_set_findings(m, slices)
    for s in m.sources:
        found = published(slices, s.driver)
        n_slices, names = found.slices, set(found.names(s.type))
        if not n_slices:
            out.append(F.DriverNotPublishing.make(
                f"mapping {m.name}: no ResourceSlice of driver {s.driver}: its {s.type} {s.name} "
                "cannot be charged (workloads fail with \"insufficient matching devices\")", driver=s.driver,
                extra={"mapping": m.name}))
        elif s.name not in names:
            where = "consumesCounters" if s.type == "counter" else "capacity"
            known = ", ".join(sorted(names)[:8]) or "none"
            code = F.CounterNotPublished if s.type == "counter" else F.CapacityNotPublished
            out.append(code.make(
                f"mapping {m.name}: no device of driver {s.driver} publishes {s.type} {s.name} in "
                f"{where} (published: {known}); Kueue fails such workloads with \"matched devices "
                f"have no …\"", severity="warning", variant="map" if names else "map-none",
                **({"example": sorted(names)[0]} if names else {}), extra={"mapping": m.name}))
    return out


def _cohort_findings(m: Mapping, cluster_queues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Counter and capacity resources are charged in the driver's base unit (bytes for memory):
    quotas of one cohort written in different scales (80Gi here, 80G or 80 there) lend and borrow
    amounts that were never meant to be equal."""
    if not m.sources:
        return []
    by_cohort: dict[str, dict[str, list[str]]] = {}
    for e in quota_entries(cluster_queues, m.name):
        scale = unit_scale(e.text)
        if e.cohort and scale.comparable:
            by_cohort.setdefault(e.cohort, {}).setdefault(scale.family, []).append(f"{e.cluster_queue} {e.text}")
    out = []
    for cohort, scales in sorted(by_cohort.items()):
        if len(scales) < 2:
            continue
        detail = "; ".join(f"{scale}: {', '.join(qs)}" for scale, qs in sorted(scales.items()))
        out.append(F.CohortUnitScaleMismatch.make(
            f"mapping {m.name}: ClusterQueues of cohort {cohort} give its quota in different unit "
            f"scales ({detail}); Kueue charges {m.name} in the driver's base unit, so these "
            "quotas are not what they look like next to each other", mapping=m.name, extra={"mapping": m.name}))
    return out


def _supply(m: Mapping, device_classes: list[dict[str, Any]] | None, slices: list[dict[str, Any]] | None,
            evaluator: SelectorEvaluator) -> tuple[Any, str]:
    """What the cluster has of the mapping's resource (the nominal quota a fix proposes), or why
    that is unknown."""
    if slices is None:
        return None, "the ResourceSlices could not be read"
    return resource_supply(group_pools(slices), classes=m.device_class_names, mapping=m, device_classes=device_classes,
                           evaluator=evaluator)


def describe_mapping(m: Mapping, *, device_classes: list[dict[str, Any]] | None,
                     cluster_queues: list[dict[str, Any]] | None,
                     slices: list[dict[str, Any]] | None,
                     evaluator: SelectorEvaluator | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    existing = None if device_classes is None else {dc["metadata"]["name"] for dc in device_classes}
    findings: list[dict[str, Any]] = []
    classes = []
    for name in m.device_class_names:
        exists = None if existing is None else name in existing
        classes.append({"name": name, "exists": exists})
        if exists is False:
            findings.append(F.DeviceClassMissing.make(
                f"mapping {m.name}: DeviceClass {name} does not exist", severity="warning",
                variant="map" if len(m.device_class_names) > 1 else "map-only",
                mapping=m.name, device_class=name, extra={"mapping": m.name}))
    covered_by = None
    if cluster_queues is not None:
        covered_by = queues_covering(cluster_queues, m.name)
        if not covered_by:
            have, what = _supply(m, device_classes, slices, evaluator or SelectorEvaluator())
            findings.append(F.NotCoveredByQueue.make(
                f"mapping {m.name}: no ClusterQueue covers {m.name}: workloads charged {m.name} are "
                f"not admitted (\"resource {m.name} unavailable in ClusterQueue\")",
                **cover_fix(cluster_queues, m.name, have, what=what), extra={"mapping": m.name}))
        findings += _cohort_findings(m, cluster_queues)
    if slices is not None:
        findings += _source_findings(m, slices)
    entry = m.to_json()
    entry.update({"deviceClasses": classes, "coveredBy": covered_by})
    return entry, findings


def map_report(mappings: list[Mapping], *, device_classes: list[dict[str, Any]] | None,
               cluster_queues: list[dict[str, Any]] | None,
               slices: list[dict[str, Any]] | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    entries, findings = [], []
    evaluator = SelectorEvaluator()
    for m in mappings:
        entry, found = describe_mapping(m, device_classes=device_classes,
                                        cluster_queues=cluster_queues, slices=slices, evaluator=evaluator)
        entries.append(entry)
        findings += found
    return entries, findings
