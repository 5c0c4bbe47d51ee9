"""`explain` against the real API server on the three documented setups: live equals offline,
and the charges are the ones Kueue records for them."""

import json

import pytest

import setups
from harness import run_plugin

CASES = [
    ("resourceclaimtemplate", "team-a", "job/train-llm", {"whole-gpus": "4", "cpu": "8", "memory": "32Gi"}),
    ("resourceclaimtemplate", "team-a", "job/batch-infer", {"whole-gpus": "1"}),
    ("extended-resource", "team-b", "job/finetune", {"nvidia.com/gpu": "6"}),
    ("mig-partitionable", "ml-research", "job/notebook-eval", {"gpu.memory": "19Gi"}),  # 4 pods x 4864Mi
    ("mig-partitionable", "ml-research", "job/pretrain", {"gpu.memory": "80384Mi"}),
]


@pytest.fixture(scope="module")
def loaded(cluster_gates_on, tmp_path_factory):
    snaps = {}

    def get(setup):
        if setup not in snaps:
            docs = setups.load(cluster_gates_on, setup)
            snaps[setup] = setups.snapshot(cluster_gates_on, docs, tmp_path_factory.mktemp(setup) / "snap.yaml")
        return snaps[setup]
    return get


def explain_json(cluster, *args, context="admin"):
    proc = run_plugin(cluster, "explain", "-o", "json", *args, context=context)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("setup,ns,ref,expected", CASES, ids=[c[2] for c in CASES])
def test_explain_live_equals_offline(cluster_gates_on, loaded, setup, ns, ref, expected):
    snap = loaded(setup)
    live = explain_json(cluster_gates_on, ref, "-n", ns)
    offline = explain_json(cluster_gates_on, ref, "-n", ns, "--from", str(snap))
    assert live == offline
    charge = live["podSets"][0]["charge"]
    for name, quantity in expected.items():
        assert charge[name] == quantity
        assert live["recorded"][name] == quantity  # what Kueue recorded in the example
    assert not [f for f in live["findings"] if f["code"] == "ChargeMismatch"]


def test_reader_can_explain(cluster_gates_on, loaded):
    loaded("mig-partitionable")
    doc = explain_json(cluster_gates_on, "job/notebook-eval", "-n", "ml-research", context="reader")
    assert doc["podSets"][0]["charge"]["gpu.memory"] == "19Gi"


def test_missing_job_and_unmanaged_job(cluster_gates_on, loaded):
    loaded("resourceclaimtemplate")
    proc = run_plugin(cluster_gates_on, "explain", "job/nope", "-n", "team-a")
    assert proc.returncode == 1
    assert proc.stderr.strip() == 'error: job "nope" not found in namespace "team-a"'
    ns = cluster_gates_on.create_namespace("unmanaged")
    cluster_gates_on.kubectl("create", "job", "plain", "--image=busybox", "-n", ns)
    proc = run_plugin(cluster_gates_on, "explain", "job/plain", "-n", ns)
    assert proc.returncode == 1
    assert "is not managed by Kueue: it has no kueue.x-k8s.io/queue-name label" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_what_if_manifest(cluster_gates_on, loaded, tmp_path):
    loaded("mig-partitionable")
    job = """
apiVersion: batch/v1
kind: Job
metadata: {name: new-eval, namespace: ml-research, labels: {kueue.x-k8s.io/queue-name: research}}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: mig, resourceClaimTemplateName: mig-3g20gb}]
      containers:
      - name: eval
        image: busybox
        resources: {requests: {cpu: "1"}, claims: [{name: mig}]}
"""
    proc = run_plugin(cluster_gates_on, "explain", "-f", "-", "-o", "json", input=job)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["workload"] is None and doc["manifest"]["name"] == "new-eval"
    assert doc["podSets"][0]["charge"]["gpu.memory"] == "39Gi"  # 2 pods x 19968Mi (3g.20gb) = 39936Mi
    fit = next(f for f in doc["findings"] if f["code"] == "WhatIfFit")
    assert "would fit in ClusterQueue research-cq" in fit["message"]
