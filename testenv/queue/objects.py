"""The objects of the queue scenarios, as plain dicts with two placeholders that the runner fills in:
``{cq}`` (the scenario's ClusterQueue, also the prefix of every cluster-scoped object the scenario
owns: ResourceFlavors, AdmissionChecks, priority classes, Cohorts, other ClusterQueues) and ``{ns}``
(its namespace). So two scenarios never share a cluster-scoped object, and a scenario reads as if
it had the cluster to itself: ``own("spot")`` is the ResourceFlavor ``<cq>-spot``.

ClusterQueues are free-form: resource groups of flavors with quotas and borrowing/lending limits,
preemption policies, queueingStrategy, stopPolicy, admission checks (optionally per flavor),
flavorFungibility, a cohort.
"""

from __future__ import annotations

from typing import Any

from testenv.builders import PAUSE_IMAGE, QUEUE_LABEL

CQ = "{cq}"
NS = "{ns}"
KUEUE = "kueue.x-k8s.io/v1beta2"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
#: an AdmissionCheck controller nothing runs: Kueue core never sets Active on it (the scenario does,
#: through the status subresource, when it plays the controller)
NOBODY = "kueue-dra.test/nobody"


def own(name: str) -> str:
    """The cluster-wide name of the scenario's object ``name``."""
    return f"{CQ}-{name}"


# ------------------------------------------------------------------------------------- flavors
def taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str | None = None, effect: str = "NoSchedule") -> dict:
    if value is None:
        return {"key": key, "operator": "Exists", "effect": effect}
    return {"key": key, "operator": "Equal", "value": value, "effect": effect}


def flavor(name: str, labels: dict[str, str] | None = None, taints: list[dict] | None = None,
           tolerations: list[dict] | None = None) -> dict:
    spec: dict[str, Any] = {}
    if labels:
        spec["nodeLabels"] = labels
    if taints:
        spec["nodeTaints"] = taints
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": own(name)}, "spec": spec}


def quota(flavor_name: str, nominal: dict[str, str], borrowing: dict[str, str] | None = None,
          lending: dict[str, str] | None = None) -> dict:
    """One flavor of a resource group: nominal quota per resource, optional limits."""
    resources = []
    for r, q in nominal.items():
        entry = {"name": r, "nominalQuota": q}
        if borrowing and r in borrowing:
            entry["borrowingLimit"] = borrowing[r]
        if lending and r in lending:
            entry["lendingLimit"] = lending[r]
        resources.append(entry)
    return {"name": own(flavor_name), "resources": resources}


def group(covered: list[str], *flavors: dict) -> dict:
    return {"coveredResources": list(covered), "flavors": list(flavors)}


# ------------------------------------------------------------------------------------- queues
def queue_spec(*groups: dict, preemption: dict | None = None, strategy: str | None = None,
               stop: str | None = None, checks: list[str | tuple[str, list[str]]] | None = None,
               fungibility: dict | None = None, cohort: str | None = None) -> dict:
    """A ClusterQueue spec; ``checks``: own check names, or (check, [flavors]) for onFlavors."""
    spec: dict[str, Any] = {"namespaceSelector": {}, "resourceGroups": list(groups)}
    if preemption:
        spec["preemption"] = preemption
    if strategy:
        spec["queueingStrategy"] = strategy
    if stop:
        spec["stopPolicy"] = stop
    if checks:
        rules = []
        for c in checks:
            name, on = (c, None) if isinstance(c, str) else c
            rule: dict[str, Any] = {"name": own(name)}
            if on:
                rule["onFlavors"] = [own(f) for f in on]
            rules.append(rule)
        spec["admissionChecksStrategy"] = {"admissionChecks": rules}
    if fungibility:
        spec["flavorFungibility"] = fungibility
    if cohort:
        spec["cohortName"] = own(cohort)
    return spec


def cluster_queue(suffix: str, spec: dict) -> dict:
    """Another ClusterQueue of the scenario (``<cq>-<suffix>``), e.g. a second member of its cohort."""
    return {"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": own(suffix)}, "spec": spec}


def cohort(suffix: str, parent: str | None = None, groups: list[dict] | None = None) -> dict:
    spec: dict[str, Any] = {}
    if parent:
        spec["parentName"] = own(parent)
    if groups:
        spec["resourceGroups"] = groups
    return {"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": own(suffix)}, "spec": spec}


def local_queue(name: str, cluster_queue_suffix: str | None = None, stop: str | None = None) -> dict:
    """A LocalQueue of the scenario's namespace, to its ClusterQueue or to ``<cq>-<suffix>``."""
    spec: dict[str, Any] = {"clusterQueue": own(cluster_queue_suffix) if cluster_queue_suffix else CQ}
    if stop:
        spec["stopPolicy"] = stop
    return {"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": {"name": name, "namespace": NS}, "spec": spec}


def admission_check(name: str, active: bool = False) -> dict:
    """An AdmissionCheck for a controller nothing runs. ``active``: the scenario plays its controller
    and sets ``Active=True`` through the status subresource once it exists."""
    obj = {"apiVersion": KUEUE, "kind": "AdmissionCheck", "metadata": {"name": own(name)},
           "spec": {"controllerName": NOBODY}}
    if active:
        obj["status"] = {"conditions": [active_condition()]}
    return obj


def active_condition() -> dict:
    return {"type": "Active", "status": "True", "reason": "Active", "message": "The admission check is active",
            "lastTransitionTime": "2026-01-01T00:00:00Z"}


# ---------------------------------------------------------------------------------- priorities
def workload_priority_class(name: str, value: int) -> dict:
    return {"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": {"name": own(name)}, "value": value}


def priority_class(name: str, value: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": own(name)},
            "value": value, "globalDefault": False}


# ---------------------------------------------------------------------------------- workloads
def required_affinity(*terms: list[tuple[str, str, list[str]]]) -> dict:
    """Required node affinity: terms ORed, each a list of (key, operator, values) ANDed."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": k, "operator": op, **({"values": v} if v else {})} for k, op, v in term]}
        for term in terms]}}}


def pod(cpu: str = "1", *, requests: dict[str, str] | None = None, node_selector: dict[str, str] | None = None,
        affinity: dict | None = None, tolerations: list[dict] | None = None, priority_class_name: str | None = None,
        claims: dict[str, str] | None = None) -> dict:
    """A pod template spec: one container requesting ``cpu`` (plus ``requests``; extended resources
    get the same limit, as the API requires), scheduling constraints, DRA claims {claim: template}."""
    req = {"cpu": cpu, **(requests or {})}
    limits = {k: v for k, v in req.items() if "/" in k}
    c: dict[str, Any] = {"name": "main", "image": PAUSE_IMAGE, "resources": {"requests": req}}
    if limits:
        c["resources"]["limits"] = limits
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [c]}
    if claims:
        spec["resourceClaims"] = [{"name": n, "resourceClaimTemplateName": t} for n, t in claims.items()]
        c["resources"]["claims"] = [{"name": n} for n in claims]
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity:
        spec["affinity"] = affinity
    if tolerations:
        spec["tolerations"] = tolerations
    if priority_class_name:
        spec["priorityClassName"] = own(priority_class_name)
    return spec


def job(name: str, spec: dict | None = None, *, lq: str = "lq", priority: str | None = None) -> dict:
    """A suspended Job in LocalQueue ``lq``; ``priority``: the scenario's WorkloadPriorityClass."""
    labels = {QUEUE_LABEL: lq}
    if priority:
        labels[PRIORITY_LABEL] = own(priority)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": NS, "labels": labels},
            "spec": {"suspend": True, "parallelism": 1, "template": {"spec": spec or pod()}}}


def bare_workload(name: str, spec: dict | None = None, *, lq: str = "lq", priority: tuple[str, int] | None = None,
                  active: bool = True) -> dict:
    """A Workload created directly (no Job): Kueue evicts it but nothing stops a job for it, so an
    evicted one keeps its quota; ``priority``: (WorkloadPriorityClass, its value)."""
    wspec: dict[str, Any] = {"queueName": lq, "podSets": [{"name": "main", "count": 1,
                                                           "template": {"spec": spec or pod()}}]}
    if priority:
        wspec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                     "name": own(priority[0])}
        wspec["priority"] = priority[1]
    if not active:
        wspec["active"] = False
    return {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": name, "namespace": NS}, "spec": wspec}
