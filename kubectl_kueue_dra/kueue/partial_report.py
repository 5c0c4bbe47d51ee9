"""What ``explain`` says about the steps around the charge: amounts it cannot know, Kueue's
admissibility checks on the adjusted pod specs, a partially admitted Workload ("4 requested, 3
admitted"), and whether partial admission could fit a pending one (the counts Kueue's reducer
would try, against the ClusterQueue's unused quota).

Pure: takes the charge result and the ClusterQueue, returns the document part and findings.
"""

from __future__ import annotations

from typing import Any

from ..findings import finding
from .admissibility import admissibility_message
from .charge import ChargeResult
from .diagnose import cause_of, quota_table
from .partial import can_be_partially_admitted, search
from .podsets import PodSet


def unknown_findings(result: ChargeResult) -> list[dict[str, Any]]:
    return [finding("warning", "ChargeUnknown", f"pod set {ps.name}: the {name} charge is unknown: {why}",
                    "grant list on the objects named (deploy/rbac/reader-clusterrole.yaml)"
                    if "could not be read" in why else None)
            for ps in result.podsets for name, why in sorted(ps.unknown.items())]


def admissibility_findings(result: ChargeResult, limit_ranges: list[dict[str, Any]] | None,
                           admitted: bool) -> list[dict[str, Any]]:
    """Kueue's ValidateAdmissibility, predicted for a workload that is not admitted yet."""
    if admitted or result.rejected:
        return []
    message = admissibility_message([ps.adjusted_spec for ps in result.podsets], limit_ranges)
    if message is None:
        return []
    found = cause_of(message)
    code, cause, fix = found if found else ("NotAdmissible", "Kueue's admissibility check fails", None)
    return [finding("error", code, f"Kueue keeps it waiting before it looks at quota: {cause}. Kueue's message: "
                                   f"{message}", fix, predicted=True)]


def admission_counts_findings(result: ChargeResult) -> list[dict[str, Any]]:
    out = []
    for ps in result.podsets:
        if ps.admitted_count is not None and ps.admitted_count < ps.count:
            low = f", minCount {ps.min_count}" if ps.min_count is not None else ""
            out.append(finding("info", "PartiallyAdmitted",
                               f"pod set {ps.name}: {ps.count} requested, {ps.admitted_count} admitted (partial "
                               f"admission{low}): Kueue charges {ps.admitted_count} pods", None))
    return out


def _totals(result: ChargeResult, counts: dict[str, int]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for ps in result.podsets:
        for name, v in ps.per_pod.items():
            if name not in ps.unknown:
                totals[name] = totals.get(name, 0) + v * counts.get(ps.name, ps.count)
    return totals


def _unpredictable(cq: dict[str, Any]) -> str | None:
    """Why the unused quota of the ClusterQueue alone does not decide a fit."""
    spec = cq.get("spec") or {}
    if spec.get("cohortName") or spec.get("cohort"):
        return "the ClusterQueue is in a cohort: what it can borrow depends on the other queues"
    offered: dict[str, int] = {}
    for group in spec.get("resourceGroups") or []:
        for flavor in group.get("flavors") or []:
            for res in flavor.get("resources") or []:
                offered[res.get("name")] = offered.get(res.get("name"), 0) + 1
    if any(n > 1 for n in offered.values()):
        return "a resource is offered by several flavors"
    return None


def partial_admission_part(cluster_queue: dict[str, Any] | None, podsets: list[PodSet], result: ChargeResult,
                           admitted: bool, enabled: bool,
                           binary: set[str]) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """For a workload that is not admitted and may be admitted partially: the counts the reducer
    would admit it with now, or that not even its minCounts fit."""
    if admitted or result.rejected or not can_be_partially_admitted(podsets):
        return None, []
    doc: dict[str, Any] = {"enabled": enabled, "minCounts": {ps.name: ps.min_count for ps in podsets},
                           "counts": None, "possible": None, "reason": None}
    if not enabled:
        doc["reason"] = "the PartialAdmission feature gate is off"
        return doc, []
    if cluster_queue is None:
        doc["reason"] = "the ClusterQueue is unknown"
        return doc, []
    why = _unpredictable(cluster_queue)
    if why:
        doc["reason"] = why
        return doc, []

    def fits(counts: dict[str, int]) -> bool:
        totals = _totals(result, counts)
        rows = {r["resource"]: r for r in quota_table(cluster_queue, totals, binary)}
        return all(name in rows and rows[name]["fits"] for name, v in totals.items() if v > 0)

    full = {ps.name: ps.count for ps in podsets}
    if fits(full):
        doc.update(possible=True, counts=full, reason="the full counts fit")
        return doc, []
    found = search(podsets, fits)
    doc.update(possible=found.counts is not None, counts=found.counts)
    return doc, [_search_finding(podsets, found.counts, found.minimum, result, cluster_queue, binary)]


def _search_finding(podsets: list[PodSet], counts: dict[str, int] | None, minimum: dict[str, int],
                    result: ChargeResult, cq: dict[str, Any], binary: set[str]) -> dict[str, Any]:
    cq_name = (cq.get("metadata") or {}).get("name")
    if counts is not None:
        sets = ", ".join(f"{ps.name} with {counts[ps.name]} of {ps.count} pods" for ps in podsets)
        return finding("info", "PartialAdmissionFits",
                       f"partial admission fits ClusterQueue {cq_name} now: Kueue's pod-count search admits "
                       f"{sets}", None)
    low = ", ".join(f"{ps.name} {minimum[ps.name]} of {ps.count}" for ps in podsets)
    short = [f"{r['resource']} needs {r['request']}, {r['free']} unused"
             for r in quota_table(cq, _totals(result, minimum), binary) if not r["fits"]]
    return finding("warning", "PartialAdmissionDoesNotFit",
                   f"not even partial admission fits ClusterQueue {cq_name} now: at the minimum counts ({low}) "
                   f"{'; '.join(short) or 'a resource is not covered'}",
                   "wait for quota, lower minCount (kueue.x-k8s.io/job-min-parallelism) or raise nominalQuota")

