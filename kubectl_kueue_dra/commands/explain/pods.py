"""The past of an admitted workload, from the facts: the Job's pods with the devices their claims
were allocated, beside what Kueue charged, why the pods that are not scheduled are not, and the
recent events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...findings import codes as F
from ...k8s.envelope import owner_references
from ...k8s.job_kinds import READ_KINDS
from ...kueue.charge import ChargeResult, CounterLine
from ...kueue.workloads.allocation import allocations, claim_results, overcharge, pod_state
from ...kueue.workloads.events import related_events
from ...kueue.workloads.past import counter_supply, unscheduled_findings
from .facts import ExplainFacts
from .subject import Subject


def _owner(subject: Subject) -> tuple[str, dict[str, Any]] | None:
    """(kind, object) of what owns the Workload: the reference's Job or Pod, else what the
    Workload's controller ownerReference names (its kind, name and uid: no request)."""
    if subject.owner is not None:
        meta = subject.owner.get("metadata") or {}
        kind = subject.owner.get("kind") or "Job"
        return (kind, subject.owner) if meta.get("name") else None
    for ref in owner_references(subject.workload or {}):
        if ref.get("controller") and ref.get("kind") in READ_KINDS and ref.get("name"):
            return str(ref["kind"]), {"metadata": {"name": ref["name"], "uid": ref.get("uid")}}
    return None


def _workload_pods(facts: ExplainFacts, owner: tuple[str, dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """The owner's pods, from one list of the namespace's pods (cached: a workload list reads it
    once): those whose ownerReferences name the owner's uid (its kind and name when no uid is
    known); None when the pods cannot be read."""
    if owner is None:
        return []
    kind, obj = owner
    if kind == "Pod" and "spec" in obj:
        return [obj]
    meta = obj.get("metadata") or {}
    pods: list[dict[str, Any]] | None = facts.pods
    if pods is None:
        return None
    if kind == "Pod":
        return [p for p in pods if p["metadata"]["name"] == meta.get("name")]
    uid, name = meta.get("uid"), meta.get("name")
    return [p for p in pods
            if any((o.get("uid") == uid) if uid else ((o.get("kind"), o.get("name")) == (kind, name))
                   for o in owner_references(p))]


@dataclass
class PastAdmission:
    """The pods of a workload, their claims' devices, the findings on them, and the events."""
    pods: list[dict[str, Any]] | None  # None: the pods could not be read
    allocations: list[dict[str, Any]]
    events: list[dict[str, Any]] | None  # None: the events could not be read
    findings: list[dict[str, Any]] = field(default_factory=list)


def past_admission(facts: ExplainFacts, result: ChargeResult) -> PastAdmission:
    subject, slices = facts.subject, facts.slices
    owner = _owner(subject)
    listed = _workload_pods(facts, owner)
    pods = listed or []
    states = [pod_state(p) for p in sorted(pods, key=lambda p: p["metadata"]["name"])]
    allocated = _allocations(facts, pods)
    past = PastAdmission(states if listed is not None else None, allocated, _events(facts, owner, pods))
    if listed is None:
        past.findings.append(F.PodsUnknown.make("the workload's pods, their claims and devices are unknown (the pods "
                                                "could not be read); the answer is partial"))
    past.findings.extend(overcharge_findings(allocated, result))
    past.findings.extend(stale_device_findings(allocated))
    needs = _counter_needs(result)
    supply = None
    if any("cannot allocate all claims" in ((s.get("scheduled") or {}).get("message") or "") for s in states) \
            and needs:
        claims = facts.all_claims  # every claim holds devices the counters lose
        drivers = {d for lines in needs.values() for d, _, _, _ in lines}
        listed = slices.for_drivers(drivers)
        supply = counter_supply(listed, claims) if claims is not None and listed is not None else None
    past.findings.extend(unscheduled_findings(states, needs, supply))
    if past.events is None:
        past.findings.append(F.EventsUnknown.make("the events of the Workload, its Job and pods are unknown (they "
                                                  "could not be read); the answer is partial"))
    return past


def _counter_needs(result: ChargeResult) -> dict[str, list[tuple[str, str, str, int]]]:
    """pod set → (driver, counter, per-device charge, devices per pod) of its counter lines."""
    return {ps.name: [(line.driver, line.counter, line.counter_value, line.ref.count)
                      for line in ps.lines if isinstance(line, CounterLine)] for ps in result.podsets}


def _events(facts: ExplainFacts, owner: tuple[str, dict[str, Any]] | None,
            pods: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    subject = facts.subject
    objects: list[tuple[str, dict[str, Any]]] = [("Pod", p) for p in pods]
    if subject.workload is not None:
        objects.append(("Workload", subject.workload))
    if owner is not None and owner[0] != "Pod":
        objects.append(owner)
    if not objects:
        return []
    events = facts.events
    return None if events is None else related_events(events, objects)


def _allocations(facts: ExplainFacts, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not any((p.get("spec") or {}).get("resourceClaims") or
               (p.get("status") or {}).get("extendedResourceClaimStatus") for p in pods):
        return []
    claims: list[dict[str, Any]] | None = facts.claims
    drivers = {str(r["driver"]) for c in claims or [] for r in claim_results(c) if isinstance(r.get("driver"), str)}
    return allocations(pods, claims, facts.slices.for_drivers(drivers))


def stale_device_findings(allocated: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for a in allocated:
        if a.get("generation") in ("stale", "missing"):
            where = "only in a slice of an older generation of its pool" if a["generation"] == "stale" else \
                "in none of its pool's ResourceSlices"
            code = F.AllocatedDeviceStale if a["generation"] == "stale" else F.AllocatedDeviceMissing
            out.append(code.make(f"claim {a['claim']} of pod {a['pod']} is allocated {a['device']}, which is {where}; "
                                 "its counters are unknown (the driver no longer publishes the device)"))
    return out


def overcharge_findings(allocated: list[dict[str, Any]], result: ChargeResult) -> list[dict[str, Any]]:
    out = []
    for ps in result.podsets:
        for line in ps.lines:
            if not isinstance(line, CounterLine):
                continue
            low = overcharge(allocated, line.counter, line.counter_value)
            if low:
                shown = ", ".join(f"{d} consumes {v}" for d, v in low[:3]) + ("…" if len(low) > 3 else "")
                out.append(F.ChargedAboveAllocation.make(
                    f"Kueue charges {line.counter_value} of {line.counter} per device (the MAX over the "
                    f"{line.matched_devices} device(s) the request could get, at {line.max_device}), but "
                    f"{len(low)} allocated device(s) consume less: {shown}"))
    return out

