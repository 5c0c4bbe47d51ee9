"""`classes` against the real API server: the same answers live as from the offline snapshot,
for the admin, the documented read-only role, a partially permitted user and a user with no
permissions."""

import json

import pytest

from testenv import setups
from testenv.harness import run_plugin

# every version: KUEUE_DRA_KUBE_VERSION selects the kube-apiserver (scripts/test runs them all)
pytestmark = pytest.mark.versions


def classes_json(cluster, *args, context="admin"):
    proc = run_plugin(cluster, "classes", "-o", "json", *args, context=context)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    doc.pop("source")
    return doc


@pytest.fixture(scope="module", params=setups.SETUPS)
def loaded(request, cluster_gates_on, tmp_path_factory):
    docs = setups.load(cluster_gates_on, request.param)
    snap = setups.snapshot(cluster_gates_on, docs, tmp_path_factory.mktemp("snap") / "snapshot.yaml")
    return request.param, snap


def test_live_equals_snapshot(cluster_gates_on, loaded):
    setup, snap = loaded
    live = classes_json(cluster_gates_on)
    offline = classes_json(cluster_gates_on, "--from", str(snap))
    assert live == offline
    assert live["partial"] is False
    by_name = {c["name"]: c for c in live["deviceClasses"]}
    if setup == "mig-partitionable":
        assert live["kueueConfig"] == {"kind": "Kueue", "name": "cluster", "namespace": None}
        assert by_name["mig.nvidia.com"]["quotaResource"] == "gpu.memory"
        assert by_name["mig.nvidia.com"]["matchingDevices"] == 2 * 8 * 14  # 2 nodes x 8 GPUs x 14 MIG placements
        assert by_name["gpu.nvidia.com"]["matchingDevices"] == 16
        assert by_name["mig.nvidia.com"]["coveredBy"] == ["research-cq"]
    elif setup == "extended-resource":
        # the newest of two classes sharing nvidia.com/gpu wins, live as offline
        assert by_name["gpu.nvidia.com"]["quotaResource"] == "nvidia.com/gpu"
        assert by_name["gpu.nvidia.com"]["quotaSource"] == "extendedResourceName"
        assert by_name["gpu-legacy.nvidia.com"]["quotaResource"] is None
        codes = {f["code"] for f in by_name["gpu-legacy.nvidia.com"]["findings"]}
        assert "NoQuotaResource" in codes
        # the shared name is one fact, said once: by the class that wins, naming the one that loses
        shared = [(c["name"], f["message"]) for c in live["deviceClasses"] for f in c["findings"]
                  if f["code"] == "DuplicateExtendedResourceName"]
        assert len(shared) == 1 and shared[0][0] == "gpu.nvidia.com" and "gpu-legacy.nvidia.com" in shared[0][1]
    else:
        assert live["kueueConfig"] == {"kind": "ConfigMap", "name": "kueue-manager-config",
                                       "namespace": "kueue-system"}
        assert by_name["gpu.nvidia.com"]["quotaResource"] == "whole-gpus"
        assert by_name["gpu.nvidia.com"]["matchingDevices"] == 8


def test_devices_live_equals_snapshot(cluster_gates_on, loaded):
    """classes --devices: the ResourceSlices as the API server stored them, grouped by shape, the
    same live and offline, and the same counts as the classes report."""
    setup, snap = loaded
    live = classes_json(cluster_gates_on, "--devices")
    assert live == classes_json(cluster_gates_on, "--devices", "--from", str(snap))
    assert classes_json(cluster_gates_on, "--devices", context="reader") == live
    report = {c["name"]: c["matchingDevices"] for c in classes_json(cluster_gates_on)["deviceClasses"]}
    assert {d["deviceClass"]: d["matchingDevices"] for d in live["devices"]} == report
    if setup == "mig-partitionable":
        [mig] = classes_json(cluster_gates_on, "--devices", "mig.nvidia.com")["devices"]
        # one shape per MIG profile: 3g.20gb and 4g.20gb consume the same memory
        assert {(s["profile"], s["consumesCounters"]["memory"]): s["devices"] for s in mig["shapes"]} == {
            ("1g.5gb", "4864Mi"): 112, ("2g.10gb", "9856Mi"): 48, ("3g.20gb", "19968Mi"): 32,
            ("4g.20gb", "19968Mi"): 16, ("7g.40gb", "40192Mi"): 16}
        assert all(s["counterSelectors"] == {"gpu.memory/memory": True} for s in mig["shapes"])
    proc = run_plugin(cluster_gates_on, "classes", "--devices", "absent.example.com")
    assert proc.returncode == 1 and proc.stderr.startswith('error: DeviceClass "absent.example.com" not found')


def test_reader_role_gets_the_same_answer(cluster_gates_on, loaded):
    """The same answer, but for the fixes that change an object: the read-only user is told that
    they may not, and who can (tests/cluster/test_fix_rights.py)."""
    reader, admin = classes_json(cluster_gates_on, context="reader"), classes_json(cluster_gates_on)
    told = []
    for c in reader["deviceClasses"]:
        for f in c["findings"]:
            if f["fix"] and " (you may not " in f["fix"]:
                told.append(f["code"])
                f["fix"] = f["fix"][:f["fix"].index(" (you may not ")]
    assert reader == admin
    assert not [f for c in admin["deviceClasses"] for f in c["findings"] if "you may not" in (f["fix"] or "")]
    if loaded[0] == "extended-resource":
        assert sorted(told) == ["DuplicateExtendedResourceName", "NoQuotaResource"]


def test_no_permission_user_gets_clear_403(cluster_gates_on, loaded):
    proc = run_plugin(cluster_gates_on, "classes", context="nobody")
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "error: cannot list deviceclasses.resource.k8s.io at cluster scope: forbidden (as nobody); ask for list "
        "on deviceclasses.resource.k8s.io through a ClusterRole (the plugin's read-only ClusterRole is in "
        "deploy/rbac/reader-clusterrole.yaml)"]
    assert "Traceback" not in proc.stderr


def test_partial_read_is_marked_and_carries_on(cluster_gates_on, loaded):
    """A user who may read DeviceClasses but not ResourceSlices (impersonated with --as) still gets
    the classes, with device counts unknown and the answer marked partial."""
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "dc-only"},
            "rules": [{"apiGroups": ["resource.k8s.io"], "resources": ["deviceclasses"], "verbs": ["get", "list"]}]}
    binding = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "dc-only"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "dc-only"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "dc-only-user"}]}
    cluster_gates_on.apply([role, binding])
    doc = classes_json(cluster_gates_on, "--as", "dc-only-user")
    assert doc["partial"] is True
    unreadable = [f["message"] for f in doc["findings"] if f["code"] == "Unreadable"]
    assert any("cannot list resourceslices.resource.k8s.io at cluster scope: forbidden" in m for m in unreadable)
    assert all(c["matchingDevices"] is None for c in doc["deviceClasses"])
    assert doc["deviceClasses"], "the classes themselves are still listed"


def test_a_malformed_configuration_on_the_server_is_named_not_a_crash(cluster_gates_on):
    """The API server stores any text in a ConfigMap: a Kueue configuration with fields of the
    wrong type is reported field by field (and the answer is partial), by every read command."""
    cluster = cluster_gates_on
    ns = cluster.create_namespace("badcfg")
    text = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
            "resources:\n  deviceClassMappings: 5\n  excludeResourcePrefixes: gc\n"
            "managedJobsNamespaceSelector: [oops]\n")
    cluster.apply({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "kueue-manager-config", "namespace": ns},
                   "data": {"controller_manager_config.yaml": text}})
    try:
        for command in ("classes", "map", "verify"):
            proc = run_plugin(cluster, command, "--kueue-namespace", ns, "-o", "json")
            assert proc.returncode in (0, 1), (command, proc.stderr)
            assert "internal error" not in proc.stderr, (command, proc.stderr)
            doc = json.loads(proc.stdout)
            text_out = json.dumps(doc)
            for field in ("resources.deviceClassMappings", "resources.excludeResourcePrefixes",
                          "managedJobsNamespaceSelector"):
                assert f"data.controller_manager_config.yaml.{field}" in text_out, (command, field)
            if command != "verify":
                assert doc["partial"] is True, command
    finally:
        cluster.kubectl("delete", "-n", ns, "configmap/kueue-manager-config", "--ignore-not-found")
