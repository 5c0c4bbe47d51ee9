"""The flavor assigner re-run on objects: which flavor each resource gets, every flavor tried
and why it failed, the mode, and Kueue's message character for character.

Most cases translate a case of Kueue's ``pkg/scheduler/flavorassigner/flavorassigner_test.go``
(``TestAssignFlavors``), named in the comment. Upstream sets a ClusterQueue's usage directly and
fakes the preemption oracle; here usage comes from admitted Workloads and the oracle is the real
preemption search, so where upstream fakes "Preempt", a lower-priority workload holds the quota
under ``withinClusterQueue: LowerPriority``.
"""

from __future__ import annotations

import pytest
from queue_model_helpers import ps, run, tried, world

from kubectl_kueue_dra.kueue.scheduler.flavor_match import go_taint, selector_matches, tolerates
from kubectl_kueue_dra.kueue.scheduler.modes import resource_order
from testenv.queue.builders import cluster_queue, cohort, flavor, flavor_quotas, group, quota, workload

GPU = "example.com/gpu"
SPOT = {"key": "instance", "value": "spot", "effect": "NoSchedule"}
SPOT_TOLERATION = {"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
FLAVORS = [flavor("default"), flavor("one", {"type": "one"}), flavor("two", {"type": "two"}),
           flavor("b_one", {"b_type": "one"}), flavor("b_two", {"b_type": "two"}),
           flavor("tainted", taints=[SPOT]), flavor("taint_and_toleration", taints=[SPOT], tolerations=[SPOT_TOLERATION]),
           flavor("label-x-a", {"x": "a"}), flavor("label-xy-b", {"x": "b", "y": "k"})]


def held(cq, usage: dict[str, dict[str, str]], priority=-1, name=None):
    """An admitted workload of ``cq`` holding ``usage`` ({flavor: {resource: total}})."""
    out = []
    for i, (f, res) in enumerate(usage.items()):
        out.append(workload(name or f"held-{cq}-{f}-{i}", priority=priority, admitted_to=cq, requests=res,
                            flavors=dict.fromkeys(res, f), usage=res))
    return out


def w(*objs, version="0.19.2"):
    return world(*FLAVORS, *objs, version=version)


def msg(*parts):
    return "; ".join(f"couldn't assign flavors to pod set {name}: {', '.join(sorted(reasons))}" for name, reasons in parts)


# --------------------------------------------------------------------------------------------- fits


def test_single_flavor_fits():  # upstream: "single flavor, fits"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("default", cpu="1", memory="2Mi")))),
              ps(requests={"cpu": "1", "memory": "1Mi"}))
    assert asg.mode == "Fit" and asg.message == ""
    assert asg.podsets[0].flavors == {"cpu": "default", "memory": "default"}
    assert asg.usage == {("default", "cpu"): 1000, ("default", "memory"): 2**20}


def test_tainted_flavor_fits_with_the_pods_toleration():  # upstream: "single flavor, fits tainted flavor"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("tainted", cpu="4")))),
              ps(spec={"tolerations": [SPOT_TOLERATION]}))
    assert asg.mode == "Fit" and asg.podsets[0].flavors == {"cpu": "tainted"}


def test_tainted_flavor_fits_with_its_own_toleration():  # upstream: "single flavor, fits tainted flavor with toleration"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("taint_and_toleration", cpu="4")))), ps())
    assert asg.mode == "Fit" and asg.podsets[0].flavors == {"cpu": "taint_and_toleration"}


def test_untolerated_taint_is_written_as_go_prints_the_struct():
    asg = run(w(cluster_queue("cq", group(flavor_quotas("tainted", cpu="4")))), ps())
    assert asg.mode == "NoFit"
    assert asg.message == msg(("main", ["untolerated taint {instance spot NoSchedule <nil>} in flavor tainted"]))
    assert asg.podsets[0].reasons[0].code == "UntoleratedTaint"


def test_multiple_resource_groups_fit_in_hash_order():  # upstream: "multiple resource groups, fits"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="2"), flavor_quotas("two", cpu="4")),
                       group(flavor_quotas("b_one", memory="1Gi"), flavor_quotas("b_two", memory="5Gi")))
    asg = run(w(cq), ps(requests={"cpu": "3", "memory": "10Mi"}))
    assert asg.mode == "Fit" and asg.message == ""
    assert asg.podsets[0].flavors == {"cpu": "two", "memory": "b_one"}
    # memory hashes before cpu: its group is searched first; b_one fits, so b_two is not looked at
    assert tried(asg) == [("b_one", "fit"), ("b_two", "notTried"), ("one", "noFit"), ("two", "fit")]


def test_multiple_groups_with_multiple_resources_fit():  # upstream: "multiple resource groups with multiple resources, fits"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="2", memory="1Gi"), flavor_quotas("two", cpu="4", memory="15Mi")),
                       group(flavor_quotas("b_one", example_com_gpu="4"), flavor_quotas("b_two", example_com_gpu="2")))
    asg = run(w(cq), ps(requests={"cpu": "3", "memory": "10Mi", GPU: "3"}))
    assert asg.podsets[0].flavors == {"cpu": "two", "memory": "two", GPU: "b_one"}
    assert asg.usage == {("two", "cpu"): 3000, ("two", "memory"): 10 * 2**20, ("b_one", GPU): 3}


def test_skips_the_tainted_flavor():  # upstream: "multiple flavors, fits while skipping tainted flavor"
    cq = cluster_queue("cq", group(flavor_quotas("tainted", cpu="4"), flavor_quotas("two", cpu="4")))
    asg = run(w(cq), ps(requests={"cpu": "3"}))
    assert asg.mode == "Fit" and asg.podsets[0].flavors == {"cpu": "two"}
    assert tried(asg) == [("tainted", "noFit"), ("two", "fit")]


def test_node_selector_keeps_only_the_flavors_keys():  # upstream: "multiple flavors, fits a node selector"
    spec = {"nodeSelector": {"type": "two", "ignored1": "foo"}, "affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "ignored2", "operator": "In", "values": ["bar"]}]}]}}}}
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")))
    asg = run(w(cq), ps(spec=spec))
    assert asg.podsets[0].flavors == {"cpu": "two"}


def _affinity(*terms):
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": list(t)} for t in terms]}}}}


def test_required_node_affinity_picks_the_flavor():  # upstream: "multiple flavors, fits with node affinity"
    spec = {"nodeSelector": {"ignored1": "foo"}, **_affinity([{"key": "type", "operator": "In", "values": ["two"]}])}
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4", memory="1Gi"), flavor_quotas("two", cpu="4", memory="1Gi")))
    asg = run(w(cq), ps(requests={"cpu": "1", "memory": "1Mi"}, spec=spec))
    assert asg.podsets[0].flavors == {"cpu": "two", "memory": "two"}


def test_a_term_without_the_flavors_keys_drops_the_whole_affinity():  # upstream: "multiple flavors, node affinity fits any flavor"
    spec = _affinity([{"key": "ignored2", "operator": "In", "values": ["bar"]}],
                     [{"key": "cpuType", "operator": "In", "values": ["two"]}])
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")))
    asg = run(w(cq), ps(spec=spec))
    assert asg.podsets[0].flavors == {"cpu": "one"}


def test_selector_uses_each_flavors_own_keys():  # upstream: "multiple flavors with different label keys, selector only uses flavor's own keys"
    cq = cluster_queue("cq", group(flavor_quotas("label-x-a", cpu="4"), flavor_quotas("label-xy-b", cpu="4")))
    asg = run(w(cq), ps(spec={"nodeSelector": {"x": "a", "y": "g"}}))
    assert asg.podsets[0].flavors == {"cpu": "label-x-a"}


def test_a_flavor_without_labels_matches_any_selector():  # upstream: "labelless flavor in group with labeled flavor, workload uses labeled selector"
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="4"), flavor_quotas("two", cpu="4")))
    asg = run(w(cq), ps(spec={"nodeSelector": {"type": "two"}}))
    assert asg.podsets[0].flavors == {"cpu": "default"}


def test_no_flavor_matches_the_node_affinity():  # upstream: "multiple flavors, doesn't fit node affinity"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")))
    asg = run(w(cq), ps(spec=_affinity([{"key": "type", "operator": "In", "values": ["three"]}])))
    assert asg.mode == "NoFit"
    assert asg.message == msg(("main", ["flavor one doesn't match node affinity", "flavor two doesn't match node affinity"]))
    assert {r.code for r in asg.podsets[0].reasons} == {"NodeAffinityMismatch"}


def test_pod_sets_fit_different_flavors():  # upstream: "multiple specs, fit different flavors"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="10")))
    asg = run(w(cq), ps("driver", requests={"cpu": "5"}), ps("worker", requests={"cpu": "3"}))
    assert [p.flavors for p in asg.podsets] == [{"cpu": "two"}, {"cpu": "one"}]


def test_zero_request_of_an_uncovered_resource_is_ignored():  # upstream: "zero resource request not in clusterQueue should succeed"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("default", cpu="4")))), ps(requests={"cpu": "1", GPU: "0"}))
    assert asg.mode == "Fit" and asg.podsets[0].flavors == {"cpu": "default"}


def test_zero_request_of_a_covered_resource_gets_a_flavor():  # upstream: "zero resource request defined in clusterQueue should get flavor assigned"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("default", cpu="4", example_com_gpu="4")))),
              ps(requests={"cpu": "1", GPU: "0"}))
    assert asg.podsets[0].flavors == {"cpu": "default", GPU: "default"}


def test_pods_are_charged_when_covered():  # upstream: "num pods fit"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("default", pods="3", cpu="10")))), ps(count=3))
    assert asg.podsets[0].flavors == {"cpu": "default", "pods": "default"}
    assert asg.usage[("default", "pods")] == 3


# ----------------------------------------------------------------------------------------- failures


def test_resource_not_covered():  # upstream: "resource not listed in clusterQueue"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("one", cpu="4")))), ps(requests={GPU: "2"}))
    assert asg.mode == "NoFit"
    assert asg.message == "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue"


def test_too_many_pods():  # upstream: "num pods don't fit"
    asg = run(w(cluster_queue("cq", group(flavor_quotas("default", pods="2", cpu="10")))), ps(count=3))
    assert asg.message == msg(("main", ["insufficient quota for pods in flavor default, previously considered podsets "
                                        "requests (0) + current podset request (3) > maximum capacity (2)"]))


def test_each_flavor_fails_on_another_resource():  # upstream: "multiple resources in a group, doesn't fit"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="2", memory="1Gi"), flavor_quotas("two", cpu="4", memory="5Mi")))
    asg = run(w(cq), ps(requests={"cpu": "3", "memory": "10Mi"}))
    assert asg.message == msg(("main", [
        "insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (3) > maximum capacity (2)",
        "insufficient quota for memory in flavor two, previously considered podsets requests (0) + current podset request (10Mi) > maximum capacity (5Mi)"]))


def test_a_failing_group_replaces_the_reasons_of_the_others():  # upstream: "multiple resource groups, one could fit with preemption, other doesn't fit"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="3")), group(flavor_quotas("b_one", memory="1Mi")),
                       within="LowerPriority")
    asg = run(w(cq, *held("cq", {"one": {"cpu": "1"}})), ps(requests={"cpu": "3", "memory": "10Mi"}))
    assert asg.mode == "NoFit"
    assert asg.message == msg(("main", ["insufficient quota for memory in flavor b_one, previously considered podsets "
                                        "requests (0) + current podset request (10Mi) > maximum capacity (1Mi)"]))


def test_pod_set_group_fails_together():  # upstream: "multiple flavors, leader worker set, workers request GPU, leader does not request GPU, does not fit, without group it would fit"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4", example_com_gpu="4"),
                                   flavor_quotas("two", cpu="5", example_com_gpu="0")))
    asg = run(w(cq), ps("worker", 4, {"cpu": "1", GPU: "1"}, group="group1"), ps("leader", 1, {"cpu": "1"}, group="group1"))
    reasons = ["insufficient quota for cpu in flavor one, previously considered podsets requests (0) + current podset request (5) > maximum capacity (4)",
               "insufficient quota for example.com/gpu in flavor two, previously considered podsets requests (0) + current podset request (4) > maximum capacity (0)"]
    assert asg.message == msg(("worker", reasons), ("leader", reasons))


def test_pod_sets_after_a_failure_are_not_looked_at():
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4")))
    asg = run(w(cq), ps("driver", requests={"cpu": "5"}), ps("worker", requests={"cpu": "1"}))
    assert [p.name for p in asg.podsets] == ["driver"] and asg.skipped == ["worker"]


def test_later_pod_sets_count_what_earlier_ones_took():  # upstream: "each podset requires preemption on a different flavor"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("tainted", cpu="10")), within="LowerPriority")
    asg = run(w(cq, *held("cq", {"one": {"cpu": "3"}, "tainted": {"cpu": "3"}})), ps("launcher", 1, {"cpu": "2"}),
              ps("workers", 10, {"cpu": "1"}, spec={"tolerations": [SPOT_TOLERATION]}), priority=0)
    assert asg.mode == "Preempt"
    assert [p.flavors for p in asg.podsets] == [{"cpu": "one"}, {"cpu": "tainted"}]
    assert asg.message == msg(
        ("launcher", ["insufficient unused quota for cpu in flavor one, 1 more needed",
                      "untolerated taint {instance spot NoSchedule <nil>} in flavor tainted"]),
        ("workers", ["insufficient quota for cpu in flavor one, previously considered podsets requests (2) + current podset request (10) > maximum capacity (4)",
                     "insufficient unused quota for cpu in flavor tainted, 3 more needed"]))


def test_missing_resource_flavor():  # upstream: "flavor not found"
    cq = cluster_queue("cq", group(flavor_quotas("nonexistent-flavor", cpu="4")))
    asg = run(w(cq), ps())
    assert asg.message == "couldn't assign flavors to pod set main: flavor nonexistent-flavor not found"
    assert asg.podsets[0].reasons[0].code == "FlavorNotFound"


def test_missing_flavor_is_skipped():  # upstream: "multiple flavors, skip missing ResourceFlavor"
    cq = cluster_queue("cq", group(flavor_quotas("nonexistent-flavor", cpu="4"), flavor_quotas("two", cpu="4")))
    asg = run(w(cq), ps())
    assert asg.mode == "Fit" and asg.podsets[0].flavors == {"cpu": "two"}


def test_a_topology_flavor_does_not_serve_a_pod_set_without_topology_request():
    cq = cluster_queue("cq", group(flavor_quotas("tas", cpu="4"), flavor_quotas("default", cpu="1")))
    asg = run(world(flavor("tas", topology="topo"), flavor("default"), cq), ps(requests={"cpu": "2"}))
    assert asg.message == msg(("main", ['Flavor "tas" supports only TopologyAwareScheduling',
                                        "insufficient quota for cpu in flavor default, previously considered podsets "
                                        "requests (0) + current podset request (2) > maximum capacity (1)"]))


def test_topology_aware_scheduling_is_unknown():
    cq = cluster_queue("cq", group(flavor_quotas("tas", cpu="4")))
    asg = run(world(flavor("tas", topology="topo"), cq), ps())
    assert asg.unknown == "topology-aware scheduling is not modelled" and asg.message is None


# --------------------------------------------------------------------------------- quota and cohorts


def test_used_quota_needs_preemption():  # upstream: "single flavor, used resources, doesn't fit"
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="4")), within="LowerPriority")
    asg = run(w(cq, *held("cq", {"default": {"cpu": "3"}})), ps(requests={"cpu": "2"}))
    assert asg.mode == "Preempt" and asg.podsets[0].modes == {"cpu": "Preempt"}
    assert asg.message == msg(("main", ["insufficient unused quota for cpu in flavor default, 1 more needed"]))
    assert tried(asg) == [("default", "preempt")]


def test_without_a_preemption_policy_the_mode_is_no_candidates():
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="4")))
    asg = run(w(cq, *held("cq", {"default": {"cpu": "3"}})), ps(requests={"cpu": "2"}))
    check = asg.podsets[0].searches[0].tries[0].checks[0]
    assert check.mode.mode == 1 and asg.mode == "Preempt"  # noPreemptionCandidates is still Preempt for Kueue


def test_not_enough_space_to_borrow():  # upstream: "not enough space to borrow"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="1")), cohort="test-cohort")
    other = cluster_queue("other", group(flavor_quotas("one", cpu=quota("10", lending="0"))), cohort="test-cohort")
    asg = run(w(cq, other, *held("other", {"one": {"cpu": "9"}})), ps(requests={"cpu": "2"}))
    assert asg.message == msg(("main", ["insufficient quota for cpu in flavor one, previously considered podsets "
                                        "requests (0) + current podset request (2) > maximum capacity (1)"]))


def test_borrows_from_the_cohort():  # upstream: "multiple specs, fits borrowing"
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="2", memory="2Gi")), cohort="test-cohort")
    other = cluster_queue("other", group(flavor_quotas("default", cpu="198", memory="198Gi")), cohort="test-cohort")
    asg = run(w(cq, other), ps("driver", requests={"cpu": "4", "memory": "1Gi"}),
              ps("worker", requests={"cpu": "6", "memory": "4Gi"}))
    assert asg.mode == "Fit" and asg.borrowing == 1
    assert [p.flavors for p in asg.podsets] == [{"cpu": "default", "memory": "default"}] * 2
    assert tried(asg, 1) == [("default", "borrow")]


def test_borrowing_limit_caps_the_maximum_capacity():
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu=quota("2", borrowing="1"))), cohort="c")
    other = cluster_queue("other", group(flavor_quotas("one", cpu="10")), cohort="c")
    asg = run(w(cq, other), ps(requests={"cpu": "4"}))
    assert asg.message == msg(("main", ["insufficient quota for cpu in flavor one, previously considered podsets "
                                        "requests (0) + current podset request (4) > maximum capacity (3)"]))


def test_lending_limit_keeps_quota_from_the_cohort():  # upstream preemption test's cohort-lend queues, as a fit check
    lender = cluster_queue("lender", group(flavor_quotas("default", cpu=quota("6", lending="2"))), cohort="lend")
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="6")), cohort="lend")
    assert run(w(cq, lender), ps(requests={"cpu": "8"})).mode == "Fit"
    asg = run(w(cq, lender), ps(requests={"cpu": "9"}))
    assert asg.message == msg(("main", ["insufficient quota for cpu in flavor default, previously considered podsets "
                                        "requests (0) + current podset request (9) > maximum capacity (8)"]))


def test_cohort_quota_and_nested_cohorts_count():
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="1")), cohort="team")
    tree = [cohort("team", "org"), cohort("org", None, group(flavor_quotas("default", cpu="5")))]
    asg = run(w(cq, *tree), ps(requests={"cpu": "4"}))
    assert asg.mode == "Fit" and asg.borrowing == 2  # the quota comes from org, two levels up


def test_quota_used_in_the_cohort_is_unused_quota_missing():
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="0")), cohort="c")
    other = cluster_queue("other", group(flavor_quotas("one", cpu="4")), cohort="c")
    asg = run(w(cq, other, *held("other", {"one": {"cpu": "3"}})), ps(requests={"cpu": "2"}))
    # no nominal quota of its own, nothing to reclaim higher up, no borrowWithinCohort: noFit
    assert asg.mode == "NoFit"
    assert asg.message == msg(("main", ["insufficient unused quota for cpu in flavor one, 1 more needed"]))


def test_preemption_only_where_the_affinity_matches():  # upstream: "can only preempt flavors that match affinity"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")), within="LowerPriority")
    asg = run(w(cq, *held("cq", {"one": {"cpu": "3"}, "two": {"cpu": "3"}})), ps(requests={"cpu": "2"},
                                                                                   spec={"nodeSelector": {"type": "two"}}))
    assert asg.mode == "Preempt" and asg.podsets[0].flavors == {"cpu": "two"}
    assert asg.message == msg(("main", ["flavor one doesn't match node affinity",
                                        "insufficient unused quota for cpu in flavor two, 1 more needed"]))


# ------------------------------------------------------------------------------------- fungibility


def _two_flavors(**fungibility):
    return cluster_queue("cq", group(flavor_quotas("one", pods="10", cpu="10"), flavor_quotas("two", pods="10", cpu="10")),
                         within="LowerPriority", fungibility=fungibility or None)


def test_preempt_before_trying_the_next_flavor():  # upstream: "preempt before try next flavor"
    cq = _two_flavors(whenCanBorrow="MayStopSearch", whenCanPreempt="MayStopSearch")
    asg = run(w(cq, *held("cq", {"one": {"cpu": "2"}})), ps(requests={"cpu": "9"}))
    assert asg.mode == "Preempt" and asg.podsets[0].flavors == {"cpu": "one", "pods": "one"}
    assert asg.podsets[0].modes == {"cpu": "Preempt", "pods": "Fit"}
    assert tried(asg) == [("one", "preempt"), ("two", "notTried")]
    assert asg.message == msg(("main", ["insufficient unused quota for cpu in flavor one, 1 more needed"]))
    # it stays pending while the victims leave; the next cycle may start at flavor two
    assert any("resume" in c for c in asg.caveats)


def test_by_default_the_next_flavor_is_tried_before_preempting():  # upstream: "preempt try next flavor"
    asg = run(w(_two_flavors(), *held("cq", {"one": {"cpu": "2"}})), ps(requests={"cpu": "9"}))
    assert asg.mode == "Fit" and asg.podsets[0].flavors == {"cpu": "two", "pods": "two"} and asg.message == ""
    assert tried(asg) == [("one", "preempt"), ("two", "fit")]


def _borrowing_queue(second: str, **fungibility):
    cq = cluster_queue("cq", group(flavor_quotas("one", pods="10", cpu=quota("10", borrowing="1")),
                                   flavor_quotas("two", pods="10", cpu=second)),
                       cohort="test-cohort", fungibility=fungibility or None)
    other = cluster_queue("other", group(flavor_quotas("one", cpu="1")), cohort="test-cohort")
    return [cq, other, *held("cq", {"one": {"cpu": "2"}})]


def test_borrow_try_next_flavor_keeps_the_first_when_the_second_fails():  # upstream: "borrow try next flavor, found the first flavor"
    asg = run(w(*_borrowing_queue("1", whenCanBorrow="TryNextFlavor", whenCanPreempt="TryNextFlavor")), ps(requests={"cpu": "9"}))
    assert asg.mode == "Fit" and asg.borrowing == 1 and asg.podsets[0].flavors["cpu"] == "one"
    assert tried(asg) == [("one", "borrow"), ("two", "noFit")]


def test_borrow_try_next_flavor_takes_the_second_that_fits_without_borrowing():  # upstream: "borrow try next flavor, found the second flavor"
    asg = run(w(*_borrowing_queue("10", whenCanBorrow="TryNextFlavor", whenCanPreempt="TryNextFlavor")), ps(requests={"cpu": "9"}))
    assert asg.mode == "Fit" and asg.borrowing == 0 and asg.podsets[0].flavors["cpu"] == "two"


def test_borrow_before_trying_the_next_flavor():  # upstream: "borrow before try next flavor"
    asg = run(w(*_borrowing_queue("10")), ps(requests={"cpu": "9"}))
    assert asg.podsets[0].flavors["cpu"] == "one" and asg.borrowing == 1
    assert tried(asg) == [("one", "borrow"), ("two", "notTried")]
    assert asg.caveats == []  # admitted at once: where the scan stopped does not matter


def test_borrow_within_cohort_lets_a_borrowing_flavor_preempt():  # upstream: "when borrowing while preemption is needed for flavor one; WhenCanBorrow=MayStopSearch"
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu=quota("0", borrowing="12")), flavor_quotas("two", cpu="12")),
                       cohort="test-cohort", reclaim="LowerPriority", borrow="LowerPriority",
                       fungibility={"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "MayStopSearch"})
    # upstream fakes the oracle; here "other" borrows 4 of the lender's quota with a lower priority
    other = cluster_queue("other", group(flavor_quotas("one", cpu="6")), cohort="test-cohort")
    lender = cluster_queue("lender", group(flavor_quotas("one", cpu="6")), cohort="test-cohort")
    asg = run(w(cq, other, lender, *held("other", {"one": {"cpu": "10"}})), ps(requests={"cpu": "12"}))
    assert asg.mode == "Preempt" and asg.podsets[0].flavors == {"cpu": "one"}
    assert asg.message == msg(("main", ["insufficient unused quota for cpu in flavor one, 10 more needed"]))
    assert tried(asg) == [("one", "preempt"), ("two", "notTried")]
    # without a workload to reclaim, flavor one has no candidates and the search moves on to two
    asg = run(w(cq, other, lender, *held("other", {"one": {"cpu": "6"}})), ps(requests={"cpu": "12"}))
    assert asg.podsets[0].flavors == {"cpu": "two"} and asg.mode == "Fit"


@pytest.mark.parametrize("preference,chosen", [(None, "two"), ("BorrowingOverPreemption", "two"),
                                               ("PreemptionOverBorrowing", "one")])
def test_preference_orders_preemption_against_borrowing(preference, chosen):
    # upstream isPreferred cases: "explicit BorrowingOverPreemption prioritises borrowing distance" and
    # "explicit PreemptionOverBorrowing prioritises lower preemption"
    fung = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}
    if preference:
        fung["preference"] = preference
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="2")), cohort="c",
                       within="LowerPriority", fungibility=fung)
    other = cluster_queue("other", group(flavor_quotas("two", cpu="4")), cohort="c")
    objs = [cq, other, *held("cq", {"one": {"cpu": "3"}})]
    asg = run(w(*objs), ps(requests={"cpu": "3"}))
    # flavor one: preempt, no borrowing; flavor two: fits by borrowing from the cohort
    assert tried(asg) == [("one", "preempt"), ("two", "borrow")]
    assert asg.podsets[0].flavors == {"cpu": chosen}


# ------------------------------------------------------------------------------------- versions


def _two_failing_groups(version):
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="1")), group(flavor_quotas("b_one", memory="1Mi")))
    return run(w(cq, version=version), ps(requests={"cpu": "2", "memory": "2Mi"}))


def test_019_reports_the_group_of_the_hash_first_resource():
    asg = _two_failing_groups("0.19.2")
    assert asg.message == msg(("main", ["insufficient quota for memory in flavor b_one, previously considered podsets "
                                        "requests (0) + current podset request (2Mi) > maximum capacity (1Mi)"]))
    assert [s.group for s in asg.podsets[0].searches] == [1]  # cpu's group is not searched


def test_018_may_report_either_failing_group():
    asg = _two_failing_groups("0.18.4")
    assert asg.message is None and len(asg.messages()) == 2
    assert any("in flavor one" in m for m in asg.messages()) and any("in flavor b_one" in m for m in asg.messages())


def _flavor_failing_twice(version):
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="1", memory="1Mi")))
    return run(w(cq, version=version), ps(requests={"cpu": "2", "memory": "2Mi"}))


def test_019_keeps_checking_a_flavor_after_a_no_fit_resource():
    asg = _flavor_failing_twice("0.19.2")
    assert asg.message is not None and "cpu in flavor one" in asg.message and "memory in flavor one" in asg.message


def test_018_stops_a_flavor_at_its_first_no_fit_resource():
    asg = _flavor_failing_twice("0.18.4")
    assert asg.message is None
    assert [("cpu" in m, "memory" in m) for m in asg.messages()] == [(True, False), (False, True)]


def test_018_without_a_second_failure_the_message_is_determined():
    asg = run(w(cluster_queue("cq", group(flavor_quotas("one", cpu="1"))), version="0.18.4"), ps(requests={"cpu": "2"}))
    assert asg.message == msg(("main", ["insufficient quota for cpu in flavor one, previously considered podsets "
                                        "requests (0) + current podset request (2) > maximum capacity (1)"]))


def test_partial_counts_scale_the_requests():
    asg = run(w(cluster_queue("cq", group(flavor_quotas("default", cpu="4")))), ps(count=6), counts={"main": 4})
    assert asg.mode == "Fit" and asg.usage == {("default", "cpu"): 4000}


# ------------------------------------------------------------------------------ matching primitives


def test_resource_order_is_the_fnv_hash_order():
    assert resource_order(["cpu", "memory", "pods", "nvidia.com/gpu", GPU, "ephemeral-storage"]) == [
        "ephemeral-storage", "memory", "nvidia.com/gpu", "pods", GPU, "cpu"]


@pytest.mark.parametrize("taint,text", [
    ({"key": "k", "effect": "NoExecute"}, "{k  NoExecute <nil>}"),
    ({"key": "k", "value": "v", "effect": "NoExecute", "timeAdded": "2026-01-02T03:04:05Z"},
     "{k v NoExecute 2026-01-02 03:04:05 +0000 UTC}"),
])
def test_taint_rendering(taint, text):
    assert go_taint(taint) == text


@pytest.mark.parametrize("toleration,taint,ok", [
    ({"operator": "Exists"}, {"key": "a", "value": "b", "effect": "NoSchedule"}, True),  # empty key, Exists: all
    ({"key": "a", "operator": "Exists", "effect": "NoExecute"}, {"key": "a", "effect": "NoSchedule"}, False),
    ({"key": "a", "value": "b"}, {"key": "a", "value": "b", "effect": "NoExecute"}, True),  # empty effect: all
    ({"key": "a", "value": "c"}, {"key": "a", "value": "b", "effect": "NoExecute"}, False),
    ({"key": "a", "operator": "Gt", "value": "5"}, {"key": "a", "value": "7", "effect": "NoSchedule"}, True),
    ({"key": "a", "operator": "Lt", "value": "5"}, {"key": "a", "value": "7", "effect": "NoSchedule"}, False),
    ({"key": "a", "operator": "Gt", "value": "05"}, {"key": "a", "value": "7", "effect": "NoSchedule"}, False),
])
def test_toleration_semantics(toleration, taint, ok):
    assert tolerates(toleration, taint) is ok


def test_prefer_no_schedule_taints_are_ignored():
    f = flavor("soft", taints=[{"key": "a", "value": "b", "effect": "PreferNoSchedule"}])
    asg = run(world(f, cluster_queue("cq", group(flavor_quotas("soft", cpu="1")))), ps())
    assert asg.mode == "Fit"


@pytest.mark.parametrize("expr,labels,ok", [
    ({"key": "gpu", "operator": "NotIn", "values": ["t4"]}, {"gpu": "a100"}, True),
    ({"key": "gpu", "operator": "NotIn", "values": ["t4"]}, {"gpu": "t4"}, False),
    ({"key": "gpu", "operator": "DoesNotExist"}, {"gpu": "t4"}, False),
    ({"key": "gpu", "operator": "Exists"}, {"gpu": "t4"}, True),
    ({"key": "mem", "operator": "Gt", "values": ["40"]}, {"mem": "80"}, True),
    ({"key": "mem", "operator": "Lt", "values": ["40"]}, {"mem": "80"}, False),
    ({"key": "mem", "operator": "Gt", "values": ["40"]}, {"mem": "big"}, False),
])
def test_affinity_operators(expr, labels, ok):
    assert selector_matches(_affinity([expr]), labels) is ok


def test_an_unparsable_affinity_fails_the_pod_set():
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4")))
    asg = run(w(cq), ps(spec=_affinity([{"key": "type", "operator": "In", "values": []}])))
    assert asg.mode == "NoFit" and asg.podsets[0].error and asg.message is None
