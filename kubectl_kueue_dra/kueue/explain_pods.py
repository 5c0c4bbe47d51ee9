"""What explain reads beyond the Workload: ResourceSlices as the charge engine asks for them, and
the Job's pods with the devices their claims were allocated, beside what Kueue charged."""

from __future__ import annotations

from typing import Any

from ..findings import finding
from ..kube.view import ClusterView
from .allocation import allocations, overcharge
from .charge import ChargeResult, CounterLine, Unknowable
from .subject import JOB_NAME_LABEL, Subject


class SliceSource:
    """ResourceSlices as the charge engine asks for them: every slice, or one driver's (on a live
    cluster a ``spec.driver`` field selector, so a MIG counter charge reads only the GPU driver's
    slices); each answer is cached by the view, a driver's list is cut from an earlier full list."""

    def __init__(self, view: ClusterView):
        self.view = view

    def __call__(self, driver: str | None) -> list[dict[str, Any]]:
        """The slices, or ``Unknowable`` naming the 403 (never an empty list for an unreadable one)."""
        found = self.view.try_list("ResourceSlice") if driver is None else \
            self.view.try_list("ResourceSlice", field_selector={"spec.driver": driver})
        if found is None:
            raise Unknowable("counters" if driver else "claim-templates", self.view.forbidden("ResourceSlice")
                             or "the ResourceSlices could not be read")
        return found

    def for_drivers(self, drivers: set[str]) -> list[dict[str, Any]] | None:
        """Those drivers' slices; None when they cannot be read."""
        try:
            return [s for d in sorted(drivers) for s in self(d)]
        except Unknowable:
            return None


def _workload_pods(view: ClusterView, subject: Subject) -> list[dict[str, Any]]:
    owner = subject.owner
    if owner is None:
        return []
    name = owner["metadata"]["name"]
    if owner.get("kind") == "Pod":
        return [owner]
    pods: list[dict[str, Any]] = view.try_list("Pod", subject.namespace,
                                               label_selector=f"{JOB_NAME_LABEL}={name}") or []
    return [p for p in pods if any(o.get("uid") == owner["metadata"].get("uid")
                                   for o in (p.get("metadata") or {}).get("ownerReferences") or [])] or pods


def workload_allocations(view: ClusterView, subject: Subject, slices: SliceSource) -> list[dict[str, Any]]:
    pods = _workload_pods(view, subject)
    if not any((p.get("spec") or {}).get("resourceClaims") or
               (p.get("status") or {}).get("extendedResourceClaimStatus") for p in pods):
        return []
    claims: list[dict[str, Any]] | None = view.try_list("ResourceClaim", subject.namespace)
    drivers = {r.get("driver") for c in claims or []
               for r in ((((c.get("status") or {}).get("allocation") or {}).get("devices") or {}).get("results") or [])
               if isinstance(r.get("driver"), str)}
    return allocations(pods, claims, slices.for_drivers(drivers))


def overcharge_findings(allocated: list[dict[str, Any]], result: ChargeResult) -> list[dict[str, Any]]:
    out = []
    for ps in result.podsets:
        for line in ps.lines:
            if not isinstance(line, CounterLine):
                continue
            low = overcharge(allocated, line.counter, line.counter_value)
            if low:
                out.append(finding(
                    "info", "ChargedAboveAllocation",
                    f"Kueue charges {line.counter_value} of {line.counter} per device (the MAX over every "
                    f"device the request could get), but {len(low)} allocated device(s) consume less "
                    f"({', '.join(low[:3])}{'…' if len(low) > 3 else ''})",
                    "narrow the request's CEL selector to one device shape to make the charge exact"))
    return out

