"""Whom Kueue would preempt for a workload, with fair sharing off (``preemption.classicalPreemptions``,
``classical/*``; identical in 0.18 and 0.19).

Candidates are Workloads holding quota of a (flavor, resource) the preemptor needs preemption for:

* in its own ClusterQueue, when ``withinClusterQueue`` allows it (reason InClusterQueue);
* in ClusterQueues of the cohort tree that use more than their nominal quota there, when
  ``reclaimWithinCohort`` allows it. Walking up from the ClusterQueue, once a subtree's quota
  holds the request the preemptor has the "hierarchical advantage" over everything found from
  there on (InCohortReclamation whatever the priority); the others are reclaimed without the
  preemptor borrowing (InCohortReclamation), or — with ``borrowWithinCohort: LowerPriority``,
  lower priority and not above ``maxPriorityThreshold`` — even while it borrows
  (InCohortReclaimWhileBorrowing).

Policies: LowerPriority (lower priority), LowerOrNewerEqualPriority (lower, or equal and queued
later), Any, Never. Order: already evicted first, other ClusterQueues before its own, lower
priority, most recently reserved, then UID. The search removes candidates in that order (skipping
one whose ClusterQueue, or a cohort up to the common ancestor, is no longer above nominal) until
the preemptor fits, then adds back, newest removal first, every target it still fits without.

The oracle the flavor assigner asks (``SimulatePreemption``) runs the same search for one
(flavor, resource): no targets → noPreemptionCandidates, targets in its own ClusterQueue →
preempt, else reclaim; with the borrowing level once the targets are gone.

With fair sharing the search is a different one (dominant resource shares): not modelled, said so.

Pure, over a ``Snapshot`` it changes and restores.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from .modes import NO_CANDIDATES, PREEMPT, RECLAIM, GMode
from ..queues.quota_tree import Node
from .snapshot import NEVER, Preemptor, Snapshot
from .world import FlavorResource, WorkloadInfo, queue_order_time

IN_CLUSTER_QUEUE, IN_COHORT_RECLAMATION, RECLAIM_WHILE_BORROWING = (
    "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing")
_NEVER, _WITHIN_CQ, _HIERARCHICAL, _WITHOUT_BORROWING, _WHILE_BORROWING = range(5)
_REASON = {_WITHIN_CQ: IN_CLUSTER_QUEUE, _HIERARCHICAL: IN_COHORT_RECLAMATION,
           _WITHOUT_BORROWING: IN_COHORT_RECLAMATION, _WHILE_BORROWING: RECLAIM_WHILE_BORROWING}
_LATE = datetime(9999, 1, 1, tzinfo=timezone.utc)
FAIR_SHARING_UNKNOWN = "fair sharing preemption is not modelled"


@dataclass(frozen=True)
class Target:
    info: WorkloadInfo
    reason: str


@dataclass(frozen=True)
class _Candidate:
    info: WorkloadInfo
    lca: Node | None
    variant: int


def satisfies(policy: str, preemptor: Preemptor, candidate: WorkloadInfo, snap: Snapshot) -> bool:
    """``SatisfiesPreemptionPolicy``."""
    if policy == "LowerPriority":
        return candidate.priority < preemptor.priority
    if policy == "LowerOrNewerEqualPriority":
        if candidate.priority < preemptor.priority:
            return True
        theirs = queue_order_time(candidate.obj, snap.world)
        newer = candidate.priority == preemptor.priority and preemptor.queue_time < theirs
        if newer and snap.world.gate("SchedulerTimestampPreemptionBuffer"):
            newer = theirs - preemptor.queue_time > timedelta(minutes=5)
        return newer
    return policy == "Any"


def uses(info: WorkloadInfo, frs: set[FlavorResource]) -> bool:
    return any(fr in frs for fr in info.usage)


class _Search:
    def __init__(self, snap: Snapshot, preemptor: Preemptor, requests: dict[FlavorResource, int],
                 frs: set[FlavorResource]):
        self.snap, self.pre, self.requests, self.frs = snap, preemptor, requests, frs
        self.node = snap.node
        self.policy = snap.rules.policy
        self.cq = snap.rules.name

    def classify(self, info: WorkloadInfo, advantage: bool) -> int:
        if not uses(info, self.frs):
            return _NEVER
        same = info.cluster_queue == self.cq
        policy = self.policy.within_cluster_queue if same else self.policy.reclaim_within_cohort
        if not satisfies(policy, self.pre, info, self.snap):
            return _NEVER
        if same:
            return _WITHIN_CQ
        if advantage:
            return _HIERARCHICAL
        if self.policy.borrowing_forbidden:
            return _WITHOUT_BORROWING
        threshold = self.policy.max_priority_threshold
        if info.priority >= self.pre.priority or (threshold is not None and info.priority > threshold):
            return _WITHOUT_BORROWING
        return _WHILE_BORROWING

    def _from_queue(self, queue: Node, lca: Node | None, advantage: bool) -> list[_Candidate]:
        out = []
        for info in self.snap.workloads(queue.name):
            variant = self.classify(info, advantage)
            if variant != _NEVER:
                out.append(_Candidate(info, lca, variant))
        return out

    def _subtree(self, current: Node, root: Node, skip: Node | None, advantage: bool, out: list[_Candidate]) -> None:
        for child in current.children:
            if child.kind == "Cohort" and child is not skip and not child.within_nominal(self.frs):
                self._subtree(child, root, skip, advantage, out)
        for child in current.children:
            if child.kind == "ClusterQueue" and child is not self.node and child.name not in self.snap.inactive \
                    and not child.within_nominal(self.frs):
                out.extend(self._from_queue(child, root, advantage))

    def candidates(self) -> tuple[list[_Candidate], list[_Candidate], list[_Candidate]]:
        """(same ClusterQueue, hierarchy, priority) candidates."""
        same = self._from_queue(self.node, None, False) if self.policy.within_cluster_queue != NEVER else []
        hierarchy: list[_Candidate] = []
        priority: list[_Candidate] = []
        if self.node.parent is None or self.policy.reclaim_within_cohort == NEVER:
            return same, hierarchy, priority
        advantage, remaining = self.node.fits_in_quota(self.requests)
        previous = None
        for root in self.node.ancestors():
            self._subtree(root, root, previous, advantage, hierarchy if advantage else priority)
            fits, remaining = root.fits_in_quota(remaining)
            advantage = advantage or fits
            previous = root
        return same, hierarchy, priority

    def _key(self, c: _Candidate) -> tuple[bool, bool, int, float, str]:
        since = c.info.reserved_since or self.snap.world.now or _LATE
        return (not c.info.evicted, c.info.cluster_queue == self.cq, c.info.priority, -since.timestamp(),
                c.info.uid)

    def valid(self, c: _Candidate, borrow: bool) -> bool:
        """``candidateIsValid``."""
        if c.info.cluster_queue == self.cq:
            return True
        if borrow and c.variant == _WITHOUT_BORROWING:
            return False
        queue = self.snap.queue_node(c.info.cluster_queue)
        if queue is None or queue.within_nominal(self.frs):
            return False
        for node in queue.ancestors():
            if node is c.lca:
                break
            if node.within_nominal(self.frs):
                return False
        return True

    def fits(self, allow_borrowing: bool) -> bool:
        """``workloadFits``."""
        for fr, v in self.requests.items():
            if not allow_borrowing and self.node.borrowing_with(fr, v):
                return False
            if v > max(0, self.node.available(fr)):
                return False
        return True

    def _fill_back(self, targets: list[Target], allow: bool) -> list[Target]:
        for i in range(len(targets) - 2, -1, -1):
            self.snap.add(targets[i].info)
            if self.fits(allow):
                targets[i] = targets[-1]
                targets.pop()
            else:
                self.snap.remove(targets[i].info)
        return targets

    def ordered(self) -> tuple[list[_Candidate], bool, bool]:
        """The candidates in the order the search walks them, and whether there are cohort and
        hierarchy candidates at all."""
        same, hierarchy, priority = self.candidates()
        ordered: list[_Candidate] = []
        for group in (hierarchy, priority, same):
            group.sort(key=self._key)
        for evicted in (True, False):
            for group in (hierarchy, priority, same):
                ordered.extend(c for c in group if c.info.evicted == evicted)
        return ordered, bool(hierarchy or priority), bool(hierarchy)

    def run(self) -> list[Target]:
        ordered, other_queues, hierarchy = self.ordered()
        under_nominal = all(self.node.nominal(fr) > self.node.usage(fr) for fr in self.frs)
        forbidden = self.policy.borrowing_forbidden
        if not other_queues or (forbidden and not under_nominal):
            attempts = [True]
        elif forbidden and not hierarchy:
            attempts = [False, True]
        else:
            attempts = [True, False]
        for allow in attempts:
            targets: list[Target] = []
            for c in ordered:
                if not self.valid(c, allow):
                    continue
                self.snap.remove(c.info)
                targets.append(Target(c.info, _REASON[c.variant]))
                if self.fits(allow):
                    targets = self._fill_back(targets, allow)
                    for t in targets:
                        self.snap.add(t.info)
                    return targets
            for t in targets:
                self.snap.add(t.info)
        return []


def unknown_reason(snap: Snapshot) -> str | None:
    """Why preemption cannot be simulated on this snapshot, or None."""
    if snap.workloads_unknown:
        return f"the workloads holding quota are unknown: {snap.workloads_unknown}"
    if snap.fair_sharing is None:
        return "whether fair sharing is on is unknown (Kueue's configuration could not be read)"
    if snap.fair_sharing:
        return FAIR_SHARING_UNKNOWN
    return None


def targets(snap: Snapshot, preemptor: Preemptor, requests: dict[FlavorResource, int],
            frs: set[FlavorResource]) -> list[Target]:
    """``GetTargets``: the workloads to evict so that ``requests`` fit (empty: none)."""
    return _Search(snap, preemptor, {fr: v for fr, v in requests.items() if v}, frs).run()


def candidates(snap: Snapshot, preemptor: Preemptor, requests: dict[FlavorResource, int],
               frs: set[FlavorResource]) -> list[Target]:
    """Every workload the policies let the preemptor preempt for ``frs``, in the order the
    search tries them, with the reason each would get."""
    ordered, _, _ = _Search(snap, preemptor, {fr: v for fr, v in requests.items() if v}, frs).ordered()
    return [Target(c.info, _REASON[c.variant]) for c in ordered]


def simulate(snap: Snapshot, preemptor: Preemptor, fr: FlavorResource, value: int) -> tuple[GMode, str | None]:
    """``SimulatePreemption`` for one (flavor, resource): the mode and borrowing level, and why
    it is a guess when it is one (then preempt at today's borrowing level)."""
    why = unknown_reason(snap)
    if why is not None:
        return GMode(PREEMPT, snap.node.borrowing_level(fr, value)[0]), why
    found = targets(snap, preemptor, {fr: value}, {fr})
    if not found:
        return GMode(NO_CANDIDATES, snap.node.borrowing_level(fr, value)[0]), None
    for t in found:
        snap.remove(t.info)
    borrow = snap.node.borrowing_level(fr, value)[0]
    for t in found:
        snap.add(t.info)
    own = any(t.info.cluster_queue == snap.rules.name for t in found)
    return GMode(PREEMPT if own else RECLAIM, borrow), None
