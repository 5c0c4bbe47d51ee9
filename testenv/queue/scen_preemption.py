"""Preemption scenarios: whom Kueue preempts, why, and when it does not.

Priorities come from WorkloadPriorityClasses (the Job label ``kueue.x-k8s.io/priority-class``) or
from a PriorityClass (``priorityClassName`` in the pod template). Policies: ``withinClusterQueue``
(LowerPriority, LowerOrNewerEqualPriority), ``reclaimWithinCohort`` (a sibling that borrows gives
back), ``borrowWithinCohort`` (preempt while borrowing), and ``flavorFungibility.whenCanPreempt``.

A preemptor that waits in a held LocalQueue (stopPolicy Hold) is explained first; the step then
releases the LocalQueue, Kueue preempts, and the judge compares the targets explain predicted
with the workloads Kueue preempted. A victim that is a bare Workload (no Job) keeps its quota once
evicted (no job controller stops it), so its preemptor stays pending with "Pending the
preemption of 1 workload(s)" until the step deletes the victim.
"""

from __future__ import annotations

from testenv.queue.actions import Delete, stop_local_queue
from testenv.queue.model import Expect, QueueScenario, Step, admitted, pending, preempted
from testenv.queue.objects import (
    bare_workload, cluster_queue, flavor, group, job, local_queue, pod, priority_class, queue_spec, quota,
    workload_priority_class,
)

LOWER = {"withinClusterQueue": "LowerPriority"}


def _classes() -> list[dict]:
    return [workload_priority_class("low", 10), workload_priority_class("mid", 50), workload_priority_class("high", 100)]


def _cq(cpu: str = "2", preemption: dict | None = None, **kw) -> dict:
    return queue_spec(group(["cpu"], quota("f", {"cpu": cpu})), preemption=preemption, **kw)


def _release(expect: dict[str, Expect]) -> Step:
    return Step("release LocalQueue held (stopPolicy None)", [stop_local_queue("held", "None")], expect)


def scenarios() -> list[QueueScenario]:
    setup = [flavor("f"), *_classes()]
    held = local_queue("held", stop="Hold")
    out = [
        QueueScenario(
            "preempt-lower-priority", "withinClusterQueue LowerPriority: a high-priority job preempts a low one "
            "(it waits in a held LocalQueue first, then is released)", "preemption", _cq(preemption=LOWER),
            ["job/low", "job/high"],
            [[job("low", pod("2"), priority="low")], [job("high", pod("2"), lq="held", priority="high")]],
            {"job/low": admitted(cpu="f"), "job/high": pending("LocalQueue held is inactive")},
            setup=[*setup, held], explain_first=True,
            steps=[_release({"job/low": preempted("InClusterQueue", "job/high", conds={"Requeued": "True/Preempted"}),
                             "job/high": admitted(cpu="f")})]),
        QueueScenario(
            "preempt-policy-never", "withinClusterQueue Never (the default): the high-priority job waits",
            "preemption", _cq(), ["job/high"],
            [[job("low", pod("2"), priority="low")], [job("high", pod("2"), priority="high")]],
            {"job/low": admitted(cpu="f"),
             "job/high": pending("insufficient unused quota for cpu in flavor {cq}-f, 2 more needed")},
            setup=setup),
        QueueScenario(
            "preempt-victim-higher", "LowerPriority, but the admitted job has the higher priority: no candidate",
            "preemption", _cq(preemption=LOWER), ["job/low"],
            [[job("high", pod("2"), priority="high")], [job("low", pod("2"), priority="low")]],
            {"job/high": admitted(cpu="f"), "job/low": pending("insufficient unused quota for cpu")},
            setup=setup),
        QueueScenario(
            "preempt-equal-priority-newer", "LowerOrNewerEqualPriority: an older job of the same priority preempts "
            "a newer admitted one once its LocalQueue is released", "preemption",
            _cq(preemption={"withinClusterQueue": "LowerOrNewerEqualPriority"}), ["job/old", "job/new"],
            [[job("old", pod("2"), lq="held", priority="mid")], [job("new", pod("2"), priority="mid")]],
            {"job/new": admitted(cpu="f"), "job/old": pending("LocalQueue held is inactive")},
            setup=[*setup, held], explain_first=True,
            steps=[_release({"job/new": preempted("InClusterQueue", "job/old"), "job/old": admitted(cpu="f")})]),
        _reclaim(setup, held),
        _borrow_within_cohort(setup),
        QueueScenario(
            "preempt-in-flight", "the victim is a bare Workload: evicted but holding its quota, the preemptor "
            "waits for it; the step deletes it", "preemption", _cq(preemption=LOWER),
            ["workload/victim", "job/high"],
            [[bare_workload("victim", pod("2"), priority=("low", 10))], [job("high", pod("2"), priority="high")]],
            {"workload/victim": preempted("InClusterQueue", "job/high", state="evicting"),
             "job/high": pending(". Pending the preemption of 1 workload(s)")},
            setup=setup, explain_first=True,
            steps=[Step("delete the victim Workload", [Delete("workloads.kueue.x-k8s.io", "victim")],
                        {"workload/victim": Expect("missing"), "job/high": admitted(cpu="f")})]),
        QueueScenario(
            "preempt-priority-class", "priorities from PriorityClasses (priorityClassName): 1000 preempts 10",
            "preemption", _cq(preemption=LOWER), ["job/low", "job/high"],
            [[job("low", pod("2", priority_class_name="low"))], [job("high", pod("2", priority_class_name="high"))]],
            {"job/low": preempted("InClusterQueue", "job/high"), "job/high": admitted(cpu="f")},
            setup=[flavor("f"), priority_class("low", 10), priority_class("high", 1000)]),
    ]
    return out + _fungibility()


def _reclaim(setup: list[dict], held: dict) -> QueueScenario:
    """Sibling ClusterQueue b (0 cpu) borrows the 2 cpu of this one; this one's job reclaims them."""
    sibling = cluster_queue("b", queue_spec(group(["cpu"], quota("f", {"cpu": "0"})), cohort="pool"))
    return QueueScenario(
        "preempt-reclaim-cohort", "reclaimWithinCohort Any: the owner of the quota reclaims it from a sibling "
        "ClusterQueue that borrows it", "preemption",
        _cq(preemption={"reclaimWithinCohort": "Any"}, cohort="pool"), ["job/borrower", "job/owner"],
        [[job("borrower", pod("2"), lq="lq-b")], [job("owner", pod("2"), lq="held")]],
        {"job/borrower": admitted(cpu="f"), "job/owner": pending("LocalQueue held is inactive")},
        setup=[*setup, sibling, local_queue("lq-b", "b"), held], explain_first=True,
        steps=[_release({"job/borrower": preempted("InCohortReclamation", "job/owner"),
                         "job/owner": admitted(cpu="f")})])


def _borrow_within_cohort(setup: list[dict]) -> QueueScenario:
    """Both ClusterQueues own 2 cpu; b's low job borrows 1; this one's high job needs 3 (so it
    borrows too) and may preempt while borrowing."""
    sibling = cluster_queue("b", queue_spec(group(["cpu"], quota("f", {"cpu": "2"})), cohort="pool"))
    return QueueScenario(
        "preempt-borrow-within-cohort", "borrowWithinCohort LowerPriority: a job that must borrow preempts a "
        "lower-priority job of a sibling that borrows too", "preemption",
        _cq(preemption={"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}},
            cohort="pool"), ["job/low", "job/high"],
        [[job("low", pod("3"), lq="lq-b", priority="low")], [job("high", pod("3"), priority="high")]],
        {"job/low": preempted("InCohortReclaimWhileBorrowing", "job/high"), "job/high": admitted(cpu="f")},
        setup=[*setup, sibling, local_queue("lq-b", "b")])


def _fungibility() -> list[QueueScenario]:
    """Flavor a (2 cpu) is full with a low job of 2 cpu, flavor b (1 cpu) is free; a high job of 1
    cpu arrives (the low job, once preempted, fits neither flavor: it stays evicted)."""
    out = []
    for sid, fung, want, title in (
            ("fungibility-preempt-next", None, {"job/low": admitted(cpu="a"), "job/high": admitted(cpu="b")},
             "whenCanPreempt TryNextFlavor (default): flavor a needs a preemption, flavor b fits: b, nobody preempted"),
            ("fungibility-preempt-stop", {"whenCanPreempt": "MayStopSearch"},
             {"job/low": preempted("InClusterQueue", "job/high"), "job/high": admitted(cpu="a")},
             "whenCanPreempt MayStopSearch: the search stops at flavor a and preempts there although b is free")):
        cq = queue_spec(group(["cpu"], quota("a", {"cpu": "2"}), quota("b", {"cpu": "1"})), preemption=LOWER,
                        fungibility=fung)
        out.append(QueueScenario(sid, title, "preemption", cq, ["job/high"],
                                 [[job("low", pod("2"), priority="low")], [job("high", pod("1"), priority="high")]],
                                 want, setup=[flavor("a"), flavor("b"), *_classes()]))
    return out
