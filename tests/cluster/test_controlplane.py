"""Smoke tests for the test control plane itself.

They pin down the server behaviour the plugin relies on, in particular that an
API server with a DRA feature gate off silently drops the gated fields (which
is what `verify` detects).
"""

from __future__ import annotations

import json
import secrets

import pytest

from testenv.binaries import controlplane
from testenv import kube_versions
from testenv.builders import cluster_queue, device, device_class, resource_slice
from testenv.harness import DRA_GATES, dra_gate_stage, run_plugin

DRIVER = "gpu.example.com"
# every version: KUEUE_DRA_KUBE_VERSION selects the kube-apiserver (scripts/test runs them all)
pytestmark = pytest.mark.versions


def _unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(3)}"


@pytest.fixture
def create(request):
    """create(cluster, objs, check=True): server-side apply, deleted again after the test.

    The clusters are shared by the whole session; leave nothing behind.
    """
    def _create(c, objs, check=True):
        objs = objs if isinstance(objs, list) else [objs]
        request.addfinalizer(lambda: c.delete(objs, check=False))
        return c.apply(objs, check=check)

    return _create


# --------------------------------------------------------------------- basics
def test_version_is_stamped(cluster):
    out = cluster.kubectl("get", "--raw", "/version").stdout
    info = json.loads(out)
    want = controlplane.kube_version()  # KUEUE_DRA_KUBE_VERSION, else the default version
    assert info["gitVersion"] == want == cluster.kube_version
    assert (info["major"], info["minor"]) == tuple(want[1:].split(".")[:2])
    client = json.loads(cluster.kubectl("version", "-o", "json").stdout)
    # kubectl is always the default version's (an extra version builds kube-apiserver alone)
    assert client["clientVersion"]["gitVersion"] == controlplane.k8s_version()
    assert client["serverVersion"]["gitVersion"] == want


def test_kubeconfig_contexts(cluster):
    import yaml

    cfg = yaml.safe_load(cluster.kubeconfig.read_text())
    assert cfg["current-context"] == "admin"
    assert {c["name"] for c in cfg["contexts"]} == {"admin", "reader", "nobody"}
    assert all(c["context"]["namespace"] == "default" for c in cfg["contexts"])
    assert cluster.server.startswith("https://127.0.0.1:")
    assert cluster.kubectl("config", "current-context").stdout.strip() == "admin"


def test_resource_v1_served(cluster):
    groups = json.loads(cluster.kubectl("get", "--raw", "/apis/resource.k8s.io").stdout)
    versions = [v["groupVersion"] for v in groups["versions"]]
    assert "resource.k8s.io/v1" in versions
    assert groups["preferredVersion"]["groupVersion"] == "resource.k8s.io/v1"
    res = json.loads(cluster.kubectl("get", "--raw", "/apis/resource.k8s.io/v1").stdout)
    names = {r["name"] for r in res["resources"]}
    assert {"deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"} <= names


def test_crds_established(cluster):
    for name in cluster.crd_names:
        crd = cluster.get_json("customresourcedefinition", name)
        conds = {c["type"]: c["status"] for c in crd["status"]["conditions"]}
        assert conds.get("Established") == "True", name
        assert "conversion" not in crd["spec"] or crd["spec"]["conversion"]["strategy"] == "None", name
    expected = {
        "clusterqueues.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io", "resourceflavors.kueue.x-k8s.io",
        "workloads.kueue.x-k8s.io", "cohorts.kueue.x-k8s.io", "admissionchecks.kueue.x-k8s.io",
        "topologies.kueue.x-k8s.io", "featuregates.config.openshift.io", "clusterversions.config.openshift.io",
        "kueues.kueue.openshift.io",
    }
    assert expected <= set(cluster.crd_names)
    # v1beta2 is served for the Kueue API, and objects round-trip through it.
    listed = cluster.get_json("clusterqueues.v1beta2.kueue.x-k8s.io")
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List")  # kubectl wraps the items
    cq = json.loads(cluster.kubectl("get", "--raw", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues").stdout)
    assert cq["kind"] == "ClusterQueueList" and cq["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    for res in ("featuregates.config.openshift.io", "clusterversions.config.openshift.io",
                "kueues.kueue.openshift.io"):
        assert cluster.get_json(res)["kind"].endswith("List")


def test_kueue_objects_roundtrip_between_versions(cluster, create):
    name = _unique("cq")
    create(cluster, cluster_queue(name, {"example.com/gpu": "4"}, flavor="default"))
    got = cluster.get_json(f"clusterqueues.v1beta2.kueue.x-k8s.io/{name}")
    assert got["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] == "4"
    # Without a conversion webhook the older served version still reads (apiVersion rewrite only).
    old = cluster.get_json(f"clusterqueues.v1beta1.kueue.x-k8s.io/{name}")
    assert old["apiVersion"] == "kueue.x-k8s.io/v1beta1"


def test_openshift_featuregate_and_kueue_cr(cluster, create):
    # The singletons are shared by the session: start from none, whatever an earlier test left.
    cluster.kubectl("delete", "featuregates.config.openshift.io/cluster", "kueues.kueue.openshift.io/cluster",
                    "--ignore-not-found")
    create(cluster, {
        "apiVersion": "config.openshift.io/v1",
        "kind": "FeatureGate",
        "metadata": {"name": "cluster"},
        "spec": {"featureSet": "CustomNoUpgrade", "customNoUpgrade": {"enabled": ["DRAExtendedResource"]}},
    })
    fg = cluster.get_json("featuregates.config.openshift.io/cluster")
    assert fg["spec"]["customNoUpgrade"]["enabled"] == ["DRAExtendedResource"]
    create(cluster, {
        "apiVersion": "kueue.openshift.io/v1",
        "kind": "Kueue",
        "metadata": {"name": "cluster"},
        "spec": {"config": {"integrations": {"frameworks": ["BatchJob"]}}},
    })
    assert cluster.get_json("kueues.kueue.openshift.io/cluster")["spec"]["config"]["integrations"]["frameworks"] == [
        "BatchJob"
    ]


# ----------------------------------------------------------------------- RBAC
def test_rbac_reader_and_nobody(cluster):
    ok = cluster.kubectl("get", "deviceclasses", context="reader", check=False)
    assert ok.returncode == 0, ok.stderr
    ok = cluster.kubectl("get", "clusterqueues.kueue.x-k8s.io", "-A", context="reader", check=False)
    assert ok.returncode == 0, ok.stderr
    ok = cluster.kubectl("get", "--raw", "/metrics", context="reader", check=False)
    assert ok.returncode == 0 and "apiserver_request_total" in ok.stdout

    denied = cluster.kubectl("get", "deviceclasses", context="nobody", check=False)
    assert denied.returncode != 0
    assert "forbidden" in denied.stderr.lower()
    status, body = cluster.request("GET", "/apis/resource.k8s.io/v1/deviceclasses", user="nobody")
    assert status == 403, body

    denied = cluster.kubectl("get", "--raw", "/metrics", context="nobody", check=False)
    assert denied.returncode != 0 and "forbidden" in denied.stderr.lower()

    # The reader role is read-only.
    status, _ = cluster.request(
        "POST", "/apis/resource.k8s.io/v1/deviceclasses",
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": _unique("x")}},
        user="reader",
    )
    assert status == 403


def test_create_namespace_is_fresh(cluster):
    a, b = cluster.create_namespace("My_Test"), cluster.create_namespace("My_Test")
    assert a != b and a.startswith("my-test-")
    assert cluster.get_json("namespace", a)["status"]["phase"] == "Active"


# ----------------------------------------------------------------- DRA gates
def _device_class(name: str) -> dict:
    return device_class(name, f'device.driver == "{DRIVER}"', er="example.com/gpu")


def _partitioned_slices(prefix: str) -> tuple[dict, dict]:
    """A pool of two slices: the counter set, and a device that consumes from it.

    Since 1.35 a ResourceSlice holds either devices or shared counters, never both.
    """
    counters = resource_slice(f"{prefix}-counters", DRIVER, prefix, counter_sets={"gpu-0": {"memory": "40Gi"}},
                              slice_count=2, node="fake-node")
    part = device("gpu-0-part-0", [("gpu-0", {"memory": "10Gi"})], type="partition")
    part["capacity"] = {"memory": {"value": "10Gi"}}
    devices = resource_slice(f"{prefix}-devices", DRIVER, prefix, devices=[part], slice_count=2, node="fake-node")
    return counters, devices


def test_gates_on_keeps_extended_resource_name(cluster_gates_on, create):
    c = cluster_gates_on
    name = _unique("dc")
    create(c, _device_class(name))
    got = c.get_json("deviceclass", name)
    assert got["spec"]["extendedResourceName"] == "example.com/gpu"


def test_gates_off_drops_extended_resource_name(cluster_gates_off, create):
    c = cluster_gates_off
    name = _unique("dc")
    create(c, _device_class(name))
    got = c.get_json("deviceclass", name)
    assert "extendedResourceName" not in got["spec"]
    # The rest of the object is stored.
    assert got["spec"]["selectors"][0]["cel"]["expression"] == f'device.driver == "{DRIVER}"'


def test_gates_on_keeps_partitionable_fields(cluster_gates_on, create):
    c = cluster_gates_on
    prefix = _unique("pool")
    counters, devices = _partitioned_slices(prefix)
    written = kube_versions.slices_for([counters, devices], c.kube_version)  # 1.34: one slice
    create(c, written)
    stored = {s["metadata"]["name"]: s["spec"] for s in written}
    for name, spec in stored.items():
        got = c.get_json("resourceslice", name)["spec"]
        assert got.get("sharedCounters") == spec.get("sharedCounters")
        assert [d.get("consumesCounters") for d in got.get("devices") or []] == \
               [d.get("consumesCounters") for d in spec.get("devices") or []]
    assert any(s.get("sharedCounters") for s in stored.values())
    assert any(d.get("consumesCounters") for s in stored.values() for d in s.get("devices") or [])


def test_gates_on_refuses_the_layout_of_the_other_versions(cluster_gates_on, create):
    """1.35 and later: a slice holds devices or counter sets, never both. 1.34: a device's counter
    set must be in its own slice. Each refuses the other's layout."""
    c = cluster_gates_on
    counters, devices = _partitioned_slices(_unique("pool"))
    if kube_versions.minor(c.kube_version) >= kube_versions.SEPARATE_COUNTER_SLICES:
        both = dict(counters, spec=dict(counters["spec"], devices=devices["spec"]["devices"]))
        res = create(c, both, check=False)
        assert res.returncode != 0
        assert "only one of `sharedCounters` or `devices` is allowed" in res.stderr
    else:
        res = create(c, [counters, devices], check=False)
        assert res.returncode != 0
        assert ("must reference a counterSet defined in the ResourceSlice sharedCounters" in res.stderr), res.stderr


def test_gates_off_drops_partitionable_fields(cluster_gates_off, create):
    c = cluster_gates_off
    prefix = _unique("pool")
    counters, devices = _partitioned_slices(prefix)
    create(c, [counters, devices])
    got = c.get_json("resourceslice", f"{prefix}-counters")
    assert "sharedCounters" not in got["spec"]
    got = c.get_json("resourceslice", f"{prefix}-devices")
    dev = got["spec"]["devices"][0]
    assert "consumesCounters" not in dev
    assert dev["capacity"]["memory"]["value"] == "10Gi"


def _per_device_node_selection_slice(name: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "perDeviceNodeSelection": True,
            "devices": [{"name": "gpu-0", "nodeName": "fake-node"}],
        },
    }


def test_gates_on_accepts_per_device_node_selection(cluster_gates_on, create):
    name = _unique("pdns")
    create(cluster_gates_on, _per_device_node_selection_slice(name))
    got = cluster_gates_on.get_json("resourceslice", name)
    assert got["spec"]["perDeviceNodeSelection"] is True
    assert got["spec"]["devices"][0]["nodeName"] == "fake-node"


def test_gates_off_rejects_per_device_node_selection(cluster_gates_off, create):
    # The field is dropped first, and then the slice has no node selection at
    # all: not a silent drop but a validation error.
    res = create(cluster_gates_off, _per_device_node_selection_slice(_unique("pdns")), check=False)
    assert res.returncode != 0
    assert "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required" in res.stderr


@pytest.mark.parametrize("fixture, value", [("cluster_gates_on", "1"), ("cluster_gates_off", "0")])
def test_feature_gate_metrics(request, fixture, value):
    c = request.getfixturevalue(fixture)
    metrics = c.kubectl("get", "--raw", "/metrics", context="reader").stdout
    stage = dra_gate_stage(c.kube_version)  # BETA in 1.36, ALPHA in 1.34 and 1.35
    for gate in DRA_GATES:
        assert f'kubernetes_feature_enabled{{name="{gate}",stage="{stage}"}} {value}' in metrics.splitlines()
    assert 'kubernetes_feature_enabled{name="DynamicResourceAllocation",stage=""} 1' in metrics.splitlines()


# --------------------------------------------------------------- plugin runner
def test_run_plugin_runs_the_module(cluster):
    res = run_plugin(cluster, "--help")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip()
