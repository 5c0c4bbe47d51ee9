"""Quota verdicts as Kueue's flavor assigner computes them (cohort trees, lending and borrowing
limits, nested cohorts), and the finding codes of Kueue's messages."""

import pytest

from kubectl_kueue_dra.kueue.queues.quota import (
    QuotaWorld,
    quota_findings,
    quota_table,
    verdict,
)
from kubectl_kueue_dra.kueue.queues.quota_tree import TreeError, build_tree
from kubectl_kueue_dra.kueue.workloads.status import cause_of

GPU = "example.com/gpu"


def cq(name, quota, reserved=None, cohort=None, borrowing=None, lending=None, flavors=("default-flavor",)):
    def res(n, q):
        out = {"name": n, "nominalQuota": q}
        if borrowing is not None:
            out["borrowingLimit"] = borrowing
        if lending is not None:
            out["lendingLimit"] = lending
        return out

    spec = {"resourceGroups": [{"coveredResources": list(quota),
                                "flavors": [{"name": f, "resources": [res(n, q) for n, q in quota.items()]}
                                            for f in flavors]}]}
    if cohort:
        spec["cohortName"] = cohort
    status = {"flavorsReservation": [{"name": flavors[0], "resources": [
        {"name": n, "total": t} for n, t in (reserved or {}).items()]}]}
    return {"metadata": {"name": name}, "spec": spec, "status": status}


def cohort(name, parent=None, quota=None, borrowing=None, lending=None):
    spec = {}
    if parent:
        spec["parentName"] = parent
    if quota:
        r = {"name": GPU, "nominalQuota": quota}
        if borrowing is not None:
            r["borrowingLimit"] = borrowing
        if lending is not None:
            r["lendingLimit"] = lending
        spec["resourceGroups"] = [{"coveredResources": [GPU], "flavors": [{"name": "default-flavor",
                                                                           "resources": [r]}]}]
    return {"metadata": {"name": name}, "spec": spec}


def world(subject, *others, cohorts=()):
    return QuotaWorld(subject, [subject, *others], list(cohorts))


def judge(w, need, binary=frozenset()):
    return verdict(w, [("main", {GPU: need} if isinstance(need, int) else need)], set(binary))


FR = ("default-flavor", GPU)


def test_alone_more_than_nominal_exceeds_with_kueues_message():
    v = judge(QuotaWorld(cq("b", {GPU: "2"})), 4)
    assert v.code == "ExceedsQuota"
    assert v.message == ("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor "
                         "default-flavor, previously considered podsets requests (0) + current podset request (4) > "
                         "maximum capacity (2)")


def test_alone_more_than_unused_waits():
    v = judge(QuotaWorld(cq("b", {GPU: "4"}, {GPU: "3"})), 3)
    assert v.code == "QuotaExhausted"
    assert v.message.endswith("insufficient unused quota for example.com/gpu in flavor default-flavor, 2 more needed")


def test_fits_and_binary_rendering():
    w = QuotaWorld(cq("b", {"gpu.memory": "20Gi"}))
    assert verdict(w, [("main", {"gpu.memory": 20 * 2**30})], {"gpu.memory"}) is None
    v = verdict(w, [("main", {"gpu.memory": 39 * 2**30})], {"gpu.memory"})
    assert "current podset request (39Gi) > maximum capacity (20Gi)" in v.message


def test_cohort_without_limits_lends_everything():
    # b: 2 own + a's 4 = 6 at most; a uses 3 of its 4 → 3 available to b
    w = world(cq("b", {GPU: "2"}, cohort="c"), cq("a", {GPU: "4"}, {GPU: "3"}, cohort="c"))
    node = w.node()
    assert (node.potential(FR), node.available(FR)) == (6, 3)
    assert judge(w, 3) is None
    assert judge(w, 4).message.endswith("1 more needed")
    assert judge(w, 7).message.endswith("> maximum capacity (6)")


def test_lending_limit_of_another_queue_caps_the_maximum():
    # a lends at most 1 of its 4: b can get 2 + 1 = 3 ever, not nominal + unlimited borrowing
    w = world(cq("b", {GPU: "2"}, cohort="c"), cq("a", {GPU: "4"}, cohort="c", lending="1"))
    assert w.node().potential(FR) == 3
    v = judge(w, 4)
    assert v.code == "ExceedsQuota" and v.message.endswith("> maximum capacity (3)")
    assert judge(w, 3) is None


def test_own_lending_limit_keeps_local_quota():
    # b lends 1 of its 2 (keeps 1 local); a has 4: b's maximum stays 2 + 4
    w = world(cq("b", {GPU: "2"}, cohort="c", lending="1"), cq("a", {GPU: "4"}, cohort="c"))
    assert w.node().potential(FR) == 6


def test_borrowing_limit_caps_the_maximum():
    w = world(cq("b", {GPU: "2"}, cohort="c", borrowing="1"), cq("a", {GPU: "4"}, cohort="c"))
    assert judge(w, 4).message.endswith("current podset request (4) > maximum capacity (3)")


def test_nested_cohorts_add_their_quota():
    # root r has 2 of its own; child cohort c (no quota) holds b (1): b gets 1 + 2 = 3
    w = world(cq("b", {GPU: "1"}, cohort="c"), cohorts=[cohort("r", quota="2"), cohort("c", parent="r")])
    assert w.node().potential(FR) == 3
    assert judge(w, 3) is None and judge(w, 4).code == "ExceedsQuota"


def test_nested_cohort_borrowing_limit():
    # c may borrow 1 from r: b gets min(1 + 1, 1 + 2) = 2
    w = world(cq("b", {GPU: "1"}, cohort="c"),
              cohorts=[cohort("r", quota="2"), cohort("c", parent="r", quota="0", borrowing="1")])
    assert w.node().potential(FR) == 2
    assert judge(w, 3).message.endswith("> maximum capacity (2)")


def test_nested_cohort_lending_limit():
    # sibling cohort s holds a (4) but lends only 1 to r
    w = world(cq("b", {GPU: "1"}, cohort="c"), cq("a", {GPU: "4"}, cohort="s"),
              cohorts=[cohort("r"), cohort("c", parent="r"), cohort("s", parent="r", quota="0", lending="1")])
    assert w.node().potential(FR) == 2


def test_usage_of_others_in_nested_cohorts():
    w = world(cq("b", {GPU: "1"}, cohort="c"), cq("a", {GPU: "4"}, {GPU: "4"}, cohort="s"),
              cohorts=[cohort("r"), cohort("c", parent="r"), cohort("s", parent="r")])
    node = w.node()
    assert (node.potential(FR), node.available(FR)) == (5, 1)
    assert judge(w, 2).message.endswith("1 more needed")


def test_previous_podsets_count_in_the_message():
    w = QuotaWorld(cq("b", {GPU: "4"}))
    v = verdict(w, [("driver", {GPU: 3}), ("workers", {GPU: 2})], set())
    assert v.pod_set == "workers"
    assert v.message == ("couldn't assign flavors to pod set workers: insufficient quota for example.com/gpu in flavor "
                         "default-flavor, previously considered podsets requests (3) + current podset request (2) > "
                         "maximum capacity (4)")


def test_several_flavors_all_reasons_sorted():
    w = QuotaWorld(cq("b", {GPU: "2"}, flavors=("x", "a")))
    v = verdict(w, [("main", {GPU: 4})], set())
    assert v.message == ("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor a, "
                         "previously considered podsets requests (0) + current podset request (4) > maximum capacity "
                         "(2), insufficient quota for example.com/gpu in flavor x, previously considered podsets "
                         "requests (0) + current podset request (4) > maximum capacity (2)")


def test_two_failing_resources_keep_the_code_not_a_message():
    w = QuotaWorld(cq("b", {GPU: "2", "cpu": "1"}))
    v = verdict(w, [("main", {GPU: 4, "cpu": 2000})], set())
    assert v.code == "ExceedsQuota" and v.message is None


def test_unreadable_tree_is_unknown_not_guessed():
    w = QuotaWorld(cq("b", {GPU: "2"}, cohort="c"), None, None, "the Cohorts could not be read")
    found, doc = quota_findings(w, [("main", {GPU: 4})], set())
    assert [f["code"] for f in found] == ["QuotaVerdictUnknown"] and doc is None
    assert quota_table(w, {GPU: 4}, set())[0]["maximumCapacity"] is None


def test_cohort_cycle_is_an_error():
    with pytest.raises(TreeError):
        build_tree([], [cohort("x", parent="y"), cohort("y", parent="x")])


def test_findings_carry_kueues_message():
    found, doc = quota_findings(QuotaWorld(cq("b", {GPU: "2"})), [("main", {GPU: 4})], set())
    assert [f["code"] for f in found] == ["ExceedsQuota"] and found[0]["predicted"]
    assert found[0]["kueueMessage"] == doc["message"]
    assert doc["reasons"][0]["maximumCapacity"] == "2"


@pytest.mark.parametrize("message,code", [
    (("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor default-flavor, "
     "previously considered podsets requests (0) + current podset request (4) > maximum capacity (2)"), "ExceedsQuota"),
    (("couldn't assign flavors to pod set main: insufficient unused quota for example.com/gpu in flavor "
     "default-flavor, 2 more needed"), "QuotaExhausted"),
    ("couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue",
     "ResourceNotCovered"),
    (('spec.podSets[0].template.spec.resourceClaims[0].devices.requests[0]: Internal error: failed to get '
     'DeviceClass ghost-mig.nvidia.com: DeviceClass.resource.k8s.io "ghost-mig.nvidia.com" not found'),
     "DeviceClassMissing"),
])
def test_kueue_messages_map_to_codes(message, code):
    assert cause_of(message).code.name == code


def _cohort_snapshot(tmp_path, lent):
    """examples/mig-partitionable with research-cq (20Gi of gpu.memory) in a cohort whose other
    queue lends ``lent`` of its 100Gi."""
    import shutil
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[2]
    snap = tmp_path / "snap"
    shutil.copytree(root / "examples" / "mig-partitionable", snap)
    docs = [d for d in yaml.safe_load_all((snap / "queues.yaml").read_text()) if d]
    for d in docs:
        if d.get("kind") == "ClusterQueue" and d["metadata"]["name"] == "research-cq":
            d["spec"]["cohortName"] = "shared"
            for r in d["spec"]["resourceGroups"][0]["flavors"][0]["resources"]:
                if r["name"] == "gpu.memory":
                    r["nominalQuota"] = "20Gi"
            d["status"]["flavorsReservation"] = []
    docs.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "other-cq"},
                 "spec": {"cohortName": "shared", "resourceGroups": [{"coveredResources": ["gpu.memory"], "flavors": [
                     {"name": "default-flavor", "resources": [{"name": "gpu.memory", "nominalQuota": "100Gi",
                                                               "lendingLimit": lent}]}]}]}})
    (snap / "queues.yaml").write_text(yaml.safe_dump_all(docs))
    return snap


WHAT_IF = """apiVersion: batch/v1
kind: Job
metadata: {name: new-eval, namespace: ml-research, labels: {kueue.x-k8s.io/queue-name: research}}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: mig, resourceClaimTemplateName: mig-3g20gb}]
      containers: [{name: eval, image: busybox, resources: {requests: {cpu: "1"}, claims: [{name: mig}]}}]
"""


@pytest.mark.parametrize("lent,code,fit", [("10Gi", "ExceedsQuota", "would never fit"), ("20Gi", None, "would fit in")])
def test_what_if_gets_the_cohort_verdict(tmp_path, lent, code, fit):
    import json
    import subprocess
    import sys

    snap = _cohort_snapshot(tmp_path, lent)
    proc = subprocess.run([sys.executable, "-m", "kubectl_kueue_dra", "explain", "-f", "-", "--from", str(snap),
                           "-o", "json"], input=WHAT_IF, capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["podSets"][0]["charge"]["gpu.memory"] == "39Gi"  # 2 pods x 19968Mi
    assert doc["queue"]["cohort"] == "shared"
    row = next(r for r in doc["queue"]["quota"] if r["resource"] == "gpu.memory")
    assert row["maximumCapacity"] == ("30Gi" if lent == "10Gi" else "40Gi")
    assert (doc["queue"]["verdict"] or {}).get("code") == code
    assert fit in next(f for f in doc["findings"] if f["code"] == "WhatIfFit")["message"]
