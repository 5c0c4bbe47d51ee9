"""Pod sets as Kueue builds them, and per-pod requests as Kueue counts them.

A Workload already carries ``spec.podSets`` (name, count, pod template); for a manifest that is
not submitted yet (``explain -f``) the pod sets are derived the way Kueue's integrations do it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...dra.quantity import Quantity, parse_quantity
from ...errors import UsageError
from ...k8s.job_kinds import BY_KIND, MANIFEST_KINDS, listed

DEFAULT_PODSET = "main"
JOB_MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"


@dataclass
class PodSet:
    name: str
    count: int
    template: dict[str, Any]  # a PodTemplateSpec: {"metadata": …, "spec": …}
    #: the fewest pods Kueue may admit the pod set with (partial admission); None: all of them
    min_count: int | None = None
    #: the count Kueue admitted it with (``status.admission.podSetAssignments[].count``)
    admitted_count: int | None = None

    @property
    def spec(self) -> dict[str, Any]:
        return self.template.get("spec") or {}


def _int(value: Any, default: int) -> int:
    return int(value) if isinstance(value, (int, float)) or (isinstance(value, str) and value.isdigit()) \
        else default


def job_pods_count(spec: dict[str, Any]) -> int:
    """Kueue's ``podsCount``: parallelism (default 1), lowered to completions when smaller."""
    parallelism = _int(spec.get("parallelism"), 1)
    completions = spec.get("completions")
    if completions is not None and _int(completions, parallelism) < parallelism:
        return _int(completions, parallelism)
    return parallelism


def job_min_count(job: dict[str, Any]) -> int | None:
    """The Job integration's ``minCount``: the ``kueue.x-k8s.io/job-min-parallelism`` annotation."""
    raw = ((job.get("metadata") or {}).get("annotations") or {}).get(JOB_MIN_PARALLELISM)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def podsets_from_workload(workload: dict[str, Any]) -> list[PodSet]:
    """Pod sets of a Workload, with the count after ``status.reclaimablePods``."""
    reclaim = {r.get("name"): _int(r.get("count"), 0)
               for r in (workload.get("status") or {}).get("reclaimablePods") or []}
    admitted = {a.get("name"): _int(a["count"], 0)
                for a in ((workload.get("status") or {}).get("admission") or {}).get("podSetAssignments") or []
                if a.get("count") is not None}
    out = []
    for ps in (workload.get("spec") or {}).get("podSets") or []:
        name = ps.get("name") or DEFAULT_PODSET
        count = max(0, _int(ps.get("count"), 1) - reclaim.get(ps.get("name"), 0))
        min_count = _int(ps["minCount"], count) if ps.get("minCount") is not None else None
        out.append(PodSet(name, count, ps.get("template") or {}, min_count, admitted.get(name)))
    return out


def _job(obj: dict[str, Any]) -> list[PodSet]:
    spec = obj.get("spec") or {}
    return [PodSet(DEFAULT_PODSET, job_pods_count(spec), spec.get("template") or {}, job_min_count(obj))]


def _pod(obj: dict[str, Any]) -> list[PodSet]:
    return [PodSet(DEFAULT_PODSET, 1, {"metadata": obj.get("metadata") or {}, "spec": obj.get("spec") or {}})]


def _jobset(obj: dict[str, Any]) -> list[PodSet]:
    out = []
    for rj in (obj.get("spec") or {}).get("replicatedJobs") or []:
        job_spec = ((rj.get("template") or {}).get("spec")) or {}
        count = _int(rj.get("replicas"), 1) * job_pods_count(job_spec)
        out.append(PodSet(rj.get("name") or DEFAULT_PODSET, count, job_spec.get("template") or {}))
    return out


#: how a manifest's pod sets are read, by the ``pod_sets`` of its kind in k8s/job_kinds
_READERS: dict[str, Callable[[dict[str, Any]], list[PodSet]]] = {
    "workload": podsets_from_workload, "job": _job, "pod": _pod, "jobset": _jobset}


def podsets_from_manifest(obj: dict[str, Any]) -> list[PodSet]:
    """Pod sets for a manifest that Kueue would manage (``explain -f``)."""
    kind = obj.get("kind")
    job_kind = BY_KIND.get(str(kind))
    if job_kind is not None and job_kind.pod_sets is not None:
        return _READERS[job_kind.pod_sets](obj)
    raise UsageError(f"cannot explain a {kind or 'document without kind'} manifest",
                     f"give a {listed(MANIFEST_KINDS)} (for other kinds, submit it and explain the "
                     "Workload Kueue creates)")


def _add(into: dict[str, Quantity], more: dict[str, Quantity]) -> None:
    for name, q in more.items():
        into[name] = into[name] + q if name in into else q


def _max(into: dict[str, Quantity], other: dict[str, Quantity]) -> None:
    for name, q in other.items():
        if name not in into or q > into[name]:
            into[name] = q


def container_requests(container: dict[str, Any]) -> dict[str, Quantity]:
    raw = ((container.get("resources") or {}).get("requests")) or {}
    return {name: parse_quantity(value) for name, value in raw.items()}


def pod_requests(spec: dict[str, Any]) -> dict[str, Quantity]:
    """``resourcehelpers.PodRequests`` without status: sum of containers, max with init containers
    (restartable sidecars accumulate), pod-level cpu/memory requests, plus overhead."""
    reqs: dict[str, Quantity] = {}
    for c in spec.get("containers") or []:
        _add(reqs, container_requests(c))
    restartable: dict[str, Quantity] = {}
    init_max: dict[str, Quantity] = {}
    for c in spec.get("initContainers") or []:
        c_reqs = container_requests(c)
        if c.get("restartPolicy") == "Always":
            _add(reqs, c_reqs)
            _add(restartable, c_reqs)
            c_reqs = dict(restartable)
        else:
            tmp: dict[str, Quantity] = {}
            _add(tmp, c_reqs)
            _add(tmp, restartable)
            c_reqs = tmp
        _max(init_max, c_reqs)
    _max(reqs, init_max)
    pod_level = ((spec.get("resources") or {}).get("requests")) or {}
    for name in ("cpu", "memory"):
        if name in pod_level:
            reqs[name] = parse_quantity(pod_level[name])
    _add(reqs, {n: parse_quantity(v) for n, v in (spec.get("overhead") or {}).items()})
    return reqs


def is_extended_resource_name(name: str) -> bool:
    """Kueue's ``IsExtendedResourceName``: contains a ``/``, does not start with ``kubernetes.io/``,
    is not ``hugepages-*``. (``deviceclass.resource.kubernetes.io/<class>`` therefore counts as an
    extended resource name, but no DeviceClass carries it in ``extendedResourceName``.)"""
    return "/" in name and not name.startswith("kubernetes.io/") and not name.startswith("hugepages-")
