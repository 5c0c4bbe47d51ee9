"""What ``explain`` says about the steps around the charge: amounts it cannot know, Kueue's
admissibility checks on the adjusted pod specs, a partially admitted Workload ("4 requested, 3
admitted"), and whether partial admission could fit a pending one (the counts Kueue's reducer
would try, against the ClusterQueue's unused quota).

Pure: takes the charge result and the ClusterQueue, returns the document part and findings.
"""

from __future__ import annotations

from typing import Any

from ...findings import codes as F
from ...kueue.charge import ChargeResult
from ...kueue.queues.cluster_queue import covered_resources
from ...kueue.queues.quota import QuotaWorld, Verdict, verdict
from ...kueue.queues.quota_tree import TreeError
from ...kueue.workloads.admissibility import admissibility_message
from ...kueue.workloads.partial import can_be_partially_admitted, search
from ...kueue.workloads.podsets import PodSet
from ...kueue.workloads.status import Cause, cause_of


def unknown_findings(result: ChargeResult) -> list[dict[str, Any]]:
    return [F.ChargeUnknown.make(f"pod set {ps.name}: the {name} charge is unknown: {why}",
                                 variant="unreadable" if "could not be read" in why or "forbidden" in why else "")
            for ps in result.podsets for name, why in sorted(ps.unknown.items())]


def admissibility_findings(result: ChargeResult, limit_ranges: list[dict[str, Any]] | None,
                           admitted: bool) -> list[dict[str, Any]]:
    """Kueue's ValidateAdmissibility, predicted for a workload that is not admitted yet."""
    if admitted or result.rejected:
        return []
    message = admissibility_message([ps.adjusted_spec for ps in result.podsets], limit_ranges)
    if message is None:
        return []
    found = cause_of(message) or Cause(F.NotAdmissible, "Kueue's admissibility check fails")
    return [found.code.make(f"Kueue keeps it waiting before it looks at quota: {found.cause}. Kueue's message: "
                            f"{message}", variant=found.variant, extra={"predicted": True})]


def admission_counts_findings(result: ChargeResult) -> list[dict[str, Any]]:
    out = []
    for ps in result.podsets:
        if ps.admitted_count is not None and ps.admitted_count < ps.count:
            low = f", minCount {ps.min_count}" if ps.min_count is not None else ""
            out.append(F.PartiallyAdmitted.make(f"pod set {ps.name}: {ps.count} requested, {ps.admitted_count} "
                                                f"admitted (partial admission{low}): Kueue charges "
                                                f"{ps.admitted_count} pods"))
    return out


def _per_podset(result: ChargeResult, counts: dict[str, int]) -> list[tuple[str, dict[str, int]]]:
    """(pod set, {resource: total}) at the given counts, what the flavor assigner is asked."""
    return [(ps.name, {name: v * counts.get(ps.name, ps.count) for name, v in ps.per_pod.items()
                       if name not in ps.unknown and v > 0}) for ps in result.podsets]


def partial_admission_part(world: QuotaWorld | None, podsets: list[PodSet], result: ChargeResult,
                           admitted: bool, enabled: bool,
                           binary: set[str]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """For a workload that is not admitted and may be admitted partially: the counts the reducer
    would admit it with now (each tried count judged by the quota verdict, cohort included), or
    that not even its minCounts fit."""
    if admitted or result.rejected or not can_be_partially_admitted(podsets):
        return None, []
    doc: dict[str, Any] = {"enabled": enabled, "minCounts": {ps.name: ps.min_count for ps in podsets},
                           "counts": None, "possible": None, "reason": None}
    if not enabled:
        doc["reason"] = "the PartialAdmission feature gate is off"
        return doc, []
    if world is None:
        doc["reason"] = "the ClusterQueue is unknown"
        return doc, []
    if any(ps.unknown for ps in result.podsets):
        doc["reason"] = "the charge is unknown"
        return doc, []
    covered = covered_resources(world.cluster_queue)
    if any(name not in covered for _, totals in _per_podset(result, {}) for name in totals):
        doc["reason"] = "a resource is not covered by the ClusterQueue: no count fits"
        doc["possible"] = False
        return doc, []

    def fits(counts: dict[str, int]) -> bool:
        return verdict(world, _per_podset(result, counts), binary) is None

    full = {ps.name: ps.count for ps in podsets}
    try:
        if fits(full):
            doc.update(possible=True, counts=full, reason="the full counts fit")
            return doc, []
        found = search(podsets, fits)
        at_minimum = None if found.counts else verdict(world, _per_podset(result, found.minimum), binary)
    except TreeError as e:
        doc["reason"] = f"the quota of the cohort is unknown: {e}"
        return doc, []
    doc.update(possible=found.counts is not None, counts=found.counts)
    return doc, [_search_finding(podsets, found.counts, found.minimum, at_minimum, world)]


def _search_finding(podsets: list[PodSet], counts: dict[str, int] | None, minimum: dict[str, int],
                    at_minimum: Verdict | None, world: QuotaWorld) -> dict[str, Any]:
    cq_name = (world.cluster_queue.get("metadata") or {}).get("name")
    if counts is not None:
        sets = ", ".join(f"{ps.name} with {counts[ps.name]} of {ps.count} pods" for ps in podsets)
        return F.PartialAdmissionFits.make(f"partial admission fits ClusterQueue {cq_name} now: Kueue's pod-count "
                                           f"search admits {sets}")
    low = ", ".join(f"{ps.name} {minimum[ps.name]} of {ps.count}" for ps in podsets)
    why = "; ".join(r.text for r in at_minimum.reasons) if at_minimum else "no flavor fits"
    return F.PartialAdmissionDoesNotFit.make(
        f"not even partial admission fits ClusterQueue {cq_name} now: at the minimum counts ({low}): {why}")
