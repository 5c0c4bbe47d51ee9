"""`explain` against the real API server on the three documented setups: live equals offline,
and the charges are the ones Kueue records for them."""

import json

import pytest

from testenv import setups
from testenv.builders import limit_range
from testenv.harness import REPO_ROOT, run_plugin

CASES = [
    ("resourceclaimtemplate", "team-a", "job/train-llm", {"whole-gpus": "4", "cpu": "8", "memory": "32Gi"}),
    ("resourceclaimtemplate", "team-a", "job/batch-infer", {"whole-gpus": "1"}),
    ("extended-resource", "team-b", "job/finetune", {"nvidia.com/gpu": "6"}),
    ("mig-partitionable", "ml-research", "job/notebook-eval", {"gpu.memory": "19Gi"}),  # 4 pods x 4864Mi
    ("mig-partitionable", "ml-research", "job/pretrain", {"gpu.memory": "80384Mi"}),
]


@pytest.fixture(scope="module")
def loaded(cluster_gates_on, tmp_path_factory):
    """The setup a test asks for, loaded into the cluster (loading one clears the others), and its
    snapshot taken the first time."""
    snaps = {}
    current = []

    def get(setup):
        if current != [setup]:
            docs = setups.load(cluster_gates_on, setup)
            current[:] = [setup]
            if setup not in snaps:
                snaps[setup] = setups.snapshot(cluster_gates_on, docs, tmp_path_factory.mktemp(setup) / "snap.yaml")
        return snaps[setup]
    return get


def explain_json(cluster, *args, context="admin"):
    proc = run_plugin(cluster, "explain", "-o", "json", *args, context=context)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def same_moment(doc):
    """``doc`` with why a queue position is unknown left out: a live cluster without Kueue's
    visibility API and a snapshot (which has none to ask) give different reasons for the same
    unknown; every other field must agree."""
    for d in doc.get("items") or [doc]:
        if (d.get("position") or {}).get("source") is None and d.get("position"):
            d["position"] = dict(d["position"], unknown="(unknown)")
        if (d.get("position") or {}).get("visibilityUnknown"):  # a derived position: why Kueue was not asked
            d["position"] = dict(d["position"], visibilityUnknown="(unknown)")
    return doc


@pytest.mark.versions  # the three DRA paths, on every kube-apiserver version
@pytest.mark.parametrize("setup,ns,ref,expected", CASES, ids=[c[2] for c in CASES])
def test_explain_live_equals_offline(cluster_gates_on, loaded, setup, ns, ref, expected):
    snap = loaded(setup)
    live = explain_json(cluster_gates_on, ref, "-n", ns)
    offline = explain_json(cluster_gates_on, ref, "-n", ns, "--from", str(snap))
    assert same_moment(live) == same_moment(offline)
    charge = live["podSets"][0]["charge"]
    for name, quantity in expected.items():
        assert charge[name] == quantity
        assert live["recorded"][name] == quantity  # what Kueue recorded in the example
    assert not [f for f in live["findings"] if f["code"] == "ChargeMismatch"]


def test_reader_can_explain(cluster_gates_on, loaded):
    loaded("mig-partitionable")
    doc = explain_json(cluster_gates_on, "job/notebook-eval", "-n", "ml-research", context="reader")
    assert doc["podSets"][0]["charge"]["gpu.memory"] == "19Gi"


def test_exit_code_contract(cluster_gates_on, loaded):
    """0 once explained; --exit-code makes a workload that is not admitted exit 3, like git diff."""
    loaded("resourceclaimtemplate")
    pending = ("explain", "job/batch-infer", "-n", "team-a")
    assert run_plugin(cluster_gates_on, *pending).returncode == 0
    proc = run_plugin(cluster_gates_on, *pending, "--exit-code", "-o", "json")
    assert proc.returncode == 3 and json.loads(proc.stdout)["state"] == "Pending"
    admitted = run_plugin(cluster_gates_on, "explain", "job/train-llm", "-n", "team-a", "--exit-code")
    assert admitted.returncode == 0, admitted.stderr
    missing = run_plugin(cluster_gates_on, "explain", "job/nope", "-n", "team-a", "--exit-code")
    assert missing.returncode == 1  # an error is still 1: the workload could not be explained


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


@pytest.mark.versions
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


WHAT_IF = """
apiVersion: batch/v1
kind: Job
metadata: {{name: {name}, namespace: ml-research, labels: {{kueue.x-k8s.io/queue-name: research}}}}
spec:
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{{name: mig, resourceClaimTemplateName: {template}}}]
      containers:
      - name: eval
        image: busybox
        resources: {{requests: {requests}, claims: [{{name: mig}}]}}
"""


def test_one_fact_one_finding(cluster_gates_on, loaded):
    """Each fact is one finding, Kueue's words quoted inside ours: the quota verdict and Kueue's
    QuotaReserved message, a missing template's retry, an uncovered resource and the what-if fit."""
    loaded("resourceclaimtemplate")
    doc = explain_json(cluster_gates_on, "job/batch-infer", "-n", "team-a")
    exhausted = [f for f in doc["findings"] if f["code"] == "QuotaExhausted"]
    assert len(exhausted) == 1 and 'Kueue says: "couldn\'t assign flavors to pod set main' in exhausted[0]["message"]
    loaded("mig-partitionable")
    missing = run_plugin(cluster_gates_on, "explain", "-f", "-", "-o", "json",
                         input=WHAT_IF.format(name="no-template", template="nope", requests='{cpu: "1"}'))
    doc = json.loads(missing.stdout)
    found = [f for f in doc["findings"] if f["code"] == "ClaimTemplateMissing"]
    assert len(found) == 1 and found[0]["message"].count("retries") <= 1
    uncovered = run_plugin(cluster_gates_on, "explain", "-f", "-", "-o", "json",
                           input=WHAT_IF.format(name="uncovered", template="mig-3g20gb",
                                                requests='{cpu: "1", "example.com/foo": "1"}'))
    codes = [f["code"] for f in json.loads(uncovered.stdout)["findings"]]
    assert "ResourceNotCovered" in codes and "WhatIfFit" not in codes


def test_limit_range_defaults_and_an_unreadable_limit_range_list(cluster_gates_on, loaded, tmp_path):
    """LimitRange defaults and RuntimeClass overhead are read from the real API server and charged
    (a what-if Job); a user who may not list LimitRanges gets cpu/memory "unknown", the answer
    marked partial, never a silent 0."""
    import yaml

    c = cluster_gates_on
    ns = c.create_namespace("limits")
    c.apply([limit_range("defaults", {"type": "Container", "default": {"cpu": "1", "memory": "1Gi"},
                                      "defaultRequest": {"cpu": "300m", "memory": "256Mi"}}, namespace=ns),
             {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": "kata-live"},
              "handler": "kata", "overhead": {"podFixed": {"cpu": "250m", "memory": "160Mi"}}}])
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "what-if", "namespace": ns, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
           "spec": {"parallelism": 2, "template": {"spec": {
               "restartPolicy": "Never", "runtimeClassName": "kata-live",
               "containers": [{"name": "main", "image": "busybox"}]}}}}
    proc = run_plugin(c, "explain", "-f", "-", "-o", "json", input=yaml.safe_dump(job))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    ps = doc["podSets"][0]
    assert ps["charge"] == {"cpu": "1100m", "memory": "832Mi"}  # 2 x (300m + 250m), 2 x (256Mi + 160Mi)
    assert {(a["step"], a["resource"], a["source"]) for a in ps["adjustments"]} >= {
        ("limitRangeDefaultRequest", "cpu", f"LimitRange {ns}/defaults"),
        ("runtimeClassOverhead", "memory", "RuntimeClass kata-live")}
    assert not doc["partial"]

    role = yaml.safe_load((REPO_ROOT / "deploy" / "rbac" / "reader-clusterrole.yaml").read_text())
    role["metadata"]["name"] = "no-limitranges"
    role["rules"] = [r for r in role["rules"] if "limitranges" not in r.get("resources", [])]
    c.apply([role, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                    "metadata": {"name": "no-limitranges"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                "name": "no-limitranges"},
                    "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "no-lr-user"}]}])
    proc = run_plugin(c, "explain", "-f", "-", "-o", "json", "--as", "no-lr-user", input=yaml.safe_dump(job))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    ps = doc["podSets"][0]
    assert doc["partial"] is True
    assert set(ps["unknown"]) == {"cpu", "memory"} and "forbidden" in ps["unknown"]["cpu"]
    assert "cpu" not in ps["charge"] and "memory" not in ps["charge"]
    assert any(f["code"] == "ChargeUnknown" for f in doc["findings"])
    text = run_plugin(c, "explain", "-f", "-", "--as", "no-lr-user", input=yaml.safe_dump(job)).stdout
    assert "unknown" in text and "LimitRanges" in text


def test_workloads_at_a_glance_live_equals_offline(cluster_gates_on, loaded):
    """``explain`` with no TYPE/NAME on the real API server: the same list as offline, sorted like
    kubectl, and the reader role can read every kind it needs."""
    snap = loaded("resourceclaimtemplate")  # through the fixture, so that it knows what the cluster holds
    live = explain_json(cluster_gates_on, "-n", "team-a")
    assert same_moment(live) == same_moment(explain_json(cluster_gates_on, "-n", "team-a", "--from", str(snap)))
    summaries = [d["summary"] for d in live["items"]]
    assert [s["name"].rsplit("-", 1)[0] for s in summaries] == ["job-batch-infer", "job-train-llm"]
    assert [s["draCharge"] for s in summaries] == [{"whole-gpus": "1"}, {"whole-gpus": "4"}]
    assert not live["partial"]
    as_reader = explain_json(cluster_gates_on, "--cluster-queue", "gpu-cq", "-A", context="reader")
    assert [d["summary"] for d in as_reader["items"]] == summaries


def test_workload_list_reads_each_list_once(cluster_gates_on, loaded):
    """Fast whatever the number of Workloads: every GET of the run is a distinct path (a list of each
    kind, not one per workload), and listing every workload costs no more requests per workload."""
    from testenv import perf

    loaded("mig-partitionable")
    listed = perf.plugin(cluster_gates_on.kubeconfig, ["explain", "-A", "-o", "json"], capture=True)
    assert listed.exit_code == 0, listed.stderr
    # a 429 the plugin waited out and asked again is one read (right after the CRDs are installed,
    # the API server's priority and fairness can throttle the first list of a new kind)
    gets = [c for c in listed.stats["calls"]
            if c["method"] == "GET" and "continue=" not in c["path"] and c["status"] != 429]
    assert len(gets) == len({c["path"] for c in gets}), sorted(c["path"] for c in gets)
    items = json.loads(listed.stdout)["items"]  # whichever setup the cluster holds now
    assert items and all(d["summary"]["draCharge"] for d in items)
    for d in items:
        s = d["summary"]
        assert explain_json(cluster_gates_on, f"workload/{s['name']}", "-n", s["namespace"])["draCharge"] == \
            s["draCharge"]
    first = items[0]["summary"]
    single = perf.plugin(cluster_gates_on.kubeconfig,
                         ["explain", f"workload/{first['name']}", "-n", first["namespace"], "-o", "json"])
    assert single.exit_code == 0, single.stderr
    print(f"requests: list of all workloads {listed.stats['requests']}, one workload {single.stats['requests']}")
    assert listed.stats["requests"] <= single.stats["requests"] + 10


def test_past_admission_pods_claims_events_live(cluster_gates_on, loaded):
    """An admitted Workload whose pods the scheduler cannot place, on the real API server: the pods,
    claims and events written through their status subresources as kube-scheduler, the Job
    controller and Kueue write them; the scheduler's message translated, fragmentation with the
    numbers from the slices and every allocated claim, events merged and newest last, each kind read
    once."""
    from testenv import perf

    setups.load(cluster_gates_on, "mig-partitionable")  # whatever an earlier test loaded since
    run = perf.plugin(cluster_gates_on.kubeconfig, ["explain", "job/pretrain", "-n", "ml-research", "-o", "json"],
                      capture=True)
    assert run.exit_code == 0, run.stderr
    doc = json.loads(run.stdout)
    assert [(p["name"], p["phase"], p["node"], p["scheduled"]["status"]) for p in doc["pods"]] == [
        ("pretrain-h2d6n", "Pending", None, "False"), ("pretrain-w8c3j", "Pending", None, "False")]
    assert [(a["pod"], a["allocated"], a["reserved"]) for a in doc["allocations"]] == [
        ("pretrain-h2d6n", False, False), ("pretrain-w8c3j", False, False)]
    [unscheduled] = [f for f in doc["findings"] if f["code"] == "DevicesUnavailable"]
    [verdict] = unscheduled["counters"]
    # 16 A100s, each with one 1g.5gb MIG device allocated (4 notebook-eval pods, 12 sandbox notebooks)
    assert (verdict["verdict"], verdict["perDevice"], verdict["freeInCluster"], verdict["largestFree"]) == (
        "fragmented", "40192Mi", "552Gi", "35328Mi")
    assert [(e["object"], e["reason"], e["count"]) for e in doc["events"]][-2:] == [
        ("Pod/pretrain-h2d6n", "FailedScheduling", 5), ("Pod/pretrain-w8c3j", "FailedScheduling", 5)]
    assert [e["lastSeen"] for e in doc["events"]] == sorted(e["lastSeen"] for e in doc["events"])
    gets = [c["path"] for c in run.stats["calls"] if c["method"] == "GET" and "continue=" not in c["path"]]
    print(f"explain job/pretrain: {run.stats['requests']} requests, {len(gets)} GETs")
    assert len([p for p in gets if "/events" in p]) == 1, gets  # one list of the namespace's events
    assert len(gets) == len(set(gets)), sorted(gets)

    running = explain_json(cluster_gates_on, "job/notebook-eval", "-n", "ml-research")
    assert [(a["pod"], a["device"], a["generation"], a["counters"]["memory"]) for a in running["allocations"]] == [
        (p, f"gpu.nvidia.com/a100-node-1/gpu-{i}-mig-1g5gb-19-0", "current", "4864Mi")
        for i, p in enumerate(["notebook-eval-7xk2p", "notebook-eval-b9q4w", "notebook-eval-m3t8z",
                               "notebook-eval-r5v1c"])]
    assert {p["node"] for p in running["pods"]} == {"a100-node-1"}


def test_an_allocated_device_only_an_old_slice_generation_names_live(cluster_gates_on, loaded):
    """A pool republished at a higher generation with an old slice left behind: the allocation's
    device is looked up in the current generation only, and one only the old slice has is a finding.
    (An allocation is immutable once written: the test allocates a claim that has none yet.)"""
    setups.load(cluster_gates_on, "mig-partitionable")
    stale = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "a100-node-1-left-over"},
             "spec": {"driver": "gpu.nvidia.com", "nodeName": "a100-node-1",
                      "pool": {"name": "a100-node-1", "generation": 0, "resourceSliceCount": 1},
                      "devices": [{"name": "gpu-0"}, {"name": "gpu-9-retired"}]}}
    cluster_gates_on.apply(stale)
    claim = "pretrain-h2d6n-gpu-n6d2h"
    patch = {"status": {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "a100-node-1", "device": "gpu-0"},
        {"request": "gpu", "driver": "gpu.nvidia.com", "pool": "a100-node-1", "device": "gpu-9-retired"}]}}}}
    try:
        cluster_gates_on.kubectl("patch", "resourceclaim", claim, "-n", "ml-research", "--subresource=status",
                                 "--type=merge", "-p", json.dumps(patch))
        doc = explain_json(cluster_gates_on, "job/pretrain", "-n", "ml-research")
        mine = [a for a in doc["allocations"] if a["claim"] == claim]
        assert [(a["device"].rsplit("/", 1)[1], a["generation"], a["node"]) for a in mine] == [
            ("gpu-0", "current", "a100-node-1"), ("gpu-9-retired", "stale", None)]
        # the current slice's device and its counters, not the left-over slice's device without any
        assert mine[0]["counters"]["memory"] == "40192Mi" and mine[1]["counters"] is None
        [stale_found] = [f for f in doc["findings"] if f["code"] == "AllocatedDeviceStale"]
        assert "gpu-9-retired" in stale_found["message"] and "older generation" in stale_found["message"]
    finally:
        cluster_gates_on.kubectl("delete", "resourceslice", "a100-node-1-left-over", check=False)
        cluster_gates_on.kubectl("delete", "resourceclaim", claim, "-n", "ml-research", check=False)
        setups.load(cluster_gates_on, "mig-partitionable")  # the claim as the example has it


JOB_FILE = """apiVersion: v1
kind: Namespace
metadata: {name: ml-research}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: mig-2x3g}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: mig.nvidia.com
          count: 2
          selectors:
          - cel: {expression: "device.attributes['gpu.nvidia.com'].profile == '3g.20gb'"}
---
apiVersion: batch/v1
kind: Job
metadata:
  generateName: train-
  namespace: ml-research
  labels: {kueue.x-k8s.io/queue-name: research}
spec:
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: mig, resourceClaimTemplateName: mig-2x3g}]
      containers:
      - {name: t, image: busybox, resources: {claims: [{name: mig}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: eval, namespace: ml-research, labels: {kueue.x-k8s.io/queue-name: research}}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: mig, resourceClaimTemplateName: mig-1g5gb}]
      containers:
      - {name: e, image: busybox, resources: {claims: [{name: mig}]}}
"""


def test_what_if_file_as_users_write_it(cluster_gates_on, loaded, tmp_path):
    """A job file with the Namespace, a ResourceClaimTemplate the cluster does not have, a
    generateName Job and a second Job: the API server accepts the file as it is (server-side dry
    run), explain gives one report per Job, the file's template charged, live equal to offline."""
    snap = loaded("mig-partitionable")
    f = tmp_path / "jobs.yaml"
    f.write_text(JOB_FILE)
    # the file is a real one: the API server takes every object of it (the Namespace exists already)
    objects = JOB_FILE.split("---\n", 1)[1]
    dry = cluster_gates_on.kubectl("create", "--dry-run=server", "-f", "-", "-o", "name", input=objects, check=False)
    assert dry.returncode == 0 and "job.batch/train-" in dry.stdout, dry.stderr
    assert cluster_gates_on.kubectl("get", "resourceclaimtemplate", "mig-2x3g", "-n", "ml-research",
                                    check=False).returncode != 0  # only the file has it
    live = explain_json(cluster_gates_on, "-f", str(f))
    assert live == explain_json(cluster_gates_on, "-f", str(f), "--from", str(snap))
    assert live["kind"] == "List" and len(live["items"]) == 2
    train, evaluate = live["items"]
    assert train["manifest"]["generateName"] == "train-" and train["manifest"]["name"] is None
    assert train["podSets"][0]["charge"] == {"gpu.memory": "39Gi"}  # 2 x 3g.20gb (19968Mi)
    assert evaluate["podSets"][0]["charge"] == {"gpu.memory": "9728Mi"}  # 2 pods x 1g.5gb from the cluster
    assert any(x["code"] == "FromManifest" for x in train["findings"])
    text = run_plugin(cluster_gates_on, "explain", "-f", "-", input=JOB_FILE).stdout
    assert "What-if: Job ml-research/train- (name generated, not submitted)" in text
    assert "What-if: Job ml-research/eval (not submitted)" in text and "None" not in text


def test_all_namespaces_and_the_managed_namespace_answer(cluster_gates_on, loaded):
    """-A finds a Job by name in whichever namespace; a labelled Job without a Workload (no Kueue
    controller runs here) is not suspected of an unmanaged namespace when its namespace carries the
    OpenShift label, and is told the label command (oc: the setup is OpenShift) when it does not."""
    loaded("mig-partitionable")
    by_a = explain_json(cluster_gates_on, "job/notebook-eval", "-A")
    assert by_a == explain_json(cluster_gates_on, "job/notebook-eval", "-n", "ml-research")
    missing = run_plugin(cluster_gates_on, "explain", "job/nope", "-A")
    assert missing.returncode == 1 and missing.stderr.strip() == 'error: job "nope" not found in any namespace'
    c = cluster_gates_on
    for managed in (True, False):
        ns = c.create_namespace("managed" if managed else "plain")
        if managed:
            c.kubectl("label", "namespace", ns, "kueue.openshift.io/managed=true")
        c.kubectl("create", "job", "labelled", "--image=busybox", "-n", ns)
        c.kubectl("label", "-n", ns, "job/labelled", "kueue.x-k8s.io/queue-name=research")
        proc = run_plugin(c, "explain", "job/labelled", "-n", ns)
        assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
        if managed:
            assert "is the namespace managed" not in proc.stderr
            assert f"namespace {ns} is managed (label kueue.openshift.io/managed=true)" in proc.stderr
        else:
            assert f"namespace {ns} is not managed by Kueue" in proc.stderr
            assert f"(oc label namespace {ns} kueue.openshift.io/managed=true)" in proc.stderr


def test_units_and_oc_on_the_real_api_server(cluster_gates_on, loaded):
    """The API server keeps a counter charge written as bare bytes (as a Kueue that renders it
    DecimalSI writes it): RECORDED shows it in the charge's form; verify prints a quota that is no
    whole number of k with the nearest amount beside it; the OpenShift setup's answers tell oc
    commands only, the upstream one's kubectl."""
    import yaml

    c = cluster_gates_on
    loaded("mig-partitionable")
    wl = json.loads(c.kubectl("get", "workloads", "-n", "ml-research", "-o", "json").stdout)["items"]
    wl = next(w for w in wl if w["metadata"]["name"].startswith("job-notebook-eval"))
    usage = wl["status"]["admission"]["podSetAssignments"][0]["resourceUsage"]
    cq = json.loads(c.kubectl("get", "clusterqueue", "research-cq", "-o", "json").stdout)
    quota = next(r for r in cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"] if r["name"] == "gpu.memory")
    index = cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"].index(quota)
    path = f"/spec/resourceGroups/0/flavors/0/resources/{index}/nominalQuota"

    def set_usage(value):
        patch = [{"op": "replace", "path": "/status/admission/podSetAssignments/0/resourceUsage/gpu.memory",
                  "value": value}]
        c.kubectl("patch", "workload", wl["metadata"]["name"], "-n", "ml-research", "--subresource=status",
                  "--type=json", "-p", json.dumps(patch))

    try:
        set_usage(str(19 * 2**30))
        c.kubectl("patch", "clusterqueue", "research-cq", "--type=json", "-p",
                  json.dumps([{"op": "replace", "path": path, "value": "171798691841"}]))
        stored = json.loads(c.kubectl("get", "workload", wl["metadata"]["name"], "-n", "ml-research",
                                      "-o", "json").stdout)
        assert stored["status"]["admission"]["podSetAssignments"][0]["resourceUsage"]["gpu.memory"] == "20401094656"
        doc = explain_json(c, "job/notebook-eval", "-n", "ml-research")
        assert doc["recorded"]["gpu.memory"] == doc["podSets"][0]["charge"]["gpu.memory"] == "19Gi"
        assert "ChargeMismatch" not in {f["code"] for f in doc["findings"]}
        proc = run_plugin(c, "verify", "-o", "json")
        checks = {k["id"]: k for k in json.loads(proc.stdout)["checks"]}
        assert "give 171798691841 (≈172G) of the" in checks["quota-vs-capacity"]["message"]
        fixes = [k["fix"] for k in checks.values() if k.get("fix")] + \
            [f["fix"] for f in doc["findings"] if f.get("fix")]
        assert fixes and not [x for x in fixes if "kubectl " in x], fixes
        c.kubectl("create", "job", "unlabelled", "--image=busybox", "-n", "ml-research")
        proc = run_plugin(c, "explain", "job/unlabelled", "-n", "ml-research")
        assert proc.returncode == 1 and \
            ("(oc label -n ml-research job/unlabelled kueue.x-k8s.io/queue-name=research (the one LocalQueue in "
             "namespace ml-research))") in proc.stderr
    finally:
        c.kubectl("delete", "job", "unlabelled", "-n", "ml-research", "--ignore-not-found")
        set_usage(usage["gpu.memory"])
        c.kubectl("patch", "clusterqueue", "research-cq", "--type=json", "-p",
                  json.dumps([{"op": "replace", "path": path, "value": quota["nominalQuota"]}]))
    loaded("resourceclaimtemplate")
    ns = c.create_namespace("no-queue")
    c.apply(yaml.safe_load(JOB_FILE.split("---\n")[3].replace("ml-research", ns)))  # the eval Job, no Workload
    c.kubectl("label", "-n", ns, "job/eval", "kueue.x-k8s.io/queue-name-")
    proc = run_plugin(c, "explain", "job/eval", "-n", ns)
    assert proc.returncode == 1 and (f"(kubectl label -n {ns} job/eval kueue.x-k8s.io/queue-name=<local-queue> "
                                     f"(<local-queue>: namespace {ns} has no LocalQueue; create one first))") \
        in proc.stderr


def test_the_queue_lists_serve_the_narrower_reads(cluster_gates_on, loaded, tmp_path):
    """The queue model lists Workloads, LocalQueues and ClusterQueues cluster-wide for every
    explained workload; the workload's namespace, LocalQueue and ClusterQueue are then answered from
    those lists, not asked for again. A user who may read one namespace only is refused each
    cluster-wide list once and gets the narrower reads: the charge it can know (not the GPUs: the
    DeviceClasses and slices are cluster-wide), the rest unknown."""
    loaded("mig-partitionable")
    c = cluster_gates_on

    def stats_run(*args, as_user=None):
        stats = tmp_path / f"{len(list(tmp_path.iterdir()))}.json"
        proc = run_plugin(c, "explain", "job/pretrain", "-n", "ml-research", "-o", "json", *args,
                          *(["--as", as_user] if as_user else []), env={"KUEUE_DRA_STATS": str(stats)})
        assert proc.returncode == 0, proc.stderr
        calls = [(x["path"].split("?")[0], x["status"]) for x in json.loads(stats.read_text())["calls"]]
        assert len(calls) == len(set(calls)), sorted(calls)  # nothing asked twice, refusals included
        return json.loads(proc.stdout), calls

    doc, calls = stats_run()
    paths = {p for p, _ in calls}
    assert {"/apis/kueue.x-k8s.io/v1beta2/workloads", "/apis/kueue.x-k8s.io/v1beta2/localqueues",
            "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"} <= paths
    assert not [p for p in paths if ("/workloads" in p and "/namespaces/" in p) or "/localqueues/" in p
                or "/clusterqueues/" in p], sorted(paths)

    c.apply([{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": "one-namespace", "namespace": "ml-research"},
              "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["get", "list"]}]},
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": "one-namespace", "namespace": "ml-research"},
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "one-namespace"},
              "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "ns-only"}]}])
    narrow, calls = stats_run(as_user="ns-only")
    status = dict(calls)
    assert status["/apis/kueue.x-k8s.io/v1beta2/workloads"] == 403
    assert status["/apis/kueue.x-k8s.io/v1beta2/namespaces/ml-research/workloads"] == 200
    assert status["/apis/kueue.x-k8s.io/v1beta2/namespaces/ml-research/localqueues/research"] == 200
    known, charged = narrow["podSets"][0]["charge"], doc["podSets"][0]["charge"]
    assert narrow["partial"] is True and known == {k: v for k, v in charged.items() if k != "gpu.memory"}
    assert list(narrow["podSets"][0]["unknown"]) == ["DRA devices"]  # which resource is unknown too
