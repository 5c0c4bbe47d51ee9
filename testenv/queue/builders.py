"""Kueue queue objects as plain dicts, for the queue model's tests: ClusterQueues with resource
groups, borrowing/lending limits, preemption policies and flavor fungibility; Cohorts;
ResourceFlavors with labels, taints and tolerations; LocalQueues; Workloads pending or holding
quota (``status.admission``, QuotaReserved, Evicted/Preempted conditions).

Quantities are written as Kueue writes them (``"2"``, ``"500m"``, ``"1Gi"``).
"""

from __future__ import annotations

from typing import Any

T0 = "2026-01-01T00:00:00Z"


def at(minute: int, second: int = 0) -> str:
    return f"2026-01-01T00:{minute:02d}:{second:02d}Z"


def quota(nominal: str, borrowing: str | None = None, lending: str | None = None) -> dict[str, str]:
    out = {"nominalQuota": nominal}
    if borrowing is not None:
        out["borrowingLimit"] = borrowing
    if lending is not None:
        out["lendingLimit"] = lending
    return out


def flavor_quotas(name: str, **resources: str | dict[str, str]) -> dict[str, Any]:
    """``flavor_quotas("default", cpu="4", nvidia_com_gpu=quota("2", borrowing="1"))``; ``_`` in a
    keyword stands for ``.`` after the first and ``/`` before the last part (nvidia_com_gpu →
    nvidia.com/gpu); use ``res=`` with a dict for other names."""
    items = dict(resources.pop("res", {}) or {})  # type: ignore[arg-type]
    for key, value in resources.items():
        items[_name(key)] = value
    return {"name": name, "resources": [
        {"name": n, **(v if isinstance(v, dict) else {"nominalQuota": v})} for n, v in items.items()]}


def _name(key: str) -> str:
    parts = key.split("_")
    if len(parts) == 1:
        return key
    return ".".join(parts[:-1]) + "/" + parts[-1]


def group(*flavors: dict[str, Any], covered: list[str] | None = None) -> dict[str, Any]:
    names = covered or list(dict.fromkeys(r["name"] for f in flavors for r in f["resources"]))
    return {"coveredResources": names, "flavors": list(flavors)}


def cluster_queue(name: str, *groups: dict[str, Any], cohort: str | None = None, within: str | None = None,
                  reclaim: str | None = None, borrow: str | None = None, threshold: int | None = None,
                  fungibility: dict[str, str] | None = None, strategy: str | None = None,
                  stop: str | None = None, active: bool | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": list(groups)}
    if cohort:
        spec["cohortName"] = cohort
    preemption: dict[str, Any] = {}
    if within:
        preemption["withinClusterQueue"] = within
    if reclaim:
        preemption["reclaimWithinCohort"] = reclaim
    if borrow:
        preemption["borrowWithinCohort"] = {"policy": borrow}
        if threshold is not None:
            preemption["borrowWithinCohort"]["maxPriorityThreshold"] = threshold
    if preemption:
        spec["preemption"] = preemption
    if fungibility:
        spec["flavorFungibility"] = fungibility
    if strategy:
        spec["queueingStrategy"] = strategy
    if stop:
        spec["stopPolicy"] = stop
    status: dict[str, Any] = {}
    if active is not None:
        status["conditions"] = [{"type": "Active", "status": "True" if active else "False", "reason": "x"}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": spec, "status": status}


def cohort(name: str, parent: str | None = None, *groups: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if groups:
        spec["resourceGroups"] = list(groups)
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def flavor(name: str, labels: dict[str, str] | None = None, taints: list[dict[str, str]] | None = None,
           tolerations: list[dict[str, str]] | None = None, topology: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    if tolerations:
        spec["tolerations"] = tolerations
    if topology:
        spec["topologyName"] = topology
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": spec}


def local_queue(name: str, cluster_queue: str, namespace: str = "default", stop: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"clusterQueue": cluster_queue}
    if stop:
        spec["stopPolicy"] = stop
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def workload(name: str, *, namespace: str = "default", queue: str = "lq", priority: int | None = None,
             requests: dict[str, str] | None = None, count: int = 1, created: str = T0, uid: str | None = None,
             admitted_to: str | None = None, flavors: dict[str, str] | None = None,
             usage: dict[str, str] | None = None, reserved_at: str = T0, conditions: list[dict[str, Any]] = (),
             pod_spec: dict[str, Any] | None = None, annotations: dict[str, str] | None = None,
             active: bool | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Workload with one pod set ``main``; ``admitted_to``: it holds quota there, with
    ``flavors`` (resource → flavor) and ``usage`` (resource → total, default: requests × count)."""
    container = {"name": "c", "image": "x", "resources": {"requests": dict(requests or {"cpu": "1"})}}
    spec_: dict[str, Any] = {"queueName": queue, "podSets": [
        {"name": "main", "count": count, "template": {"spec": {"containers": [container], **(pod_spec or {})}}}]}
    if priority is not None:
        spec_["priority"] = priority
    if active is not None:
        spec_["active"] = active
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "uid": uid or f"uid-{name}",
                            "creationTimestamp": created}
    if annotations:
        meta["annotations"] = annotations
    if labels:
        meta["labels"] = labels
    status: dict[str, Any] = {"conditions": list(conditions)}
    if admitted_to:
        status["admission"] = {"clusterQueue": admitted_to, "podSetAssignments": [{
            "name": "main", "count": count, "flavors": dict(flavors or {}),
            "resourceUsage": dict(usage or requests or {"cpu": "1"})}]}
        status["conditions"] = [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                 "lastTransitionTime": reserved_at}, *status["conditions"]]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": meta, "spec": spec_,
            "status": status}


def cond(ctype: str, status: str = "True", reason: str = "", message: str = "", at_: str = T0) -> dict[str, Any]:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": at_}
