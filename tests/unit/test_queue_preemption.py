"""Whom Kueue preempts (classical preemption), in which order, and why not when nobody.

The cases translate ``pkg/scheduler/preemption/preemption_test.go`` of Kueue (``TestPreemption``
and ``TestCandidatesOrdering``), named in the comments: the same ClusterQueues
(``defaultClusterQueues``), the same admitted workloads and incoming workload, and the same
preempted workloads with the same reasons. Upstream hands the search a fixed flavor assignment;
here the (flavor, resource) pairs needing preemption are given the same way.
"""

from __future__ import annotations

import pytest
from queue_model_helpers import amounts, incoming, ps, run, snapshot, world

from kubectl_kueue_dra.kueue.scheduler import preemption
from kubectl_kueue_dra.kueue.scheduler.preemption_plan import plan
from testenv.queue.builders import T0, at, cluster_queue, cond, flavor, flavor_quotas, group, quota, workload

LOWER, ANY, NEWER = "LowerPriority", "Any", "LowerOrNewerEqualPriority"
THRESHOLD = {"borrow": LOWER, "threshold": 0}
QUEUES = [
    cluster_queue("standalone", group(flavor_quotas("default", cpu="6")),
                  group(flavor_quotas("alpha", memory="3Gi"), flavor_quotas("beta", memory="3Gi")), within=LOWER),
    cluster_queue("c1", group(flavor_quotas("default", cpu=quota("6", "6"), memory=quota("3Gi", "3Gi"))),
                  cohort="cohort", within=LOWER, reclaim=LOWER),
    cluster_queue("c2", group(flavor_quotas("default", cpu=quota("6", "6"), memory=quota("3Gi", "3Gi"))),
                  cohort="cohort", within="Never", reclaim=ANY),
    cluster_queue("d1", group(flavor_quotas("default", cpu="6", memory="3Gi")), cohort="cohort-no-limits",
                  within=LOWER, reclaim=LOWER),
    cluster_queue("d2", group(flavor_quotas("default", cpu="6", memory="3Gi")), cohort="cohort-no-limits",
                  within="Never", reclaim=ANY),
    cluster_queue("l1", group(flavor_quotas("default", cpu=quota("6", "12"), memory=quota("3Gi", "6Gi"))),
                  cohort="legion", within=LOWER, reclaim=LOWER),
    cluster_queue("preventStarvation", group(flavor_quotas("default", cpu="6")), within=NEWER),
    cluster_queue("a_standard", group(flavor_quotas("default", cpu=quota("1", "12"))), cohort="with_shared_cq",
                  within="Never", reclaim=LOWER, **THRESHOLD),
    cluster_queue("b_standard", group(flavor_quotas("default", cpu=quota("1", "12"))), cohort="with_shared_cq",
                  within=LOWER, reclaim=ANY, **THRESHOLD),
    cluster_queue("a_best_effort", group(flavor_quotas("default", cpu=quota("1", "12"))), cohort="with_shared_cq",
                  within="Never", reclaim=LOWER, **THRESHOLD),
    cluster_queue("b_best_effort", group(flavor_quotas("default", cpu=quota("0", "13"))), cohort="with_shared_cq",
                  within="Never", reclaim=LOWER, **THRESHOLD),
    cluster_queue("shared", group(flavor_quotas("default", cpu="10")), cohort="with_shared_cq"),
    cluster_queue("lend1", group(flavor_quotas("default", cpu=quota("6", lending="4"))), cohort="cohort-lend",
                  within=LOWER, reclaim=LOWER),
    cluster_queue("lend2", group(flavor_quotas("default", cpu=quota("6", lending="2"))), cohort="cohort-lend",
                  within=LOWER, reclaim=LOWER),
]
FLAVORS = [flavor("default"), flavor("alpha"), flavor("beta")]


def adm(name, cq, priority=None, cpu=None, memory=None, mem_flavor="default", reserved=T0, **kw):
    requests, flavors = {}, {}
    if cpu:
        requests["cpu"], flavors["cpu"] = cpu, "default"
    if memory:
        requests["memory"], flavors["memory"] = memory, mem_flavor
    return workload(name, priority=priority, admitted_to=cq, requests=requests, flavors=flavors, reserved_at=reserved, **kw)


def targets(cq, admitted, priority=0, needs=None, created=T0, **requests):
    """Targets for an incoming workload of ``cq`` asking ``requests`` (cpu on flavor default,
    memory on ``needs``' flavor), every requested pair needing preemption unless ``needs`` says."""
    w = world(*FLAVORS, *QUEUES, *admitted)
    snap = snapshot(w, cq)
    pairs = {("default" if r == "cpu" else (needs or {}).get(r, "default"), r): v for r, v in amounts(requests).items()}
    frs = {fr for fr in pairs if needs is None or fr[1] in needs}
    found = preemption.targets(snap, incoming(cq=cq, priority=priority, created=created), pairs, frs)
    return sorted((t.info.name, t.reason) for t in found)


IN_CQ, RECLAIM, WHILE_BORROWING = "InClusterQueue", "InCohortReclamation", "InCohortReclaimWhileBorrowing"


def test_preempt_lowest_priority():  # upstream: "preempt lowest priority"
    admitted = [adm("low", "standalone", -1, "2"), adm("mid", "standalone", None, "2"), adm("high", "standalone", 1, "2")]
    assert targets("standalone", admitted, priority=1, cpu="2") == [("low", IN_CQ)]


def test_preempt_multiple():  # upstream: "preempt multiple"
    admitted = [adm("low", "standalone", -1, "2"), adm("mid", "standalone", None, "2"), adm("high", "standalone", 1, "2")]
    assert targets("standalone", admitted, priority=1, cpu="3") == [("low", IN_CQ), ("mid", IN_CQ)]


def test_no_preemption_for_low_priority():  # upstream: "no preemption for low priority"
    admitted = [adm("low", "standalone", -1, "3"), adm("mid", "standalone", None, "3")]
    assert targets("standalone", admitted, priority=-1, cpu="1") == []


def test_not_enough_low_priority_workloads():  # upstream: "not enough low priority workloads"
    admitted = [adm("low", "standalone", -1, "3"), adm("mid", "standalone", None, "3")]
    assert targets("standalone", admitted, cpu="4") == []


def test_some_free_quota_preempt_low_priority():  # upstream: "some free quota, preempt low priority"
    admitted = [adm("low", "standalone", -1, "1"), adm("mid", "standalone", None, "1"), adm("high", "standalone", 1, "3")]
    assert targets("standalone", admitted, priority=1, cpu="2") == [("low", IN_CQ)]


def test_minimal_set_excludes_low_priority():  # upstream: "minimal set excludes low priority"
    admitted = [adm("low", "standalone", -1, "1"), adm("mid", "standalone", None, "2"), adm("high", "standalone", 1, "3")]
    assert targets("standalone", admitted, priority=1, cpu="2") == [("mid", IN_CQ)]


def test_only_preempt_workloads_using_the_chosen_flavor():  # upstream: "only preempt workloads using the chosen flavor"
    admitted = [adm("low", "standalone", -1, memory="2Gi", mem_flavor="alpha"),
                adm("mid", "standalone", None, memory="1Gi", mem_flavor="beta"),
                adm("high", "standalone", 1, memory="1Gi", mem_flavor="beta")]
    assert targets("standalone", admitted, priority=1, needs={"memory": "beta"}, cpu="1", memory="2Gi") == [("mid", IN_CQ)]


def test_reclaim_quota_from_borrower():  # upstream: "reclaim quota from borrower"
    admitted = [adm("c1-low", "c1", -1, "3"), adm("c2-mid", "c2", None, "3"), adm("c2-high", "c2", 1, "6")]
    assert targets("c1", admitted, priority=1, cpu="3") == [("c2-mid", RECLAIM)]


def test_no_workloads_borrowing():  # upstream: "no workloads borrowing"
    admitted = [adm("c1-high", "c1", 1, "4"), adm("c2-low-1", "c2", -1, "4")]
    assert targets("c1", admitted, priority=1, cpu="4") == []


def test_not_enough_workloads_borrowing():  # upstream: "not enough workloads borrowing"
    admitted = [adm("c1-high", "c1", 1, "4"), adm("c2-low-1", "c2", -1, "4"), adm("c2-low-2", "c2", -1, "4")]
    assert targets("c1", admitted, priority=1, cpu="4") == []


def test_preempting_locally_and_borrowing_other_resources():  # upstream: "preempting locally and borrowing other resources in cohort, without cohort candidates"
    admitted = [adm("c1-low", "c1", -1, "4"), adm("c2-low-1", "c2", -1, "4"), adm("c2-high-2", "c2", 1, "4")]
    assert targets("c1", admitted, priority=1, cpu="4", memory="5Gi") == [("c1-low", IN_CQ)]


def test_do_not_reclaim_from_the_same_priority_with_lower_priority():  # upstream: "do not reclaim borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority"
    admitted = [adm("c1", "c1", None, "2"), adm("c2-1", "c2", None, "4"), adm("c2-2", "c2", None, "4")]
    assert targets("c1", admitted, cpu="4") == []


def test_reclaim_from_the_same_priority_with_any():  # upstream: "reclaim borrowed quota from same priority for withinCohort=ReclaimFromAny"
    admitted = [adm("c1-1", "c1", None, "4"), adm("c1-2", "c1", 1, "4"), adm("c2", "c2", None, "2")]
    assert targets("c2", admitted, cpu="4") == [("c1-1", RECLAIM)]


def test_preempt_from_all_cluster_queues_in_cohort():  # upstream: "preempt from all ClusterQueues in cohort"
    admitted = [adm("c1-low", "c1", -1, "3"), adm("c1-mid", "c1", None, "2"), adm("c2-low", "c2", -1, "3"),
                adm("c2-mid", "c2", None, "4")]
    assert targets("c1", admitted, cpu="4") == [("c1-low", IN_CQ), ("c2-low", RECLAIM)]


def test_within_cluster_queue_never():  # upstream: "can't preempt workloads in ClusterQueue for withinClusterQueue=Never"
    assert targets("c2", [adm("c2-low", "c2", -1, "3")], priority=1, cpu="4") == []


def test_each_pod_set_preempts_a_different_flavor():  # upstream: "each podset preempts a different flavor"
    admitted = [adm("low-alpha", "standalone", -1, memory="2Gi", mem_flavor="alpha"),
                adm("low-beta", "standalone", -1, memory="2Gi", mem_flavor="beta")]
    snap = snapshot(world(*FLAVORS, *QUEUES, *admitted), "standalone")
    requests = {("alpha", "memory"): 2 * 2**30, ("beta", "memory"): 2 * 2**30}  # launcher 2Gi, 2 workers × 1Gi
    found = preemption.targets(snap, incoming(cq="standalone"), requests, set(requests))
    assert sorted(t.info.name for t in found) == ["low-alpha", "low-beta"]


def test_preempt_newer_workloads_with_the_same_priority():  # upstream: "preempt newer workloads with the same priority"
    admitted = [adm("wl1", "preventStarvation", 2, "2"),
                adm("wl2", "preventStarvation", 1, "2", reserved=at(0, 1), created=at(0, 0)),
                adm("wl3", "preventStarvation", 1, "2", reserved=at(0, 0), created=at(0, 0))]
    # the incoming workload was created 15s before the others: it is the older one
    assert targets("preventStarvation", admitted, priority=1, created="2025-12-31T23:59:45Z", cpu="2") == [("wl2", IN_CQ)]


def test_equal_priority_queued_earlier_is_protected():
    admitted = [adm("old", "preventStarvation", 1, "6", created="2025-12-31T23:00:00Z")]
    assert targets("preventStarvation", admitted, priority=1, created=at(0), cpu="2") == []


def test_borrow_within_cohort_preempts_lower_priority_while_borrowing():  # upstream: "use BorrowWithinCohort; allow preempting a lower-priority workload from another ClusterQueue while borrowing"
    admitted = [adm("a_best_effort_low", "a_best_effort", -1, "10"), adm("b_best_effort_low", "b_best_effort", -1, "1")]
    assert targets("a_standard", admitted, cpu="10") == [("a_best_effort_low", WHILE_BORROWING)]


def test_max_priority_threshold_protects_when_borrowing_remains():  # upstream: "use BorrowWithinCohort; don't allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is required even after the preemption"
    assert targets("a_standard", [adm("b_standard", "b_standard", 1, "10")], priority=2, cpu="10") == []


def test_above_threshold_is_reclaimed_when_no_borrowing_remains():  # upstream: "use BorrowWithinCohort; allow preempting a lower-priority workload with priority above MaxPriorityThreshold, if borrowing is not required after the preemption"
    assert targets("a_standard", [adm("b_standard", "b_standard", 1, "13")], priority=2, cpu="1") == [
        ("b_standard", RECLAIM)]


def test_borrow_within_cohort_does_not_open_the_own_queue():  # upstream: "use BorrowWithinCohort; don't allow for preemption of lower-priority workload from the same ClusterQueue"
    assert targets("a_standard", [adm("a_standard", "a_standard", 1, "13")], priority=2, cpu="1") == []


def test_own_queue_when_no_cohort_workload_is_below_threshold():  # upstream: "use BorrowWithinCohort; only preempt from CQ if no workloads below threshold and already above nominal"
    admitted = [adm("a_standard_1", "a_standard", 1, "10"), adm("a_standard_2", "a_standard", 1, "1"),
                adm("b_standard_1", "b_standard", 1, "1"), adm("b_standard_2", "b_standard", 2, "1")]
    assert targets("b_standard", admitted, priority=3, cpu="1") == [("b_standard_1", IN_CQ)]


def test_own_queue_and_cohort_workloads_below_threshold():  # upstream: "use BorrowWithinCohort; preempt from CQ and from other CQs with workloads below threshold"
    admitted = [adm("b_standard_high", "b_standard", 2, "10"), adm("b_standard_mid", "b_standard", 1, "1"),
                adm("a_best_effort_low", "a_best_effort", -1, "1"), adm("a_best_effort_lower", "a_best_effort", -2, "1")]
    assert targets("b_standard", admitted, priority=2, cpu="2") == [
        ("a_best_effort_lower", WHILE_BORROWING), ("b_standard_mid", IN_CQ)]


def test_reclaim_quota_from_lender():  # upstream: "reclaim quota from lender"
    admitted = [adm("lend1-low", "lend1", -1, "3"), adm("lend2-mid", "lend2", None, "3"), adm("lend2-high", "lend2", 1, "4")]
    assert targets("lend1", admitted, priority=1, cpu="3") == [("lend2-mid", RECLAIM)]


def test_preempt_from_all_queues_of_a_lending_cohort():  # upstream: "preempt from all ClusterQueues in cohort-lend"
    admitted = [adm("lend1-low", "lend1", -1, "3"), adm("lend1-mid", "lend1", None, "2"),
                adm("lend2-low", "lend2", -1, "3"), adm("lend2-mid", "lend2", None, "4")]
    assert targets("lend1", admitted, cpu="4") == [("lend1-low", IN_CQ), ("lend2-low", RECLAIM)]


def test_cannot_preempt_beyond_what_the_lending_limit_allows():  # upstream: "cannot preempt from other ClusterQueues if exceeds requestable quota including lending limit"
    assert targets("lend1", [adm("lend2-low", "lend2", -1, "10")], cpu="9") == []


# --------------------------------------------------------------------------------------- ordering


def _order(cq, admitted, priority=0):
    snap = snapshot(world(*FLAVORS, *QUEUES, *admitted), cq)
    found = preemption.candidates(snap, incoming(cq=cq, priority=priority), {("default", "cpu"): 1000},
                                  {("default", "cpu")})
    return [t.info.name for t in found]


def test_candidates_by_priority():  # upstream TestCandidatesOrdering: "workloads sorted by priority"
    assert _order("standalone", [adm("high", "standalone", 10, "1"), adm("low", "standalone", -10, "1")], 20) == [
        "low", "high"]


def test_evicted_candidate_first():  # upstream TestCandidatesOrdering: "evicted workload first"
    admitted = [adm("other", "standalone", -10, "1"),
                adm("evicted", "standalone", 10, "1", conditions=[cond("Evicted", reason="Preempted")])]
    assert _order("standalone", admitted, 20) == ["evicted", "other"]


def test_other_cluster_queue_first():  # upstream TestCandidatesOrdering: "workload from different CQ first"
    admitted = [adm("own", "c1", -1, "1"), adm("other", "c2", -1, "7")]
    assert _order("c1", admitted, 0) == ["other", "own"]


def test_most_recently_reserved_first():  # upstream TestCandidatesOrdering: "old workloads last"
    admitted = [adm("older", "standalone", None, "1", reserved=at(0, 0)), adm("younger", "standalone", None, "1", reserved=at(0, 2)),
                adm("current", "standalone", None, "1", reserved=at(0, 1))]
    assert _order("standalone", admitted, 1) == ["younger", "current", "older"]


# ----------------------------------------------------------------------------- through the assigner


def test_plan_names_targets_of_the_whole_assignment():
    admitted = [adm("low", "standalone", -1, "3"), adm("mid", "standalone", None, "3")]
    w = world(*FLAVORS, *QUEUES, *admitted)
    asg = run(w, ps(requests={"cpu": "2"}), cq="standalone", priority=1)
    assert asg.mode == "Preempt"
    p = plan(snapshot(w, "standalone"), incoming(ps(requests={"cpu": "2"}), cq="standalone", priority=1), asg)
    assert p.possible is True and [(t.info.name, t.reason) for t in p.targets] == [("low", IN_CQ)]


@pytest.mark.parametrize("cq,admitted,priority,why", [
    ("c2", [adm("c2-low", "c2", -1, "6"), adm("c1-full", "c1", -1, "6")], 1, "ClusterQueue c2 never preempts its own workloads (withinClusterQueue: Never); "
     "no other ClusterQueue of cohort cohort uses more than its nominal quota of cpu of flavor default"),
    ("standalone", [adm("mid", "standalone", None, "6")], 0,
     "the 1 workload(s) of ClusterQueue standalone holding cpu of flavor default do not have a lower priority than 0 "
     "(withinClusterQueue: LowerPriority)"),
])
def test_why_not(cq, admitted, priority, why):
    w = world(*FLAVORS, *QUEUES, *admitted)
    pre = incoming(ps(requests={"cpu": "2"}), cq=cq, priority=priority)
    asg = run(w, ps(requests={"cpu": "2"}), cq=cq, priority=priority)
    p = plan(snapshot(w, cq), pre, asg)
    assert p is not None and p.possible is False and p.why == why


def test_without_any_policy_nothing_is_preempted():
    cq = cluster_queue("solo", group(flavor_quotas("default", cpu="2")))
    w = world(flavor("default"), cq, adm("x", "solo", -5, "2"))
    asg = run(w, ps(requests={"cpu": "1"}), cq="solo", priority=5)
    p = plan(snapshot(w, "solo"), incoming(ps(requests={"cpu": "1"}), cq="solo", priority=5), asg)
    assert p.possible is False and p.why == "ClusterQueue solo preempts nothing: its withinClusterQueue is Never and it is in no cohort"


def test_fair_sharing_is_not_modelled():
    w = world(*FLAVORS, *QUEUES, adm("low", "standalone", -1, "6"), fair_sharing=True)
    asg = run(w, ps(requests={"cpu": "2"}), cq="standalone", priority=1)
    p = plan(snapshot(w, "standalone"), incoming(ps(requests={"cpu": "2"}), cq="standalone", priority=1), asg)
    assert p.possible is None and p.unknown == "fair sharing preemption is not modelled"
    assert "fair sharing preemption is not modelled" in asg.caveats


def test_unreadable_workloads_leave_preemption_unknown():
    import copy

    from kubectl_kueue_dra.kueue.queues.quota_tree import TreeError

    w = world(*FLAVORS, *QUEUES, workloads=None, unreadable={"Workload": "forbidden"})
    with pytest.raises(TreeError, match=r"has no status\.flavorsReservation"):
        snapshot(w, "standalone")  # the quota held is unknown, not zero
    queues = copy.deepcopy(QUEUES)
    queues[0]["status"]["flavorsReservation"] = [{"name": "default", "resources": [{"name": "cpu", "total": "6"}]}]
    w = world(*FLAVORS, *queues, workloads=None, unreadable={"Workload": "forbidden"})
    asg = run(w, ps(requests={"cpu": "2"}), cq="standalone", priority=1)
    p = plan(snapshot(w, "standalone"), incoming(ps(requests={"cpu": "2"}), cq="standalone", priority=1), asg)
    assert asg.mode == "Preempt" and p.possible is None
    assert p.unknown == "the workloads holding quota are unknown: the Workloads could not be read (forbidden)"
