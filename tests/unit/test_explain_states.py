"""``explain``'s queue truth offline, state by state: the documented resourceclaimtemplate example
with the Workload's status (and the queues) changed to each state Kueue records — finished,
inactive (created so, deactivated while pending, after admission, by Kueue itself), being evicted,
preempted (the preemptor named), kept out of the queue for a backoff or a stopped queue, waiting
for admission checks (Pending with and without a controller, Retry, Rejected), admitted with a
maximum execution time, gated, not evaluated yet, each queue blocker in Kueue's order, a stale
message, and a DeviceClass deleted after admission. Each asserts ``state``, ``reason`` and the
finding's words and fix (the conditions are those Kueue writes, research of v0.19.2/v0.18.4)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from testenv.clirun import run

from kubectl_kueue_dra.kube.snapshot import load_objects
from output_schema import problems

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "resourceclaimtemplate"
NOW = "2026-09-01T09:00:00Z"
T0 = "2026-09-01T08:00:00Z"
PENDING_WL, ADMITTED_WL = "job-batch-infer-b3c42", "job-train-llm-a1c41"


def cond(ctype: str, status: str, reason: str, message: str, when: str = T0) -> dict:
    return {"type": ctype, "status": status, "reason": reason, "message": message, "lastTransitionTime": when}


def world() -> list[dict]:
    return copy.deepcopy(load_objects(str(EXAMPLE)))


def find(objs: list[dict], kind: str, name: str) -> dict:
    return next(o for o in objs if o["kind"] == kind and o["metadata"]["name"] == name)


def explain(tmp_path: Path, objs: list[dict], name: str = PENDING_WL, version: str = "0.19.2",
            now: str = NOW) -> dict:
    snap = tmp_path / "snap.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    proc = run("explain", f"workload/{name}", "-n", "team-a", "--from", str(snap), "-o", "json",
               "--kueue-version", version, env={"KUEUE_DRA_NOW": now})
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert problems("explain", doc) == []
    return doc


def codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def one(doc: dict, code: str) -> dict:
    found = [f for f in doc["findings"] if f["code"] == code]
    assert len(found) == 1, (code, codes(doc))
    return found[0]


def pending(objs: list[dict]) -> dict:
    return find(objs, "Workload", PENDING_WL)


def admitted(objs: list[dict]) -> dict:
    return find(objs, "Workload", ADMITTED_WL)


def test_the_examples_states_stay_admitted_and_waiting_for_quota(tmp_path):
    objs = world()
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Pending", "QuotaExhausted")
    assert doc["eviction"] is None and doc["admissionChecks"] == []
    assert doc["preemption"]["role"] == "preemptor" and doc["preemption"]["possible"] is False  # the model's
    assert doc["position"]["source"] == "derived" and doc["position"]["clusterQueue"] == 0
    assert doc["position"]["visibilityUnknown"] == "a snapshot has no visibility API to ask"
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"], doc["admitted"]) == ("Admitted", "Admitted", True)
    assert not [f for f in doc["findings"] if f["severity"] == "error"]


def test_finished(tmp_path):
    objs = world()
    admitted(objs)["status"]["conditions"].append(
        cond("Finished", "True", "Succeeded", "Reached expected number of succeeded pods"))
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Finished", "Finished")
    f = one(doc, "Finished")
    assert "Succeeded" in f["message"] and f["kueueMessage"] == "Reached expected number of succeeded pods"
    assert doc["lifecycle"]["finished"]["reason"] == "Succeeded"


def test_created_inactive(tmp_path):
    objs = world()
    wl = pending(objs)
    wl["spec"]["active"] = False
    wl["status"] = {"conditions": [cond("Evicted", "True", "Deactivated", "The workload is deactivated")]}
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Inactive", "Inactive")
    f = one(doc, "Inactive")
    assert "Kueue never evaluated it: it was created inactive" in f["message"]
    assert f["fix"] == (f"kubectl patch workload {PENDING_WL} -n team-a --type=merge "
                        "-p '{\"spec\":{\"active\":true}}'")
    assert doc["lifecycle"]["deactivation"]["how"] == "createdInactive"
    assert codes(doc)[0] == "Inactive"  # first: what it waits for (the quota it would meet after comes later)


def test_deactivated_while_pending_keeps_the_old_message(tmp_path):
    objs = world()
    wl = pending(objs)
    wl["spec"]["active"] = False
    wl["status"]["conditions"].append(cond("Evicted", "True", "Deactivated", "The workload is deactivated"))
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Inactive", "Inactive")
    assert doc["lifecycle"]["deactivation"]["how"] == "deactivatedWhilePending"
    assert "while it waited for quota" in one(doc, "Inactive")["message"]


def test_deactivated_after_admission(tmp_path):
    objs = world()
    wl = admitted(objs)
    wl["spec"]["active"] = False
    del wl["status"]["admission"]
    wl["status"]["conditions"] = [
        cond("QuotaReserved", "False", "Pending", "The workload is deactivated"),
        cond("Admitted", "False", "NoReservation", "The workload has no reservation"),
        cond("Evicted", "True", "Deactivated", "The workload is deactivated"),
        cond("Requeued", "False", "Deactivated", "The workload is deactivated")]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"], doc["admitted"]) == ("Inactive", "Inactive", False)
    assert doc["lifecycle"]["deactivation"]["how"] == "deactivatedAfterAdmission"
    assert "Kueue evicted it and released its quota" in one(doc, "Inactive")["message"]
    assert doc["eviction"]["reason"] == "Deactivated" and doc["eviction"]["requeued"] is False


def test_deactivated_by_kueue_for_the_requeuing_limit(tmp_path):
    objs = world()
    wl = admitted(objs)
    wl["spec"]["active"] = False
    del wl["status"]["admission"]
    message = "The workload is deactivated due to exceeding the maximum number of re-queuing retries"
    wl["status"]["conditions"] = [
        cond("QuotaReserved", "False", "Pending", message),
        cond("Evicted", "True", "DeactivatedDueToRequeuingLimitExceeded", message),
        cond("Requeued", "False", "DeactivatedDueToRequeuingLimitExceeded", message)]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Inactive", "RequeuingLimitExceeded")
    f = one(doc, "RequeuingLimitExceeded")
    assert f["severity"] == "error" and f["kueueMessage"] == message
    assert "backoffLimitCount" in f["message"] and "stays out of the queue" in f["message"]
    assert "recreate job/train-llm" in f["fix"]


def test_being_preempted_names_the_preemptor_and_the_policy(tmp_path):
    objs = world()
    victim, preemptor = admitted(objs), pending(objs)
    find(objs, "ClusterQueue", "gpu-cq")["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
    preemptor["metadata"]["uid"] = "uid-of-batch-infer"
    preemptor["spec"]["priority"] = 100
    message = ("Preempted to accommodate a workload (UID: uid-of-batch-infer, JobUID: 7a2d4c9b) due to "
               "prioritization in the ClusterQueue; preemptor path: /gpu-cq; preemptee path: /gpu-cq")
    victim["status"]["conditions"] += [cond("Evicted", "True", "Preempted", message),
                                       cond("Preempted", "True", "InClusterQueue", message)]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Preempted", "Preempted")
    p = doc["preemption"]
    assert p["role"] == "victim" and p["reason"] == "InClusterQueue"
    assert p["preemptor"]["name"] == PENDING_WL and p["preemptor"]["namespace"] == "team-a"
    assert p["preemptor"]["clusterQueue"] == "gpu-cq" and p["policy"] == "withinClusterQueue: LowerPriority"
    assert p["requeued"] is None and p["willBeRequeued"] is True
    f = one(doc, "Preempted")
    assert f"Workload team-a/{PENDING_WL} (priority 100" in f["message"]
    assert "withinClusterQueue: LowerPriority allowed it" in f["message"]
    assert "goes back to the queue" in f["message"] and f["kueueMessage"] == message
    assert doc["eviction"]["active"] is True and doc["eviction"]["holdingQuota"] is True
    assert "RejectedIfRequeued" not in codes(doc)


def test_preempted_and_requeued_with_the_preemptor_gone(tmp_path):
    objs = world()
    victim = admitted(objs)
    del victim["status"]["admission"]
    message = ("Preempted to accommodate a workload (UID: gone-uid, JobUID: x) due to reclamation within the "
               "cohort; preemptor path: /all/other; preemptee path: /all/gpu-cq")
    victim["status"]["conditions"] = [
        cond("QuotaReserved", "False", "Pending", message), cond("Evicted", "True", "Preempted", message),
        cond("Preempted", "True", "InCohortReclamation", message), cond("Requeued", "True", "Preempted", message)]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Preempted", "Preempted")
    p = doc["preemption"]
    assert p["preemptor"]["name"] is None and "no Workload has UID gone-uid" in p["preemptor"]["unknown"]
    assert p["preemptor"]["clusterQueue"] == "other" and p["requeued"] is True
    assert "back in the queue" in one(doc, "Preempted")["message"]


@pytest.mark.parametrize("requeue_at,words", [("2026-09-01T09:05:00Z", "5m0s more, until 2026-09-01T09:05:00Z"),
                                              ("2026-09-01T08:59:00Z", "backoff ended at 2026-09-01T08:59:00Z")])
def test_requeuing_after_a_pods_ready_timeout(tmp_path, requeue_at, words):
    objs = world()
    wl = admitted(objs)
    del wl["status"]["admission"]
    message = f"Exceeded the PodsReady timeout team-a/{ADMITTED_WL}"
    wl["status"]["conditions"] = [cond("QuotaReserved", "False", "Pending", message),
                                  cond("Evicted", "True", "PodsReadyTimeout", message),
                                  cond("Requeued", "False", "PodsReadyTimeout", message)]
    wl["status"]["requeueState"] = {"count": 2, "requeueAt": requeue_at}
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Requeuing", "PodsReadyTimeout")
    f = one(doc, "PodsReadyTimeout")
    assert words in f["message"] and "re-queued 2 time(s)" in f["message"]
    assert doc["eviction"]["requeueCount"] == 2 and doc["eviction"]["requeueAt"] == requeue_at


def test_requeuing_until_the_cluster_queue_runs_again(tmp_path):
    objs = world()
    wl = admitted(objs)
    del wl["status"]["admission"]
    wl["status"]["conditions"] = [cond("QuotaReserved", "False", "Pending", "The ClusterQueue is stopped"),
                                  cond("Evicted", "True", "ClusterQueueStopped", "The ClusterQueue is stopped"),
                                  cond("Requeued", "False", "ClusterQueueStopped", "The ClusterQueue is stopped")]
    cq = find(objs, "ClusterQueue", "gpu-cq")
    cq["spec"]["stopPolicy"] = "HoldAndDrain"
    cq["status"]["conditions"] = [cond("Active", "False", "Stopped", "Can't admit new workloads: is stopped.")]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Requeuing", "ClusterQueueStopped")
    f = doc["findings"][0]
    assert f["code"] == "ClusterQueueStopped" and "until ClusterQueue gpu-cq runs again" in f["message"]
    assert f["fix"] == "kubectl patch clusterqueue gpu-cq --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'"


def _with_check(objs: list[dict], state: str | None, message: str = "", active: str | None = "True") -> dict:
    cq = find(objs, "ClusterQueue", "gpu-cq")
    cq["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": "capacity"}]}
    check = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "capacity"},
             "spec": {"controllerName": "example.com/capacity"}}
    if active:
        check["status"] = {"conditions": [cond("Active", active, "Ready", "ready")]}
    objs.append(check)
    wl = admitted(objs)
    wl["status"]["conditions"] = [c for c in wl["status"]["conditions"] if c["type"] != "Admitted"]
    if state:
        wl["status"]["admissionChecks"] = [{"name": "capacity", "state": state, "message": message,
                                            "lastTransitionTime": T0}]
    return wl


def test_waiting_for_a_check_its_controller_runs(tmp_path):
    objs = world()
    _with_check(objs, "Pending", "waiting for capacity")
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"], doc["admitted"]) == ("WaitingForChecks", "AdmissionCheckPending", False)
    assert doc["admissionChecks"] == [{
        "name": "capacity", "state": "Pending", "message": "waiting for capacity", "since": T0,
        "controllerName": "example.com/capacity", "active": True, "exists": True, "onFlavors": ["default-flavor"],
        "applies": True, "requeueAfterSeconds": None, "retryCount": None}]
    f = one(doc, "AdmissionCheckPending")
    assert "quota is reserved in ClusterQueue gpu-cq" in f["message"] and "marks it Active" in f["message"]


def test_waiting_for_a_check_no_controller_claims(tmp_path):
    objs = world()
    _with_check(objs, "Pending", active=None)
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert doc["admissionChecks"][0]["active"] is False
    f = one(doc, "AdmissionCheckPending")
    assert "no controller marks it Active (no Active condition)" in f["message"]
    assert f["fix"].startswith("start the controller of AdmissionCheck capacity")


def test_check_in_retry_and_rejected(tmp_path):
    objs = world()
    _with_check(objs, "Retry", "try later")
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("WaitingForChecks", "AdmissionCheckRetry")
    assert one(doc, "AdmissionCheckRetry")["kueueMessage"] is None  # Kueue has not evicted it for that yet
    evicted = 'Evicted due to AdmissionCheck in Retry state: "capacity" (try later)'
    find(objs, "Workload", ADMITTED_WL)["status"]["conditions"].append(
        cond("Evicted", "True", "AdmissionCheck", evicted))
    doc = explain(tmp_path, objs, ADMITTED_WL)  # Kueue evicts it for the retry: its words are on Evicted
    assert doc["state"] == "Evicted" and one(doc, "Evicting")["kueueMessage"] == evicted
    objs = world()
    _with_check(objs, "Rejected", "no capacity ever")
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("WaitingForChecks", "AdmissionCheckRejected")
    f = one(doc, "AdmissionCheckRejected")
    assert f["severity"] == "error" and "Kueue deactivates it" in f["message"]


def test_a_check_with_onflavors_elsewhere_does_not_apply(tmp_path):
    objs = world()
    _with_check(objs, None)
    find(objs, "ClusterQueue", "gpu-cq")["spec"]["admissionChecksStrategy"] = {
        "admissionChecks": [{"name": "capacity", "onFlavors": ["other-flavor"]}]}
    admitted(objs)["status"]["conditions"].append(cond("Admitted", "True", "Admitted", "The workload is admitted"))
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert doc["state"] == "Admitted" and doc["admissionChecks"] == []


def test_admitted_with_a_maximum_execution_time(tmp_path):
    objs = world()
    wl = admitted(objs)
    wl["spec"]["maximumExecutionTimeSeconds"] = 7200
    wl["status"]["accumulatedPastExecutionTimeSeconds"] = 600
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert doc["lifecycle"]["execution"]["remainingSeconds"] == 7200 - 600 - 3600
    assert "it may run 50m0s more" in one(doc, "MaximumExecutionTime")["message"]


@pytest.mark.parametrize("version,code", [("0.19.2", "AdmissionGated"), ("0.18.4", "AdmissionGateIgnored")])
def test_admission_gate_by_version(tmp_path, version, code):
    objs = world()
    wl = pending(objs)
    wl["metadata"]["annotations"] = {"kueue.x-k8s.io/admission-gated-by": "example.com/provisioner"}
    doc = explain(tmp_path, objs, version=version)
    f = one(doc, code)
    if code == "AdmissionGated":
        assert (doc["state"], doc["reason"]) == ("Pending", "AdmissionGated")
        assert f["fix"].endswith(f"kubectl annotate workload {PENDING_WL} -n team-a "
                                 "kueue.x-k8s.io/admission-gated-by-")
    else:
        assert doc["reason"] == "QuotaExhausted"


def test_not_evaluated_yet(tmp_path):
    objs = world()
    pending(objs)["status"] = {}
    find(objs, "ClusterQueue", "gpu-cq")["spec"]["resourceGroups"][0]["flavors"][0]["resources"][2][
        "nominalQuota"] = "8"
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Pending", "NotEvaluatedYet")
    assert doc["lifecycle"]["evaluated"] is False


def _pending_message(objs: list[dict], message: str, reason: str = "Inadmissible") -> None:
    pending(objs)["status"]["conditions"] = [cond("QuotaReserved", "False", reason, message)]


def test_local_queue_missing(tmp_path):
    objs = [o for o in world() if o["kind"] != "LocalQueue"]
    _pending_message(objs, "LocalQueue gpu-queue doesn't exist")
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Pending", "LocalQueueMissing")
    f = one(doc, "LocalQueueMissing")
    assert f["kueueMessage"] == "LocalQueue gpu-queue doesn't exist"
    assert f["fix"] == ("echo '{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"LocalQueue\",\"metadata\":"
                        "{\"name\":\"gpu-queue\",\"namespace\":\"team-a\"},\"spec\":{\"clusterQueue\":\"gpu-cq\"}}' "
                        "| kubectl apply -f -  # the one ClusterQueue that covers cpu, memory, whole-gpus and selects "
                        "the namespace")
    assert "NotAdmitted" not in codes(doc) and "StaleKueueMessage" not in codes(doc)


@pytest.mark.parametrize("policy", ["Hold", "HoldAndDrain"])
def test_local_queue_stopped(tmp_path, policy):
    objs = world()
    find(objs, "LocalQueue", "gpu-queue")["spec"]["stopPolicy"] = policy
    _pending_message(objs, "LocalQueue gpu-queue is inactive")
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Pending", "LocalQueueStopped")
    f = one(doc, "LocalQueueStopped")
    assert f"has stopPolicy {policy}" in f["message"]
    assert f["fix"] == "kubectl patch localqueue gpu-queue -n team-a --type=merge -p '{\"spec\":{\"stopPolicy\":\"None\"}}'"
    run_on = explain(tmp_path, objs, ADMITTED_WL)  # admitted: Hold lets it run, HoldAndDrain evicts it
    assert run_on["state"] == "Admitted"
    assert ("LocalQueueStopped" in codes(run_on)) is (policy == "HoldAndDrain")


def test_cluster_queue_missing(tmp_path):
    objs = [o for o in world() if o["kind"] != "ClusterQueue"]
    doc = explain(tmp_path, objs)
    assert doc["reason"] == "ClusterQueueMissing"
    assert "the field is immutable" in one(doc, "ClusterQueueMissing")["fix"]


def test_cluster_queue_stopped_is_one_finding(tmp_path):
    objs = world()
    cq = find(objs, "ClusterQueue", "gpu-cq")
    cq["spec"]["stopPolicy"] = "HoldAndDrain"
    cq["status"]["conditions"] = [cond("Active", "False", "Stopped", "Can't admit new workloads: is stopped.")]
    _pending_message(objs, "ClusterQueue gpu-cq is inactive")
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Pending", "ClusterQueueStopped")
    assert codes(doc).count("ClusterQueueStopped") == 1 and "ClusterQueueInactive" not in codes(doc)
    assert one(doc, "ClusterQueueStopped")["kueueMessage"] == "ClusterQueue gpu-cq is inactive"


def test_cluster_queue_inactive_for_a_check_nobody_activates(tmp_path):
    objs = world()
    _with_check(objs, None, active=None)
    cq = find(objs, "ClusterQueue", "gpu-cq")
    cq["status"]["conditions"] = [cond("Active", "False", "AdmissionCheckInactive",
                                       "Can't admit new workloads: references inactive AdmissionCheck(s): capacity.")]
    doc = explain(tmp_path, objs)
    assert (doc["state"], doc["reason"]) == ("Pending", "ClusterQueueInactive")
    f = one(doc, "ClusterQueueInactive")
    assert "references inactive AdmissionCheck(s): capacity" in f["message"]
    assert "start the controller of AdmissionCheck(s) capacity" in f["fix"]
    del cq["status"]  # no recorded condition: derived, and said so
    doc = explain(tmp_path, objs)
    assert "derived from the objects" in one(doc, "ClusterQueueInactive")["message"]


def test_a_stale_blocker_message_is_said_to_be_stale(tmp_path):
    objs = world()
    _pending_message(objs, "LocalQueue gpu-queue doesn't exist")
    doc = explain(tmp_path, objs)
    assert "LocalQueueMissing" not in codes(doc)
    assert "the queue path is clear now" in one(doc, "StaleKueueMessage")["message"]


@pytest.mark.parametrize("version,text", [("0.19.2", "workload namespace doesn't match ClusterQueue selector"),
                                          ("0.18.4", "Workload namespace doesn't match ClusterQueue selector")])
def test_namespace_mismatch_message_of_each_version(tmp_path, version, text):
    objs = world()
    find(objs, "ClusterQueue", "gpu-cq")["spec"]["namespaceSelector"] = {"matchLabels": {"team": "b"}}
    _pending_message(objs, text, "Pending")
    doc = explain(tmp_path, objs, version=version)
    assert doc["reason"] == "NamespaceNotSelected"


def test_device_class_deleted_after_admission_is_a_warning_not_the_verdict(tmp_path):
    objs = [o for o in copy.deepcopy(load_objects(str(EXAMPLE.parent / "mig-partitionable")))
            if o["kind"] != "DeviceClass"]
    snap = tmp_path / "mig.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    args = ("explain", "job/notebook-eval", "-n", "ml-research", "--from", str(snap))
    doc = json.loads(run(*args, "-o", "json").stdout)
    assert (doc["state"], doc["reason"], doc["admitted"]) == ("Admitted", "Admitted", True)
    assert not [f for f in doc["findings"] if f["severity"] == "error"]
    assert "ChargeMismatch" not in codes(doc)  # the DRA step fails now: nothing to compare Kueue's record with
    f = one(doc, "RejectedIfRequeued")
    assert f["message"].startswith("if this workload were evicted and re-queued now, Kueue would reject it: a "
                                   "request names a DeviceClass that does not exist. Kueue's message: ")
    assert f["cause"] == "DeviceClassMissing" and doc["dra"]["afterAdmission"] is True
    text = run(*args).stdout
    assert "Kueue rejects the DRA requests" not in text
    assert "If evicted and re-queued now, Kueue would reject the DRA requests: " in text


def test_mapping_renamed_after_admission(tmp_path):
    objs = world()
    config = find(objs, "ConfigMap", "kueue-manager-config")
    key = next(iter(config["data"]))
    config["data"][key] = config["data"][key].replace("- gpu.nvidia.com", "- gpu.example.com")
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Admitted", "Admitted")
    assert one(doc, "RejectedIfRequeued")["cause"] == "DeviceClassNotMapped"
    assert explain(tmp_path, objs)["reason"] == "DeviceClassNotMapped"  # the pending one: its verdict now


def test_quota_no_longer_covering_a_resource_after_admission(tmp_path):
    objs = world()
    group = find(objs, "ClusterQueue", "gpu-cq")["spec"]["resourceGroups"][0]
    group["coveredResources"].remove("whole-gpus")
    group["flavors"][0]["resources"] = [r for r in group["flavors"][0]["resources"] if r["name"] != "whole-gpus"]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert doc["state"] == "Admitted" and "ResourceNotCovered" not in codes(doc)
    assert one(doc, "RejectedIfRequeued")["cause"] == "ResourceNotCovered"
    assert explain(tmp_path, objs)["reason"] == "ResourceNotCovered"  # the pending one: the verdict now


def test_fixes_are_written_for_oc_on_openshift(tmp_path):
    """The mig-partitionable example is configured by the OpenShift operator: every command of a
    fix starts with oc (the one oc/kubectl decision)."""
    objs = copy.deepcopy(load_objects(str(EXAMPLE.parent / "mig-partitionable")))
    wl = next(o for o in objs if o["kind"] == "Workload" and o["metadata"]["name"].startswith("job-notebook-eval"))
    wl["spec"]["active"] = False
    find(objs, "LocalQueue", "research")["spec"]["stopPolicy"] = "HoldAndDrain"
    snap = tmp_path / "mig.yaml"
    snap.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    doc = json.loads(run("explain", "job/notebook-eval", "-n", "ml-research", "--from", str(snap), "-o", "json").stdout)
    assert doc["state"] == "Inactive"
    fixes = [f["fix"] for f in doc["findings"] if f["code"] in ("Inactive", "LocalQueueStopped")]
    assert len(fixes) == 2 and all(f.startswith("oc patch ") for f in fixes), fixes


def test_being_evicted_while_the_quota_is_still_held(tmp_path):
    objs = world()
    wl = admitted(objs)
    message = "Workload was evicted as there was no replacement for a failed node: node-3"
    wl["status"]["conditions"].append(cond("Evicted", "True", "NodeFailures", message))
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert doc["state"] == "Evicted"
    f = one(doc, "Evicting")
    assert "a node it ran on failed" in f["message"] and f["kueueMessage"] == message and f["fix"] is None


@pytest.mark.parametrize("reason,words", [("FlavorMigration", "a more favourable ResourceFlavor"),
                                          ("NodeFailures", "a node it ran on failed")])
def test_requeuing_after_an_eviction_kueue_does_not_requeue_at_once(tmp_path, reason, words):
    objs = world()
    wl = admitted(objs)
    del wl["status"]["admission"]
    wl["status"]["conditions"] = [cond("QuotaReserved", "False", "Pending", "evicted"),
                                  cond("Evicted", "True", reason, "evicted"),
                                  cond("Requeued", "False", reason, "evicted")]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Requeuing", reason)
    f = one(doc, reason)
    assert words in f["message"] and f["cause"] == reason and f["fix"] is None


def test_deactivated_on_the_manager_cluster(tmp_path):
    objs = world()
    wl = admitted(objs)
    wl["spec"]["active"] = False
    del wl["status"]["admission"]
    message = "The workload is deactivated due to being evicted on the manager cluster"
    wl["status"]["conditions"] = [
        cond("QuotaReserved", "False", "Pending", message),
        cond("Evicted", "True", "DeactivatedDueToEvictedOnManagerCluster", message),
        cond("Requeued", "False", "DeactivatedDueToEvictedOnManagerCluster", message)]
    doc = explain(tmp_path, objs, ADMITTED_WL)
    assert (doc["state"], doc["reason"]) == ("Inactive", "EvictedOnManagerCluster")
    f = one(doc, "EvictedOnManagerCluster")
    assert f["severity"] == "error" and "MultiKueue manager cluster" in f["message"]
    assert "recreate job/train-llm" in f["fix"]
