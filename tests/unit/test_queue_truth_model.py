"""The pure parts of explain's queue truth on hand-made objects: the lifecycle order, the checks
Kueue gives a Workload before and after quota reservation, Kueue's inactive-ClusterQueue message,
the queue blockers' order and texts for a pending, a reserved and an admitted workload, and the
victim's preemption message."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kubectl_kueue_dra.kueue.queues.activity import cluster_queue_activity, inactive_message
from kubectl_kueue_dra.kueue.queues.blockers import QueueState, is_blocker_message, queue_blocker
from kubectl_kueue_dra.kueue.workloads import lifecycle as lc
from kubectl_kueue_dra.kueue.workloads.checks import applicable_checks, check_rules, retry_or_rejected_message, \
    workload_checks
from kubectl_kueue_dra.kueue.workloads.eviction import parse_preemption, preemption_of, will_be_requeued

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def cond(ctype, status, reason="r", message="m", when="2026-01-01T11:00:00Z"):
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": when}


def wl(*conditions, **extra):
    status = {"conditions": list(conditions), **extra.pop("status", {})}
    return {"metadata": {"name": "w", "namespace": "ns", **extra.pop("metadata", {})},
            "spec": {"queueName": "lq", **extra.pop("spec", {})}, "status": status}


def cq(*flavors, checks=None, stop=None, v1beta1=None):
    spec = {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": f} for f in flavors]}]}
    if checks is not None:
        spec["admissionChecksStrategy"] = {"admissionChecks": checks}
    if v1beta1 is not None:
        spec["admissionChecks"] = v1beta1
    if stop:
        spec["stopPolicy"] = stop
    return {"metadata": {"name": "cq"}, "spec": spec}


@pytest.mark.parametrize("workload,state,reason", [
    (wl(cond("Finished", "True", "Failed"), cond("Admitted", "True")), lc.FINISHED, "Finished"),
    (wl(spec={"active": False}), lc.INACTIVE, "Inactive"),
    (wl(cond("DeactivationTarget", "True", "MaximumExecutionTimeExceeded")), lc.INACTIVE,
     "MaximumExecutionTimeExceeded"),
    (wl(cond("QuotaReserved", "True"), cond("Admitted", "True"), cond("Evicted", "True", "PodsReadyTimeout")),
     lc.EVICTED, "PodsReadyTimeout"),
    (wl(cond("QuotaReserved", "True"), cond("Evicted", "True", "AdmissionCheck")), lc.EVICTED,
     "AdmissionCheckRetry"),
    (wl(cond("Requeued", "False", "LocalQueueStopped")), lc.REQUEUING, "LocalQueueStopped"),
    (wl(cond("QuotaReserved", "False", "Inadmissible", "DRA failed"), cond("Requeued", "False", "Inadmissible")),
     lc.PENDING, None),  # a DRA rejection: pending, the charge says why
    (wl(cond("QuotaReserved", "True"), status={"admissionChecks": [{"name": "c", "state": "Pending"}]}),
     lc.WAITING_FOR_CHECKS, "AdmissionCheckPending"),
    (wl(cond("QuotaReserved", "True"), cond("Admitted", "False", "PendingDelayedTopologyRequests")),
     lc.QUOTA_RESERVED, "PendingDelayedTopologyRequests"),
    (wl(cond("QuotaReserved", "True"), cond("Admitted", "True")), lc.ADMITTED, "Admitted"),
    (wl(), lc.PENDING, None),
])
def test_lifecycle_order(workload, state, reason):
    life = lc.classify(workload, NOW)
    assert (life.state, life.reason) == (state, reason)


def test_not_evaluated_until_the_scheduler_writes():
    assert lc.classify(wl(), NOW).evaluated is False
    evicted = "Preempted to accommodate a workload (UID: u, JobUID: j) due to x; preemptor path: /a; preemptee path: /a"
    requeued = wl(cond("QuotaReserved", "False", "Pending", evicted), cond("Evicted", "True", "Preempted", evicted),
                  cond("Requeued", "True", "Preempted", evicted))
    life = lc.classify(requeued, NOW)
    assert (life.state, life.evaluated, life.kueue_says) == (lc.PREEMPTED, False, None)
    said = lc.classify(wl(cond("QuotaReserved", "False", "Pending", "couldn't assign flavors")), NOW)
    assert (said.evaluated, said.kueue_says) == (True, "couldn't assign flavors")


def test_backoff_and_execution_against_the_clock():
    life = lc.classify(wl(cond("Requeued", "False", "PodsReadyTimeout"),
                          status={"requeueState": {"count": 3, "requeueAt": "2026-01-01T12:01:30Z"}}), NOW)
    assert (life.backoff.count, life.backoff.remaining) == (3, 90)
    life = lc.classify(wl(cond("QuotaReserved", "True"), cond("Admitted", "True"),
                          spec={"maximumExecutionTimeSeconds": 7200},
                          status={"accumulatedPastExecutionTimeSeconds": 100}), NOW)
    assert life.execution.remaining == 7200 - 100 - 3600


def test_admission_gate_only_with_the_gate():
    gated = wl(metadata={"annotations": {lc.ADMISSION_GATE: "a.example/x"}})
    assert lc.classify(gated, NOW).reason == "AdmissionGated"
    assert lc.classify(gated, NOW, admission_gate=False).reason is None


def test_checks_before_and_after_reservation():
    queue = cq("a", "b", checks=[{"name": "all"}, {"name": "only-b", "onFlavors": ["b"]}])
    assert check_rules(queue) == {"all": ["a", "b"], "only-b": ["b"]}
    pending = wl()
    assert applicable_checks(pending, queue) == ["all"]  # before reservation: checks for every flavor only
    reserved = wl(status={"admission": {"clusterQueue": "cq", "podSetAssignments": [{"flavors": {"cpu": "a"}}]}})
    assert applicable_checks(reserved, queue) == ["all"]
    on_b = wl(status={"admission": {"clusterQueue": "cq", "podSetAssignments": [{"flavors": {"cpu": "b"}}]}})
    assert applicable_checks(on_b, queue) == ["all", "only-b"]
    assert check_rules(cq("a", v1beta1=["old"])) == {"old": ["a"]}


def test_check_objects_and_kueue_words():
    queue = cq("a", checks=[{"name": "x"}, {"name": "y"}])
    objs = {"x": {"spec": {"controllerName": "c"}, "status": {"conditions": [cond("Active", "True")]}}}
    found = workload_checks(wl(status={"admissionChecks": [{"name": "x", "state": "Retry", "message": "later"},
                                                          {"name": "y", "state": "Retry"}]}), queue, objs)
    assert [(c.name, c.exists, c.active, c.controller) for c in found] == [("x", True, True, "c"),
                                                                          ("y", False, False, None)]
    assert retry_or_rejected_message(found, "Retry") == 'AdmissionChecks in Retry state: "x" (later); "y"'
    assert [c.exists for c in workload_checks(wl(), queue, None)] == [None, None]


def test_inactive_cluster_queue_message_in_kueues_order():
    queue = cq("a", "gone", checks=[{"name": "z-missing"}, {"name": "idle"}], stop="Hold")
    activity = cluster_queue_activity(queue, {"a": {}}, {"idle": {"spec": {"controllerName": "c"}}})
    assert activity.recorded is None and activity.active is False and activity.reason == "Stopped"
    assert activity.message == ("Can't admit new workloads: is stopped, references missing ResourceFlavor(s): gone, "
                                "references missing AdmissionCheck(s): z-missing, references inactive "
                                "AdmissionCheck(s): idle.")
    assert inactive_message([]) == "Can't admit new workloads."
    unknown = cluster_queue_activity(cq("a"), None, None)
    assert unknown.active is None and unknown.unknown == ["ResourceFlavors"]


def test_multikueue_rules():
    queue = cq("a", "b", checks=[{"name": "mk1", "onFlavors": ["a"]}, {"name": "mk2"}, {"name": "prov"}])
    objs = {n: {"spec": {"controllerName": c}, "status": {"conditions": [cond("Active", "True")]}}
            for n, c in (("mk1", "kueue.x-k8s.io/multikueue"), ("mk2", "kueue.x-k8s.io/multikueue"),
                         ("prov", "kueue.x-k8s.io/provisioning-request"))}
    reasons = [c.reason for c in cluster_queue_activity(queue, {"a": {}, "b": {}}, objs).causes]
    assert reasons == ["MultipleMultiKueueAdmissionChecks", "MultiKueueAdmissionCheckAppliedPerFlavor",
                       "MultiKueueWithProvisioningRequest"]


def _state(lq=None, queue=None, activity=None, unknown=None):
    return QueueState(namespace="ns", local_queue_name="lq", local_queue=lq, cluster_queue_name="cq",
                      cluster_queue=queue, activity=activity, unknown=unknown or {})


def test_blockers_in_order_and_by_holding():
    lq = {"spec": {"clusterQueue": "cq"}}
    assert queue_blocker(_state()).kueue_message == "LocalQueue lq doesn't exist"
    assert queue_blocker(_state(), holds_quota=True).kueue_message == "LocalQueue lq is terminating or missing"
    assert queue_blocker(_state(), admitted=True) is None
    assert queue_blocker(_state(unknown={"LocalQueue": "403"})) is None
    held = {"spec": {"clusterQueue": "cq", "stopPolicy": "Hold"}}
    assert queue_blocker(_state(held)).kueue_message == "LocalQueue lq is inactive"
    assert queue_blocker(_state(held, cq("a")), admitted=True) is None  # Hold lets an admitted one run
    assert queue_blocker(_state(lq)).kueue_message == "ClusterQueue cq doesn't exist"
    stopped = cq("a", stop="HoldAndDrain")
    activity = cluster_queue_activity(stopped, {"a": {}}, {})
    assert queue_blocker(_state(lq, stopped, activity)).code.name == "ClusterQueueStopped"
    assert queue_blocker(_state(lq, stopped, activity), holds_quota=True).kueue_message == "ClusterQueue cq is stopped"
    assert queue_blocker(_state(lq, stopped, activity), admitted=True).kueue_message == "The ClusterQueue is stopped"
    for text in ("LocalQueue lq doesn't exist", "ClusterQueue cq is inactive", "ClusterQueue cq not found"):
        assert is_blocker_message(text)
    assert not is_blocker_message("couldn't assign flavors to pod set main: …")


def test_preemption_message_and_requeue():
    text = ("Preempted to accommodate a workload (UID: 1-2, JobUID: UNKNOWN) due to reclamation within the cohort "
            "while borrowing; preemptor path: /root/org/a; preemptee path: /root/b")
    assert parse_preemption(text) == {"uid": "1-2", "job": "UNKNOWN", "why": "reclamation within the cohort while "
                                      "borrowing", "preemptor": "/root/org/a", "preemptee": "/root/b"}
    victim = wl(cond("Evicted", "True", "Preempted", text), cond("Preempted", "True", "InCohortReclaimWhileBorrowing",
                                                                 text))
    found = preemption_of(victim, [{"metadata": {"uid": "1-2", "name": "p", "namespace": "o"},
                                    "status": {"admission": {"clusterQueue": "a"}}}])
    assert found.preemptor_doc()["name"] == "p" and found.preemptor_cluster_queue == "a"
    assert preemption_of(victim, None, "forbidden").unknown == "the Workloads could not be read (forbidden)"
    pod_owned = wl(metadata={"ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": "p"}]})
    assert will_be_requeued(pod_owned, "Preempted", skip_pod_owned=True) is False
    assert will_be_requeued(pod_owned, "Preempted", skip_pod_owned=False) is True
    assert will_be_requeued(wl(), "PodsReadyTimeout", skip_pod_owned=True) is False
