"""``explain`` with the queue model, offline on built objects: the flavors per pod set (recorded or
predicted) and every flavor tried, Kueue's message as predicted, findings in our words with fixes
that name the real flavor, label, taint and ClusterQueue, the preemption a workload needs, and its
position in the queue."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest

from kubectl_kueue_dra.commands.explain.context import Settings
from kubectl_kueue_dra.commands.explain.document import explain
from kubectl_kueue_dra.commands.explain.subject import Subject
from kubectl_kueue_dra.kube import errors
from kubectl_kueue_dra.kube.snapshot import SnapshotView
from kubectl_kueue_dra.kueue.workloads.podsets import podsets_from_workload
from kubectl_kueue_dra.render.explain import explain_text
from kubectl_kueue_dra.render.output import Style
from testenv.queue.builders import at, cluster_queue, cond, flavor, flavor_quotas, group, local_queue, workload

NS = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {}}}


def doc_of(objects, name, forbid=()):
    class View(SnapshotView):
        def _list(self, kind, namespace, field_selector, label_selector):
            if kind.kind in forbid and namespace is None:  # the namespace's own list is readable
                raise errors.Forbidden("list", kind.resource, namespace, None, "someone")
            return super()._list(kind, namespace, field_selector, label_selector)

    view = View(copy.deepcopy([NS, *objects]), "test")
    wl = next(o for o in view.list("Workload", "default") if o["metadata"]["name"] == name)
    return explain(view, Subject("default", podsets_from_workload(wl), workload=wl), Settings())


def codes(doc):
    return {f["code"]: f for f in doc["findings"]}


GPU_FLAVORS = [flavor("a100", {"gpu": "a100"}), flavor("t4", {"gpu": "t4"})]
GPU_CQ = cluster_queue("cq", group(flavor_quotas("a100", cpu="8"), flavor_quotas("t4", cpu="8")))


def test_a_node_selector_no_flavor_matches():
    pending = workload("job", pod_spec={"nodeSelector": {"gpu": "h100"}})
    doc = doc_of([*GPU_FLAVORS, GPU_CQ, local_queue("lq", "cq"), pending], "job")
    ps = doc["podSets"][0]
    assert ps["flavors"] is None and ps["flavorsSource"] is None and ps["flavorsMode"] == "NoFit"
    assert [(t["flavor"], t["outcome"]) for t in ps["flavorsTried"]] == [("a100", "noFit"), ("t4", "noFit")]
    assert doc["queue"]["verdict"]["message"] == ("couldn't assign flavors to pod set main: flavor a100 doesn't match "
                                                  "node affinity, flavor t4 doesn't match node affinity")
    found = codes(doc)["NodeAffinityMismatch"]
    assert found["severity"] == "error" and found["predicted"]
    assert "nodeSelector gpu=h100" in found["message"] and "flavor a100 has gpu=a100; flavor t4 has gpu=t4" in found["message"]
    assert found["fix"].startswith("change the job's nodeSelector to gpu=a100 (flavor a100), or add gpu: h100")
    assert "kubectl patch resourceflavor a100 --type=merge -p '{\"spec\":{\"nodeLabels\":{\"gpu\":\"h100\"}}}'" in found["fix"]


def test_an_untolerated_taint():
    spot = flavor("spot", taints=[{"key": "instance", "value": "spot", "effect": "NoSchedule"}])
    cq = cluster_queue("cq", group(flavor_quotas("spot", cpu="8")))
    doc = doc_of([spot, cq, local_queue("lq", "cq"), workload("job")], "job")
    found = codes(doc)["UntoleratedTaint"]
    assert "flavor spot is tainted instance=spot:NoSchedule" in found["message"]
    assert '{"key": "instance", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}' in found["fix"]
    assert doc["queue"]["verdict"]["message"] == ("couldn't assign flavors to pod set main: untolerated taint "
                                                  "{instance spot NoSchedule <nil>} in flavor spot")


def _preemption_world(victim_conditions=()):
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="4")), within="LowerPriority")
    low = workload("low", priority=-1, requests={"cpu": "4"}, admitted_to="cq", flavors={"cpu": "default"},
                   conditions=list(victim_conditions))
    high = workload("high", priority=10, requests={"cpu": "2"}, created=at(5))
    return [flavor("default"), cq, local_queue("lq", "cq"), low, high]


def test_preemption_names_the_targets_and_kueues_suffix():
    doc = doc_of(_preemption_world(), "high")
    p = doc["preemption"]
    assert p["role"] == "preemptor" and p["possible"] is True and p["predicted"]
    assert (p["priority"], p["prioritySource"]) == (10, "the default (no priority class)")
    assert [(t["name"], t["reason"], t["priority"]) for t in p["targets"]] == [("low", "InClusterQueue", -1)]
    assert doc["queue"]["verdict"]["message"] == ("couldn't assign flavors to pod set main: insufficient unused quota "
                                                  "for cpu in flavor default, 2 more needed. Pending the preemption of "
                                                  "1 workload(s)")
    assert doc["podSets"][0]["flavors"] == {"cpu": "default"} and doc["podSets"][0]["flavorsSource"] == "predicted"
    assert "to admit it Kueue preempts 1 workload(s): default/low" in codes(doc)["Preempting"]["message"]


def test_victims_already_evicted_are_waited_for():
    message = ("Preempted to accommodate a workload (UID: uid-high, JobUID: UNKNOWN) due to prioritization in the "
               "ClusterQueue; preemptor path: /cq; preemptee path: /cq")
    evicted = [cond("Evicted", reason="Preempted", message=message), cond("Preempted", reason="InClusterQueue",
                                                                          message=message)]
    doc = doc_of(_preemption_world(evicted), "high")
    assert doc["preemption"]["waitingFor"] == [{"namespace": "default", "name": "low", "clusterQueue": "cq"}]
    assert "Kueue preempted 1 workload(s) for it (default/low)" in codes(doc)["Preempting"]["message"]


def test_no_candidates_says_why():
    world = _preemption_world()
    world[1] = cluster_queue("cq", group(flavor_quotas("default", cpu="4")))
    doc = doc_of(world, "high")
    assert doc["preemption"]["possible"] is False
    assert doc["preemption"]["why"] == "ClusterQueue cq preempts nothing: its withinClusterQueue is Never and it is in no cohort"
    assert "withinClusterQueue\\\":\\\"LowerPriority" in str(codes(doc)["NoPreemptionCandidates"]["fix"]).replace('"', '\\"')


def test_strict_fifo_head_blocks():
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="4")), strategy="StrictFIFO")
    head = workload("head", requests={"cpu": "8"}, created=at(0))
    me = workload("me", requests={"cpu": "1"}, created=at(1))
    doc = doc_of([flavor("default"), cq, local_queue("lq", "cq"), head, me], "me")
    assert doc["position"] == {"clusterQueue": 1, "localQueue": 1, "source": "derived", "ahead": 1, "pending": 2,
                               "head": {"namespace": "default", "name": "head"},
                               "blockedBy": {"namespace": "default", "name": "head"}, "strategy": "StrictFIFO",
                               "caveats": [], "visibilityUnknown": "a snapshot has no visibility API to ask"}
    assert "default/head (priority 0) is first in line" in codes(doc)["BlockedByHead"]["message"]


def test_fits_but_not_evaluated_yet():
    doc = doc_of([flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="4"))),
                  local_queue("lq", "cq"), workload("me")], "me")
    assert doc["queue"]["verdict"] is None and doc["preemption"] is None
    assert "Kueue has not evaluated it yet" in codes(doc)["NotEvaluatedYet"]["message"]


def test_admitted_flavors_are_recorded_and_compared():
    cq = cluster_queue("cq", group(flavor_quotas("one", cpu="4"), flavor_quotas("two", cpu="4")))
    admitted = workload("run", requests={"cpu": "2"}, admitted_to="cq", flavors={"cpu": "two"},
                        conditions=[cond("Admitted", reason="Admitted")])
    doc = doc_of([flavor("one"), flavor("two"), cq, local_queue("lq", "cq"), admitted], "run")
    ps = doc["podSets"][0]
    assert (ps["flavors"], ps["flavorsSource"], ps["flavorsAgree"]) == ({"cpu": "two"}, "recorded", False)
    assert doc["position"] is None and doc["preemption"] is None


def test_text_shows_flavors_tried_preemption_and_position():
    opts = SimpleNamespace(output="table", no_headers=False, style=Style("never"))
    text = explain_text(doc_of(_preemption_world(), "high"), opts)
    assert "default (predicted)" in text
    assert "main, resource group 0: default preempt (insufficient unused quota for cpu in flavor default, 2 more needed) ← chosen" in text
    assert "Preemption (predicted): default/low (priority -1, cq, InClusterQueue)" in text
    assert "Position (derived): 1st of 1 pending in ClusterQueue cq (BestEffortFIFO), 1st in its LocalQueue" in text


def test_forbidden_workloads_leave_preemption_and_position_unknown():
    world = _preemption_world()
    doc = doc_of(world, "high", forbid=("Workload",))
    assert doc["partial"] is True
    assert doc["position"]["unknown"].startswith("the Workloads could not be read")
    # no status.flavorsReservation either: the quota held is unknown, not zero
    assert doc["queue"]["verdict"] is None and "QuotaVerdictUnknown" in codes(doc)
    world[1]["status"]["flavorsReservation"] = [{"name": "default", "resources": [{"name": "cpu", "total": "4"}]}]
    doc = doc_of(world, "high", forbid=("Workload",))
    verdict = doc["queue"]["verdict"]  # whether Kueue adds ". Pending the preemption of N" is unknown: not claimed
    assert verdict["message"] is None and verdict["reasons"][0]["message"].endswith("2 more needed")
    assert doc["preemption"]["possible"] is None and "could not be read" in doc["preemption"]["unknown"]


def test_fits_now_though_kueue_said_otherwise():
    said = ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, 1 more "
            "needed")
    doc = doc_of([flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="4"))),
                  local_queue("lq", "cq"), workload("me", conditions=[cond("QuotaReserved", "False", "Pending", said)])],
                 "me")
    assert "it fits now (cpu=default, predicted), but Kueue's last evaluation said otherwise" in \
        codes(doc)["FitsNow"]["message"]


def test_unreadable_flavors_leave_a_caveat():
    doc = doc_of([flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="4"))),
                  local_queue("lq", "cq"), workload("me")], "me", forbid=("ResourceFlavor",))
    caveat = codes(doc)["QueueModelCaveat"]
    assert caveat["severity"] == "info" and "the ResourceFlavors could not be read" in caveat["message"]


def test_topology_flavors():
    only = doc_of([flavor("tas", topology="t"), cluster_queue("cq", group(flavor_quotas("tas", cpu="4"))),
                   local_queue("lq", "cq"), workload("me")], "me")
    assert codes(only)["FlavorsUnknown"]["message"] == ("which flavors Kueue would assign is unknown: topology-aware "
                                                        "scheduling is not modelled")
    mixed = doc_of([flavor("tas", topology="t"), flavor("plain"),
                    cluster_queue("cq", group(flavor_quotas("tas", cpu="4"), flavor_quotas("plain", cpu="1"))),
                    local_queue("lq", "cq"), workload("me", requests={"cpu": "2"})], "me")
    assert codes(mixed)["TopologyMismatch"]["message"] == ("flavor tas serves only pod sets that request "
                                                           "topology-aware scheduling; pod set main does not")
    exceeds = codes(mixed)["ExceedsQuota"]
    assert "(Kueue would say: \"couldn't assign flavors to pod set main:" in exceeds["message"]
    assert exceeds["kueueMessage"] is None  # Kueue wrote nothing yet: its message is not claimed


def test_preemption_is_unknown_without_the_workloads():
    cq = cluster_queue("cq", group(flavor_quotas("default", cpu="4")), within="LowerPriority")
    cq["status"]["flavorsReservation"] = [{"name": "default", "resources": [{"name": "cpu", "total": "4"}]}]
    doc = doc_of([flavor("default"), cq, local_queue("lq", "cq"), workload("me", requests={"cpu": "2"}, priority=100)],
                 "me", forbid=("Workload",))
    assert codes(doc)["PreemptionUnknown"]["message"].startswith(
        "whether Kueue can preempt for it is unknown: the workloads holding quota are unknown")


def found(doc, code):
    return [f for f in doc["findings"] if f["code"] == code]


def _cohort(preemption_a: dict, borrower_priority: int = 0, me_priority: int = 0) -> list[dict]:
    """cq-a lends 1 of its 4 cpu to cq-b (nominal 0), where ``borrower`` holds it; ``me`` needs all 4."""
    a = cluster_queue("cq-a", group(flavor_quotas("default", cpu="4")), cohort="pool", **preemption_a)
    a["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["lendingLimit"] = "1"
    return [flavor("default"), a, cluster_queue("cq-b", group(flavor_quotas("default", cpu="0")), cohort="pool"),
            local_queue("lq", "cq-a"), local_queue("lq-b", "cq-b"),
            workload("borrower", queue="lq-b", priority=borrower_priority, admitted_to="cq-b",
                     flavors={"cpu": "default"}),
            workload("me", requests={"cpu": "4"}, priority=me_priority)]


@pytest.mark.parametrize("policy, me_priority", [({}, 0), ({"within": "LowerPriority"}, 0),
                                                 ({"reclaim": "LowerPriority"}, 0)])
def test_quota_a_cohort_borrows_is_taken_back_under_reclaim_within_cohort(policy, me_priority):
    doc = doc_of(_cohort(policy, me_priority=me_priority), "me")
    (none,) = found(doc, "NoPreemptionCandidates")
    assert "reclaimWithinCohort\":\"Any\"" in none["fix"] and "withinClusterQueue" not in none["fix"]
    (short,) = found(doc, "QuotaExhausted")  # in a cohort already: what it can reach, not "allow borrowing"
    assert short["fix"].startswith("wait, or raise the quota it can reach") and "cq-a --workloads" in short["fix"]
    doc = doc_of(_cohort({"reclaim": "Any"}), "me")
    assert "default/borrower" in found(doc, "Preempting")[0]["message"]


def test_own_lower_priority_holders_are_taken_under_within_cluster_queue():
    objects = [flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="4"))), local_queue("lq", "cq"),
               workload("low", priority=0, admitted_to="cq", requests={"cpu": "4"}, flavors={"cpu": "default"}),
               workload("me", priority=10, requests={"cpu": "4"})]
    (none,) = found(doc_of(objects, "me"), "NoPreemptionCandidates")
    assert "withinClusterQueue\":\"LowerPriority" in none["fix"]
    objects[3]["spec"]["priority"] = 10  # as high as it: a policy change does not help, a priority does
    (none,) = found(doc_of(objects, "me"), "NoPreemptionCandidates")
    assert none["fix"] == "wait for them to finish, or give the workload a higher priority " \
                          "(kueue.x-k8s.io/priority-class)"


def test_full_counts_that_never_fit_are_not_why_it_waits_when_partial_admission_fits():
    """Kueue's scheduler searches smaller counts when the full ones do not fit (getInitialAssignments)
    and admits them: no ExceedsQuota message is written, and the workload does not wait forever."""
    me = workload("me", requests={"cpu": "1"}, count=4)
    me["spec"]["podSets"][0]["minCount"] = 2
    doc = doc_of([flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="2"))),
                  local_queue("lq", "cq"), me], "me")
    assert doc["queue"]["verdict"] is None and doc["partialAdmission"]["counts"] == {"main": 2}
    (exceeds,) = found(doc, "ExceedsQuota")
    assert exceeds["severity"] == "info" and "partial admission admits it with fewer" in exceeds["message"]
    assert "Kueue would say" not in exceeds["message"] and exceeds.get("kueueMessage") is None
    del me["spec"]["podSets"][0]["minCount"]  # no partial admission: it waits forever
    doc = doc_of([flavor("default"), cluster_queue("cq", group(flavor_quotas("default", cpu="2"))),
                  local_queue("lq", "cq"), me], "me")
    assert doc["queue"]["verdict"]["code"] == "ExceedsQuota" and found(doc, "ExceedsQuota")[0]["severity"] == "error"


def test_borrowers_above_max_priority_threshold_are_named_with_the_threshold_that_would_free_them():
    """hierarchical_preemption: while the ClusterQueue borrows it may preempt only lower-priority
    workloads at most maxPriorityThreshold; a higher priority for the workload does not help."""
    a = cluster_queue("cq-a", group(flavor_quotas("default", cpu="2")), cohort="pool", within="LowerPriority",
                      reclaim="Any", borrow="LowerPriority", threshold=50)
    b = cluster_queue("cq-b", group(flavor_quotas("default", cpu="2")), cohort="pool")
    objects = [flavor("default"), a, b, local_queue("lq", "cq-a"), local_queue("lq-b", "cq-b"),
               workload("mid", queue="lq-b", priority=60, requests={"cpu": "3"}, admitted_to="cq-b",
                        flavors={"cpu": "default"}),
               workload("me", priority=100, requests={"cpu": "3"})]
    doc = doc_of(objects, "me")
    (none,) = found(doc, "NoPreemptionCandidates")
    assert "priority at most 50 (borrowWithinCohort.maxPriorityThreshold), and theirs are 60" in none["message"]
    assert none["fix"].endswith("'{\"spec\":{\"preemption\":{\"borrowWithinCohort\":{\"maxPriorityThreshold\":60}}}}'")
    a["spec"]["preemption"]["borrowWithinCohort"]["maxPriorityThreshold"] = 60  # the fix, applied
    assert "default/mid" in found(doc_of(objects, "me"), "Preempting")[0]["message"]
