"""Shared harness of the queue model's unit tests: a QueueWorld from objects, pod sets and the
workload being scheduled, the flavor assignment of it."""

from __future__ import annotations

from datetime import datetime

from kubectl_kueue_dra.dra.quantity import parse_quantity
from kubectl_kueue_dra.kueue.scheduler.assigner import assign
from kubectl_kueue_dra.kueue.scheduler.assignment import Assignment
from kubectl_kueue_dra.kueue.scheduler.snapshot import PodSetRequest, Preemptor, Snapshot
from kubectl_kueue_dra.kueue.scheduler.world import QueueWorld, parse_time
from kubectl_kueue_dra.kueue.units import kueue_int
from testenv.queue.builders import T0

_KINDS = {"ClusterQueue": "cluster_queues", "Cohort": "cohorts", "ResourceFlavor": "resource_flavors",
          "LocalQueue": "local_queues", "Workload": "workloads"}


def world(*objs, version="0.19.2", **kw) -> QueueWorld:
    lists = {v: [] for v in _KINDS.values()}
    for o in objs:
        lists[_KINDS[o["kind"]]].append(o)
    lists.update(kw)
    return QueueWorld(version=version, **lists)


def amounts(requests: dict[str, str]) -> dict[str, int]:
    return {k: kueue_int(k, parse_quantity(v)) for k, v in requests.items()}


def ps(name="main", count=1, requests=None, spec=None, group=None, per_pod=True) -> PodSetRequest:
    """A pod set; ``requests`` per pod (quantities), multiplied by ``count`` unless ``per_pod`` is False."""
    totals = {k: v * (count if per_pod else 1) for k, v in amounts(requests or {"cpu": "1"}).items()}
    return PodSetRequest(name=name, count=count, requests=totals, pod_spec=spec or {}, group=group)


def incoming(*podsets, cq="cq", priority=0, created=T0, name="in", uid="wl-in") -> Preemptor:
    queue_time: datetime = parse_time(created)  # type: ignore[assignment]
    return Preemptor(namespace="default", name=name, uid=uid, priority=priority, cluster_queue=cq,
                     queue_time=queue_time, podsets=list(podsets) or [ps()], job_uid="job-in")


def snapshot(w: QueueWorld, cq="cq", exclude=None) -> Snapshot:
    return Snapshot(w, w.named("ClusterQueue", cq), exclude=exclude)


def run(w: QueueWorld, *podsets, cq="cq", priority=0, created=T0, counts=None) -> Assignment:
    return assign(snapshot(w, cq), incoming(*podsets, cq=cq, priority=priority, created=created), counts=counts)


def tried(asg: Assignment, index=0) -> list[tuple[str, str]]:
    """(flavor, outcome) of every flavor of the pod set's searches, in Kueue's order."""
    return [(t.flavor, t.outcome) for s in asg.podsets[index].searches for t in s.tries]
