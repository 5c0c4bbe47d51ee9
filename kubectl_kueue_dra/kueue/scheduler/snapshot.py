"""The scheduler's snapshot, rebuilt from the objects: the cohort tree with the quota every
Workload holds, the ClusterQueues' rules (resource groups, preemption policies, flavor
fungibility), and the workload being scheduled (``Preemptor``).

Usage is each ClusterQueue's ``status.flavorsReservation``, Kueue's own sum over every namespace
(a snapshot may hold the Workloads of some namespaces only); a ClusterQueue without it gets the sum
of the Workloads holding quota in it (``HasActiveQuotaReservation``, their ``status.admission``).
The Workloads are the preemption candidates: when they cannot be read, quotas are known and
preemption is not.

What the objects cannot show (spec §3): usage other heads added earlier in the same cycle, and
capacity reserved for a "preempt without candidates" head. The model sees persisted state only.

Pure; ``remove``/``add`` change the snapshot in place for a simulation and are undone by the caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .modes import Fungibility
from ..queues.quota_tree import Node, TreeError, build_tree, cohort_of, reservation
from .world import FlavorResource, QueueWorld, WorkloadInfo, condition, holders, memo, meta, spec

Obj = dict[str, Any]
NEVER = "Never"


@dataclass(frozen=True, kw_only=True)
class ResourceGroup:
    index: int
    covered: tuple[str, ...]
    flavors: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Policy:
    """``spec.preemption`` with Kueue's defaults."""

    within_cluster_queue: str = NEVER
    reclaim_within_cohort: str = NEVER
    borrow_within_cohort: str = NEVER
    max_priority_threshold: int | None = None

    @classmethod
    def of(cls, cluster_queue: Obj) -> Policy:
        raw = spec(cluster_queue).get("preemption") or {}
        borrow = raw.get("borrowWithinCohort") or {}
        threshold = borrow.get("maxPriorityThreshold")
        return cls(within_cluster_queue=raw.get("withinClusterQueue") or NEVER,
                   reclaim_within_cohort=raw.get("reclaimWithinCohort") or NEVER,
                   borrow_within_cohort=borrow.get("policy") or NEVER,
                   max_priority_threshold=threshold if isinstance(threshold, int) else None)

    @property
    def borrowing_forbidden(self) -> bool:
        """``IsBorrowingWithinCohortForbidden``."""
        return self.borrow_within_cohort == NEVER


@dataclass(frozen=True, kw_only=True)
class ClusterQueueRules:
    name: str
    obj: Obj
    groups: tuple[ResourceGroup, ...]
    fungibility: Fungibility
    policy: Policy
    strategy: str

    @classmethod
    def of(cls, cluster_queue: Obj) -> ClusterQueueRules:
        groups = tuple(ResourceGroup(index=i, covered=tuple(g.get("coveredResources") or []),
                                     flavors=tuple(f.get("name") or "" for f in g.get("flavors") or []))
                       for i, g in enumerate(spec(cluster_queue).get("resourceGroups") or []))
        return cls(name=str(meta(cluster_queue).get("name") or ""), obj=cluster_queue, groups=groups,
                   fungibility=Fungibility.of(cluster_queue), policy=Policy.of(cluster_queue),
                   strategy=spec(cluster_queue).get("queueingStrategy") or "BestEffortFIFO")

    def group_of(self, resource: str) -> ResourceGroup | None:
        """``RGByResource``."""
        return next((g for g in self.groups if resource in g.covered), None)

    @property
    def flavor_names(self) -> list[str]:
        return [f for g in self.groups for f in g.flavors]


@dataclass(frozen=True, kw_only=True)
class PodSetRequest:
    """One pod set as the flavor assigner sees it: totals in Kueue's int units (cpu in milli),
    zero requests included, without the ``pods`` resource (the assigner adds it)."""

    name: str
    count: int
    requests: Mapping[str, int]
    #: the pod template's spec (nodeSelector, affinity, tolerations)
    pod_spec: Mapping[str, Any] = field(default_factory=dict)
    #: ``topologyRequest.podSetGroupName``: pod sets of one group get their flavors together
    group: str | None = None
    #: the pod set asks for topology-aware scheduling (not modelled)
    topology: bool = False

    def scaled(self, count: int) -> PodSetRequest:
        """``PodSetResources.ScaledTo``: per-pod amount (integer division) × ``count``."""
        if self.count == 0 or count == self.count:
            return self
        return PodSetRequest(name=self.name, count=count, pod_spec=self.pod_spec, group=self.group,
                             topology=self.topology,
                             requests={r: v // self.count * count for r, v in self.requests.items()})


@dataclass(frozen=True, kw_only=True)
class Preemptor:
    """The workload being scheduled."""

    namespace: str
    name: str
    uid: str
    priority: int
    cluster_queue: str
    #: its queue-order timestamp (LowerOrNewerEqualPriority compares it)
    queue_time: datetime
    podsets: Sequence[PodSetRequest]
    job_uid: str | None = None

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


class Snapshot:
    """The cohort tree of one ClusterQueue and the Workloads holding quota in it."""

    def __init__(self, world: QueueWorld, cluster_queue: Obj, *, exclude: str | None = None):
        """``exclude``: the key of a Workload whose quota is left out (the subject, re-run as if
        it were pending). Raises TreeError when the tree cannot be known."""
        self.world = world
        self.rules = ClusterQueueRules.of(cluster_queue)
        in_cohort = bool(cohort_of(cluster_queue))
        if in_cohort and (why := world.unknown("ClusterQueue", "Cohort")):
            raise TreeError(why)
        queues = list(world.items("ClusterQueue")) if in_cohort else [cluster_queue]
        if not any(meta(q).get("name") == self.rules.name for q in queues):
            queues.append(cluster_queue)
        #: why preemption cannot be simulated (None: it can)
        self.workloads_unknown = world.unknown("Workload")
        usage = {str(meta(q).get("name")): reservation(q) for q in queues if _has_reservation(q)}
        grouped, sums = _grouped(world) if self.workloads_unknown is None else ({}, {})
        self.by_queue = {queue: list(infos) for queue, infos in grouped.items()}
        summed = {queue: dict(held) for queue, held in sums.items()}
        for queue, infos in grouped.items():
            for info in infos:
                if info.key != exclude:
                    continue
                self.by_queue[queue] = [i for i in infos if i is not info]
                for fr, v in info.usage.items():
                    summed[queue][fr] -= v
                    if queue in usage:  # Kueue's sum includes it: take it out
                        usage[queue][fr] = usage[queue].get(fr, 0) - v
        for q in queues:
            name = str(meta(q).get("name"))
            if name not in usage and self.workloads_unknown and (in_cohort or name == self.rules.name):
                raise TreeError(f"the quota ClusterQueue {name} holds is unknown: it has no "
                                f"status.flavorsReservation and {self.workloads_unknown}")
            usage.setdefault(name, summed.get(name, {}))
        self.nodes = build_tree([q for q in queues if meta(q).get("name") == self.rules.name or in_cohort],
                                list(world.items("Cohort")) if in_cohort else [], usage)
        self.node = self.nodes[self.rules.name]
        self.inactive = {str(meta(q).get("name")) for q in queues if _inactive(q)}

    def workloads(self, cluster_queue: str) -> list[WorkloadInfo]:
        return self.by_queue.get(cluster_queue, [])

    def queue_node(self, cluster_queue: str | None) -> Node | None:
        return self.nodes.get(cluster_queue or "")

    def remove(self, info: WorkloadInfo) -> None:
        node = self.nodes[info.cluster_queue or ""]
        for fr, v in info.usage.items():
            node.reserved[fr] = node.reserved.get(fr, 0) - v
        queue = info.cluster_queue or ""
        self.by_queue[queue] = [w for w in self.by_queue.get(queue, []) if w is not info]

    def add(self, info: WorkloadInfo) -> None:
        node = self.nodes[info.cluster_queue or ""]
        for fr, v in info.usage.items():
            node.reserved[fr] = node.reserved.get(fr, 0) + v
        self.by_queue.setdefault(info.cluster_queue or "", []).append(info)

    @property
    def fair_sharing(self) -> bool | None:
        return self.world.fair_sharing


def _grouped(world: QueueWorld) -> tuple[dict[str, list[WorkloadInfo]], dict[str, dict[FlavorResource, int]]]:
    """The Workloads holding quota per ClusterQueue, and what they hold in sum (once per list)."""
    def build() -> tuple[dict[str, list[WorkloadInfo]], dict[str, dict[FlavorResource, int]]]:
        by_queue: dict[str, list[WorkloadInfo]] = {}
        sums: dict[str, dict[FlavorResource, int]] = {}
        for info in holders(world):
            queue = info.cluster_queue or ""
            by_queue.setdefault(queue, []).append(info)
            held = sums.setdefault(queue, {})
            for fr, v in info.usage.items():
                held[fr] = held.get(fr, 0) + v
        return by_queue, sums
    return memo(world, "Workload", "grouped", build)


def _has_reservation(cluster_queue: Obj) -> bool:
    return isinstance((cluster_queue.get("status") or {}).get("flavorsReservation"), list)


def _inactive(cluster_queue: Obj) -> bool:
    """Left out of the scheduler's snapshot: stopped, or its Active condition is False."""
    active = condition(cluster_queue, "Active")
    return spec(cluster_queue).get("stopPolicy") in ("Hold", "HoldAndDrain") or \
        bool(active and active.get("status") == "False")
