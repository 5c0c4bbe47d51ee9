"""``explain``'s queue truth against the real Kueue (v0.19.2, its visibility API served through the
test API server's aggregation layer): each state is made by Kueue itself — a Workload created
inactive, one deactivated while pending and one after admission, LocalQueues on Hold and
HoldAndDrain, a ClusterQueue on HoldAndDrain, an AdmissionCheck nobody marks Active (its
ClusterQueue inactive), one this test marks Active itself with workloads whose check it sets to
Ready, Retry and Rejected, a preemption by priority, a DeviceClass deleted after admission — and
``explain -o json`` must name the state Kueue recorded, with Kueue's own message where it quotes
one. The position of a pending workload must be the visibility API's answer.

There is no kube-controller-manager: an admitted Job's pods never exist, so an evicted workload
releases its quota at once (its job is not active).
"""

from __future__ import annotations

import json
import os
import time

import pytest

from testenv import visibility
from testenv.builders import (
    cluster_queue,
    container,
    device,
    device_class,
    job,
    local_queue,
    pod_spec,
    request,
    resource_flavor,
    resource_slice,
    template,
    workload,
)
from testenv.harness import Cluster, run_plugin
from testenv.kueue_harness import KueueSetup

GPU = "gpu.example.com"
MAPPINGS = [{"name": "example.com/gpu", "deviceClassNames": [GPU]}]
WAIT = float(os.environ.get("KUEUE_DRA_QUEUE_TRUTH_WAIT", "60"))


@pytest.fixture(scope="module")
def kueue(request, controlplane_bin, start_visible_kueue):
    runner = start_visible_kueue(request, controlplane_bin, "queue-truth")
    runner.ensure(KueueSetup.of(mappings=MAPPINGS))
    runner.cluster.apply(resource_flavor())
    return runner


# ------------------------------------------------------------------------------------ helpers
def until(what: str, probe, timeout: float = WAIT):
    """``probe()``'s first truthy answer, polled; fails naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(0.3)


def condition(obj: dict, ctype: str) -> dict | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == ctype), None)


def is_true(obj: dict, ctype: str) -> bool:
    return (condition(obj, ctype) or {}).get("status") == "True"


def workload_of(c: Cluster, ns: str, job_name: str) -> dict:
    def find():
        for wl in c.get_json("workloads.kueue.x-k8s.io", "-n", ns)["items"]:
            if any(o.get("kind") == "Job" and o.get("name") == job_name for o in wl["metadata"].get("ownerReferences", [])):
                return wl
        return None
    return until(f"the Workload of job {ns}/{job_name}", find)


def fresh(c: Cluster, ns: str, name: str) -> dict:
    return c.get_json("workloads.kueue.x-k8s.io", name, "-n", ns)


def wait_wl(c: Cluster, ns: str, name: str, what: str, test) -> dict:
    return until(f"{what} on {ns}/{name}", lambda: (lambda w: w if test(w) else None)(fresh(c, ns, name)))


def explain(c: Cluster, ns: str, name: str, *more: str) -> dict:
    proc = run_plugin(c, "explain", f"workload/{name}", "-n", ns, "-o", "json", *more)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def stable_explain(c: Cluster, ns: str, name: str) -> tuple[dict, dict]:
    """The Workload and its explanation, read while Kueue did not change it (same resourceVersion
    before and after), so that the two describe the same moment."""
    for _ in range(20):
        before = fresh(c, ns, name)
        doc = explain(c, ns, name)
        after = fresh(c, ns, name)
        if before["metadata"]["resourceVersion"] == after["metadata"]["resourceVersion"]:
            return after, doc
        time.sleep(0.5)
    raise AssertionError(f"{ns}/{name} kept changing")


def codes(doc: dict) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def one(doc: dict, code: str) -> dict:
    found = [f for f in doc["findings"] if f["code"] == code]
    assert len(found) == 1, (code, codes(doc), doc["state"], doc["reason"])
    return found[0]


def queues(c: Cluster, prefix: str, quota: dict[str, str], **spec) -> tuple[str, str]:
    """A namespace with LocalQueue ``lq`` on a ClusterQueue of its own; returns (namespace, cq)."""
    ns = c.create_namespace(prefix)
    cq = cluster_queue(f"{ns}-cq", quota)
    cq["spec"].update(spec)
    c.apply([cq, local_queue("lq", cq["metadata"]["name"], ns)])
    return ns, cq["metadata"]["name"]


def submit(c: Cluster, ns: str, name: str, cpu: str = "1", labels: dict | None = None, spec: dict | None = None) -> str:
    j = job(name, spec or pod_spec(containers=[container(requests={"cpu": cpu})]))
    j["metadata"]["namespace"] = ns
    j["metadata"]["labels"].update(labels or {})
    c.apply(j)
    return workload_of(c, ns, name)["metadata"]["name"]


def patch_spec(c: Cluster, kind: str, name: str, spec: dict, ns: str | None = None) -> None:
    c.kubectl("patch", kind, name, *(("-n", ns) if ns else ()), "--type=merge", "-p", json.dumps({"spec": spec}))


def patch_status(c: Cluster, kind: str, name: str, status: dict, ns: str | None = None) -> None:
    c.kubectl("patch", kind, name, *(("-n", ns) if ns else ()), "--subresource=status", "--type=merge",
              "-p", json.dumps({"status": status}))


def admitted(c: Cluster, ns: str, name: str) -> dict:
    return wait_wl(c, ns, name, "Admitted=True", lambda w: is_true(w, "Admitted"))


def evaluated(c: Cluster, ns: str, name: str) -> dict:
    return wait_wl(c, ns, name, "QuotaReserved=False", lambda w: (condition(w, "QuotaReserved") or {}).get("status")
                   == "False")


# -------------------------------------------------------------------------------------- tests
def test_created_inactive(kueue):
    c = kueue.cluster
    ns, _ = queues(c, "inactive-created", {"cpu": "4"})
    wl = workload("made-inactive", [("main", 1, pod_spec(containers=[container(requests={"cpu": "1"})]))])
    wl["metadata"]["namespace"] = ns
    wl["spec"]["active"] = False
    c.apply(wl)
    got = wait_wl(c, ns, "made-inactive", "Evicted=True", lambda w: is_true(w, "Evicted"))
    assert condition(got, "QuotaReserved") is None  # Kueue never evaluated it
    doc = explain(c, ns, "made-inactive")
    assert (doc["state"], doc["reason"]) == ("Inactive", "Inactive")
    assert doc["lifecycle"]["deactivation"]["how"] == "createdInactive"
    f = one(doc, "Inactive")
    assert f["kueueMessage"] == "The workload is deactivated"
    assert f["fix"] == f"kubectl patch workload made-inactive -n {ns} --type=merge -p '{{\"spec\":{{\"active\":true}}}}'"
    assert doc["position"] is None  # Kueue does not queue it


def test_deactivated_while_pending_and_after_admission(kueue):
    c = kueue.cluster
    ns, _ = queues(c, "deactivated", {"cpu": "1"})
    running = submit(c, ns, "running")
    admitted(c, ns, running)
    waiting = submit(c, ns, "waiting")
    said = (condition(evaluated(c, ns, waiting), "QuotaReserved") or {}).get("message")
    patch_spec(c, "workload", waiting, {"active": False}, ns)  # first, so the freed quota cannot admit it
    wait_wl(c, ns, waiting, "Evicted=True", lambda w: is_true(w, "Evicted"))
    patch_spec(c, "workload", running, {"active": False}, ns)
    wait_wl(c, ns, running, "Requeued=False", lambda w: (condition(w, "Requeued") or {}).get("status") == "False")
    doc = explain(c, ns, waiting)
    assert (doc["state"], doc["lifecycle"]["deactivation"]["how"]) == ("Inactive", "deactivatedWhilePending")
    assert said and said.startswith("couldn't assign flavors")
    doc = explain(c, ns, running)
    assert (doc["state"], doc["reason"], doc["admitted"]) == ("Inactive", "Inactive", False)
    assert doc["lifecycle"]["deactivation"]["how"] == "deactivatedAfterAdmission"
    assert doc["eviction"]["reason"] == "Deactivated" and doc["eviction"]["requeued"] is False


@pytest.mark.parametrize("policy", ["Hold", "HoldAndDrain"])
def test_local_queue_stopped(kueue, policy):
    c = kueue.cluster
    # room for both: after the restart neither waits for the other's quota
    ns, _ = queues(c, f"lq-{policy.lower()}", {"cpu": "2"})
    running = submit(c, ns, "running")
    admitted(c, ns, running)
    patch_spec(c, "localqueue", "lq", {"stopPolicy": policy}, ns)
    waiting = submit(c, ns, "waiting")
    got = evaluated(c, ns, waiting)
    assert condition(got, "QuotaReserved")["message"] == "LocalQueue lq is inactive"
    doc = explain(c, ns, waiting)
    assert (doc["state"], doc["reason"]) == ("Pending", "LocalQueueStopped")
    f = one(doc, "LocalQueueStopped")
    assert f["kueueMessage"] == "LocalQueue lq is inactive"
    assert f["fix"] == f"kubectl patch localqueue lq -n {ns} --type=merge -p '{{\"spec\":{{\"stopPolicy\":\"None\"}}}}'"
    assert doc["position"] is None  # a stopped LocalQueue is not in Kueue's queue manager
    if policy == "Hold":
        assert explain(c, ns, running)["state"] == "Admitted"
        return
    wait_wl(c, ns, running, "Requeued=False", lambda w: (condition(w, "Requeued") or {}).get("status") == "False")
    doc = explain(c, ns, running)
    assert (doc["state"], doc["reason"]) == ("Requeuing", "LocalQueueStopped")
    assert doc["eviction"]["message"] == "The LocalQueue is stopped"
    patch_spec(c, "localqueue", "lq", {"stopPolicy": "None"}, ns)
    admitted(c, ns, running)  # restarted: Kueue re-queues and admits it again
    assert explain(c, ns, running)["state"] == "Admitted"


def test_cluster_queue_hold_and_drain(kueue):
    c = kueue.cluster
    ns, cq = queues(c, "cq-drain", {"cpu": "1"})
    running = submit(c, ns, "running")
    admitted(c, ns, running)
    patch_spec(c, "clusterqueue", cq, {"stopPolicy": "HoldAndDrain"})
    wait_wl(c, ns, running, "Requeued=False", lambda w: (condition(w, "Requeued") or {}).get("status") == "False")
    doc = explain(c, ns, running)
    assert (doc["state"], doc["reason"]) == ("Requeuing", "ClusterQueueStopped")
    assert f"until ClusterQueue {cq} runs again" in one(doc, "ClusterQueueStopped")["message"]
    waiting = submit(c, ns, "waiting")
    got = evaluated(c, ns, waiting)
    assert condition(got, "QuotaReserved")["message"] == f"ClusterQueue {cq} is inactive"
    doc = explain(c, ns, waiting)
    assert (doc["state"], doc["reason"]) == ("Pending", "ClusterQueueStopped")
    assert one(doc, "ClusterQueueStopped")["kueueMessage"] == f"ClusterQueue {cq} is inactive"


def _check(name: str) -> dict:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": name},
            "spec": {"controllerName": "example.com/nobody"}}


def test_an_admission_check_nobody_activates(kueue):
    c = kueue.cluster
    check = f"idle-{time.monotonic_ns() % 100000}"
    c.apply(_check(check))
    ns, cq = queues(c, "ac-idle", {"cpu": "4"}, admissionChecksStrategy={"admissionChecks": [{"name": check}]})
    until(f"ClusterQueue {cq} inactive", lambda: (condition(c.get_json("clusterqueue", cq), "Active") or {})
          .get("reason") == "AdmissionCheckInactive")
    waiting = submit(c, ns, "waiting")
    assert condition(evaluated(c, ns, waiting), "QuotaReserved")["message"] == f"ClusterQueue {cq} is inactive"
    doc = explain(c, ns, waiting)
    assert (doc["state"], doc["reason"]) == ("Pending", "ClusterQueueInactive")
    f = one(doc, "ClusterQueueInactive")
    assert f"references inactive AdmissionCheck(s): {check}" in f["message"]
    assert f"start the controller of AdmissionCheck(s) {check}" in f["fix"]


def test_an_admission_check_this_test_runs(kueue):
    """The test is the check's controller: it marks the AdmissionCheck Active and sets each
    workload's check to Ready, Retry or Rejected."""
    c = kueue.cluster
    check = f"mine-{time.monotonic_ns() % 100000}"
    c.apply(_check(check))
    patch_status(c, "admissioncheck", check, {"conditions": [{
        "type": "Active", "status": "True", "reason": "Active", "message": "the test runs it",
        "lastTransitionTime": "2026-01-01T00:00:00Z"}]})
    ns, cq = queues(c, "ac-mine", {"cpu": "8"}, admissionChecksStrategy={"admissionChecks": [{"name": check}]})
    until(f"ClusterQueue {cq} active", lambda: is_true(c.get_json("clusterqueue", cq), "Active"))
    names = {state: submit(c, ns, state.lower()) for state in ("Ready", "Retry", "Rejected", "Pending")}
    for name in names.values():
        wait_wl(c, ns, name, "quota and the check", lambda w: is_true(w, "QuotaReserved") and
                (w.get("status") or {}).get("admissionChecks"))
    doc = explain(c, ns, names["Pending"])
    assert (doc["state"], doc["reason"]) == ("WaitingForChecks", "AdmissionCheckPending")
    assert [(a["name"], a["state"], a["active"], a["controllerName"]) for a in doc["admissionChecks"]] == \
        [(check, "Pending", True, "example.com/nobody")]
    assert "its controller example.com/nobody marks it Active" in one(doc, "AdmissionCheckPending")["message"]

    def set_state(name: str, state: str, message: str) -> None:
        patch_status(c, "workload", name, {"admissionChecks": [{
            "name": check, "state": state, "message": message,
            "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]}, ns)

    set_state(names["Ready"], "Ready", "capacity found")
    admitted(c, ns, names["Ready"])
    assert explain(c, ns, names["Ready"])["state"] == "Admitted"

    set_state(names["Retry"], "Retry", "try again later")
    evicted = f'Evicted due to AdmissionCheck in Retry state: "{check}" (try again later)'
    wait_wl(c, ns, names["Retry"], "the check-based eviction (or its record after re-admission)",
            lambda w: (condition(w, "Evicted") or {}).get("message") in (evicted, f"Previously: {evicted}"))
    got, doc = stable_explain(c, ns, names["Retry"])  # Kueue re-queues it at once (no requeueAfterSeconds)
    if is_true(got, "Evicted"):
        assert (doc["eviction"]["reason"], doc["eviction"]["message"]) == ("AdmissionCheck", evicted)
        assert doc["state"] in ("Evicted", "Requeuing", "Pending"), doc["state"]
    else:  # reserved again: the eviction is history, its check Pending again
        assert condition(got, "Evicted")["message"] == f"Previously: {evicted}"
        assert (doc["state"], doc["reason"]) == ("WaitingForChecks", "AdmissionCheckPending")

    set_state(names["Rejected"], "Rejected", "never")
    got = wait_wl(c, ns, names["Rejected"], "the deactivation", lambda w: w["spec"].get("active") is False and
                  (condition(w, "Requeued") or {}).get("status") == "False")
    doc = explain(c, ns, names["Rejected"])
    assert (doc["state"], doc["reason"]) == ("Inactive", "AdmissionCheckRejected")
    f = one(doc, "AdmissionCheckRejected")
    assert f["kueueMessage"] == condition(got, "Evicted")["message"]
    # reactivated, it stays out of the queue: Kueue flips Requeued only for the reason Deactivated
    patch_spec(c, "workload", names["Rejected"], {"active": True}, ns)
    time.sleep(3)
    got = fresh(c, ns, names["Rejected"])
    assert condition(got, "Requeued")["status"] == "False", got["status"]
    assert condition(got, "Requeued")["reason"] == "DeactivatedDueToAdmissionCheck"
    doc = explain(c, ns, names["Rejected"])
    assert (doc["state"], doc["reason"]) == ("Requeuing", "AdmissionCheckRejected")
    assert "so it stays out of the queue" in doc["findings"][0]["message"]


def test_a_preempted_workload_names_its_preemptor(kueue):
    c = kueue.cluster
    c.apply([{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "WorkloadPriorityClass", "metadata": {"name": n},
              "value": v, "description": n} for n, v in (("low-truth", 10), ("high-truth", 100))])
    ns, cq = queues(c, "preempt", {"cpu": "1"}, preemption={"withinClusterQueue": "LowerPriority"})
    low = submit(c, ns, "low", labels={"kueue.x-k8s.io/priority-class": "low-truth"})
    admitted(c, ns, low)
    high = submit(c, ns, "high", labels={"kueue.x-k8s.io/priority-class": "high-truth"})
    got = wait_wl(c, ns, low, "the preemption", lambda w: (condition(w, "Preempted") or {}).get("status") == "True")
    doc = explain(c, ns, low)
    assert (doc["state"], doc["reason"]) == ("Preempted", "Preempted")
    p = doc["preemption"]
    high_wl = fresh(c, ns, high)
    assert p["preemptor"]["uid"] == high_wl["metadata"]["uid"]
    assert (p["preemptor"]["namespace"], p["preemptor"]["name"], p["preemptor"]["priority"]) == (ns, high, 100)
    assert (p["reason"], p["policy"]) == ("InClusterQueue", "withinClusterQueue: LowerPriority")
    f = one(doc, "Preempted")
    assert f["kueueMessage"] == condition(got, "Evicted")["message"]
    assert f"Workload {ns}/{high} (priority 100, ClusterQueue {cq})" in f["message"]
    admitted(c, ns, high)


def test_device_class_deleted_after_admission(kueue):
    c = kueue.cluster
    klass = device_class(GPU, f"device.driver == '{GPU}'")
    c.apply([klass, resource_slice("truth-gpus", GPU, "truth-pool",
                                   devices=[device(f"gpu-{i}", type="gpu") for i in range(2)])])
    ns, _ = queues(c, "dc-gone", {"cpu": "4", "example.com/gpu": "2"})
    tpl = template("one-gpu", request(GPU, selector=f"device.attributes['{GPU}'].type == 'gpu'"))
    tpl["metadata"]["namespace"] = ns
    c.apply(tpl)
    name = submit(c, ns, "train", spec=pod_spec({"gpu": "one-gpu"}))
    admitted(c, ns, name)
    assert explain(c, ns, name)["draCharge"] == {"example.com/gpu": "1"}
    c.delete(klass)
    until("the DeviceClass gone", lambda: GPU not in c.kubectl("get", "deviceclasses", "-o", "name").stdout)
    doc = explain(c, ns, name)
    assert (doc["state"], doc["reason"], doc["admitted"]) == ("Admitted", "Admitted", True)
    assert not [f for f in doc["findings"] if f["severity"] == "error"]
    f = one(doc, "RejectedIfRequeued")
    assert f["cause"] == "DeviceClassMissing"
    assert f["message"].startswith("if this workload were evicted and re-queued now, Kueue would reject it")
    assert is_true(fresh(c, ns, name), "Admitted")  # Kueue's record stands


def test_position_is_the_visibility_apis(kueue):
    c = kueue.cluster
    ns, cq = queues(c, "position", {"cpu": "0"})
    names = []
    for i in range(3):
        if i:
            time.sleep(1.1)  # distinct creation timestamps: the queue order is well defined
        names.append(submit(c, ns, f"job-{i}"))
    path = visibility.pending_workloads_path(ns, "lq", "v1beta2")
    api = until("three pending workloads in the visibility API", lambda: (lambda d: d if len(d["items"]) == 3
                else None)(json.loads(c.kubectl("get", "--raw", path).stdout)))
    for item in api["items"]:
        doc = explain(c, ns, item["metadata"]["name"])
        pos = doc["position"]
        assert doc["queue"]["clusterQueue"] == cq and pos["strategy"] == "BestEffortFIFO"
        assert (pos["clusterQueue"], pos["localQueue"], pos["source"]) == \
            (item["positionInClusterQueue"], item["positionInLocalQueue"], "visibility")
        head = next(i for i in api["items"] if i["positionInClusterQueue"] == 0)
        assert pos["head"] == {"namespace": ns, "name": head["metadata"]["name"]}
    assert [i["metadata"]["name"] for i in api["items"]] == names
    listed = json.loads(run_plugin(c, "explain", "-n", ns, "-o", "json").stdout)
    assert [d["position"]["clusterQueue"] for d in listed["items"]] == [0, 1, 2]
    reader = json.loads(run_plugin(c, "explain", f"workload/{names[1]}", "-n", ns, "-o", "json",
                                   context="reader").stdout)
    assert reader["position"]["source"] == "visibility"  # the reader role may ask Kueue
    nobody = run_plugin(c, "explain", f"workload/{names[1]}", "-n", ns, "-o", "json", context="nobody")
    assert nobody.returncode != 0  # cannot read the Workload at all
