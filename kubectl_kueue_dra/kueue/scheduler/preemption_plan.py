"""For a workload whose flavors need preemption: whom Kueue would preempt (``GetTargets`` on the
whole assignment), or, when nobody, why not in words — the policy that forbids it, the priorities
that protect the candidates, or that preempting everyone allowed would not free enough.

Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import preemption
from .assignment import Assignment
from .preemption import Target, satisfies, uses
from .snapshot import NEVER, Preemptor, Snapshot
from .world import FlavorResource

_POLICY_WORDS = {"LowerPriority": "a lower priority",
                 "LowerOrNewerEqualPriority": "a lower priority, or the same priority and queued later",
                 "Any": "any priority"}


@dataclass(kw_only=True)
class PreemptionPlan:
    #: None: unknown (``unknown`` says why)
    possible: bool | None
    targets: list[Target] = field(default_factory=list)
    why: str | None = None
    unknown: str | None = None
    #: when nobody can be preempted, the policy that keeps the holders safe: "within" (the
    #: ClusterQueue's own lower-priority workloads, withinClusterQueue: Never), "reclaim" (what its
    #: cohort borrows, reclaimWithinCohort), "threshold" (lower-priority borrowers it may preempt
    #: while it borrows only up to borrowWithinCohort.maxPriorityThreshold), else "" (their priorities)
    remedy: str = ""
    #: "threshold": the maxPriorityThreshold that would let it preempt them
    threshold: int | None = None


def plan(snap: Snapshot, preemptor: Preemptor, asg: Assignment) -> PreemptionPlan | None:
    """None unless the assignment needs preemption."""
    if asg.unknown is not None or asg.mode != "Preempt":
        return None
    policy = snap.rules.policy
    if policy.within_cluster_queue == NEVER and (snap.node.parent is None or policy.reclaim_within_cohort == NEVER):
        frs = asg.preempt_pairs()
        return PreemptionPlan(possible=False, why=why_not(snap, preemptor, frs), **remedy(snap, preemptor, frs))
    unknown = preemption.unknown_reason(snap)
    if unknown is not None:
        return PreemptionPlan(possible=None, unknown=unknown)
    frs = asg.preempt_pairs()
    found = preemption.targets(snap, preemptor, asg.total_requests(), frs)
    if found:
        return PreemptionPlan(possible=True, targets=found)
    return PreemptionPlan(possible=False, why=why_not(snap, preemptor, frs), **remedy(snap, preemptor, frs))


def remedy(snap: Snapshot, preemptor: Preemptor, frs: set[FlavorResource]) -> dict[str, Any]:
    """Which policy keeps the holders of ``frs`` from being preempted (``PreemptionPlan.remedy``,
    ``threshold``): quota its cohort borrows is reclaimed only under reclaimWithinCohort (``Any``
    reclaims it from workloads of any priority), and while the ClusterQueue itself borrows only
    from lower-priority workloads up to borrowWithinCohort.maxPriorityThreshold; the ClusterQueue's
    own workloads only under withinClusterQueue."""
    policy, node = snap.rules.policy, snap.node
    if node.parent is not None:
        others = [q for q in node.root().cluster_queues_below() if q is not node and q.name not in snap.inactive]
        borrowed = [w for q in others if not q.within_nominal(frs) for w in snap.workloads(q.name) if uses(w, frs)]
        allowed = [w for w in borrowed if satisfies(policy.reclaim_within_cohort, preemptor, w, snap)]
        if borrowed and not allowed:
            return {"remedy": "reclaim"}
        cap = policy.max_priority_threshold
        above = [w.priority for w in allowed if cap is not None and cap < w.priority < preemptor.priority]
        if above and not policy.borrowing_forbidden:
            return {"remedy": "threshold", "threshold": max(above)}
    own = [w for w in snap.workloads(snap.rules.name) if uses(w, frs)]
    if policy.within_cluster_queue == NEVER and any(satisfies("LowerPriority", preemptor, w, snap) for w in own):
        return {"remedy": "within"}
    return {}


def _pairs(frs: set[FlavorResource]) -> str:
    return ", ".join(f"{r} of flavor {f}" for f, r in sorted(frs))


def why_not(snap: Snapshot, preemptor: Preemptor, frs: set[FlavorResource]) -> str:
    """Why no preemption frees ``frs`` for the preemptor, in words."""
    policy, cq, node = snap.rules.policy, snap.rules.name, snap.node
    in_cohort = node.parent is not None
    if policy.within_cluster_queue == NEVER and (not in_cohort or policy.reclaim_within_cohort == NEVER):
        tail = " and reclaimWithinCohort is Never" if in_cohort else " and it is in no cohort"
        return f"ClusterQueue {cq} preempts nothing: its withinClusterQueue is Never{tail}"
    parts = []
    if policy.within_cluster_queue == NEVER:
        parts.append(f"ClusterQueue {cq} never preempts its own workloads (withinClusterQueue: Never)")
    else:
        holders = [w for w in snap.workloads(cq) if uses(w, frs)]
        allowed = [w for w in holders if satisfies(policy.within_cluster_queue, preemptor, w, snap)]
        if not holders:
            parts.append(f"no workload of ClusterQueue {cq} holds {_pairs(frs)}")
        elif not allowed:
            parts.append(f"the {len(holders)} workload(s) of ClusterQueue {cq} holding {_pairs(frs)} do not have "
                         f"{_POLICY_WORDS.get(policy.within_cluster_queue, policy.within_cluster_queue)} than "
                         f"{preemptor.priority} (withinClusterQueue: {policy.within_cluster_queue})")
        else:
            parts.append(f"preempting the {len(allowed)} workload(s) of ClusterQueue {cq} it may preempt would not "
                         "free enough")
    if in_cohort:
        parts.append(_cohort_part(snap, preemptor, frs))
    return "; ".join(parts)


def _cohort_part(snap: Snapshot, preemptor: Preemptor, frs: set[FlavorResource]) -> str:
    policy, node = snap.rules.policy, snap.node
    root = node.root()
    if policy.reclaim_within_cohort == NEVER:
        return f"it never reclaims quota from cohort {root.name} (reclaimWithinCohort: Never)"
    others = [q for q in root.cluster_queues_below() if q is not node and q.name not in snap.inactive]
    borrowing = [q for q in others if not q.within_nominal(frs)]
    if not borrowing:
        return f"no other ClusterQueue of cohort {root.name} uses more than its nominal quota of {_pairs(frs)}"
    holders = [w for q in borrowing for w in snap.workloads(q.name) if uses(w, frs)]
    allowed = [w for w in holders if satisfies(policy.reclaim_within_cohort, preemptor, w, snap)]
    names = ", ".join(sorted(q.name for q in borrowing))
    if not allowed:
        return (f"the workloads of the ClusterQueues borrowing it ({names}) do not have "
                f"{_POLICY_WORDS.get(policy.reclaim_within_cohort, policy.reclaim_within_cohort)} than "
                f"{preemptor.priority} (reclaimWithinCohort: {policy.reclaim_within_cohort})")
    extra = "" if not policy.borrowing_forbidden else " without itself borrowing (borrowWithinCohort: Never)"
    cap = policy.max_priority_threshold
    above = sorted({w.priority for w in allowed if cap is not None and w.priority > cap})
    if above and not policy.borrowing_forbidden:
        extra = (f" without itself borrowing; while it borrows it may preempt only workloads of priority at most {cap} "
                 f"(borrowWithinCohort.maxPriorityThreshold), and theirs are {', '.join(map(str, above))}")
    return f"reclaiming from {names} would not free enough{extra}"
