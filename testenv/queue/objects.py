"""The objects of the queue scenarios, as plain dicts with two placeholders that the runner fills in:
``{cq}`` (the scenario's ClusterQueue, also the prefix of every cluster-scoped object the scenario
owns: ResourceFlavors, AdmissionChecks, priority classes, Cohorts, other ClusterQueues) and ``{ns}``
(its namespace). So two scenarios never share a cluster-scoped object, and a scenario reads as if
it had the cluster to itself: ``own("spot")`` is the ResourceFlavor ``<cq>-spot``.

ClusterQueues are free-form: resource groups of flavors with quotas and borrowing/lending limits,
preemption policies, queueingStrategy, stopPolicy, admission checks (optionally per flavor),
flavorFungibility, a cohort.

Every Kueue object is built by the shared builders (``testenv.queue.builders``, which the queue
model's unit tests use too); this module adds only what is the oracle's own: the names (``own``, the
placeholders), the AdmissionCheck controller nothing runs, and the pods, Jobs and Workloads as the
oracle submits them.
"""

from __future__ import annotations

from typing import Any

from testenv.builders import PAUSE_IMAGE, QUEUE_LABEL
from testenv.queue import builders as B
from testenv.queue.builders import taint as taint, toleration as toleration  # the scenarios use them

CQ = "{cq}"
NS = "{ns}"
PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
#: an AdmissionCheck controller nothing runs: Kueue core never sets Active on it (the scenario does,
#: through the status subresource, when it plays the controller)
NOBODY = "kueue-dra.test/nobody"


def own(name: str) -> str:
    """The cluster-wide name of the scenario's object ``name``."""
    return f"{CQ}-{name}"


# ------------------------------------------------------------------------------------- flavors
def flavor(name: str, labels: dict[str, str] | None = None, taints: list[dict] | None = None,
           tolerations: list[dict] | None = None) -> dict:
    return B.flavor(own(name), labels, taints, tolerations)


def quota(flavor_name: str, nominal: dict[str, str], borrowing: dict[str, str] | None = None,
          lending: dict[str, str] | None = None) -> dict:
    """One flavor of a resource group: nominal quota per resource, optional limits."""
    return B.flavor_quotas(own(flavor_name), res={
        r: B.quota(q, (borrowing or {}).get(r), (lending or {}).get(r)) for r, q in nominal.items()})


def group(covered: list[str], *flavors: dict) -> dict:
    return B.group(*flavors, covered=covered)


# ------------------------------------------------------------------------------------- queues
def queue_spec(*groups: dict, preemption: dict | None = None, strategy: str | None = None,
               stop: str | None = None, checks: list[str | tuple[str, list[str]]] | None = None,
               fungibility: dict | None = None, cohort: str | None = None) -> dict:
    """A ClusterQueue spec; ``checks``: own check names, or (check, [flavors]) for onFlavors."""
    rules = []
    for c in checks or []:
        name, on = (c, None) if isinstance(c, str) else c
        rules.append(B.check_rule(own(name), [own(f) for f in on] if on else None))
    return B.cluster_queue_spec(*groups, preemption=preemption, strategy=strategy, stop=stop, checks=rules,
                                fungibility=fungibility, cohort=own(cohort) if cohort else None)


def cluster_queue(suffix: str, spec: dict) -> dict:
    """Another ClusterQueue of the scenario (``<cq>-<suffix>``), e.g. a second member of its cohort."""
    return B.kueue_object("ClusterQueue", own(suffix), spec=spec)


def cohort(suffix: str, parent: str | None = None, groups: list[dict] | None = None) -> dict:
    return B.cohort(own(suffix), own(parent) if parent else None, *(groups or []))


def local_queue(name: str, cluster_queue_suffix: str | None = None, stop: str | None = None) -> dict:
    """A LocalQueue of the scenario's namespace, to its ClusterQueue or to ``<cq>-<suffix>``."""
    return B.local_queue(name, own(cluster_queue_suffix) if cluster_queue_suffix else CQ, NS, stop)


def admission_check(name: str, active: bool = False) -> dict:
    """An AdmissionCheck for a controller nothing runs. ``active``: the scenario plays its controller
    and sets ``Active=True`` through the status subresource once it exists."""
    return B.admission_check(own(name), NOBODY, active)


def active_condition() -> dict:
    return B.active_check_condition()


# ---------------------------------------------------------------------------------- priorities
def workload_priority_class(name: str, value: int) -> dict:
    return B.workload_priority_class(own(name), value)


def priority_class(name: str, value: int) -> dict:
    return B.priority_class(own(name), value)


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
    wspec: dict[str, Any] = {"queueName": lq, "podSets": [B.pod_set(spec or pod())]}
    if priority:
        wspec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                     "name": own(priority[0])}
        wspec["priority"] = priority[1]
    if not active:
        wspec["active"] = False
    return B.kueue_object("Workload", name, namespace=NS, spec=wspec)
