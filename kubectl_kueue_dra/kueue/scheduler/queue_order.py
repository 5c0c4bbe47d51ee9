"""The pending workloads of a ClusterQueue in Kueue's order (``pkg/cache/queue``), and where one
of them stands, numbered as the visibility API numbers it.

Pending (``workload.IsAdmissible`` and the queue manager's bookkeeping): no quota reservation,
active, not finished, not on hold (QuotaReserved=False reason OnHold), not waiting for replacement
pods, not admission-gated (annotation ``kueue.x-k8s.io/admission-gated-by``, gate AdmissionGatedBy:
on in 0.19, off in 0.18); its LocalQueue exists and is not stopped, and points at the ClusterQueue.
Workloads in backoff or with Requeued=False are pending too (they wait in the inadmissible set).

Order (``baseCompareFunc``, both strategies): in a BestEffortFIFO queue the workload that is
waiting for the workloads it preempted first ("sticky"; read from its recorded message), then
higher priority, earlier queue-order timestamp (``world.queue_order_time``), lower UID.

Positions are 0-based: ``positionInClusterQueue`` the index in that list; ``positionInLocalQueue``
the number of earlier workloads of the same LocalQueue — keyed by namespace and name in 0.19,
by the name alone in 0.18 (two LocalQueues of one name in different namespaces share a counter).

StrictFIFO: the head is popped every cycle whether or not it is admitted, so the workloads behind
it are not evaluated (only a namespace-selector mismatch lets it step aside; a workload in
backoff is not in the heap). BestEffortFIFO: a head that does not fit moves aside.

Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .world import (
    GATED_BY_ANNOTATION,
    QueueWorld,
    condition,
    effective_priority,
    is_true,
    memo,
    meta,
    parse_time,
    queue_order_time,
    spec,
)

Obj = dict[str, Any]
PENDING_PREEMPTION = "Pending the preemption of"
_MISMATCH = "namespace doesn't match clusterqueue selector"


@dataclass(frozen=True, kw_only=True)
class Queued:
    obj: Obj
    namespace: str
    name: str
    uid: str
    local_queue: str
    priority: int
    since: datetime
    sticky: bool = False

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def message(self) -> str:
        qr = condition(self.obj, "QuotaReserved")
        return str((qr or {}).get("message") or "") if (qr or {}).get("status") == "False" else ""

    def in_heap(self, now: datetime | None) -> bool | None:
        """Whether the scheduler can pop it (None: unknown without the time). Out of the heap:
        Requeued=False, backoff until requeueAt, a namespace the ClusterQueue does not select."""
        requeued = condition(self.obj, "Requeued")
        if requeued and requeued.get("status") == "False":
            return False
        if _MISMATCH in self.message().lower():
            return False
        until = parse_time(((self.obj.get("status") or {}).get("requeueState") or {}).get("requeueAt"))
        if until is None:
            return True
        return None if now is None else until <= now


def not_queued(wl: Obj, world: QueueWorld) -> str | None:
    """Why Kueue's queues do not hold ``wl`` as pending (None: they do, as far as the objects tell)."""
    qr = condition(wl, "QuotaReserved")
    if is_true(wl, "Finished"):
        return "it is finished"
    if spec(wl).get("active") is False:
        return "it is deactivated (spec.active: false)"
    if qr and qr.get("status") == "True":
        return "it holds quota"
    if qr and qr.get("reason") == "OnHold":
        return "it is on hold"
    if is_true(wl, "WaitingForReplacementPods"):
        return "it waits for replacement pods"
    if world.gate("AdmissionGatedBy") and ((meta(wl).get("annotations") or {}).get(GATED_BY_ANNOTATION) or ""):
        return "its admission is gated (annotation kueue.x-k8s.io/admission-gated-by)"
    name, ns = spec(wl).get("queueName"), meta(wl).get("namespace")
    if not name:
        return "it names no LocalQueue"
    lq = _local_queues(world).get((str(ns), str(name)))
    if lq is None:
        return f"LocalQueue {ns}/{name} does not exist"
    if spec(lq).get("stopPolicy") in ("Hold", "HoldAndDrain"):
        return f"LocalQueue {ns}/{name} is stopped"
    cq = spec(lq).get("clusterQueue")
    if world.named("ClusterQueue", cq) is None:
        return f"ClusterQueue {cq} does not exist"
    return None


def _local_queues(world: QueueWorld) -> dict[tuple[str, str], Obj]:
    return memo(world, "LocalQueue", "index", lambda: {
        (str(meta(lq).get("namespace")), str(meta(lq).get("name"))): lq for lq in world.items("LocalQueue")})


def cluster_queue_of(wl: Obj, world: QueueWorld) -> str | None:
    lq = _local_queues(world).get((str(meta(wl).get("namespace")), str(spec(wl).get("queueName"))))
    cq = spec(lq or {}).get("clusterQueue")
    return str(cq) if cq else None


def pending(world: QueueWorld, cluster_queue: str) -> list[Queued]:
    """The pending workloads of ``cluster_queue`` in Kueue's order."""
    lists = f"{id(world.local_queues)}/{id(world.cluster_queues)}"
    return list(memo(world, "Workload", f"pending:{cluster_queue}:{lists}", lambda: _pending(world, cluster_queue)))


def _pending(world: QueueWorld, cluster_queue: str) -> list[Queued]:
    cq = world.named("ClusterQueue", cluster_queue) or {}
    best_effort = (spec(cq).get("queueingStrategy") or "BestEffortFIFO") == "BestEffortFIFO"
    out = []
    for wl in world.items("Workload"):
        if not_queued(wl, world) is not None or cluster_queue_of(wl, world) != cluster_queue:
            continue
        m = meta(wl)
        out.append(Queued(obj=wl, namespace=str(m.get("namespace") or ""), name=str(m.get("name") or ""),
                          uid=str(m.get("uid") or ""), local_queue=str(spec(wl).get("queueName") or ""),
                          priority=effective_priority(wl, world), since=queue_order_time(wl, world)))
    sticky = [q for q in out if PENDING_PREEMPTION in q.message()] if best_effort else []
    if len(sticky) == 1:
        out = [Queued(**{**q.__dict__, "sticky": True}) if q is sticky[0] else q for q in out]
    out.sort(key=lambda q: (not q.sticky, -q.priority, q.since, q.uid))
    return out


@dataclass(kw_only=True)
class Position:
    cluster_queue: str
    strategy: str
    in_cluster_queue: int
    in_local_queue: int
    pending: list[Queued]
    head: Queued
    #: StrictFIFO: the workload whose turn it is, that the subject waits behind
    blocked_by: Queued | None = None
    caveats: list[str] = field(default_factory=list)


def position(world: QueueWorld, wl: Obj) -> tuple[Position | None, str | None]:
    """Where ``wl`` stands in its ClusterQueue, or why that is not known / it is not queued."""
    why = world.unknown("Workload", "LocalQueue", "ClusterQueue")
    if why is not None:
        return None, why
    reason = not_queued(wl, world)
    if reason is not None:
        return None, f"not pending in a queue: {reason}"
    cq_name = cluster_queue_of(wl, world) or ""
    cq = world.named("ClusterQueue", cq_name) or {}
    if world.admission_fair_sharing and \
            ((spec(cq).get("admissionScope") or {}).get("admissionMode") == "UsageBasedAdmissionFairSharing"):
        return None, "the order by LocalQueue usage (admission fair sharing) is not modelled"
    queue = pending(world, cq_name)
    key = f"{meta(wl).get('namespace')}/{meta(wl).get('name')}"
    index = next((i for i, q in enumerate(queue) if q.key == key), None)
    if index is None:
        return None, "it is not among the Workloads listed"
    me = queue[index]
    same_lq = [q for q in queue[:index] if q.local_queue == me.local_queue
               and (q.namespace == me.namespace or not world.v19)]
    strategy = spec(cq).get("queueingStrategy") or "BestEffortFIFO"
    pos = Position(cluster_queue=cq_name, strategy=strategy, in_cluster_queue=index, in_local_queue=len(same_lq),
                   pending=queue, head=queue[0])
    own = sum(1 for q in queue[:index] if q.local_queue == me.local_queue and q.namespace == me.namespace)
    if own != pos.in_local_queue:
        pos.caveats.append(f"Kueue {world.version} counts LocalQueues by name only in the ClusterQueue's list: "
                           f"{own} ahead in LocalQueue {me.namespace}/{me.local_queue} itself")
    if queue[0].sticky:
        pos.caveats.append(f"{queue[0].key} comes first: it waits for the workloads it preempted")
    if strategy == "StrictFIFO":
        for q in queue[:index]:
            in_heap = q.in_heap(world.now)
            if in_heap is None:
                pos.caveats.append(f"whether {q.key}'s backoff is over is unknown")
            if in_heap is not False:
                pos.blocked_by = q
                break
    return pos, None
