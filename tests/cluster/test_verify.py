"""`verify` against the real API server.

Feature gates are learned the way the plugin would on a real cluster: /metrics (admin, reader),
the server-side dry-run probe (a user who may create DRA objects but not read /metrics, by
impersonation), and the OpenShift FeatureGate (CRDs installed, status written as the platform
would). The example setups are loaded into clusters of their own, so what verify sees is exactly
the example, and the checklist is compared with the offline answer for the same objects.
"""

from __future__ import annotations

import json
import re

import pytest

from testenv import kube_versions, setups
from testenv.harness import GATES_OFF, GATES_ON, Cluster, run_plugin

# every version: KUEUE_DRA_KUBE_VERSION selects the kube-apiserver (scripts/test runs them all)
pytestmark = pytest.mark.versions

RBAC = "rbac.authorization.k8s.io/v1"
# Read access to what verify reads, without /metrics (the reader ClusterRole has it).
READ_RULES = [
    {"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses", "resourceslices"], "verbs": ["get", "list"]},
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["clusterqueues", "localqueues"], "verbs": ["get", "list"]},
    {"apiGroups": ["kueue.openshift.io"], "resources": ["kueues"], "verbs": ["get", "list"]},
    {"apiGroups": ["config.openshift.io"], "resources": ["featuregates", "clusterversions"], "verbs": ["get", "list"]},
    {"apiGroups": [""], "resources": ["namespaces", "configmaps", "pods"], "verbs": ["get", "list"]},
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list"]},
]
PROBE_RULES = [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses", "resourceslices"],
                "verbs": ["create"]}]
# What verify could create or change, listed before and after a run.
WATCHED = ("deviceclasses,resourceslices,clusterqueues,resourceflavors,localqueues,namespaces,configmaps,"
           "deployments,kueues.kueue.openshift.io,featuregates.config.openshift.io,"
           "clusterversions.config.openshift.io")


def grant(cluster: Cluster, user: str, rules: list[dict]) -> None:
    cluster.apply([
        {"apiVersion": RBAC, "kind": "ClusterRole", "metadata": {"name": f"verify-{user}"}, "rules": rules},
        {"apiVersion": RBAC, "kind": "ClusterRoleBinding", "metadata": {"name": f"verify-{user}"},
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"verify-{user}"},
         "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]},
    ])


def verify(cluster: Cluster, *args, context: str = "admin", expect: int | None = None):
    proc = run_plugin(cluster, "verify", "-o", "json", *args, context=context)
    assert "Traceback" not in proc.stderr, proc.stderr
    if expect is not None:
        assert proc.returncode == expect, (proc.returncode, proc.stdout[-3000:], proc.stderr)
    doc = json.loads(proc.stdout)
    return doc, {c["id"]: c for c in doc["checks"]}


def gate(doc: dict, name: str) -> dict:
    return next(g for g in doc["kubernetesGates"] if g["name"] == name)


def server_gates(cluster: Cluster) -> dict[str, tuple[str, bool]]:
    """The DRA gates as this kube-apiserver's /metrics says them, read by the test itself:
    name → (stage, enabled)."""
    text = cluster.kubectl("get", "--raw", "/metrics").stdout
    found = re.findall(r'^kubernetes_feature_enabled\{name="(DRA\w*|DynamicResourceAllocation)",stage="(\w*)"\} (\d)$',
                       text, re.M)
    assert found, "the server's /metrics has no DRA gate"
    return {name: (stage, value == "1") for name, stage, value in found}


def minor(cluster: Cluster) -> int:
    return kube_versions.minor(cluster.kube_version)


def not_openshift(cluster: Cluster) -> None:
    """No OpenShift singletons on the shared cluster: an example another module loaded leaves its
    FeatureGate and Kueue CR (setups.load clears them before it loads the next one)."""
    cluster.kubectl("delete", "featuregates.config.openshift.io,clusterversions.config.openshift.io,"
                    "kueues.kueue.openshift.io", "--all", "--ignore-not-found")


def inventory(cluster: Cluster) -> set[tuple]:
    items = cluster.get_json(WATCHED, "-A")["items"]
    # kube-system holds objects the API server itself rewrites; nothing of verify's is there.
    return {(i["kind"], i["metadata"].get("namespace"), i["metadata"]["name"], i["metadata"]["resourceVersion"])
            for i in items if i["metadata"].get("namespace") != "kube-system"}


@pytest.fixture(scope="module")
def fresh(request, controlplane_bin):
    """fresh(setup, gates): a cluster of its own with one example loaded (started once per module)."""
    started: dict[tuple, Cluster] = {}

    def get(setup: str, gates: dict) -> Cluster:
        key = (setup, tuple(sorted(gates.items())))
        if key not in started:
            c = Cluster.start(f"verify-{setup}", controlplane_bin, gates)
            request.addfinalizer(c.stop)
            setups.load(c, setup)
            started[key] = c
        return started[key]
    return get


# ---- gates: /metrics -------------------------------------------------------------------------
@pytest.mark.parametrize("which,expected", [("on", "on"), ("off", "off")])
def test_metrics_say_on_and_off(request, which, expected):
    cluster = request.getfixturevalue(f"cluster_gates_{which}")
    doc, checks = verify(cluster, "--path", "extended", "--path", "partitionable")
    for name in ("DRAExtendedResource", "DRAPartitionableDevices"):
        g = gate(doc, name)
        assert (g["state"], g["learnedFrom"]) == (expected, "metrics"), g
        assert f'kubernetes_feature_enabled{{name="{name}"}} {1 if expected == "on" else 0}' in g["detail"]
    assert gate(doc, "DynamicResourceAllocation")["learnedFrom"] == "discovery"
    # not set by the cluster: its default (beta and on in 1.36, alpha and off in 1.34 and 1.35)
    consumable = kube_versions.default_on(cluster.kube_version, "DRAConsumableCapacity")
    assert gate(doc, "DRAConsumableCapacity")["state"] == ("on" if consumable else "off")
    assert server_gates(cluster)["DRAConsumableCapacity"][1] is consumable
    assert doc["probes"] == []  # /metrics answered, nothing was probed
    assert checks["gate-DRAExtendedResource"]["status"] == ("pass" if expected == "on" else "fail")
    if expected == "off":
        # upstream: the component flag; with a FeatureGate cluster object (other tests): the oc patch
        assert "DRAExtendedResource" in checks["gate-DRAExtendedResource"]["fix"]


# ---- gates: the dry-run probe ----------------------------------------------------------------
@pytest.mark.parametrize("which,expected", [("on", "on"), ("off", "off")])
def test_probe_says_on_and_off_and_persists_nothing(request, which, expected):
    cluster = request.getfixturevalue(f"cluster_gates_{which}")
    grant(cluster, "prober", READ_RULES + PROBE_RULES)
    before = inventory(cluster)
    doc, _checks = verify(cluster, "--as", "prober", "--path", "extended", "--path", "partitionable")
    assert sorted(doc["probes"]) == ["DRAConsumableCapacity", "DRAExtendedResource", "DRAPartitionableDevices"]
    for name in ("DRAExtendedResource", "DRAPartitionableDevices"):
        g = gate(doc, name)
        assert (g["state"], g["learnedFrom"]) == (expected, "probe"), g
        assert "nothing was persisted" in g["detail"]
        metrics = next(e for e in g["evidence"] if e["method"] == "metrics")
        assert metrics["enabled"] is None and "forbidden" in metrics["detail"]
    assert gate(doc, "DRAConsumableCapacity")["learnedFrom"] == "probe"
    assert inventory(cluster) == before
    assert not [i for i in cluster.get_json("deviceclasses,resourceslices")["items"]
                if i["metadata"]["name"].startswith("kueue-dra-probe-")]


def test_no_probe_and_no_metrics_falls_back_to_the_default(cluster_gates_off):
    grant(cluster_gates_off, "prober", READ_RULES + PROBE_RULES)
    not_openshift(cluster_gates_off)
    doc, checks = verify(cluster_gates_off, "--as", "prober", "--no-probe", "--path", "extended")
    g = gate(doc, "DRAExtendedResource")
    assert doc["probes"] == []
    default = kube_versions.default_on(cluster_gates_off.kube_version, "DRAExtendedResource")
    if g["learnedFrom"] == "objects":
        # A DeviceClass another test wrote with extendedResourceName, which this server dropped: the
        # gate was off then (the one thing besides the default that tells it here).
        assert g["state"] == "off" and "which the API server dropped" in g["detail"], g
        assert checks["gate-DRAExtendedResource"]["status"] == "fail"
        return
    # Nothing else could tell: the upstream default of the server's minor (on in 1.36, which this
    # server overrides; off in 1.34 and 1.35, which it keeps), said as a default, never as a fact.
    assert (g["state"], g["learnedFrom"]) == ("on" if default else "off", "default")
    assert f"by default in Kubernetes 1.{minor(cluster_gates_off)} (server {cluster_gates_off.kube_version})" \
        in g["detail"]
    check = checks["gate-DRAExtendedResource"]
    assert check["status"] == ("pass" if default else "warn")
    if not default:
        assert check["message"].startswith("DRAExtendedResource is probably off (upstream default: alpha, off")


def test_probe_forbidden_is_unknown_not_a_failure(cluster_gates_on):
    not_openshift(cluster_gates_on)
    grant(cluster_gates_on, "no-create", READ_RULES)
    doc, checks = verify(cluster_gates_on, "--as", "no-create", "--path", "partitionable")
    probe = next(e for e in gate(doc, "DRAPartitionableDevices")["evidence"] if e["method"] == "probe")
    assert probe["enabled"] is None and "no permission to dry-run create resourceslices" in probe["detail"]
    # Then weaker evidence: slices other tests left with counters, else the server minor's default.
    learned = gate(doc, "DRAPartitionableDevices")["learnedFrom"]
    assert learned in ("objects", "default")
    default = kube_versions.default_on(cluster_gates_on.kube_version, "DRAPartitionableDevices")
    # a default that says off is "probably off", a warning: this server has the gate on
    assert checks["gate-DRAPartitionableDevices"]["status"] == ("pass" if learned == "objects" or default else "warn")


# ---- users -----------------------------------------------------------------------------------
def test_reader_gets_an_answer(cluster_gates_on):
    doc, checks = verify(cluster_gates_on, "--path", "extended", context="reader")
    assert gate(doc, "DRAExtendedResource")["learnedFrom"] == "metrics"
    assert checks["dra-api"]["status"] == "pass"
    assert not [c for c in checks.values() if "forbidden" in c["message"]]


def test_nobody_gets_a_clear_message(cluster_gates_on):
    proc = run_plugin(cluster_gates_on, "verify", context="nobody")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: cannot list deviceclasses.resource.k8s.io at cluster scope: forbidden (as nobody)")
    assert "deploy/rbac/reader-clusterrole.yaml" in lines[0]
    # the answer still comes, unknown, and says what could not be checked
    assert proc.stdout.startswith("GPU quota: UNKNOWN (cannot list deviceclasses.resource.k8s.io")
    assert " passed, " in proc.stdout and " skipped (" in proc.stdout


def test_partial_access_gives_skips_not_failures(fresh):
    cluster = fresh("resourceclaimtemplate", GATES_ON)
    dra_only = [r for r in READ_RULES if r["apiGroups"] != ["kueue.x-k8s.io"] and r["apiGroups"] != [""]]
    grant(cluster, "dra-only", dra_only + [{"nonResourceURLs": ["/metrics"], "verbs": ["get"]}])
    _doc, checks = verify(cluster, "--as", "dra-only", "--path", "claims", expect=0)
    for cid in ("quota-coverage", "local-queues", "managed-namespaces", "quota-vs-capacity"):
        assert checks[cid]["status"] == "skip", checks[cid]
        assert "forbidden (as dra-only)" in checks[cid]["message"]
    assert checks["kueue-config"]["status"] == "skip"
    assert checks["resourceslices"]["status"] == "pass"
    assert not [c for c in checks.values() if c["status"] == "fail"]


# ---- the example setups ----------------------------------------------------------------------
EXPECTED_FAILS = {
    "resourceclaimtemplate": set(),
    "extended-resource": {"mapped-device-classes", "quota-coverage"},
    "mig-partitionable": set(),
}


@pytest.mark.parametrize("setup", setups.SETUPS)
def test_examples_verify_as_expected(fresh, setup, tmp_path):
    cluster = fresh(setup, GATES_ON)
    before = inventory(cluster)
    doc, checks = verify(cluster, expect=1 if EXPECTED_FAILS[setup] else 0)
    assert {c for c, v in checks.items() if v["status"] == "fail"} == EXPECTED_FAILS[setup]
    assert inventory(cluster) == before  # verify changes nothing
    assert checks["dra-api"]["status"] == "pass"
    assert checks["resourceslices"]["status"] == "pass" and checks["pools"]["status"] == "pass"
    if setup == "mig-partitionable":
        assert gate(doc, "DRAPartitionableDevices")["learnedFrom"] == "metrics"
        assert checks["counters-published"]["status"] == "pass"
        assert "628Gi" in checks["quota-vs-capacity"]["message"]
        assert checks["managed-namespaces"]["status"] == "pass"
    if setup == "extended-resource":
        assert checks["gate-DRAExtendedResource"]["status"] == "pass"
        assert checks["extended-resource-classes"]["status"] == "warn"
    # The same objects offline give the same verdicts, except what only a live server can tell.
    snap = setups.snapshot(cluster, setups.objects(setup), tmp_path / "snapshot.yaml")
    _, offline = verify(cluster, "--from", str(snap))
    # platform-version: /version and ClusterVersion are read live only; gate-others: the gates a
    # snapshot cannot tell, which /metrics answers one by one
    live_only = {"kueue-installed", "kueue-version", "gate-DRAExtendedResource", "gate-DRAPartitionableDevices",
                 "platform-version", "gate-others"}
    assert {k: v["status"] for k, v in offline.items() if k not in live_only} == \
           {k: v["status"] for k, v in checks.items() if k not in live_only and k in offline}


def test_mig_on_a_gates_off_cluster_fails(fresh):
    """The same example on a server with DRAPartitionableDevices off: the server dropped the counters
    when the slices were written, /metrics says off, and verify says what breaks."""
    cluster = fresh("mig-partitionable", GATES_OFF)
    doc, checks = verify(cluster, expect=1)
    assert gate(doc, "DRAPartitionableDevices")["state"] == "off"
    assert gate(doc, "DRAPartitionableDevices")["learnedFrom"] == "metrics"
    assert checks["gate-DRAPartitionableDevices"]["status"] == "fail"
    assert checks["gate-DRAPartitionableDevices"]["fix"].startswith("oc patch featuregate cluster")
    assert checks["counters-published"]["status"] == "fail"
    counters = checks["counters-published"]
    assert "no device of gpu.nvidia.com consumes any counter" in counters["message"]
    # the fix says why first: the server drops the counters while the gate is off, as /metrics says
    assert counters["fix"].startswith("the API server drops consumesCounters and sharedCounters from ResourceSlices "
                                      "while DRAPartitionableDevices is off (it is off: kube-apiserver /metrics")
    assert "oc patch featuregate cluster" in counters["fix"] and "dynamic MIG" in counters["fix"]


def test_cluster_queue_without_namespace_selector_fails(fresh):
    """The API server accepts a ClusterQueue without namespaceSelector; Kueue reads it as selecting
    no namespace (the oracle proves the Pending verdict on the real Kueue): verify FAILs there."""
    cluster = fresh("resourceclaimtemplate", GATES_ON)
    assert verify(cluster)[1]["queue-namespaces"]["status"] == "pass"
    cluster.kubectl("patch", "clusterqueue", "gpu-cq", "--type=json",
                    "-p", '[{"op":"remove","path":"/spec/namespaceSelector"}]')
    try:
        _doc, checks = verify(cluster, expect=1)
        check = checks["queue-namespaces"]
        assert check["status"] == "fail" and "gpu-cq (no namespaceSelector" in check["message"], check
        assert "does not select team-a" in check["message"]
    finally:
        cluster.kubectl("patch", "clusterqueue", "gpu-cq", "--type=merge", "-p", '{"spec":{"namespaceSelector":{}}}')
    assert verify(cluster)[1]["queue-namespaces"]["status"] == "pass"


# ---- OpenShift: the FeatureGate path and the operator's detection gap -------------------------
def openshift_state(cluster: Cluster, feature_set: str, enabled=(), disabled=(), custom=None,
                    version: str = "4.22.3") -> None:
    cluster.kubectl("delete", "featuregates.config.openshift.io", "cluster", "--ignore-not-found")
    spec: dict = {"featureSet": feature_set}
    if custom is not None:
        spec["customNoUpgrade"] = {"enabled": list(custom)}
    fg = {"apiVersion": "config.openshift.io/v1", "kind": "FeatureGate", "metadata": {"name": "cluster"},
          "spec": spec}
    cv = {"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion", "metadata": {"name": "version"},
          "spec": {"clusterID": "00000000-0000-0000-0000-000000000000"}}
    cluster.apply([fg, cv])
    fg["status"] = {"featureGates": [{"version": version, "enabled": [{"name": n} for n in enabled],
                                      "disabled": [{"name": n} for n in disabled]}]}
    cv["status"] = {"desired": {"version": version, "image": "quay.io/openshift-release-dev/ocp-release"},
                    "availableUpdates": None, "observedGeneration": 1, "versionHash": "x"}
    for obj in (fg, cv):
        cluster.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=kueue-dra-tests",
                        "--subresource=status", "-f", "-", input=json.dumps(obj))


def restore_featuregate(cluster: Cluster) -> None:
    """Back to the example's FeatureGate (spec only) and no ClusterVersion."""
    cluster.kubectl("delete", "featuregates.config.openshift.io,clusterversions.config.openshift.io", "--all")
    cluster.apply([d for d in setups.objects("mig-partitionable") if d["kind"] == "FeatureGate"])


def test_featuregate_status_and_techpreview_detection_gap(fresh):
    cluster = fresh("mig-partitionable", GATES_ON)
    openshift_state(cluster, "TechPreviewNoUpgrade", enabled=["DRAPartitionableDevices"],
                    disabled=["DRAExtendedResource"])
    try:
        doc, checks = verify(cluster, "--path", "partitionable", "--path", "extended")
        pd, er = gate(doc, "DRAPartitionableDevices"), gate(doc, "DRAExtendedResource")
        assert (pd["state"], pd["learnedFrom"]) == ("on", "featuregate-status") and "4.22.3" in pd["detail"]
        assert (er["state"], er["learnedFrom"]) == ("off", "featuregate-status")
        assert "metrics says on" in er["conflict"]  # this server runs with it on
        gap = checks["openshift-operator-gates"]
        assert gap["status"] == "warn" and gap["gaps"] == ["DRAPartitionableDevices"]
        assert "featureSet TechPreviewNoUpgrade" in gap["message"]
        assert "spec.customNoUpgrade.enabled" in gap["message"]
        assert "cannot be changed" in gap["fix"]
        assert checks["gate-DRAPartitionableDevices"]["status"] == "pass"
        # which FeatureSet turns each path gate on in this release (4.22): TechPreviewNoUpgrade does
        # DRAPartitionableDevices, only CustomNoUpgrade DRAExtendedResource
        assert checks["gate-DRAPartitionableDevices"]["message"].endswith(
            "; in OpenShift 4.22 featureSet TechPreviewNoUpgrade or featureSet DevPreviewNoUpgrade, or featureSet "
            "CustomNoUpgrade with DRAPartitionableDevices in spec.customNoUpgrade.enabled turns it on")
        assert checks["gate-DRAExtendedResource"]["featureSets"] == (
            "in OpenShift 4.22 only featureSet CustomNoUpgrade with DRAExtendedResource in "
            "spec.customNoUpgrade.enabled turns it on")
    finally:
        restore_featuregate(cluster)


def test_featuregate_customnoupgrade_has_no_gap(fresh):
    cluster = fresh("mig-partitionable", GATES_ON)
    openshift_state(cluster, "CustomNoUpgrade", enabled=["DRAPartitionableDevices", "DRAExtendedResource"],
                    custom=["DRAPartitionableDevices", "DRAExtendedResource"], version="4.22.1")
    try:
        doc, checks = verify(cluster, expect=0)
        assert gate(doc, "DRAPartitionableDevices")["learnedFrom"] == "featuregate-status"
        assert checks["openshift-operator-gates"]["status"] == "pass"
        assert doc["kueue"]["settingsFrom"] == "operator"
    finally:
        restore_featuregate(cluster)


# ---- the platform version, every DRA gate's state ---------------------------------------------
def test_openshift_release_against_each_path(fresh):
    """ClusterVersion as the platform writes it: 4.21 carries DRA quota, counters need 4.22."""
    cluster = fresh("mig-partitionable", GATES_ON)
    openshift_state(cluster, "CustomNoUpgrade", enabled=["DRAPartitionableDevices"],
                    custom=["DRAPartitionableDevices", "DRAExtendedResource"], version="4.21.9")
    try:
        doc, checks = verify(cluster, expect=1)
        platform = checks["platform-version"]
        assert platform["status"] == "fail" and platform["fix"] == "upgrade OpenShift to 4.22 or later"
        assert platform["message"] == ("OpenShift 4.21.9 is too old: claims needs 4.21 or later; "
                                       "partitionable needs 4.22 or later")
        assert [n["code"] for n in doc["notes"]] == ["TechnologyPreview"]
        _, claims = verify(cluster, "--path", "claims")
        assert claims["platform-version"]["status"] == "pass"
        # A gate of a path not checked: its state as info, from the FeatureGate status.
        line = claims["gate-DRAPartitionableDevices"]
        assert (line["status"], line["state"], line["learnedFrom"]) == ("info", "on", "featuregate-status")
        assert "; in OpenShift 4.21 only featureSet CustomNoUpgrade with DRAPartitionableDevices in " \
               "spec.customNoUpgrade.enabled turns it on" in line["message"]
        text = run_plugin(cluster, "verify")
        assert text.stdout.count("Technology Preview") == 1
        assert text.stdout.rstrip().splitlines()[-1].startswith("info: Kueue's DRA quota management is a Technology")
        version = run_plugin(cluster, "version")
        assert "OpenShift Version: 4.21.9" in version.stdout.splitlines(), version.stdout
        # A user who may not read ClusterVersion: unknown with the reason, never a pass.
        grant(cluster, "no-cv", [r for r in READ_RULES if r["apiGroups"] != ["config.openshift.io"]]
              + [{"apiGroups": ["config.openshift.io"], "resources": ["featuregates"], "verbs": ["get", "list"]}])
        _, denied = verify(cluster, "--as", "no-cv")
        assert denied["platform-version"]["status"] == "warn"
        assert denied["platform-version"]["message"].startswith("OpenShift version unknown (cannot get "
                                                                 "clusterversions.config.openshift.io")
        version = run_plugin(cluster, "--as", "no-cv", "version")
        assert "OpenShift Version: unknown (cannot get clusterversions.config.openshift.io" in version.stdout
    finally:
        restore_featuregate(cluster)


def test_kubernetes_version_and_every_gate_from_metrics(cluster_gates_on):
    not_openshift(cluster_gates_on)
    doc, checks = verify(cluster_gates_on, "--path", "claims")
    platform = checks["platform-version"]
    assert platform["status"] == "pass"
    server = cluster_gates_on.kube_version
    assert platform["message"].startswith(f"Kubernetes 1.{minor(cluster_gates_on)} (server {server}): "
                                          "claims needs 1.34 or later")
    assert doc["notes"] == []  # not OpenShift (its CRDs are installed, but there is no ClusterVersion)
    # /metrics names every DRA gate of this kube-apiserver: each one is an info line with the state
    # the server says, learned from /metrics (1.34 and 1.35 have fewer DRA gates than 1.36)
    lines = {c["gate"]: c for c in checks.values() if c["status"] == "info" and c.get("gate")}
    said = server_gates(cluster_gates_on)
    assert {"DRAAdminAccess", "DRAPrioritizedList", "DRADeviceTaints"} <= set(said)
    for name, (_, enabled) in said.items():
        if name == "DynamicResourceAllocation":
            continue  # dra-api says it
        assert (lines[name]["learnedFrom"], lines[name]["state"]) == ("metrics", "on" if enabled else "off"), name
    assert ("DRAListTypeAttributes" in said) is (minor(cluster_gates_on) >= 36)
    assert lines["DRAPartitionableDevices"]["message"].endswith("the partitionable path needs it and is not checked here")
    assert "gate-others" not in checks
    assert "dra-api" in checks and "gate-DynamicResourceAllocation" not in checks  # dra-api says it
    kueue_lines = [c for c in checks.values() if c["status"] == "info" and c["category"] == "kueue"]
    assert kueue_lines or doc["kueue"]["version"] is None


def test_gate_off_for_a_path_not_in_use_is_info_not_a_failure(cluster_gates_off):
    _doc, checks = verify(cluster_gates_off, "--path", "claims")
    line = checks["gate-DRAPartitionableDevices"]
    assert (line["status"], line["state"], line["learnedFrom"]) == ("info", "off", "metrics")
    assert "platform-version" in checks and checks["platform-version"]["status"] == "pass"
