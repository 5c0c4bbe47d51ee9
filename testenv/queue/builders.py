"""The Kueue queue objects as plain dicts: the one set of builders that the queue model's unit tests
and the queue oracle's scenarios (through ``testenv.queue.objects``, which adds the per-scenario
names) both use.

ResourceFlavors with labels, taints and tolerations; ClusterQueue specs (resource groups of flavors
with quotas and borrowing/lending limits, preemption policies, queueingStrategy, stopPolicy,
admission checks, flavorFungibility, a cohort); Cohorts; LocalQueues; AdmissionChecks; priority
classes; pod sets; conditions; and, for the unit tests, Workloads pending or holding quota
(``status.admission``, QuotaReserved, Evicted/Preempted conditions).

Names are taken as given: a builder never renames. Quantities are written as Kueue writes them
(``"2"``, ``"500m"``, ``"1Gi"``).
"""

from __future__ import annotations

from typing import Any

KUEUE = "kueue.x-k8s.io/v1beta2"
T0 = "2026-01-01T00:00:00Z"


def at(minute: int, second: int = 0) -> str:
    return f"2026-01-01T00:{minute:02d}:{second:02d}Z"


def cond(ctype: str, status: str = "True", reason: str = "", message: str = "", at_: str = T0) -> dict[str, Any]:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": at_}


def _given(**fields: Any) -> dict[str, Any]:
    """The fields that have a value (an optional field left out is absent, not empty), in order."""
    return {k: v for k, v in fields.items() if v}


def kueue_object(kind: str, name: str, *, namespace: str | None = None, spec: dict[str, Any] | None = None,
                 status: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A Kueue object: ``fields`` go after the metadata (a priority class's ``value``), then
    ``spec`` and ``status`` when given."""
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    obj: dict[str, Any] = {"apiVersion": KUEUE, "kind": kind, "metadata": meta, **fields}
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


# ------------------------------------------------------------------------------------- flavors
def taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str | None = None, effect: str = "NoSchedule") -> dict[str, str]:
    if value is None:
        return {"key": key, "operator": "Exists", "effect": effect}
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


def flavor(name: str, labels: dict[str, str] | None = None, taints: list[dict[str, str]] | None = None,
           tolerations: list[dict[str, str]] | None = None, topology: str | None = None) -> dict[str, Any]:
    """A ResourceFlavor (no labels, taints, tolerations nor topology: an empty spec)."""
    spec = _given(nodeLabels=labels, nodeTaints=taints, tolerations=tolerations, topologyName=topology)
    return kueue_object("ResourceFlavor", name, spec=spec)


# ------------------------------------------------------------------------------- resource groups
def quota(nominal: str, borrowing: str | None = None, lending: str | None = None) -> dict[str, str]:
    """One resource's quota in a flavor, without its name."""
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
    """A resource group; ``covered`` (default: every resource its flavors name, in order)."""
    names = list(covered) if covered is not None else list(
        dict.fromkeys(r["name"] for f in flavors for r in f["resources"]))
    return {"coveredResources": names, "flavors": list(flavors)}


# ------------------------------------------------------------------------------------- queues
def preemption(within: str | None = None, reclaim: str | None = None, borrow: str | None = None,
               threshold: int | None = None) -> dict[str, Any]:
    """A ClusterQueue's preemption policies: withinClusterQueue, reclaimWithinCohort and
    borrowWithinCohort (its policy and maxPriorityThreshold); empty when none is given."""
    out = _given(withinClusterQueue=within, reclaimWithinCohort=reclaim)
    if borrow:
        out["borrowWithinCohort"] = {"policy": borrow}
        if threshold is not None:
            out["borrowWithinCohort"]["maxPriorityThreshold"] = threshold
    return out


def check_rule(name: str, on_flavors: list[str] | None = None) -> dict[str, Any]:
    """One entry of ``admissionChecksStrategy.admissionChecks``."""
    rule: dict[str, Any] = {"name": name}
    if on_flavors:
        rule["onFlavors"] = list(on_flavors)
    return rule


def cluster_queue_spec(*groups: dict[str, Any], preemption: dict[str, Any] | None = None,
                       strategy: str | None = None, stop: str | None = None,
                       checks: list[dict[str, Any]] | None = None, fungibility: dict[str, str] | None = None,
                       cohort: str | None = None) -> dict[str, Any]:
    """A ClusterQueue spec selecting every namespace; ``checks``: ``check_rule`` entries."""
    return {"namespaceSelector": {}, "resourceGroups": list(groups),
            **_given(preemption=preemption, queueingStrategy=strategy, stopPolicy=stop,
                    admissionChecksStrategy={"admissionChecks": list(checks)} if checks else None,
                    flavorFungibility=fungibility, cohortName=cohort)}


def cluster_queue(name: str, *groups: dict[str, Any], cohort: str | None = None, within: str | None = None,
                  reclaim: str | None = None, borrow: str | None = None, threshold: int | None = None,
                  fungibility: dict[str, str] | None = None, strategy: str | None = None,
                  stop: str | None = None, active: bool | None = None) -> dict[str, Any]:
    """A ClusterQueue as the queue model reads it: with a status (``active``: its Active condition)."""
    spec = cluster_queue_spec(*groups, preemption=preemption(within, reclaim, borrow, threshold),
                              strategy=strategy, stop=stop, fungibility=fungibility, cohort=cohort)
    status: dict[str, Any] = {}
    if active is not None:
        status["conditions"] = [{"type": "Active", "status": "True" if active else "False", "reason": "x"}]
    return kueue_object("ClusterQueue", name, spec=spec, status=status)


def cohort(name: str, parent: str | None = None, *groups: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = parent
    if groups:
        spec["resourceGroups"] = list(groups)
    return kueue_object("Cohort", name, spec=spec)


def local_queue(name: str, cluster_queue: str, namespace: str | None = "default",
                stop: str | None = None) -> dict[str, Any]:
    """A LocalQueue (``namespace`` None: left for ``kubectl apply -n`` to set)."""
    spec: dict[str, Any] = {"clusterQueue": cluster_queue}
    if stop:
        spec["stopPolicy"] = stop
    return kueue_object("LocalQueue", name, namespace=namespace, spec=spec)


def active_check_condition() -> dict[str, Any]:
    """The Active=True condition an AdmissionCheck's controller sets."""
    return cond("Active", "True", "Active", "The admission check is active")


def admission_check(name: str, controller: str, active: bool = False) -> dict[str, Any]:
    """An AdmissionCheck of ``controller``; ``active``: with its Active=True condition."""
    return kueue_object("AdmissionCheck", name, spec={"controllerName": controller},
                        status={"conditions": [active_check_condition()]} if active else None)


# ---------------------------------------------------------------------------------- priorities
def workload_priority_class(name: str, value: int) -> dict[str, Any]:
    return kueue_object("WorkloadPriorityClass", name, value=value)


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "globalDefault": False}


# ---------------------------------------------------------------------------------- workloads
def pod_set(spec: dict[str, Any], count: int = 1, name: str = "main") -> dict[str, Any]:
    """One pod set of a Workload: ``count`` pods of the pod template spec ``spec``."""
    return {"name": name, "count": count, "template": {"spec": spec}}


def workload(name: str, *, namespace: str = "default", queue: str = "lq", priority: int | None = None,
             requests: dict[str, str] | None = None, count: int = 1, created: str = T0, uid: str | None = None,
             admitted_to: str | None = None, flavors: dict[str, str] | None = None,
             usage: dict[str, str] | None = None, reserved_at: str = T0, conditions: list[dict[str, Any]] = (),
             pod_spec: dict[str, Any] | None = None, annotations: dict[str, str] | None = None,
             active: bool | None = None, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A Workload as the queue model reads it, with one pod set ``main``; ``admitted_to``: it holds
    quota there, with ``flavors`` (resource → flavor) and ``usage`` (resource → total, default:
    requests × count)."""
    container = {"name": "c", "image": "x", "resources": {"requests": dict(requests or {"cpu": "1"})}}
    spec_: dict[str, Any] = {"queueName": queue,
                             "podSets": [pod_set({"containers": [container], **(pod_spec or {})}, count)]}
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
    return {"apiVersion": KUEUE, "kind": "Workload", "metadata": meta, "spec": spec_, "status": status}
