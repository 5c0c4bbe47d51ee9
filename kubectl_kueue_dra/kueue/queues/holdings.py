"""Which Workloads hold a ClusterQueue's quota, and which wait for it.

A Workload holds quota from the moment Kueue reserves it (``status.admission`` is written, condition
``QuotaReserved``) until it finishes or is evicted (then ``status.admission`` is cleared): what it
holds is ``status.admission.podSetAssignments[].resourceUsage``, each resource in the flavor the
assignment's ``flavors`` names. A Workload waits for the ClusterQueue its LocalQueue
(``spec.queueName`` in its namespace) points at while it has no admission, is not finished and
not deactivated (``spec.active: false``); what it asks for is the sum of
``status.resourceRequests`` (Kueue's totals per pod set, after LimitRange defaults, RuntimeClass
overhead, transformations and the DRA charge).

Pure: Workloads and LocalQueues as JSON dicts in, amounts in Kueue's int64 units out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...dra.quantity import QuantityError, parse_quantity
from ..units import kueue_int, sat_add
from ..workloads.status import condition, workload_state

FlavorResource = tuple[str, str]


def amount(resource: str, value: Any) -> int | None:
    """A quantity in Kueue's units (None when it is not one)."""
    try:
        return kueue_int(resource, parse_quantity(value))
    except (QuantityError, TypeError):
        return None


@dataclass
class Holder:
    """A Workload that holds quota of the ClusterQueue (Admitted, or QuotaReserved)."""

    namespace: str
    name: str
    state: str
    local_queue: str | None
    priority: int | None
    priority_class: str | None
    usage: dict[FlavorResource, int] = field(default_factory=dict)


@dataclass
class Waiter:
    """A Workload waiting for the ClusterQueue (pending or inadmissible)."""

    namespace: str
    name: str
    state: str
    local_queue: str | None
    priority: int | None
    priority_class: str | None
    #: the sum of status.resourceRequests; None when Kueue has not written them
    requests: dict[str, int] | None = None


@dataclass
class QueueWorkloads:
    holders: list[Holder] = field(default_factory=list)
    waiters: list[Waiter] = field(default_factory=list)

    def demand(self) -> dict[str, int]:
        """What the waiting Workloads ask for, summed per resource (those with known requests)."""
        out: dict[str, int] = {}
        for w in self.waiters:
            for name, value in (w.requests or {}).items():
                out[name] = sat_add(out.get(name, 0), value)
        return out

    def without_requests(self) -> int:
        return sum(1 for w in self.waiters if w.requests is None)


def _identity(wl: dict[str, Any]) -> tuple[str, str, str | None, int | None, str | None]:
    meta, spec = wl.get("metadata") or {}, wl.get("spec") or {}
    priority = spec.get("priority")
    # v1beta2: priorityClassRef {group, kind, name}; v1beta1: priorityClassName
    pclass = (spec.get("priorityClassRef") or {}).get("name") or spec.get("priorityClassName")
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""), spec.get("queueName"),
            priority if isinstance(priority, int) and not isinstance(priority, bool) else None, pclass)


def _usage(admission: dict[str, Any]) -> dict[FlavorResource, int]:
    out: dict[FlavorResource, int] = {}
    for assignment in admission.get("podSetAssignments") or []:
        flavors = assignment.get("flavors") or {}
        for resource, value in (assignment.get("resourceUsage") or {}).items():
            got = amount(resource, value)
            if got is not None:
                key = (str(flavors.get(resource) or ""), resource)
                out[key] = sat_add(out.get(key, 0), got)
    return out


def _requests(wl: dict[str, Any]) -> dict[str, int] | None:
    podsets = (wl.get("status") or {}).get("resourceRequests")
    if not podsets:
        return None
    out: dict[str, int] = {}
    for podset in podsets:
        for resource, value in (podset.get("resources") or {}).items():
            got = amount(resource, value)
            if got is not None:
                out[resource] = sat_add(out.get(resource, 0), got)
    return out


def _finished(wl: dict[str, Any]) -> bool:
    c = condition(wl, "Finished")
    return bool(c and c.get("status") == "True")


def by_cluster_queue(workloads: Iterable[dict[str, Any]],
                     local_queues: Iterable[dict[str, Any]] | None) -> dict[str, QueueWorkloads]:
    """ClusterQueue name -> the Workloads holding its quota and those waiting for it, each sorted
    by namespace and name. Without LocalQueues (None: unknown) no Workload is known to wait."""
    target = {(str((lq.get("metadata") or {}).get("namespace") or ""), str((lq.get("metadata") or {}).get("name"))):
              (lq.get("spec") or {}).get("clusterQueue") for lq in local_queues or []}
    out: dict[str, QueueWorkloads] = {}
    for wl in workloads:
        if _finished(wl):
            continue
        namespace, name, lq, priority, pclass = _identity(wl)
        admission = (wl.get("status") or {}).get("admission") or {}
        if admission.get("clusterQueue"):
            out.setdefault(str(admission["clusterQueue"]), QueueWorkloads()).holders.append(
                Holder(namespace, name, workload_state(wl), lq, priority, pclass, _usage(admission)))
            continue
        if (wl.get("spec") or {}).get("active") is False or not lq:
            continue
        cq = target.get((namespace, str(lq)))
        if cq:
            out.setdefault(str(cq), QueueWorkloads()).waiters.append(
                Waiter(namespace, name, workload_state(wl), lq, priority, pclass, _requests(wl)))
    for found in out.values():
        found.holders.sort(key=lambda h: (h.namespace, h.name))
        found.waiters.sort(key=lambda w: (w.namespace, w.name))
    return out
