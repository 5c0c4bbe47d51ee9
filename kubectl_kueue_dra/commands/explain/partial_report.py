"""What ``explain`` says about the steps around the charge: amounts it cannot know, Kueue's
admissibility checks on the adjusted pod specs, a partially admitted Workload ("4 requested, 3
admitted"), and whether partial admission could fit a pending one (the counts Kueue's reducer
would try, each judged by the queue model as the scheduler judges it).

Pure: takes the charge result and the ClusterQueue, returns the document part and findings.
"""

from __future__ import annotations

from typing import Any

from ...findings import codes as F
from ...kueue.charge import ChargeResult
from ...kueue.queues.cluster_queue import covered_resources
from ...kueue.scheduler.assigner import assign, fits_or_preempts
from ...kueue.scheduler.assignment import Assignment
from ...kueue.workloads.admissibility import admissibility_message
from ...kueue.workloads.partial import can_be_partially_admitted, search
from ...kueue.workloads.podsets import PodSet
from ...kueue.workloads.status import Cause, cause_of
from .queue_model import QueueModel


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


def partial_admission_part(model: QueueModel | None, podsets: list[PodSet], result: ChargeResult,
                           admitted: bool, enabled: bool,
                           binary: set[str]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """For a workload that is not admitted and may be admitted partially: the counts Kueue's
    reducer would admit it with now (each count judged as the scheduler judges it: a fit, or a
    preemption with targets), or that not even its minCounts fit."""
    if admitted or result.rejected or not can_be_partially_admitted(podsets):
        return None, []
    doc: dict[str, Any] = {"enabled": enabled, "minCounts": {ps.name: ps.min_count for ps in podsets},
                           "counts": None, "possible": None, "reason": None}
    if not enabled:
        doc["reason"] = "the PartialAdmission feature gate is off"
        return doc, []
    if model is None or model.cluster_queue is None:
        doc["reason"] = "the ClusterQueue is unknown"
        return doc, []
    if any(ps.unknown for ps in result.podsets):
        doc["reason"] = "the charge is unknown"
        return doc, []
    covered = covered_resources(model.cluster_queue)
    if not model.world.ignores_undeclared and \
            any(name not in covered and v for ps in result.podsets for name, v in ps.total.items()):
        doc["reason"] = "a resource is not covered by the ClusterQueue: no count fits"
        doc["possible"] = False
        return doc, []
    snap, pre = model.snapshot, model.preemptor
    if snap is None or pre is None:
        doc["reason"] = f"the quota of the cohort is unknown: {model.unknown}"
        return doc, []
    unknowns: list[str] = []

    def fits(counts: dict[str, int]) -> bool:
        verdict = fits_or_preempts(snap, pre, assign(snap, pre, binary=frozenset(binary), counts=counts))
        if verdict is None:
            unknowns.append("whether preemption frees enough is unknown")
        return bool(verdict)

    full = {ps.name: ps.count for ps in podsets}
    if fits(full):
        doc.update(possible=True, counts=full, reason="the full counts fit")
        return doc, []
    found = search(podsets, fits)
    if unknowns and found.counts is None:
        doc["reason"] = unknowns[0]
        return doc, []
    at_minimum = None if found.counts else assign(snap, pre, binary=frozenset(binary), counts=found.minimum)
    doc.update(possible=found.counts is not None, counts=found.counts)
    return doc, [_search_finding(podsets, found.counts, found.minimum, at_minimum, model)]


def _search_finding(podsets: list[PodSet], counts: dict[str, int] | None, minimum: dict[str, int],
                    at_minimum: Assignment | None, model: QueueModel) -> dict[str, Any]:
    cq_name = ((model.cluster_queue or {}).get("metadata") or {}).get("name")
    if counts is not None:
        sets = ", ".join(f"{ps.name} with {counts[ps.name]} of {ps.count} pods" for ps in podsets)
        return F.PartialAdmissionFits.make(f"partial admission fits ClusterQueue {cq_name} now: Kueue's pod-count "
                                           f"search admits {sets}")
    low = ", ".join(f"{ps.name} {minimum[ps.name]} of {ps.count}" for ps in podsets)
    reasons = [r.message for p in (at_minimum.podsets if at_minimum else []) for r in p.reasons]
    why = "; ".join(reasons) if reasons else "no flavor fits"
    return F.PartialAdmissionDoesNotFit.make(
        f"not even partial admission fits ClusterQueue {cq_name} now: at the minimum counts ({low}): {why}")
