"""Quota verdicts as Kueue's flavor assigner computes them (cohort trees, lending and borrowing
limits, nested cohorts) from the ClusterQueues' ``status.flavorsReservation``, the quota table,
and the finding codes of Kueue's messages."""

import pytest

from kubectl_kueue_dra.commands.explain.flavor_findings import model_findings
from kubectl_kueue_dra.commands.explain.queue_docs import verdict_doc
from kubectl_kueue_dra.commands.explain.queue_model import QueueModel
from kubectl_kueue_dra.kueue.scheduler.assigner import assign
from kubectl_kueue_dra.kueue.scheduler.preemption_plan import plan
from kubectl_kueue_dra.kueue.queues.quota import quota_table
from kubectl_kueue_dra.kueue.queues.quota_tree import TreeError, build_tree
from kubectl_kueue_dra.kueue.scheduler.snapshot import PodSetRequest, Preemptor, Snapshot
from kubectl_kueue_dra.kueue.scheduler.world import QueueWorld, parse_time
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


def world(subject, *others, cohorts=(), version="0.19.2"):
    flavors = sorted({f["name"] for q in (subject, *others) for g in q["spec"]["resourceGroups"] for f in g["flavors"]})
    w = QueueWorld(version=version, cluster_queues=[subject, *others], cohorts=list(cohorts), workloads=[],
                   resource_flavors=[{"metadata": {"name": f}, "spec": {}} for f in flavors])
    return w, subject


def preemptor(podsets):
    return Preemptor(namespace="ns", name="w", uid="u", priority=0, cluster_queue="b",
                     queue_time=parse_time("2026-01-01T00:00:00Z"),
                     podsets=[PodSetRequest(name=n, count=1, requests=r) for n, r in podsets])


def verdict(w, podsets, binary=frozenset()):
    """The assignment when it does not fit, else None (the old verdict's contract)."""
    world_, subject = w
    asg = assign(Snapshot(world_, subject), preemptor(podsets), binary=frozenset(binary))
    return None if asg.mode == "Fit" else asg


def node(w):
    world_, subject = w
    return Snapshot(world_, subject).node


def judge(w, need, binary=frozenset()):
    return verdict(w, [("main", {GPU: need} if isinstance(need, int) else need)], set(binary))


def code(asg):
    return asg.podsets[-1].reasons[0].code


FR = ("default-flavor", GPU)


def test_alone_more_than_nominal_exceeds_with_kueues_message():
    v = judge(world(cq("b", {GPU: "2"})), 4)
    assert code(v) == "ExceedsQuota"
    assert v.message == ("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor "
                         "default-flavor, previously considered podsets requests (0) + current podset request (4) > "
                         "maximum capacity (2)")


def test_alone_more_than_unused_waits():
    v = judge(world(cq("b", {GPU: "4"}, {GPU: "3"})), 3)
    assert code(v) == "QuotaExhausted"
    assert v.message.endswith("insufficient unused quota for example.com/gpu in flavor default-flavor, 2 more needed")


def test_fits_and_binary_rendering():
    w = world(cq("b", {"gpu.memory": "20Gi"}))
    assert verdict(w, [("main", {"gpu.memory": 20 * 2**30})], {"gpu.memory"}) is None
    v = verdict(w, [("main", {"gpu.memory": 39 * 2**30})], {"gpu.memory"})
    assert "current podset request (39Gi) > maximum capacity (20Gi)" in v.message


def test_cohort_without_limits_lends_everything():
    # b: 2 own + a's 4 = 6 at most; a uses 3 of its 4 → 3 available to b
    w = world(cq("b", {GPU: "2"}, cohort="c"), cq("a", {GPU: "4"}, {GPU: "3"}, cohort="c"))
    assert (node(w).potential(FR), node(w).available(FR)) == (6, 3)
    assert judge(w, 3) is None
    assert judge(w, 4).message.endswith("1 more needed")
    assert judge(w, 7).message.endswith("> maximum capacity (6)")


def test_lending_limit_of_another_queue_caps_the_maximum():
    # a lends at most 1 of its 4: b can get 2 + 1 = 3 ever, not nominal + unlimited borrowing
    w = world(cq("b", {GPU: "2"}, cohort="c"), cq("a", {GPU: "4"}, cohort="c", lending="1"))
    assert node(w).potential(FR) == 3
    v = judge(w, 4)
    assert code(v) == "ExceedsQuota" and v.message.endswith("> maximum capacity (3)")
    assert judge(w, 3) is None


def test_own_lending_limit_keeps_local_quota():
    # b lends 1 of its 2 (keeps 1 local); a has 4: b's maximum stays 2 + 4
    w = world(cq("b", {GPU: "2"}, cohort="c", lending="1"), cq("a", {GPU: "4"}, cohort="c"))
    assert node(w).potential(FR) == 6


def test_borrowing_limit_caps_the_maximum():
    w = world(cq("b", {GPU: "2"}, cohort="c", borrowing="1"), cq("a", {GPU: "4"}, cohort="c"))
    assert judge(w, 4).message.endswith("current podset request (4) > maximum capacity (3)")


def test_nested_cohorts_add_their_quota():
    # root r has 2 of its own; child cohort c (no quota) holds b (1): b gets 1 + 2 = 3
    w = world(cq("b", {GPU: "1"}, cohort="c"), cohorts=[cohort("r", quota="2"), cohort("c", parent="r")])
    assert node(w).potential(FR) == 3
    assert judge(w, 3) is None and code(judge(w, 4)) == "ExceedsQuota"


def test_nested_cohort_borrowing_limit():
    # c may borrow 1 from r: b gets min(1 + 1, 1 + 2) = 2
    w = world(cq("b", {GPU: "1"}, cohort="c"),
              cohorts=[cohort("r", quota="2"), cohort("c", parent="r", quota="0", borrowing="1")])
    assert node(w).potential(FR) == 2
    assert judge(w, 3).message.endswith("> maximum capacity (2)")


def test_nested_cohort_lending_limit():
    # sibling cohort s holds a (4) but lends only 1 to r
    w = world(cq("b", {GPU: "1"}, cohort="c"), cq("a", {GPU: "4"}, cohort="s"),
              cohorts=[cohort("r"), cohort("c", parent="r"), cohort("s", parent="r", quota="0", lending="1")])
    assert node(w).potential(FR) == 2


def test_usage_of_others_in_nested_cohorts():
    w = world(cq("b", {GPU: "1"}, cohort="c"), cq("a", {GPU: "4"}, {GPU: "4"}, cohort="s"),
              cohorts=[cohort("r"), cohort("c", parent="r"), cohort("s", parent="r")])
    assert (node(w).potential(FR), node(w).available(FR)) == (5, 1)
    assert judge(w, 2).message.endswith("1 more needed")


def test_previous_podsets_count_in_the_message():
    v = verdict(world(cq("b", {GPU: "4"})), [("driver", {GPU: 3}), ("workers", {GPU: 2})])
    assert [p.name for p in v.podsets if not p.fit] == ["workers"]
    assert v.message == ("couldn't assign flavors to pod set workers: insufficient quota for example.com/gpu in flavor "
                         "default-flavor, previously considered podsets requests (3) + current podset request (2) > "
                         "maximum capacity (4)")


def test_several_flavors_all_reasons_sorted():
    v = verdict(world(cq("b", {GPU: "2"}, flavors=("x", "a"))), [("main", {GPU: 4})])
    assert v.message == ("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor a, "
                         "previously considered podsets requests (0) + current podset request (4) > maximum capacity "
                         "(2), insufficient quota for example.com/gpu in flavor x, previously considered podsets "
                         "requests (0) + current podset request (4) > maximum capacity (2)")


@pytest.mark.parametrize("version,determined", [("0.19.2", True), ("0.18.4", False)])
def test_two_failing_resources_of_one_flavor(version, determined):
    # 0.19 checks every resource of a flavor and writes both; 0.18 stops at the first, in map order
    v = verdict(world(cq("b", {GPU: "2", "cpu": "1"}), version=version), [("main", {GPU: 4, "cpu": 2000})])
    assert code(v) == "ExceedsQuota" and (v.message is not None) is determined
    assert len(v.messages()) == (1 if determined else 2)


def test_unreadable_tree_is_unknown_not_guessed():
    subject = cq("b", {GPU: "2"}, cohort="c")
    w = QueueWorld(cluster_queues=[subject], cohorts=None, unreadable={"Cohort": "forbidden"})
    with pytest.raises(TreeError, match="the Cohorts could not be read"):
        Snapshot(w, subject)
    assert quota_table(subject, None, {GPU: 4}, set())[0]["maximumCapacity"] is None


def test_cohort_cycle_is_an_error():
    with pytest.raises(TreeError):
        build_tree([], [cohort("x", parent="y"), cohort("y", parent="x")])


def test_findings_carry_kueues_message():
    world_, subject = world(cq("b", {GPU: "2"}))
    snap, pre = Snapshot(world_, subject), preemptor([("main", {GPU: 4})])
    asg = assign(snap, pre)
    model = QueueModel(world=world_, cluster_queue=subject, snapshot=snap, preemptor=pre, assignment=asg,
                       plan=plan(snap, pre, asg))
    doc = verdict_doc(model, set())
    found = model_findings(model, set(), None)
    assert [f["code"] for f in found] == ["ExceedsQuota"] and found[0]["predicted"]
    assert doc["message"] == asg.message and found[0]["kueueMessage"] is None  # Kueue wrote nothing yet
    assert f'(Kueue would say: "{asg.message}")' in found[0]["message"]
    assert doc["reasons"][0]["maximumCapacity"] == "2"


def test_the_table_shows_the_flavor_the_assigner_picks():
    queue = cq("b", {GPU: "2"}, flavors=("x", "a"))
    rows = quota_table(queue, None, {GPU: 1}, set(), {GPU: "a"})
    assert [(r["flavor"], r["fits"]) for r in rows] == [("a", True)]


@pytest.mark.parametrize("message,code", [
    (("couldn't assign flavors to pod set main: insufficient quota for example.com/gpu in flavor default-flavor, "
     "previously considered podsets requests (0) + current podset request (4) > maximum capacity (2)"), "ExceedsQuota"),
    (("couldn't assign flavors to pod set main: insufficient unused quota for example.com/gpu in flavor "
     "default-flavor, 2 more needed"), "QuotaExhausted"),
    ("couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue",
     "ResourceNotCovered"),
    ("couldn't assign flavors to pod set main: flavor one doesn't match node affinity", "NodeAffinityMismatch"),
    ("couldn't assign flavors to pod set main: untolerated taint {instance spot NoSchedule <nil>} in flavor tainted",
     "UntoleratedTaint"),
    ("couldn't assign flavors to pod set main: flavor ghost not found", "FlavorNotFound"),
    (("couldn't assign flavors to pod set main: flavor one doesn't match node affinity, insufficient unused quota for "
      "cpu in flavor two, 1 more needed"), "QuotaExhausted"),
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
