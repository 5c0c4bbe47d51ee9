"""The Kubernetes and Kueue objects the tests create, as plain dicts (``kubectl apply`` input).

One builder per kind, used by the oracle's scenarios, the lifecycle scenarios and the cluster
tests: DeviceClasses, ResourceSlices and their devices, ResourceClaimTemplates and their
requests, containers, pod specs, Jobs (created suspended, in LocalQueue ``lq``) and Workloads,
LimitRanges and RuntimeClasses. ``cluster_queue``, ``local_queue`` and ``resource_flavor`` are
those tests' shorthands (a ClusterQueue of one flavor, a LocalQueue without a namespace, a
ResourceFlavor with an empty spec), built by ``testenv.queue.builders``, which writes every Kueue
queue object.
"""

from __future__ import annotations

from typing import Any

from testenv.queue import builders as QB

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
FLAVOR = "default-flavor"
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"


def device_class(name: str, expr: str | None = None, er: str | None = None) -> dict:
    spec: dict[str, Any] = {}
    if expr:
        spec["selectors"] = [{"cel": {"expression": expr}}]
    if er:
        spec["extendedResourceName"] = er
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def device(name: str, counters: list[tuple[str, dict]] | None = None, **attrs) -> dict:
    d: dict[str, Any] = {"name": name, "attributes": {k: {"string": v} for k, v in attrs.items()}}
    if counters:
        d["consumesCounters"] = [{"counterSet": cs, "counters": {k: {"value": v} for k, v in values.items()}}
                                 for cs, values in counters]
    return d


def resource_slice(name: str, driver: str, pool: str, *, devices: list | None = None,
                   counter_sets: dict | None = None, generation: int = 1, slice_count: int = 1,
                   node: str = "fake-node-1") -> dict:
    spec: dict[str, Any] = {"driver": driver, "nodeName": node,
                            "pool": {"name": pool, "generation": generation, "resourceSliceCount": slice_count}}
    if counter_sets is not None:
        spec["sharedCounters"] = [{"name": n, "counters": {k: {"value": v} for k, v in c.items()}}
                                  for n, c in counter_sets.items()]
    else:
        assert devices is not None and len(devices) <= 64
        spec["devices"] = devices
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def request(device_class_name: str, count: int = 1, *, name: str = "dev", selector: str | None = None,
            mode: str | None = None, admin: bool = False) -> dict:
    exactly: dict[str, Any] = {"deviceClassName": device_class_name}
    if mode == "All":
        exactly["allocationMode"] = "All"
    else:
        exactly["count"] = count
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    if admin:
        exactly["adminAccess"] = True
    return {"name": name, "exactly": exactly}


def template(name: str, *requests: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name},
            "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def container(name: str = "main", requests: dict | None = None, limits: dict | None = None,
              claims: list[str] = (), restart_always: bool = False) -> dict:
    c: dict[str, Any] = {"name": name, "image": PAUSE_IMAGE, "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    if claims:
        c["resources"]["claims"] = [{"name": n} for n in claims]
    if restart_always:
        c["restartPolicy"] = "Always"
    return c


def pod_spec(claims: dict[str, str] | None = None, containers: list | None = None, init: list | None = None,
             direct: dict[str, str] | None = None) -> dict:
    """claims: {claim name: template name}; direct: {claim name: ResourceClaim name}."""
    spec: dict[str, Any] = {"restartPolicy": "Never"}
    entries = [{"name": n, "resourceClaimTemplateName": t} for n, t in (claims or {}).items()]
    entries += [{"name": n, "resourceClaimName": c} for n, c in (direct or {}).items()]
    if entries:
        spec["resourceClaims"] = entries
    names = [e["name"] for e in entries]
    spec["containers"] = containers or [container(claims=names, requests={"cpu": "100m"})]
    if init:
        spec["initContainers"] = init
    return spec


def job(name: str, spec: dict, parallelism: int = 1, completions: int | None = None) -> dict:
    js: dict[str, Any] = {"suspend": True, "parallelism": parallelism, "template": {"spec": spec}}
    if completions is not None:
        js["completions"] = completions
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "labels": {QUEUE_LABEL: "lq"}}, "spec": js}


def workload(name: str, podsets: list[tuple[str, int, dict]]) -> dict:
    """A Workload created directly (no Job): several pod sets, or values a Job would not pass."""
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": name},
            "spec": {"queueName": "lq", "podSets": [{"name": n, "count": c, "template": {"spec": s}}
                                                    for n, c, s in podsets]}}


def cluster_queue(name: str, quota: dict[str, str], limits: dict[str, dict[str, str]] | None = None,
                  cohort: str | None = None, *, flavor: str = FLAVOR) -> dict:
    """A ClusterQueue of one flavor covering the resources of ``quota``, as the DRA oracle and the
    cluster tests apply it; ``limits``: {resource: {"borrowingLimit"|"lendingLimit": q}}. Built by the
    queue builders (``testenv.queue.builders``), which write any other ClusterQueue."""
    flavor_quotas = QB.flavor_quotas(flavor, res={r: {"nominalQuota": q, **(limits or {}).get(r, {})}
                                                  for r, q in quota.items()})
    return QB.kueue_object("ClusterQueue", name, spec=QB.cluster_queue_spec(
        QB.group(flavor_quotas, covered=list(quota)), cohort=cohort))


def local_queue(name: str, cluster_queue_name: str, namespace: str | None = None) -> dict:
    """A LocalQueue (no namespace: ``kubectl apply -n`` sets it); see ``testenv.queue.builders``."""
    return QB.local_queue(name, cluster_queue_name, namespace or None)


def resource_flavor(name: str = FLAVOR) -> dict:
    """A ResourceFlavor with an empty spec; see ``testenv.queue.builders``."""
    return QB.flavor(name)


def queued(obj: dict, local_queue: str) -> dict:
    """A Job or Workload sent to another LocalQueue of its namespace."""
    if obj["kind"] == "Workload":
        obj["spec"]["queueName"] = local_queue
    else:
        obj["metadata"]["labels"][QUEUE_LABEL] = local_queue
    return obj


def limit_range(name: str, *items: dict, namespace: str | None = None) -> dict:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "LimitRange", "metadata": meta, "spec": {"limits": list(items)}}


def runtime_class(name: str, overhead: dict | None) -> dict:
    rc: dict[str, Any] = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": name},
                          "handler": name}
    if overhead:
        rc["overhead"] = {"podFixed": overhead}
    return rc


def partial_job(name: str, spec: dict, parallelism: int, min_parallelism: int) -> dict:
    j = job(name, spec, parallelism=parallelism)
    j["metadata"]["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": str(min_parallelism)}
    return j
