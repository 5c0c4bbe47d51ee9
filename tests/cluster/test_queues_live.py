"""``queues`` against the real API server: the cohort example loaded with the statuses Kueue writes,
live equals offline (the same objects read back with kubectl), the read-only role can run it, and a
user who may not list Workloads gets the quota with the Workloads unknown, said once."""

from __future__ import annotations

import json

import pytest

from testenv import setups
from testenv.harness import run_plugin

SETUP = "cohort-sharing"


@pytest.fixture(scope="module")
def loaded(cluster_gates_on, tmp_path_factory):
    c = cluster_gates_on
    docs = setups.load(c, SETUP)
    c.apply([d for d in docs if d["kind"] == "Cohort"])  # the example's Cohort object (setups clears none)
    snap = setups.snapshot(c, docs, tmp_path_factory.mktemp(SETUP) / "snap.yaml")
    with snap.open("a") as f:
        f.write("---\n" + c.kubectl("get", "cohorts", "-o", "yaml").stdout)
    yield snap
    c.kubectl("delete", "cohorts,workloadpriorityclasses", "--all", "--wait=false")
    setups.clear(c, setups.namespaces(docs))


def queues_json(cluster, *args, context="admin"):
    proc = run_plugin(cluster, "queues", "-o", "json", *args, context=context)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_live_equals_offline_and_the_cohort_numbers(cluster_gates_on, loaded):
    live = queues_json(cluster_gates_on)
    offline = queues_json(cluster_gates_on, "--from", str(loaded))
    for doc in (live, offline):
        doc.pop("source")
    assert live == offline
    b = next(cq for cq in live["clusterQueues"] if cq["name"] == "team-b-cq")
    gpus = next(r for r in b["resources"] if r["resource"] == "gpus")
    assert (gpus["nominalQuota"], gpus["reserved"], gpus["lendingLimit"], gpus["available"]) == ("4", "2", "2", "4")
    assert b["pending"]["requests"]["gpus"] == "6" and [w["name"] for w in b["workloads"]] == ["job-eval-d7302"]
    [pool] = live["cohorts"]
    assert pool["cohortObject"] is True and next(r for r in pool["resources"] if r["resource"] == "gpus")[
        "subtreeQuota"] == "14"


def test_reader_role_reads_it_and_the_table_draws_it(cluster_gates_on, loaded):
    doc = queues_json(cluster_gates_on, context="reader")
    assert not doc["partial"] and [cq["name"] for cq in doc["clusterQueues"]] == ["team-a-cq", "team-b-cq"]
    proc = run_plugin(cluster_gates_on, "queues", "team-a-cq", "--workloads", context="reader")
    assert proc.returncode == 0, proc.stderr
    assert "[########] 125%" in proc.stdout and "team-a/job-pretrain-70b-7f301" in proc.stdout


def test_without_workloads_the_quota_stays_and_the_answer_is_partial(cluster_gates_on, loaded):
    """A user who may read the queues but not the Workloads: reserved quota (the ClusterQueue's
    status) is known, who holds it and what waits is not, and the 403 is named."""
    c = cluster_gates_on
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "queues-without-workloads"},
            "rules": [{"apiGroups": ["kueue.x-k8s.io"], "resources": ["clusterqueues", "cohorts", "localqueues"],
                       "verbs": ["get", "list"]},
                      {"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses"], "verbs": ["get", "list"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "queues-without-workloads"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                           "name": "queues-without-workloads"},
               "subjects": [{"kind": "User", "name": "nobody", "apiGroup": "rbac.authorization.k8s.io"}]}
    c.apply([role, binding])
    try:
        doc = queues_json(c, context="nobody")
    finally:
        c.delete(binding, check=False)
        c.delete(role, check=False)
    assert doc["partial"] is True
    assert any(f["code"] == "Unreadable" and "workloads.kueue.x-k8s.io" in f["message"] for f in doc["findings"])
    a = next(cq for cq in doc["clusterQueues"] if cq["name"] == "team-a-cq")
    assert a["workloads"] is None and a["pending"] is None
    assert next(r for r in a["resources"] if r["resource"] == "gpus")["reserved"] == "10"
