"""The queue model run for the workload ``explain`` is about: the flavor search Kueue's scheduler
would make now (for a workload holding quota, as if its own quota were free), the preemption it
would need, and where it stands in its ClusterQueue's queue.

The requests are the charge engine's pod-set totals (Kueue's int units); a resource whose charge
is unknown takes ``status.resourceRequests`` when Kueue recorded it, else stays out and the
message is not claimed. A workload Kueue rejects before scheduling (DRA) gets no model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ...dra.quantity import QuantityError, parse_quantity
from ...kueue.charge import ChargeResult
from ...kueue.scheduler import priority as priorities
from ...kueue.scheduler.assigner import assign
from ...kueue.scheduler.assignment import Assignment
from ...kueue.scheduler.preemption_plan import PreemptionPlan, plan
from ...kueue.scheduler.queue_order import Position, position
from ...kueue.queues.quota_tree import TreeError
from ...kueue.scheduler.snapshot import PodSetRequest, Preemptor, Snapshot
from ...kueue.scheduler.world import QueueWorld, effective_priority, holds_quota, meta, queue_order_time
from ...kueue.units import kueue_int
from ...kueue.workloads.podsets import PodSet
from .subject import Subject

Obj = dict[str, Any]
_LATE = datetime(9999, 1, 1, tzinfo=timezone.utc)


@dataclass(kw_only=True)
class QueueModel:
    world: QueueWorld
    cluster_queue: Obj | None = None
    snapshot: Snapshot | None = None
    preemptor: Preemptor | None = None
    assignment: Assignment | None = None
    plan: PreemptionPlan | None = None
    position: Position | None = None
    position_unknown: str | None = None
    #: why the flavor search was not run (None: it was, or there is nothing to run it for)
    unknown: str | None = None
    holds_quota: bool = False
    priority: priorities.Priority | None = None
    #: pod set -> resource -> flavor, from status.admission
    recorded: dict[str, dict[str, str]] = field(default_factory=dict)
    #: resources whose amount the model did not have
    missing: list[str] = field(default_factory=list)
    #: pod set -> pod count Kueue's partial admission admits it with now, when the full counts do not
    #: fit (``partial_report``); then the full counts' quota failures are not why it waits
    partial_counts: dict[str, int] | None = None


def _topology(wl: Obj | None, index: int) -> tuple[str | None, bool]:
    sets = ((wl or {}).get("spec") or {}).get("podSets") or []
    request = (sets[index].get("topologyRequest") or {}) if index < len(sets) else {}
    asked = any(request.get(k) is not None for k in ("required", "preferred", "unconstrained",
                                                       "podSetSliceRequiredTopology", "podSetSliceSize"))
    return request.get("podSetGroupName"), asked


def _recorded_requests(wl: Obj | None) -> dict[str, dict[str, Any]]:
    recorded = ((wl or {}).get("status") or {}).get("resourceRequests") or []
    return {r.get("name"): r.get("resources") or {} for r in recorded}


def _podsets(subject: Subject, result: ChargeResult, model: QueueModel) -> list[PodSetRequest]:
    recorded = _recorded_requests(subject.workload)
    out = []
    for i, (ps, charge) in enumerate(zip(subject.podsets, result.podsets)):
        requests = dict(charge.total)
        for name in charge.unknown:
            try:
                requests[name] = kueue_int(name, parse_quantity(recorded[ps.name][name]))
            except (KeyError, QuantityError):
                model.missing.append(name)
        group, asked = _topology(subject.workload, i)
        out.append(PodSetRequest(name=ps.name, count=charge.charged_count, requests=requests,
                                 pod_spec=ps.spec, group=group, topology=asked))
    return out


def _priority(subject: Subject, world: QueueWorld, podsets: list[PodSet]) -> priorities.Priority:
    if subject.workload is not None:
        found = priorities.of_workload(subject.workload)
        return priorities.Priority(effective_priority(subject.workload, world), found.source)
    labels = ((subject.manifest or {}).get("metadata") or {}).get("labels") or {}
    return priorities.of_manifest(labels, [ps.spec for ps in podsets], world)


def build(world: QueueWorld, subject: Subject, result: ChargeResult, cluster_queue: Obj | None,
          binary: set[str]) -> QueueModel:
    model = QueueModel(world=world, cluster_queue=cluster_queue)
    wl = subject.workload
    model.holds_quota = wl is not None and holds_quota(wl)
    model.recorded = {a.get("name"): dict(a.get("flavors") or {}) for a in
                      (((wl or {}).get("status") or {}).get("admission") or {}).get("podSetAssignments") or []}
    if wl is not None and not model.holds_quota:
        model.position, model.position_unknown = position(world, wl)
    if cluster_queue is None:
        return model
    if result.rejected:
        model.unknown = "Kueue rejects its DRA requests before it looks for flavors"
        return model
    model.priority = _priority(subject, world, subject.podsets)
    m = meta(wl or subject.manifest or {})
    model.preemptor = Preemptor(
        namespace=subject.namespace, name=str(m.get("name") or m.get("generateName") or ""),
        uid=str(m.get("uid") or ""),
        priority=model.priority.value or 0, cluster_queue=str(meta(cluster_queue).get("name") or ""),
        queue_time=queue_order_time(wl, world) if wl is not None else (world.now or _LATE),
        podsets=_podsets(subject, result, model), job_uid=(m.get("labels") or {}).get("kueue.x-k8s.io/job-uid"))
    exclude = f"{subject.namespace}/{m.get('name')}" if model.holds_quota else None
    try:
        model.snapshot = Snapshot(world, cluster_queue, exclude=exclude)
    except TreeError as e:
        model.unknown = str(e)
        return model
    if model.missing:  # a search without part of the requests would state a guess: none is run
        model.assignment = Assignment(unknown=f"the charge of {', '.join(sorted(set(model.missing)))} is unknown")
        return model
    model.assignment = assign(model.snapshot, model.preemptor, binary=frozenset(binary))
    if model.priority.value is None and model.assignment.mode != "Fit":  # it matters for preemption only
        model.assignment.caveats.append(f"its priority is unknown ({model.priority.problem}); 0 is assumed")
    if not model.holds_quota:
        model.plan = plan(model.snapshot, model.preemptor, model.assignment)
    return model
